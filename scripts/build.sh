#!/usr/bin/env bash
# Builds ggml-hexagon (host backend, vHTP, NPU libraries v73..v81, tests) into $BUILD
# (default ./build) and stages the llama.cpp tools beside our libraries in $BUILD/bin.
#   scripts/build.sh [-DVAR=VALUE...]   env: GGML_HEXAGON_BUILD (build folder), JOBS, CXX/CC (clang-16),
#                                       GGML_HEXAGON_CCACHE=1 (compile through ccache),
#                                       BUILD_TARGETS (only these targets, e.g. "test_session test_npu")
# -D/-U arguments go to cmake's configure step (e.g. -DGGML_HEXAGON_SANITIZE=address,undefined).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
for arg in "$@"; do
    case "$arg" in
        -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
        -D?*|-U?*) ;;
        *) die "unknown argument '$arg': only -DVAR=VALUE / -UVAR go to cmake (see --help)" ;;
    esac
done

model_arg=()
[ -f "$MODEL" ] && model_arg=(-DGGML_HEXAGON_MODEL="$MODEL")
# The compiler of a new build folder: $CXX / $CC when set, else clang-16 (scripts/deps.sh installs
# it). GCC keeps every 128-byte HVX vector in memory between emulated instructions, clang keeps
# them in AVX2 registers: the NPU kernels run several times faster (docs/hvx-microbench.md).
compiler_args=()
if [ ! -f "$BUILD/CMakeCache.txt" ] && [ -z "${CXX:-}" ]; then
    command -v clang++-16 >/dev/null || die "no clang++-16: run scripts/deps.sh first (or set CXX and CC)"
    compiler_args=(-DCMAKE_CXX_COMPILER=clang++-16 -DCMAKE_C_COMPILER=clang-16)
fi
# GGML_HEXAGON_CCACHE=1 (a new build folder): compile through ccache (scripts/deps.sh installs it)
# with paths relative to the checkout's parent, so several checkouts share objects. Off by
# default: a shared object keeps the first checkout's folder in its debug information.
if [ ! -f "$BUILD/CMakeCache.txt" ] && [ "${GGML_HEXAGON_CCACHE:-0}" = 1 ]; then
    command -v ccache >/dev/null || die "GGML_HEXAGON_CCACHE=1 but no ccache: run scripts/deps.sh first"
    compiler_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$ROOT")} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
if [ ! -f "$BUILD/build.ninja" ] || [ $# -gt 0 ]; then
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${compiler_args[@]}" \
        -DLLAMA_SRC="$LLAMA_SRC" -DLLAMA_BUILD="$LLAMA_BUILD" -DGGML_HEXAGON_WERROR=ON "${model_arg[@]}" "$@" >/dev/null
fi
log "building ggml-hexagon in $BUILD${BUILD_TARGETS:+ (targets: $BUILD_TARGETS)}"
targets=()
for t in ${BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$BUILD" -j "$JOBS" "${targets[@]}"
