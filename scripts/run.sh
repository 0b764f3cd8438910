#!/usr/bin/env bash
# The main job: sets everything up (first run: ~15 min to build llama.cpp), then the default
# model (Gemma 3 270M Q4_K_M) generates text on device HTP0, the virtual Hexagon NPU, and
# llama.cpp prints its speed.
#   scripts/run.sh [prompt]      env: N_PREDICT (default 64), and any GGML_HEXAGON_* variable
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
prompt=${1:-"The three most useful things to know about neural processing units are"}

"$ROOT/scripts/deps.sh"
"$ROOT/scripts/build.sh"

log "generating on HTP0 with $MODEL"
out=$(mktemp)
"$BIN/llama-completion" -m "$MODEL" -dev HTP0 -ngl 99 -no-cnv --temp 0 --seed 42 -n "${N_PREDICT:-64}" \
    -p "$prompt" --no-warmup 2> >(tee "$out" >&2 | grep -E 'llama_perf|HTP0' >/dev/null) | cat
echo
grep -E 'eval time|tokens per second' "$out" | sed 's/^/[ggml-hexagon] /' || true
rm -f "$out"
