#!/usr/bin/env bash
# A random-weight model of one llama.cpp architecture, built in memory by the tree's
# test-llama-archs, run on HTP0 and on the CPU: passes when its own checks (logits NMSE vs CPU
# <= 1e-4, causal-attention toggle, save/load round trip) pass for every config it ran, at
# least one ran, and ops really executed on HTP0 (GGML_HEXAGON_VERBOSE's per-op log).
# usage: llama-archs.sh BIN_DIR ARCH      (ARCH as llama.cpp names it: llama, qwen3moe, qwen35)
set -uo pipefail
bin=$1; arch=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# test-llama-archs never loads dynamic backends itself; the preloaded library does it.
run() {
    LD_PRELOAD="$bin/libload-all-backends.so" GGML_HEXAGON_VERBOSE=1 \
        "$bin/test-llama-archs" -a "^${arch}\$" -b HTP0 -s 1 >"$log" 2>&1
}
run
rc=$?
# llama.cpp's asynchronous logger (common/log.cpp) now and then loses the last lines at exit,
# CPU-only runs too (seen ~1 run in 6 on a loaded machine): a clean exit with no Summary line
# is run once more; a failure or a FAIL row never is.
if [ $rc -eq 0 ] && ! grep -qE '^Summary:' "$log" && ! grep -q 'FAIL' "$log"; then
    echo "no Summary line after a clean exit (llama's log lost its last lines): running again"
    run
    rc=$?
fi
grep -oE '(OK|FAIL|SKIP)[^|]*\|[^|]*\|' "$log" | sed 's/\x1b\[[0-9;]*m//g' || true
summary=$(grep -E '^Summary:' "$log" | tail -n 1)
n_ops=$(grep -c 'ggml-hexagon: HTP0: op ' "$log" || true)
echo "${summary:-no summary line}; HTP0 ran $n_ops ops"
if [ $rc -ne 0 ] || ! [[ "$summary" =~ ^Summary:\ all\ [1-9][0-9]*\ test ]]; then
    grep -vE 'ggml-hexagon: HTP0: op ' "$log" | tail -n 20
    echo "FAIL: $arch on HTP0 (exit $rc)"
    exit 1
fi
[ "$n_ops" -gt 0 ] || { echo "FAIL: no op ran on HTP0"; exit 1; }
echo "PASS"
