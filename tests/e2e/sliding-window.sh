#!/usr/bin/env bash
# The sliding session window end to end: the default model with GGML_HEXAGON_VMEM budgets below
# what its buffers need in total (weights ~407 MiB as repacked, plus the pinned KV cache and
# compute buffers) but above its largest op (the tied 262144 x 640 Q8_0 embedding / output
# matrix, 170 MiB, plus the pinned buffers). Passes when, for every budget:
#   - greedy text is identical to the run with the default budget,
#   - the window really slid (GGML_HEXAGON_PROFILE=1's per-graph "window:" lines count maps and
#     unmaps after the first graph) while the default-budget run never unmapped,
#   - llama-perplexity's mean KLD against the default-budget run is ~0 (same kernels, only the
#     batches are cut differently);
# and a budget below the largest op fails with the one-line "needs ... mapped at once" error.
# -ub 8 keeps the pinned compute buffer small (its logits are n_vocab x n_ubatch floats).
# usage: sliding-window.sh BIN_DIR MODEL TEXT [BUDGET_MIB...]   (default budgets: 224 192)
set -euo pipefail
bin=$1; model=$2; text=$3; shift 3
source "$(dirname "${BASH_SOURCE[0]}")/llama-run.sh"
budgets=("$@")
[ ${#budgets[@]} -gt 0 ] || budgets=(224 192)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gen=(-m "$model" -c 256 -ub 8 -dev HTP0 -ngl 99 -p "The capital of France is" -n 24 --temp 0 -no-cnv)
ppl=(-m "$model" -f "$text" -c 128 -b 128 -ub 8 --chunks 2 -t 2 --seed 1 -dev HTP0 -ngl 99)

# window_sum LOG FIELD: the FIELD (maps, unmaps) counts of every "window:" line but the first
# graph's (which maps everything once), summed.
window_sum() {
    grep -E 'ggml-hexagon: HTP0: window:' "$1" | tail -n +2 |
        sed -E "s/.* ([0-9]+) $2[ ;(].*/\1/" | awk '{ s += $1 } END { print s + 0 }'
}

llama_run "$work/ref.txt" "$work/ref.log" env GGML_HEXAGON_PROFILE=1 "$bin/llama-completion" "${gen[@]}" ||
    { tail -n 20 "$work/ref.log"; echo "FAIL: default-budget run failed"; exit 1; }
grep -q 'ggml-hexagon: HTP0: window:' "$work/ref.log" || { echo "FAIL: no window counters in the log"; exit 1; }
[ "$(window_sum "$work/ref.log" unmaps)" = 0 ] || { echo "FAIL: the default budget unmapped weights"; exit 1; }
echo "default budget: $(cat "$work/ref.txt")"
"$bin/llama-perplexity" "${ppl[@]}" --kl-divergence-base "$work/base.kld" >"$work/ppl-ref.log" 2>&1 ||
    { tail -n 20 "$work/ppl-ref.log"; echo "FAIL: default-budget perplexity run failed"; exit 1; }

for mib in "${budgets[@]}"; do
    llama_run "$work/$mib.txt" "$work/$mib.log" \
        env GGML_HEXAGON_VMEM=$mib GGML_HEXAGON_PROFILE=1 "$bin/llama-completion" "${gen[@]}" || { tail -n 20 "$work/$mib.log"; echo "FAIL: VMEM=$mib run failed"; exit 1; }
    maps=$(window_sum "$work/$mib.log" maps)
    unmaps=$(window_sum "$work/$mib.log" unmaps)
    echo "VMEM=$mib MiB: $maps maps, $unmaps unmaps after the first graph; $(grep -oE 'common_perf_print: +eval time.*' "$work/$mib.log" | sed 's/common_perf_print: *//')"
    [ "$maps" -gt 0 ] && [ "$unmaps" -gt 0 ] || { echo "FAIL: VMEM=$mib: the window never slid"; exit 1; }
    cmp -s "$work/ref.txt" "$work/$mib.txt" ||
        { echo "got: $(cat "$work/$mib.txt")"; echo "FAIL: VMEM=$mib: greedy text differs"; exit 1; }
    for attempt in 1 2; do  # 2: llama's asynchronous logger lost the result lines (see kld.sh)
        GGML_HEXAGON_VMEM=$mib "$bin/llama-perplexity" "${ppl[@]}" --kl-divergence-base "$work/base.kld" \
            --kl-divergence >"$work/ppl-$mib.log" 2>&1 ||
            { tail -n 20 "$work/ppl-$mib.log"; echo "FAIL: VMEM=$mib perplexity run failed"; exit 1; }
        grep -qE '^Mean +KLD:' "$work/ppl-$mib.log" && break
    done
    kld=$(grep -E '^Mean +KLD:' "$work/ppl-$mib.log" | awk '{print $3}')
    [ -n "$kld" ] || { tail -n 20 "$work/ppl-$mib.log"; echo "FAIL: no 'Mean KLD' line"; exit 1; }
    echo "VMEM=$mib MiB: mean KLD vs the default budget = $kld"
    awk -v k="$kld" 'BEGIN { exit !(k < 1e-4) }' || { echo "FAIL: VMEM=$mib: mean KLD $kld"; exit 1; }
done

# Below the largest op: refused with the one-line reason, no crash.
set +e
GGML_HEXAGON_VMEM=160 "$bin/llama-completion" "${gen[@]}" >/dev/null 2>"$work/small.log"
rc=$?
set -e
line=$(grep -m1 -E "ggml-hexagon: HTP0: op .* needs .* mapped at once" "$work/small.log" || true)
[ -n "$line" ] || { tail -n 20 "$work/small.log"; echo "FAIL: VMEM=160: no 'needs ... mapped at once' error"; exit 1; }
[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || { echo "FAIL: VMEM=160: exit status $rc (want a clean failure)"; exit 1; }
echo "VMEM=160 MiB: ${line#*ggml-hexagon: }"
echo "PASS"
