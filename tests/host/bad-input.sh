#!/usr/bin/env bash
# Bad configuration gives one clear log line naming the problem, and nothing crashes; the tool
# still runs. A value that says which devices there are or what they are (DEVICES, ARCH, NHVX,
# DMA64, VTCM_SIZE, ...) registers no HTP device; a bad feature value is ignored for its
# default, named in the line, and HTP0 stays (README.md "Environment variables"). test-backend-ops
# is the probe: it logs through ggml's synchronous default logger (llama-cli's asynchronous
# logger may drop lines at exit) and lists the devices it loaded as "Backend k/n: NAME".
set -uo pipefail
bin=$1
fail() { echo "FAIL: $*"; exit 1; }

# expect_refused "what" "pattern of the error line" [env assignments...]
expect_refused() {
    local what=$1 pattern=$2; shift 2
    local out rc
    out=$(env "$@" "$bin/test-backend-ops" test -b __none__ -o __none__ 2>&1); rc=$?
    [ $rc -eq 0 ] || fail "$what: test-backend-ops exited $rc (crash?): $out"
    grep -qE '^Backend [0-9]+/[0-9]+: CPU' <<<"$out" || fail "$what: the CPU backend was not listed: $out"
    grep -qE '^Backend [0-9]+/[0-9]+: HTP' <<<"$out" && fail "$what: an HTP device was registered: $out"
    local n
    n=$(grep -cE "^ggml-hexagon: .*$pattern" <<<"$out")
    [ "$n" -eq 1 ] || fail "$what: expected one error line matching '$pattern', got $n: $out"
    [ "$(grep -c '^ggml-hexagon:' <<<"$out")" -eq 1 ] || fail "$what: more than one line from ggml-hexagon: $out"
    echo "ok: $what -> $(grep -E "^ggml-hexagon: .*$pattern" <<<"$out")"
}

# expect_kept "what" "pattern of the warning line" [env assignments...]: HTP0 registered, and
# exactly one line from the backend, the warning.
expect_kept() {
    local what=$1 pattern=$2; shift 2
    local out rc
    out=$(env "$@" "$bin/test-backend-ops" test -b __none__ -o __none__ 2>&1); rc=$?
    [ $rc -eq 0 ] || fail "$what: test-backend-ops exited $rc (crash?): $out"
    grep -qE '^Backend [0-9]+/[0-9]+: HTP0' <<<"$out" || fail "$what: HTP0 was not registered: $out"
    [ "$(grep -cE "^ggml-hexagon: .*$pattern" <<<"$out")" -eq 1 ] ||
        fail "$what: expected one line matching '$pattern': $out"
    [ "$(grep -c '^ggml-hexagon:' <<<"$out")" -eq 1 ] || fail "$what: more than one line from ggml-hexagon: $out"
    echo "ok: $what -> HTP0 kept, $(grep -E "^ggml-hexagon: .*$pattern" <<<"$out")"
}

