#!/usr/bin/env bash
# End-to-end MoE over tiled expert stacks: test-llama-archs' random-weight qwen3moe model
# (F16/F32 in memory, so its own e2e.llama_archs_qwen3moe never repacks anything) is saved,
# quantized to TYPE (its expert stacks then have a tiled format, so GGML_HEXAGON_REPACK's
# default repacks them at load) and run by llama-perplexity on HTP0 against the CPU. Passes
# when the mean KLD is below THRESHOLD and every MUL_MAT_ID ran on a tiled kernel
# (GGML_HEXAGON_VERBOSE's per-op log names it: MUL_MAT_ID_HMX for these 128-token batches,
# MUL_MAT_ID_TILED for up to 8 tokens), so TYPE must leave every expert stack in a tiled
# format (Q8_0 does: K-quant types fall back to Q5_0 / Q8_0 for the 384-column ffn_down_exps).
# usage: moe-tiled.sh BIN_DIR TEXT TYPE THRESHOLD
set -uo pipefail
bin=$1; text=$2; type=$3; threshold=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { [ -f "$2" ] && tail -n 30 "$2"; echo "FAIL: $1"; exit 1; }

LD_PRELOAD="$bin/libload-all-backends.so" "$bin/test-llama-archs" -a '^qwen3moe$' -s 1 -o "$work" \
    >"$work/gen.log" 2>&1 || fail "test-llama-archs -o" "$work/gen.log"
"$bin/llama-quantize" "$work/qwen3moe-moe.gguf" "$work/model.gguf" "$type" >"$work/quant.log" 2>&1 ||
    fail "llama-quantize $type" "$work/quant.log"

common=(-m "$work/model.gguf" -f "$text" -c 128 -b 128 --chunks 2 -t 2 --seed 1)
"$bin/llama-perplexity" "${common[@]}" -dev none -ngl 0 --kl-divergence-base "$work/base.kld" \
    >"$work/cpu.log" 2>&1 || fail "CPU reference run" "$work/cpu.log"
for attempt in 1 2; do  # 2: llama's asynchronous logger lost the result lines (see kld.sh)
    GGML_HEXAGON_VERBOSE=1 "$bin/llama-perplexity" "${common[@]}" -dev HTP0 -ngl 99 \
        --kl-divergence-base "$work/base.kld" --kl-divergence >"$work/htp.log" 2>&1 || fail "HTP0 run" "$work/htp.log"
    grep -qE '^Mean +KLD:' "$work/htp.log" && break
done

log=$work/htp.log
hvx=$(grep -cE 'ggml-hexagon: HTP0: op MUL_MAT_ID .*\(kernel MUL_MAT_ID_TILED\)' "$log" || true)
hmx=$(grep -cE 'ggml-hexagon: HTP0: op MUL_MAT_ID .*\(kernel MUL_MAT_ID_HMX\)' "$log" || true)
tiled=$((hvx + hmx))
flat=$(grep -E 'ggml-hexagon: HTP0: op MUL_MAT_ID ' "$log" | grep -vc '(kernel ' || true)  # its own kernel
kld=$(grep -E '^Mean +KLD:' "$log" | awk '{print $3}')
[ -n "$kld" ] || fail "no 'Mean KLD' line in the HTP0 run" "$log"
echo "qwen3moe $type: MUL_MAT_ID ran $tiled times on a tiled kernel ($hvx MUL_MAT_ID_TILED, $hmx MUL_MAT_ID_HMX)," \
     "$flat on the flat one;" \
     "mean KLD vs CPU = $kld (threshold $threshold)"
grep -E '^(Mean +KLD|Maximum KLD|Same top p)' "$log" || true
[ "$tiled" -gt 0 ] || fail "no MUL_MAT_ID ran on a tiled kernel" ""
[ "$flat" -eq 0 ] || fail "$flat MUL_MAT_ID ran on the flat kernel (expert stack not tiled)" ""
awk -v k="$kld" -v t="$threshold" 'BEGIN { exit !(k < t) }' || fail "mean KLD $kld >= $threshold" ""
echo "PASS"
