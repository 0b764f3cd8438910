#!/usr/bin/env bash
# Bad configuration gives one clear log line naming the problem and registers no HTP device;
# the tool still runs (on the CPU) and nothing crashes. test-backend-ops is the probe: it logs
# through ggml's synchronous default logger (llama-cli's asynchronous logger may drop lines at
# exit) and lists the devices it loaded as "Backend k/n: NAME".
set -uo pipefail
bin=$1
fail() { echo "FAIL: $*"; exit 1; }

# expect_refused "what" "pattern of the error line" [env assignments...]
expect_refused() {
    local what=$1 pattern=$2; shift 2
    local out rc
    out=$(env "$@" "$bin/test-backend-ops" test -b __none__ -o __none__ 2>&1); rc=$?
    [ $rc -eq 0 ] || fail "$what: test-backend-ops exited $rc (crash?): $out"
    echo "$out" | grep -qE '^Backend [0-9]+/[0-9]+: CPU' || fail "$what: the CPU backend was not listed: $out"
    echo "$out" | grep -qE '^Backend [0-9]+/[0-9]+: HTP' && fail "$what: an HTP device was registered: $out"
    local n
    n=$(echo "$out" | grep -cE "^ggml-hexagon: .*$pattern")
    [ "$n" -eq 1 ] || fail "$what: expected one error line matching '$pattern', got $n: $out"
    [ "$(echo "$out" | grep -c '^ggml-hexagon:')" -eq 1 ] || fail "$what: more than one line from ggml-hexagon: $out"
    echo "ok: $what -> $(echo "$out" | grep -E "^ggml-hexagon: .*$pattern")"
}

expect_refused "malformed device list" "GGML_HEXAGON_DEVICES=HTP0:zz" GGML_HEXAGON_DEVICES=HTP0:zz
expect_refused "unknown device name" "GGML_HEXAGON_DEVICES=NPU3" GGML_HEXAGON_DEVICES=NPU3
expect_refused "device count out of range" "GGML_HEXAGON_DEVICES=99" GGML_HEXAGON_DEVICES=99
expect_refused "unknown arch" "GGML_HEXAGON_ARCH=v99" GGML_HEXAGON_ARCH=v99
expect_refused "bad regex" "GGML_HEXAGON_OPFILTER" "GGML_HEXAGON_OPFILTER=(ADD"
expect_refused "reversed group range" "range 3-1 is reversed" "GGML_HEXAGON_DEVICES=HTP0[3-1]"
expect_refused "empty group" "an empty NPU list" "GGML_HEXAGON_DEVICES=HTP0[]"
expect_refused "a session in two groups" "listed twice" "GGML_HEXAGON_DEVICES=HTP0[0-1],HTP1[1-2]"
expect_refused "NPU index past the last" "at most 16 NPUs" "GGML_HEXAGON_DEVICES=HTP0[14-16]"
# Upstream's names (README.md "Environment variables") and our deprecated alias.
expect_refused "OPFUSION not 0/1" "GGML_HEXAGON_OPFUSION=on" GGML_HEXAGON_OPFUSION=on
expect_refused "FUSE (alias) not 0/1" "GGML_HEXAGON_FUSE=2" GGML_HEXAGON_FUSE=2
expect_refused "OPPOLL not 0/1" "GGML_HEXAGON_OPPOLL=yes" GGML_HEXAGON_OPPOLL=yes
expect_refused "OPQUEUE not positive" "GGML_HEXAGON_OPQUEUE=0: expected a positive integer" GGML_HEXAGON_OPQUEUE=0
expect_refused "OPQUEUE not a number" "GGML_HEXAGON_OPQUEUE=deep: expected a positive integer" GGML_HEXAGON_OPQUEUE=deep
expect_refused "OPSTAGE not 0/1" "GGML_HEXAGON_OPSTAGE=3" GGML_HEXAGON_OPSTAGE=3
expect_refused "DMA64 not 0/1" "GGML_HEXAGON_DMA64=64" GGML_HEXAGON_DMA64=64
expect_refused "ALLREDUCE not 0/1" "GGML_HEXAGON_ALLREDUCE=yes" GGML_HEXAGON_ALLREDUCE=yes
expect_refused "DMA_THREAD not 0/1" "GGML_HEXAGON_DMA_THREAD=yes" GGML_HEXAGON_DMA_THREAD=yes
expect_refused "DMA64=1 below v81" "GGML_HEXAGON_DMA64=1: v79 has no 64-bit DMA bases" GGML_HEXAGON_DMA64=1
expect_refused "MM_SELECT given a number" "GGML_HEXAGON_MM_SELECT=1: .*auto, hvx or hmx" GGML_HEXAGON_MM_SELECT=1

# The deprecated alias still works: HTP0 registered, one warning naming the new name.
out=$(GGML_HEXAGON_FUSE=0 "$bin/test-backend-ops" test -b __none__ -o __none__ 2>&1)
echo "$out" | grep -qE '^Backend [0-9]+/[0-9]+: HTP0' || fail "GGML_HEXAGON_FUSE=0: HTP0 not registered: $out"
[ "$(echo "$out" | grep -c '^ggml-hexagon: GGML_HEXAGON_FUSE is deprecated, use GGML_HEXAGON_OPFUSION=0')" -eq 1 ] ||
    fail "GGML_HEXAGON_FUSE=0: expected one deprecation warning: $out"
echo "ok: deprecated alias -> $(echo "$out" | grep 'is deprecated')"

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
