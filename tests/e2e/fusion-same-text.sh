#!/usr/bin/env bash
# End-to-end check of the MUL_MAT activation reuse (docs/mul-mat.md "Fusions"): the default
# model generates greedily on HTP0 with host fusions off and on. Reusing a quantized activation
# is exact (the same F32 row quantized by the same code), so the texts must be identical; the
# fused run's per-op log (GGML_HEXAGON_VERBOSE=1) must show MUL_MATs that reused an activation
# (Q/K/V and gate/up share one), so the test fails if the reuse silently stopped happening.
# usage: fusion-same-text.sh BIN_DIR MODEL
set -uo pipefail
bin=$1; model=$2
source "$(dirname "${BASH_SOURCE[0]}")/llama-run.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # run NAME FUSE
    llama_run "$work/$1.txt" "$work/$1.log" env GGML_HEXAGON_OPFUSION=$2 GGML_HEXAGON_VERBOSE=1 \
        "$bin/llama-completion" -m "$model" -dev HTP0 -ngl 99 -no-cnv \
        --temp 0 --seed 42 -n 8 -p "The capital of France is" --no-warmup ||
        { tail -n 30 "$work/$1.log"; echo "FAIL: generation with GGML_HEXAGON_OPFUSION=$2 failed"; exit 1; }
}
run plain 0
run fused 1
reused=$(grep -c 'ggml-hexagon: HTP0: op MUL_MAT.*(activation reused)' "$work/fused.log" || true)
plain_reused=$(grep -c '(activation reused)' "$work/plain.log" || true)
mm=$(grep -c 'ggml-hexagon: HTP0: op MUL_MAT' "$work/fused.log" || true)
echo "fused run: $mm MUL_MAT ops sent, $reused of them reused the activation before them (FUSE=0: $plain_reused)"
for f in plain fused; do
    echo "$f: $(tr '\n' ' ' <"$work/$f.txt")"
    grep -E '  eval time' "$work/$f.log" | sed 's/^.*common_perf_print: */  /' || true
done
cmp -s "$work/plain.txt" "$work/fused.txt" || { echo "FAIL: generated texts differ"; exit 1; }
[ -s "$work/fused.txt" ] || { echo "FAIL: no text generated"; exit 1; }
[ "$reused" -gt 0 ] || { echo "FAIL: no MUL_MAT reused an activation"; exit 1; }
[ "$plain_reused" -eq 0 ] || { echo "FAIL: GGML_HEXAGON_OPFUSION=0 still reused activations"; exit 1; }
echo "PASS"
