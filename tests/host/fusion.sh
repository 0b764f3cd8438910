#!/usr/bin/env bash
# Host fusion RMS_NORM -> MUL: test-backend-ops' RMS_NORM_MUL_ADD cases pass on HTP0 and the
# per-op log (GGML_HEXAGON_VERBOSE=1) shows the fused op really ran, so a fuser that silently
# stopped matching would fail here rather than pass on the unfused path.
# usage: fusion.sh BIN_DIR
set -uo pipefail
bin=$1
out=$(GGML_HEXAGON_VERBOSE=1 "$bin/test-backend-ops" test -b HTP0 -o RMS_NORM_MUL_ADD 2>&1)
line=$(grep -E '^ *[0-9]+/[0-9]+ tests passed' <<<"$out" | tail -n 1)
fused=$(grep -c 'ggml-hexagon: HTP0: op RMS_NORM+MUL ' <<<"$out" || true)
echo "RMS_NORM_MUL_ADD: ${line:-no result line}; fused RMS_NORM+MUL ops run: $fused"
n=$(sed -E 's#^ *([0-9]+)/([0-9]+).*#\1#' <<<"$line"); m=$(sed -E 's#^ *([0-9]+)/([0-9]+).*#\2#' <<<"$line")
[ -n "$line" ] && [ "$m" -gt 0 ] && [ "$n" -eq "$m" ] || { grep -E 'FAIL' <<<"$out" | head; echo "FAIL: cases failed"; exit 1; }
[ "$fused" -gt 0 ] || { echo "FAIL: no fused RMS_NORM+MUL op ran"; exit 1; }
echo "PASS"
