#!/usr/bin/env bash
# A model whose matrices have a weight type with no tiled format, end to end:
# tools/ggml-hexagon-make-model.py's small random-weight llama (Q4_0 matrices, every row a
# multiple of 256 elements; n_ff 4608 = 18 super-blocks, so ffn_down's rows span two VTCM vectors
# of IQ4_XS block headers), requantized by llama-quantize to TYPE (IQ4_XS: the flat path's Q
# path; TQ2_0, IQ3_S ...: dequantized to F32 by GET_ROWS' row dequantizers, docs/mul-mat.md
# "Dequantized weights"), then llama-perplexity on HTP0 against the CPU with
# GGML_HEXAGON_VERBOSE=2 (every op supports_op refuses is logged). Passes when the file holds TYPE
# matrices, MUL_MATs with a TYPE weight ran on HTP0 on the flat kernel (no tiled format:
# docs/tiled-formats.md "Not tiled"; the default GGML_HEXAGON_REPACK=1 must leave those weights
# flat), HTP0 refused no MUL_MAT (none went to the CPU) and the mean KLD is below THRESHOLD.
# usage: flat-type-model.sh BIN_DIR TEXT THRESHOLD TYPE
set -uo pipefail
bin=$1; text=$2; threshold=$3; type=$4
t=$(tr '[:upper:]' '[:lower:]' <<<"$type")
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { [ -f "${2:-}" ] && tail -n 20 "$2"; echo "FAIL: $1"; exit 1; }

python3 "$root/tools/ggml-hexagon-make-model.py" --n-embd 256 --n-layer 2 --n-head 4 --n-head-kv 2 --n-ff 4608 \
    --n-vocab 1000 --dir "$work" -o "$work/q4_0.gguf" -q >"$work/make.log" 2>&1 || fail "make-model" "$work/make.log"
"$bin/llama-quantize" --allow-requantize "$work/q4_0.gguf" "$work/$t.gguf" "$type" 2 >"$work/quant.log" 2>&1 ||
    fail "llama-quantize to $type" "$work/quant.log"
n_q=$(grep -c "converting to $t" "$work/quant.log" || true)
[ "$n_q" -gt 0 ] || fail "llama-quantize wrote no $type tensor" "$work/quant.log"

common=(-m "$work/$t.gguf" -f "$text" -c 128 -b 128 --chunks 2 -t 2 --seed 1)
"$bin/llama-perplexity" "${common[@]}" -dev none -ngl 0 --kl-divergence-base "$work/base.kld" \
    >"$work/cpu.log" 2>&1 || fail "CPU reference run" "$work/cpu.log"
log=$work/htp.log
for attempt in 1 2; do  # 2: llama's asynchronous logger lost the result lines (see kld.sh)
    GGML_HEXAGON_VERBOSE=2 "$bin/llama-perplexity" "${common[@]}" -dev HTP0 -ngl 99 \
        --kl-divergence-base "$work/base.kld" --kl-divergence >"$log" 2>&1 || fail "HTP0 run" "$log"
    grep -qE '^Mean +KLD:' "$log" && break
done
ran=$(grep -cE "ggml-hexagon: HTP0: op MUL_MAT .*<- $t\\[" "$log" || true)
other=$(grep -E "ggml-hexagon: HTP0: op MUL_MAT .*<- $t\\[" "$log" | grep -c '(kernel ' || true)
refused=$(grep -E 'ggml-hexagon: HTP0: refused MUL_MAT' "$log" || true)
kld=$(grep -E '^Mean +KLD:' "$log" | awk '{print $3}')
echo "$type model ($n_q $type tensors): $ran MUL_MATs with $type weights on HTP0 ($other not on the flat" \
     "kernel), mean KLD vs CPU = ${kld:-none} (threshold $threshold)"
[ "$ran" -gt 0 ] || fail "no MUL_MAT with a $type weight ran on HTP0" "$log"
[ "$other" -eq 0 ] || fail "$other $type MUL_MATs ran on another kernel than the flat one" ""
[ -z "$refused" ] || { echo "$refused" | head -n 5; fail "HTP0 refused MUL_MATs (they ran on the CPU)" ""; }
[ -n "$kld" ] || fail "no 'Mean KLD' line in the HTP0 run" "$log"
awk -v k="$kld" -v t="$threshold" 'BEGIN { exit !(k < t) }' || fail "mean KLD $kld >= $threshold" ""
echo "PASS"
