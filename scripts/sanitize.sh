#!/usr/bin/env bash
# The sanitizer jobs CI runs after the test suite (.ci/run): two more builds of the project,
#   asan   AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/): every unit test (the
#          runtime, the kernels on the device-API double, the dispatcher fuzzer) and
#          test-backend-ops on HTP0 for a representative set of ops, one of them on a group;
#   tsan   ThreadSanitizer (build-tsan/): the runtime's unit tests (sessions, NPUs shared by
#          sessions, device groups, DMA and work queues, streams, the DSP processes);
# each must be clean: any report fails the job (halt_on_error).
#   scripts/sanitize.sh [asan|tsan]...    (default: both)   env: JOBS
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
jobs=()
for a in "$@"; do
    case "$a" in
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        asan|tsan) jobs+=("$a") ;;
        *) die "unknown argument '$a' (asan, tsan; see --help)" ;;
    esac
done
[ ${#jobs[@]} -gt 0 ] || jobs=(asan tsan)
"$ROOT/scripts/deps.sh"

# clang's sanitizer runtimes (Debian's libclang-rt-16-dev, which clang-16 recommends).
rt=$(clang-16 -print-file-name=libclang_rt.asan-x86_64.so)
if [ ! -f "$rt" ]; then
    log "installing Debian packages: libclang-rt-16-dev"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libclang-rt-16-dev
fi
[ -f "$rt" ] || die "no ASan runtime at $rt"

run_asan() {
    local dir=$ROOT/build-asan
    # The NPU libraries themselves, not their counting and VTCM check variants (the op suites
    # then run the libraries users load).
    GGML_HEXAGON_BUILD=$dir "$ROOT/scripts/build.sh" -DGGML_HEXAGON_SANITIZE=address,undefined \
        -DGGML_HEXAGON_COUNTERS=OFF -DGGML_HEXAGON_VTCM_CHECK_LIBS=OFF \
        -DCMAKE_CXX_FLAGS="-fno-sanitize-recover=all -shared-libasan" -DCMAKE_C_FLAGS="-shared-libasan" \
        "-DCMAKE_SHARED_LINKER_FLAGS=-shared-libasan -Wl,-rpath,$(dirname "$rt")" \
        "-DCMAKE_EXE_LINKER_FLAGS=-shared-libasan -Wl,-rpath,$(dirname "$rt")"
    # The llama.cpp tools are not instrumented: they get the runtime preloaded. The vHTP's own
    # SIGSEGV handler (MMU faults, the L2 model) stays in charge of its window's faults.
    export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=0:allow_user_segv_handler=1:handle_segv=0:detect_stack_use_after_return=0
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    log "asan: unit tests"
    (cd "$dir" && ctest -L unit -LE full -j "$JOBS" --output-on-failure) || die "asan: unit tests failed"
    log "asan: test-backend-ops on HTP0 (ADD, MUL, RMS_NORM, SOFT_MAX, ROPE, GET_ROWS, SET_ROWS, CPY, MUL_MAT, FLASH_ATTN_EXT@ci) and a group (ADD, MUL_MAT)"
    (cd "$dir" && LD_PRELOAD=$rt ctest -j "$JOBS" --output-on-failure \
        -R '^ops\.(ADD|MUL|RMS_NORM|SOFT_MAX|ROPE|GET_ROWS|SET_ROWS|CPY|MUL_MAT|FLASH_ATTN_EXT\.ci|ADD\.mdev2|MUL_MAT\.mdev2)$') ||
        die "asan: test-backend-ops failed"
}

run_tsan() {
    local dir=$ROOT/build-tsan
    # The shared runtime, as for ASan: the libraries link with --no-undefined (npu/CMakeLists.txt).
    # Only what these tests run: the runtime, the DSP, the NPU libraries and the fixtures.
    BUILD_TARGETS="ggml-vhtp ggml-vhtp-dsp ggml-htp-v73 ggml-htp-v75 ggml-htp-v79 ggml-htp-v81 fixture_npu
        fixture_mdev fixture_nohandle test_session test_npu test_mdev test_mdev_check test_dma_queue test_work_queue
        test_stream test_window test_hmx test_dispatcher_window test_dispatcher_fuzz test_dsp_processes" \
        GGML_HEXAGON_BUILD=$dir "$ROOT/scripts/build.sh" -DGGML_HEXAGON_SANITIZE=thread \
        -DGGML_HEXAGON_COUNTERS=OFF -DGGML_HEXAGON_VTCM_CHECK_LIBS=OFF \
        -DCMAKE_CXX_FLAGS=-shared-libsan -DCMAKE_C_FLAGS=-shared-libsan \
        "-DCMAKE_SHARED_LINKER_FLAGS=-shared-libsan -Wl,-rpath,$(dirname "$rt")" \
        "-DCMAKE_EXE_LINKER_FLAGS=-shared-libsan -Wl,-rpath,$(dirname "$rt")"
    # scripts/tsan.supp: the reports we know are not bugs, each with its reason.
    export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/scripts/tsan.supp
    # Two tests plant an MMU fault whose handler jumps out of the faulting kernel (siglongjmp,
    # vhtp/src/fault.cpp): TSan cannot follow that jump; ASan runs them.
    export GTEST_FILTER='-Session.FaultsAreAnsweredAndTheSessionGoesOn:WindowTest.UnmappedAddressesAreReportedMmuFaults'
    # unit.test_mdev (the fence barrier on the device-API double) once hung here in
    # MdevFence.APeersErrorUnblocksEveryoneWithThatError: a slot's seq and status were two
    # stores, so a member could take a peer's error one barrier early and leave without
    # signalling, and a member waiting for it watched it alone (fixed in npu/src/mdev.cpp).
    log "tsan: the runtime's unit tests"
    (cd "$dir" && ctest -j "$JOBS" --output-on-failure \
        -R '^unit\.test_(session|npu|mdev|mdev_check|dma_queue|work_queue|stream|window|hmx|dispatcher_window|dispatcher_fuzz|dsp_processes)$') ||
        die "tsan: unit tests failed"
}

for j in "${jobs[@]}"; do
    "run_$j"
done
log "sanitizers clean: ${jobs[*]}"
