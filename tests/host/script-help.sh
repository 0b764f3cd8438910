#!/usr/bin/env bash
# Every script, tool and benchmark has --help and refuses a bad argument in one line: each file
# of scripts/, bench/ and tools/ that is executable (and the benchmark programs) must
#   - with --help: exit 0 and print something;
#   - with an unknown option: exit non-zero, with exactly one line of output (stdout + stderr),
#     and quickly (a bad argument is caught before any set-up or build step runs).
# usage: script-help.sh SOURCE_DIR BIN_DIR
set -uo pipefail
root=$1; bin=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 checked=0
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

progs=()
for f in "$root"/scripts/* "$root"/scripts/snapdragon/* "$root"/bench/* "$root"/tools/*; do
    [ -f "$f" ] && [ -x "$f" ] && progs+=("$f")
done
for p in mul-mat-bench add-bench hvx-micro; do
    [ -x "$bin/$p" ] && progs+=("$bin/$p") || bad "benchmark program $bin/$p not built"
done
[ ${#progs[@]} -ge 10 ] || bad "found only ${#progs[@]} programs under $root"

for p in "${progs[@]}"; do
    name=${p#"$root"/}
    checked=$((checked + 1))
    timeout 60 "$p" --help >"$work/out" 2>"$work/err" </dev/null
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "$name --help exited $rc: $(head -n 3 "$work/err")"
        continue
    elif [ ! -s "$work/out" ]; then
        bad "$name --help printed nothing on stdout"
        continue
    fi
    timeout 60 "$p" --no-such-option >"$work/all" 2>&1 </dev/null
    rc=$?
    lines=$(wc -l <"$work/all")
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        bad "$name --no-such-option exited $rc (want a quick non-zero exit)"
    elif [ "$lines" -ne 1 ]; then
        bad "$name --no-such-option printed $lines lines (want one): $(head -n 5 "$work/all")"
    else
        printf '%-40s --help ok; bad argument: %s\n' "$name" "$(cat "$work/all")"
    fi
done
[ $failures -eq 0 ] || { echo "FAIL: $failures problem(s) in $checked programs"; exit 1; }
echo "PASS: $checked programs"
