#!/usr/bin/env bash
# MUL_MAT_ID over tiled expert stacks: with every test tensor of a tiled type repacked
# (GGML_HEXAGON_REPACK=all), test-backend-ops' MUL_MAT_ID cases of tiled formats pass on HTP0,
# the per-op log (GGML_HEXAGON_VERBOSE=1) shows them on the tiled kernels (MUL_MAT_ID_TILED
# for up to 8 tokens, MUL_MAT_ID_HMX above: GGML_HEXAGON_MM_HVX_ROWS=8, so the cases' token
# counts reach both), none on the flat one, and no expert stack was
# un-repacked ("turned flat" from the repack records), so a stack silently flattened before
# use fails here.
# usage: mul-mat-id-tiled.sh BIN_DIR
set -uo pipefail
bin=$1
# Whole stacks (m_v=0: no strided view) of tiled formats, small expert counts.
cases='^type_a=(q4_0|q4_1|q5_0|q5_1|q8_0|iq4_nl|q2_K|q3_K|q4_K|q5_K|q6_K|mxfp4),type_b=f32,n_mats=(4|8|16|32),.*,m_v=0$'
out=$(GGML_HEXAGON_REPACK=all GGML_HEXAGON_MM_HVX_ROWS=8 GGML_HEXAGON_VERBOSE=1 \
      "$bin/test-backend-ops" test -b HTP0 -o MUL_MAT_ID -p "$cases" 2>&1)
rc=$?
line=$(grep -E '^ *[0-9]+/[0-9]+ tests passed' <<<"$out" | tail -n 1)
tiled=$(grep -cE "ggml-hexagon: HTP0: op MUL_MAT_ID .*\(kernel MUL_MAT_ID_TILED\)" <<<"$out" || true)
hmx=$(grep -cE "ggml-hexagon: HTP0: op MUL_MAT_ID .*\(kernel MUL_MAT_ID_HMX\)" <<<"$out" || true)
flat=$(grep -E "ggml-hexagon: HTP0: op MUL_MAT_ID " <<<"$out" | grep -vc "(kernel " || true)  # its own kernel
unrepacked=$(grep -c 'turned flat' <<<"$out" || true)
echo "MUL_MAT_ID (tiled stacks): ${line:-no result line}; kernel runs: $tiled tiled HVX, $hmx HMX, $flat flat; un-repacked: $unrepacked"
n=$(sed -E 's#^ *([0-9]+)/([0-9]+).*#\1#' <<<"$line"); m=$(sed -E 's#^ *([0-9]+)/([0-9]+).*#\2#' <<<"$line")
if [ -z "$line" ] || [ "$m" -eq 0 ] || [ "$n" -ne "$m" ] || [ "$rc" -ne 0 ]; then
    grep -E 'FAIL|error' <<<"$out" | head
    echo "FAIL: cases failed (exit $rc)"
    exit 1
fi
[ "$tiled" -gt 0 ] || { echo "FAIL: no MUL_MAT_ID ran on the tiled HVX kernel"; exit 1; }
[ "$hmx" -gt 0 ] || { echo "FAIL: no MUL_MAT_ID ran on the HMX kernel"; exit 1; }
[ "$flat" -eq 0 ] || { echo "FAIL: $flat MUL_MAT_ID ran on the flat kernel"; exit 1; }
[ "$unrepacked" -eq 0 ] || { echo "FAIL: an expert stack was turned flat"; exit 1; }
echo "PASS"
