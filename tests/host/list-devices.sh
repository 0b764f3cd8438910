#!/usr/bin/env bash
# llama.cpp tools list our devices with no environment variable, and GGML_HEXAGON_DEVICES
# changes what they list.
set -uo pipefail
bin=$1
fail() { echo "FAIL: $*"; exit 1; }
list() { env -u GGML_HEXAGON_DEVICES -u GGML_HEXAGON_NDEV "$@" "$bin/llama-cli" --list-devices 2>&1; }

out=$(list) || fail "llama-cli --list-devices exited $?: $out"
grep -qE '^ *HTP0: Hexagon v79' <<<"$out" || fail "HTP0 not listed with no env var: $out"
[ "$(grep -cE '^ *HTP[0-9]' <<<"$out")" -eq 1 ] || fail "expected exactly one HTP device: $out"

# A count is that many sessions of NPU 0 (upstream's meaning), sharing its VTCM: a third each.
out=$(list GGML_HEXAGON_DEVICES=3)
for i in 0 1 2; do
    grep -qE "^ *HTP$i: Hexagon v79 virtual HTP, session $i of NPU 0 shared by 3 sessions \(.*2728 KiB VTCM" <<<"$out" ||
        fail "GGML_HEXAGON_DEVICES=3 did not list HTP$i as session $i of NPU 0 with a third of its VTCM: $out"
done
# The deprecated NDEV means the same (its deprecation line: host.bad_input).
out=$(list GGML_HEXAGON_NDEV=2)
grep -qE "^ *HTP1: .*session 1 of NPU 0 shared by 2 sessions" <<<"$out" || fail "GGML_HEXAGON_NDEV=2: $out"
# One pool: two sessions cannot take 6 MiB each of NPU 0's 8 MiB (the second is refused, in one
# line, and no device is registered); on two NPUs they can.
out=$(list GGML_HEXAGON_DEVICES=2 GGML_HEXAGON_VTCM_SIZE=0x600000)
grep -qE "ggml-hexagon: HTP1: cannot open session 1 of NPU 0: .*6 MiB of VTCM, 2 MiB left" <<<"$out" ||
    fail "two sessions of one NPU took 6 MiB of VTCM each: $out"
grep -qE '^ *HTP[0-9]' <<<"$out" && fail "a device was registered after the VTCM refusal: $out"
out=$(list GGML_HEXAGON_DEVICES=HTP0:0,HTP1:0 GGML_HEXAGON_VTCM_SIZE=0x600000)
for d in HTP0:0 HTP1:0; do
    grep -qE "^ *$d: Hexagon v79 virtual HTP \(.*6 MiB VTCM" <<<"$out" || fail "$d (own NPU) without its 6 MiB: $out"
done
# A count above an NPU's sessions is capped (its warning: host.bad_input).
out=$(list GGML_HEXAGON_DEVICES=12)
[ "$(grep -cE '^ *HTP[0-9]+: ' <<<"$out")" -eq 8 ] || fail "GGML_HEXAGON_DEVICES=12 did not give 8 sessions: $out"

out=$(list GGML_HEXAGON_DEVICES=HTP0:0,HTP0:1,HTP1:0)
for d in HTP0:0 HTP0:1 HTP1:0; do grep -qE "^ *$d: " <<<"$out" || fail "$d not listed: $out"; done

out=$(list GGML_HEXAGON_ARCH=v73)
grep -qE '^ *HTP0: Hexagon v73' <<<"$out" || fail "GGML_HEXAGON_ARCH=v73 not reflected: $out"
grep -q '64-bit DMA bases' <<<"$out" && fail "a v73 with 64-bit DMA bases: $out"

# v81: 64-bit DMA bases by default (and the 64 GiB budget), GGML_HEXAGON_DMA64=0 turns them off.
out=$(list -u GGML_HEXAGON_DMA64 -u GGML_HEXAGON_VMEM GGML_HEXAGON_ARCH=v81 GGML_HEXAGON_VERBOSE=1)
grep -qE '^ *HTP0: Hexagon v81 .*64-bit DMA bases' <<<"$out" || fail "v81 without 64-bit DMA bases by default: $out"
grep -qE '^ggml-hexagon: HTP0: .*64-bit DMA bases.*, 65536 MiB mappable' <<<"$out" ||
    fail "v81's 64-bit DMA bases without their 64 GiB budget: $out"
out=$(list -u GGML_HEXAGON_VMEM GGML_HEXAGON_ARCH=v81 GGML_HEXAGON_DMA64=0)
grep -qE '^ *HTP0: Hexagon v81' <<<"$out" || fail "v81 with GGML_HEXAGON_DMA64=0 not listed: $out"
grep -q '64-bit DMA bases' <<<"$out" && fail "GGML_HEXAGON_DMA64=0 still has 64-bit DMA bases: $out"
echo "PASS"
