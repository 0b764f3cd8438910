#!/usr/bin/env bash
# The op-support gate (issue 29 item 3): `scripts/support-report.sh --check` passes on this
# build against the committed docs/op-support-cases.txt (HTP0 still takes every case it took),
# and fails, naming the lost cases, when an op is refused (GGML_HEXAGON_OPFILTER), so the gate
# is known to bite. ~4 s.
# usage: support-report-test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1; build=$2
export GGML_HEXAGON_BUILD=$build
out=$("$src/scripts/support-report.sh" --check 2>&1)
rc=$?
printf '%s\n' "$out" | grep -v '^\[ggml-hexagon\] probing'
[ $rc -eq 0 ] || { echo "FAIL: HTP0 lost cases it took (docs/op-support-cases.txt; regenerate only if meant)"; exit 1; }
out=$(GGML_HEXAGON_OPFILTER='^RMS_NORM$' "$src/scripts/support-report.sh" --check 2>&1)
rc=$?
if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q '^lost: RMS_NORM '; then
    printf '%s\n' "$out" | tail -n 5
    echo "FAIL: with RMS_NORM refused the check did not fail naming its cases (exit $rc)"
    exit 1
fi
echo "PASS: no case lost; a refused RMS_NORM fails the check ($(printf '%s\n' "$out" | grep -c '^lost: RMS_NORM ') cases named)"
