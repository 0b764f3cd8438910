#!/usr/bin/env bash
# A command line written for upstream's Hexagon backend runs here unchanged (README.md
# "Environment variables"): upstream's variable names GGML_HEXAGON_OPFUSION and
# GGML_HEXAGON_OPPOLL, llama-completion's own flags, no -ngl. It must produce text, run its ops
# on HTP0 (GGML_HEXAGON_VERBOSE=1, added only to see them, logs 'ggml-hexagon: HTP0: op ...'),
# and draw no error or deprecation warning from the backend.
# usage: upstream-cmdline.sh BIN_DIR MODEL
set -uo pipefail
bin=$1; model=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GGML_HEXAGON_VERBOSE=1 GGML_HEXAGON_OPFUSION=1 GGML_HEXAGON_OPPOLL=1 \
    "$bin/llama-completion" -m "$model" -p hi -n 4 --device HTP0 -no-cnv </dev/null >"$work/out.txt" 2>"$work/log.txt"
rc=$?
ops=$(grep -c 'ggml-hexagon: HTP0: op ' "$work/log.txt" || true)
echo "text: $(tr '\n' ' ' <"$work/out.txt")"
echo "ops run on HTP0: $ops"
grep -E '  eval time' "$work/log.txt" | sed 's/^.*common_perf_print: */  /' || true
if [ $rc -ne 0 ]; then
    tail -n 20 "$work/log.txt"
    echo "FAIL: llama-completion exited $rc"
    exit 1
fi
# The text is the prompt followed by what was generated: more than the prompt alone.
text=$(tr -d '[:space:]' <"$work/out.txt")
[ -n "$text" ] && [ "$text" != "hi" ] || { echo "FAIL: no text generated"; exit 1; }
[ "$ops" -gt 0 ] || { tail -n 20 "$work/log.txt"; echo "FAIL: no op ran on HTP0"; exit 1; }
if grep -E '^ggml-hexagon: .*(deprecated|no HTP device|failed|error)' "$work/log.txt"; then
    echo "FAIL: the backend complained about an upstream-style command line"
    exit 1
fi
echo "PASS"
