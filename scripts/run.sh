#!/usr/bin/env bash
# The main job: sets everything up (first run: ~15 min to build llama.cpp), then the default
# model (Gemma 3 270M Q4_K_M) generates text on device HTP0, the virtual Hexagon NPU, and
# llama.cpp's timings show its speed.
#   scripts/run.sh [prompt]      env: N_PREDICT (default 64), and any GGML_HEXAGON_* variable
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
help_or_option 5 "$@"
[ $# -le 1 ] || die "one prompt argument, got $# (quote the prompt; see --help)"
prompt=${1:-"The three most useful things to know about neural processing units are"}

"$ROOT/scripts/deps.sh"
"$ROOT/scripts/build.sh"

log "generating on HTP0 with $MODEL"
errlog=$(mktemp)
trap 'rm -f "$errlog"' EXIT
if ! "$BIN/llama-completion" -m "$MODEL" -dev HTP0 -ngl 99 -no-cnv --temp 0 --seed 42 \
        -n "${N_PREDICT:-64}" -p "$prompt" --no-warmup 2>"$errlog"; then
    tail -n 30 "$errlog" >&2
    die "generation on HTP0 failed (log above)"
fi
echo
grep -E 'HTP0' "$errlog" | grep -E 'offload|buffer size|using device' | sed 's/^[0-9.]* I //' | head -n 4 >&2 || true
grep -E 'prompt eval time|  eval time' "$errlog" | sed 's/^.*common_perf_print: */[HTP0] /'