# What the devices are: refused.
expect_refused "malformed device list" "GGML_HEXAGON_DEVICES=HTP0:zz" GGML_HEXAGON_DEVICES=HTP0:zz
expect_refused "unknown device name" "GGML_HEXAGON_DEVICES=NPU3" GGML_HEXAGON_DEVICES=NPU3
expect_refused "zero sessions" "GGML_HEXAGON_DEVICES=0: expected a session count of 1 or more" GGML_HEXAGON_DEVICES=0
expect_refused "session past an NPU's last" "'HTP9' .*8 sessions per NPU" GGML_HEXAGON_DEVICES=HTP9
expect_refused "unknown arch" "GGML_HEXAGON_ARCH=v99" GGML_HEXAGON_ARCH=v99
expect_refused "reversed group range" "range 3-1 is reversed" "GGML_HEXAGON_DEVICES=HTP0[3-1]"
expect_refused "empty group" "an empty NPU list" "GGML_HEXAGON_DEVICES=HTP0[]"
expect_refused "a session in two groups" "listed twice" "GGML_HEXAGON_DEVICES=HTP0[0-1],HTP1[1-2]"
expect_refused "NPU index past the last" "at most 16 NPUs" "GGML_HEXAGON_DEVICES=HTP0[14-16]"
expect_refused "DMA64 not 0/1" "GGML_HEXAGON_DMA64=64" GGML_HEXAGON_DMA64=64
expect_refused "DMA_THREAD not 0/1" "GGML_HEXAGON_DMA_THREAD=yes" GGML_HEXAGON_DMA_THREAD=yes
expect_refused "DMA_PREFETCH not 0/1" "GGML_HEXAGON_DMA_PREFETCH=2" GGML_HEXAGON_DMA_PREFETCH=2
expect_refused "DMA64=1 below v81" "GGML_HEXAGON_DMA64=1: v79 has no 64-bit DMA bases" GGML_HEXAGON_DMA64=1
expect_refused "NHVX above the arch's" "GGML_HEXAGON_NHVX=7: expected 1..6 HVX threads for v79" GGML_HEXAGON_NHVX=7
expect_refused "VTCM_SIZE not whole pages" "GGML_HEXAGON_VTCM_SIZE=5000: expected a multiple of 4096" GGML_HEXAGON_VTCM_SIZE=5000
expect_refused "VTCM_SIZE above the NPU's" "asks for 16 MiB of VTCM, 8 MiB left" GGML_HEXAGON_VTCM_SIZE=16777216
expect_refused "VMEM not a number" "GGML_HEXAGON_VMEM=lots" GGML_HEXAGON_VMEM=lots
# Features and knobs (upstream's names, README.md "Environment variables"): warned, HTP0 kept.
expect_kept "bad regex" "GGML_HEXAGON_OPFILTER=\(ADD: not a valid regular expression.*no op filtered" "GGML_HEXAGON_OPFILTER=(ADD"
expect_kept "OPFUSION not 0/1" "GGML_HEXAGON_OPFUSION=on: expected an integer in 0..1; ignored, using 1" GGML_HEXAGON_OPFUSION=on
expect_kept "OPPOLL not 0/1" "GGML_HEXAGON_OPPOLL=yes: .*ignored, using 0" GGML_HEXAGON_OPPOLL=yes
expect_kept "OPQUEUE not positive" "GGML_HEXAGON_OPQUEUE=0: expected a positive integer; ignored, using 16" GGML_HEXAGON_OPQUEUE=0
expect_kept "OPQUEUE not a number" "GGML_HEXAGON_OPQUEUE=deep: expected a positive integer" GGML_HEXAGON_OPQUEUE=deep
expect_kept "OPSTAGE past its two bits" "GGML_HEXAGON_OPSTAGE=4: expected an integer in 0..3; ignored, using 3" GGML_HEXAGON_OPSTAGE=4
expect_kept "AR_SELECT not 0/1" "GGML_HEXAGON_AR_SELECT=yes" GGML_HEXAGON_AR_SELECT=yes
expect_kept "MM_SELECT unknown" "GGML_HEXAGON_MM_SELECT=4: expected one of 3, 2, 1, auto, hvx, hmx, flat; ignored, using 3" GGML_HEXAGON_MM_SELECT=4
expect_kept "FA_SELECT unknown" "GGML_HEXAGON_FA_SELECT=fast: expected one of 0, 1, 2; ignored, using 2" GGML_HEXAGON_FA_SELECT=fast
expect_kept "PROFILE of another form" "GGML_HEXAGON_PROFILE=0x3,0x111: expected a level 0..3 or a list of 8 PMU event ids" GGML_HEXAGON_PROFILE=0x3,0x111
expect_kept "MBUF zero" "GGML_HEXAGON_MBUF=0: expected an integer in 1..1048576; ignored, using 1024" GGML_HEXAGON_MBUF=0
expect_kept "OPTRACE negative" "GGML_HEXAGON_OPTRACE=-1" GGML_HEXAGON_OPTRACE=-1

# Older names still work: HTP0 registered, one warning naming the new name.
expect_kept "deprecated FUSE" "GGML_HEXAGON_FUSE is deprecated, use GGML_HEXAGON_OPFUSION=0" GGML_HEXAGON_FUSE=0
expect_kept "deprecated ALLREDUCE" "GGML_HEXAGON_ALLREDUCE is deprecated, use GGML_HEXAGON_AR_SELECT=0" GGML_HEXAGON_ALLREDUCE=0
expect_kept "upstream's older USE_HMX" "GGML_HEXAGON_USE_HMX is deprecated, use GGML_HEXAGON_NHMX=0" GGML_HEXAGON_USE_HMX=0
expect_kept "deprecated NDEV" "GGML_HEXAGON_NDEV is deprecated, use GGML_HEXAGON_DEVICES=1" GGML_HEXAGON_NDEV=1
expect_kept "a count above an NPU's sessions" "GGML_HEXAGON_DEVICES=9: an NPU has at most 8 sessions; using 8" GGML_HEXAGON_DEVICES=9

# The vHTP's own knob, read where the sessions run: one line from the vHTP, HTP0 kept, nothing
# from the backend.
out=$(GGML_HEXAGON_HMX_MODEL=double "$bin/test-backend-ops" test -b __none__ -o __none__ 2>&1) ||
    fail "HMX_MODEL unknown: test-backend-ops exited $? (crash?): $out"
grep -qE '^Backend [0-9]+/[0-9]+: HTP0' <<<"$out" || fail "HMX_MODEL unknown: HTP0 was not registered: $out"
[ "$(grep -c '^vhtp: GGML_HEXAGON_HMX_MODEL=double: expected fp32 or exact; ignored, using fp32$' <<<"$out")" -eq 1 ] ||
    fail "HMX_MODEL unknown: expected one vhtp line naming the variable: $out"
[ "$(grep -c '^ggml-hexagon:' <<<"$out")" -eq 0 ] || fail "HMX_MODEL unknown: a line from ggml-hexagon: $out"
echo "ok: HMX_MODEL unknown -> HTP0 kept, $(grep '^vhtp: GGML_HEXAGON_HMX_MODEL' <<<"$out")"

# A missing NPU library: a copy of bin/ without libggml-htp-v81.so (hard links, so the tool's
# own folder, where ggml looks for backends, is the copy).
tmp=$(mktemp -d "$bin/../bad-input.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for f in "$bin"/*; do
    case "$(basename "$f")" in libggml-htp-v81.so) continue ;; esac
    ln "$f" "$tmp/" 2>/dev/null || cp -P "$f" "$tmp/"
done
bin=$tmp expect_refused "missing NPU library" "libggml-htp-v81.so" GGML_HEXAGON_ARCH=v81
echo "PASS"
