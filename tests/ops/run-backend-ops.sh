#!/usr/bin/env bash
# Runs `test-backend-ops test -b HTP0 -o OP` and passes only when it printed its
# "N/M tests passed" line with M > 0 and N == M (a -b name that matched nothing prints no such
# line and would otherwise pass silently).
# usage: run-backend-ops.sh BIN_DIR OP [extra test-backend-ops args]
#   env HTP_TEST_CASES=REGEX: only the cases whose params match (test-backend-ops -p), for the
#   quick variant of an op whose full case list takes an hour on the emulated NPU.
#   env HTP_QUICK_CASES=REGEX: only the cases that match it too (the quick group and dma64 runs
#   of tests/CMakeLists.txt; with HTP_TEST_CASES, a case must match both).
#   env HTP_EXPECT_KERNEL=NAME: also fail unless at least one OP ran on NPU kernel NAME (the
#   per-op log, GGML_HEXAGON_VERBOSE=1, prints "(kernel NAME)"), so a variant that forces a
#   path cannot pass with that path never taken. HTP_FORBID_KERNEL=NAME: fail if any did.
# Every run also encodes each op a second time into poisoned params (GGML_HEXAGON_PARAMS_CHECK=1,
# host/src/graph.cpp) and fails when an encoder leaves bytes of its params struct unset.
set -uo pipefail
bin=$1; op=$2; shift 2
filter=()
cases=${HTP_TEST_CASES:-}
if [ -n "${HTP_QUICK_CASES:-}" ]; then
    # Both at once: test-backend-ops searches the params string with one regex, so each filter
    # becomes a lookahead from the start (a filter's own ^ still anchors there).
    cases="^(?=.*(?:$HTP_QUICK_CASES))${cases:+(?=.*(?:$cases))}"
fi
[ -n "$cases" ] && filter=(-p "$cases")
expect=${HTP_EXPECT_KERNEL:-}; forbid=${HTP_FORBID_KERNEL:-}
if [ -n "$expect$forbid" ]; then
    export GGML_HEXAGON_VERBOSE=1
fi
export GGML_HEXAGON_PARAMS_CHECK=${GGML_HEXAGON_PARAMS_CHECK:-1}
out=$("$bin/test-backend-ops" test -b HTP0 -o "$op" "${filter[@]}" "$@" 2>&1)
rc=$?
kernel_runs() {  # ops OP that ran on kernel $1
    printf '%s\n' "$out" | grep -cE "ggml-hexagon: HTP0: op $op .*\(kernel $1\)" || true
}
line=$(printf '%s\n' "$out" | grep -E '^ *[0-9]+/[0-9]+ tests passed' | tail -n 1)
if [ -z "$line" ]; then
    printf '%s\n' "$out" | tail -n 40
    echo "FAIL: no 'N/M tests passed' line for $op on HTP0 (exit $rc)"
    exit 1
fi
n=$(echo "$line" | sed -E 's#^ *([0-9]+)/([0-9]+).*#\1#')
m=$(echo "$line" | sed -E 's#^ *([0-9]+)/([0-9]+).*#\2#')
if [ "$m" -eq 0 ] || [ "$n" -ne "$m" ] || [ "$rc" -ne 0 ]; then
    printf '%s\n' "$out" | grep -E 'FAIL|not supported|error' | head -n 40
    echo "FAIL: $op on HTP0: $n/$m passed (exit $rc)"
    exit 1
fi
unset_params=$(printf '%s\n' "$out" | grep -E 'leaves params bytes unset' || true)
if [ -n "$unset_params" ]; then
    printf '%s\n' "$unset_params"
    echo "FAIL: $op on HTP0: $n/$m passed, but an encoder leaves params bytes unset (line above)"
    exit 1
fi
kinfo=""
if [ -n "$expect" ]; then
    k=$(kernel_runs "$expect")
    [ "$k" -gt 0 ] || { echo "FAIL: $op on HTP0: $n/$m passed, but none ran on kernel $expect"; exit 1; }
    kinfo=" ($k ran on $expect"
fi
if [ -n "$forbid" ]; then
    k=$(kernel_runs "$forbid")
    [ "$k" -eq 0 ] || { echo "FAIL: $op on HTP0: $k ran on kernel $forbid"; exit 1; }
    kinfo="${kinfo:- (}${kinfo:+, }none on $forbid"
fi
echo "PASS: $op on HTP0: $n/$m tests passed${kinfo:+$kinfo)}"
