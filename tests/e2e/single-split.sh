#!/usr/bin/env bash
# The default model runs entirely on HTP0: llama's scheduler reports one graph split for both
# the prompt and the token graphs (every node on HTP0, nothing falls back to the CPU), and the
# per-op log of GGML_HEXAGON_VERBOSE=1 shows the ops that ran there, counted by kind.
# usage: single-split.sh BIN_DIR MODEL
set -uo pipefail
bin=$1; model=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
GGML_HEXAGON_VERBOSE=1 "$bin/llama-completion" -m "$model" -dev HTP0 -ngl 99 -no-cnv --temp 0 --seed 1 \
    -n 4 -p "One split: every node of the graph on the NPU" --no-warmup -lv 4 >"$log" 2>&1
rc=$?
# e.g. "sched_reserve: graph: nodes = 817, splits = 1, ..." or "splits = 38 / 2" (pp / tg);
# the last reservation is the one llama keeps (an earlier one may probe flash attention).
splits=$(grep -oE 'splits = [0-9]+( / [0-9]+)?' "$log" | tail -n 1)
echo "llama: ${splits:-no 'splits =' line}"
echo "ops run on HTP0, by kind:"
grep -oE 'ggml-hexagon: HTP0: op [A-Z_0-9]+' "$log" | awk '{print $4}' | sort | uniq -c | sort -rn | awk '{printf "  %-16s %s\n", $2, $1}'
if [ $rc -ne 0 ]; then
    tail -n 20 "$log"
    echo "FAIL: llama-completion exited $rc"
    exit 1
fi
[ -n "$splits" ] || { echo "FAIL: llama printed no split count (is -lv 4 honoured?)"; exit 1; }
if grep -oE '[0-9]+' <<<"$splits" | grep -qvx 1; then
    grep -E 'refused' "$log" | sort | uniq -c | head -n 10
    echo "FAIL: the graph has more than one split (see GGML_HEXAGON_VERBOSE=2 for refused ops)"
    exit 1
fi
grep -q 'ggml-hexagon: HTP0: op ' "$log" || { echo "FAIL: no op ran on HTP0"; exit 1; }
echo "PASS"
