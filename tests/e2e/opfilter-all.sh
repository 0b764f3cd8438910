#!/usr/bin/env bash
# GGML_HEXAGON_OPFILTER='.*' (every op refused, a user trying the CPU path) runs the model to the
# end: SET_ROWS stays on HTP, since llama.cpp's KV cache lives in HTP buffers and ggml's
# scheduler would abort on a refused SET_ROWS ("pre-allocated tensor ... cannot run the
# operation"); the backend says so in one line, and the greedy text is the CPU's.
# usage: opfilter-all.sh BIN_DIR MODEL
set -uo pipefail
bin=$1; model=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { [ -f "${2:-}" ] && tail -n 20 "$2"; echo "FAIL: $1"; exit 1; }
args=(-m "$model" -p "The capital of France is" -n 8 --temp 0 -no-cnv -c 256)
"$bin/llama-completion" "${args[@]}" -dev none </dev/null >"$work/cpu.txt" 2>"$work/cpu.log" || fail "CPU run failed" "$work/cpu.log"
GGML_HEXAGON_OPFILTER='.*' GGML_HEXAGON_VERBOSE=1 "$bin/llama-completion" "${args[@]}" -dev HTP0 </dev/null \
    >"$work/htp.txt" 2>"$work/htp.log" || fail "llama-completion with GGML_HEXAGON_OPFILTER='.*' exited $?" "$work/htp.log"
[ "$(grep -c "ggml-hexagon: GGML_HEXAGON_OPFILTER=\.\*: SET_ROWS stays on HTP" "$work/htp.log")" -eq 1 ] ||
    fail "no single line saying SET_ROWS stays on HTP" "$work/htp.log"
ops=$(grep -oE "ggml-hexagon: HTP0: op [A-Z_+]+" "$work/htp.log" | sort -u | sed 's/.* op //' | tr '\n' ' ')
[ "$ops" = "SET_ROWS " ] || fail "ops other than SET_ROWS ran on HTP0: $ops" "$work/htp.log"
cmp -s "$work/cpu.txt" "$work/htp.txt" || fail "text differs from the CPU's: '$(cat "$work/htp.txt")' vs '$(cat "$work/cpu.txt")'"
echo "ok: same text as the CPU ($(tr '\n' ' ' <"$work/htp.txt")), only SET_ROWS on HTP0"
echo "PASS"
