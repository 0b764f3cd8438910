#!/usr/bin/env bash
# Runs `test-backend-ops test -b HTP0 -o OP` and passes only when it printed its
# "N/M tests passed" line with M > 0 and N == M (a -b name that matched nothing prints no such
# line and would otherwise pass silently).
# usage: run-backend-ops.sh BIN_DIR OP [extra test-backend-ops args]
#   env HTP_TEST_CASES=REGEX: only the cases whose params match (test-backend-ops -p), for the
#   quick variant of an op whose full case list takes an hour on the emulated NPU.
set -uo pipefail
bin=$1; op=$2; shift 2
filter=()
[ -n "${HTP_TEST_CASES:-}" ] && filter=(-p "$HTP_TEST_CASES")
out=$("$bin/test-backend-ops" test -b HTP0 -o "$op" "${filter[@]}" "$@" 2>&1)
rc=$?
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
echo "PASS: $op on HTP0: $n/$m tests passed"
