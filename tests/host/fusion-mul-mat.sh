#!/usr/bin/env bash
# MUL_MAT fusions (docs/mul-mat.md "Fusions"): test-backend-ops' MUL_MAT_VEC_FUSION cases
# (MUL_MAT -> bias ADD, gate / up MUL_MATs sharing one activation, then a GLU) pass on HTP0
# against the CPU, and the per-op log (GGML_HEXAGON_VERBOSE=1) shows that the fused
# MUL_MAT+ADD ops and the activation reuse really ran, so a fusion that silently stopped
# applying fails here instead of passing on the unfused path. Run twice: flat weights (flat
# HVX path) and every tiled-type tensor repacked (GGML_HEXAGON_REPACK=all: tiled HVX path).
# usage: fusion-mul-mat.sh BIN_DIR
set -uo pipefail
bin=$1
status=0
for repack in 1 all; do
    out=$(GGML_HEXAGON_REPACK=$repack GGML_HEXAGON_VERBOSE=1 "$bin/test-backend-ops" test -b HTP0 \
          -o MUL_MAT_VEC_FUSION 2>&1)
    line=$(grep -E '^ *[0-9]+/[0-9]+ tests passed' <<<"$out" | tail -n 1)
    fused=$(grep -c 'ggml-hexagon: HTP0: op MUL_MAT+ADD ' <<<"$out" || true)
    reused=$(grep -c 'ggml-hexagon: HTP0: op MUL_MAT.*(activation reused)' <<<"$out" || true)
    echo "REPACK=$repack MUL_MAT_VEC_FUSION: ${line:-no result line}; MUL_MAT+ADD ops: $fused;" \
         "MUL_MATs reusing the activation: $reused"
    n=$(sed -E 's#^ *([0-9]+)/([0-9]+).*#\1#' <<<"$line"); m=$(sed -E 's#^ *([0-9]+)/([0-9]+).*#\2#' <<<"$line")
    if ! { [ -n "$line" ] && [ "$m" -gt 0 ] && [ "$n" -eq "$m" ]; }; then
        grep -E 'FAIL' <<<"$out" | head; echo "FAIL: cases failed (REPACK=$repack)"; status=1
    fi
    [ "$fused" -gt 0 ] || { echo "FAIL: no fused MUL_MAT+ADD op ran (REPACK=$repack)"; status=1; }
    [ "$reused" -gt 0 ] || { echo "FAIL: no MUL_MAT reused an activation (REPACK=$repack)"; status=1; }
done
[ "$status" -eq 0 ] && echo "PASS"
exit "$status"
