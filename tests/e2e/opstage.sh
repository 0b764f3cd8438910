#!/usr/bin/env bash
# GGML_HEXAGON_OPSTAGE=1 (upstream: queue the ops but do not compute, to measure the framework's
# own overhead): llama-bench on HTP0 completes with the kernels skipped, and the backend says
# once that results are not computed. test-backend-ops then shows the kernels really did not run:
# MUL_MAT's outputs no longer match the CPU's with the flag, and do without it.
# usage: opstage.sh BIN_DIR MODEL
set -uo pipefail
bin=$1; model=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

GGML_HEXAGON_OPSTAGE=1 "$bin/llama-bench" -m "$model" -dev HTP0 -p 32 -n 8 -r 1 -o md </dev/null \
    >"$work/bench.txt" 2>"$work/bench.log"
rc=$?
cat "$work/bench.txt"
[ $rc -eq 0 ] || { tail -n 20 "$work/bench.log"; fail "llama-bench with GGML_HEXAGON_OPSTAGE=1 exited $rc"; }
grep -qE '\| +pp32 +\|' "$work/bench.txt" && grep -qE '\| +tg8 +\|' "$work/bench.txt" ||
    fail "llama-bench printed no pp32 / tg8 rows"
n=$(grep -c 'ggml-hexagon: GGML_HEXAGON_OPSTAGE=1: .*results are not computed' "$work/bench.log" || true)
[ "$n" -eq 1 ] || { cat "$work/bench.log"; fail "expected one 'results are not computed' line, got $n"; }
echo "ok: $(grep 'results are not computed' "$work/bench.log")"

# The same MUL_MAT cases with and without the flag (test-backend-ops compares with the CPU).
cases='^type_a=q4_0,type_b=f32,m=16,n=(1|3),k=256,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1($|,)'
"$bin/test-backend-ops" test -b HTP0 -o MUL_MAT -p "$cases" >"$work/plain.log" 2>&1 ||
    { tail -n 20 "$work/plain.log"; fail "MUL_MAT does not pass without GGML_HEXAGON_OPSTAGE"; }
grep -qE '[1-9][0-9]*/[0-9]+ tests passed' "$work/plain.log" || { tail -n 20 "$work/plain.log"; fail "no MUL_MAT case ran"; }
GGML_HEXAGON_OPSTAGE=1 "$bin/test-backend-ops" test -b HTP0 -o MUL_MAT -p "$cases" >"$work/stage.log" 2>&1 &&
    { tail -n 20 "$work/stage.log"; fail "MUL_MAT still matches the CPU with GGML_HEXAGON_OPSTAGE=1: did the kernels run?"; }
grep -q 'results are not computed' "$work/stage.log" || fail "test-backend-ops' log does not say results are not computed"
echo "ok: MUL_MAT matches the CPU without the flag and not with it"
echo "PASS"
