#!/usr/bin/env bash
# README.md's example command lines stay true. Every ```sh block carries a mark on the line
# before it (an HTML comment, invisible when rendered), saying how the test runs its lines:
#   <!-- example: run -->         each line runs as written and must exit 0
#   <!-- example: run ARGS... --> the same with ARGS appended to each line (keeps it cheap: -n 2)
#   <!-- example: help -->        each line's program (after VAR=value words) runs with --help
#                                 (for lines too slow or too wide-reaching to run in a test)
# A block without a mark fails the test, so a new example cannot go unchecked. Lines run one
# after another in a scratch folder that links every top-level entry of the source tree and
# `build` -> BUILD_DIR, so `build/bin/...`, `scripts/...` work as in a checkout; the word MODEL
# is replaced by the default model. Trailing `# comments` are dropped.
# usage: readme-examples.sh SOURCE_DIR BUILD_DIR [MODEL]
set -uo pipefail
root=$1; build=$2; model=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tree"
for e in "$root"/*; do
    [ "$(basename "$e")" = build ] || ln -s "$e" "$work/tree/$(basename "$e")"
done
ln -s "$build" "$work/tree/build"

python3 - "$root/README.md" "$model" >"$work/lines" <<'PY' || exit 1
import re, shlex, sys
readme, model = sys.argv[1], sys.argv[2]
lines = open(readme, encoding="utf-8").read().split("\n")
mark_re = re.compile(r"^<!-- example: (run|help)(?: (.*?))? -->$")
errors, i = 0, 0
while i < len(lines):
    if not re.match(r"^```(sh|bash|shell)\s*$", lines[i]):
        i += 1
        continue
    start, prev = i, i - 1
    while prev >= 0 and not lines[prev].strip():
        prev -= 1
    m = mark_re.match(lines[prev].strip()) if prev >= 0 else None
    i += 1
    body = []
    while i < len(lines) and not lines[i].startswith("```"):
        body.append((i + 1, lines[i]))
        i += 1
    i += 1
    if not m:
        print(f"README.md:{start + 1}: a sh block without an <!-- example: run|help --> mark", file=sys.stderr)
        errors += 1
        continue
    mode, extra = m.group(1), m.group(2) or ""
    for lineno, text in body:
        cmd = re.sub(r"\s+#\s.*$", "", text).strip()
        if not cmd or cmd.startswith("#"):
            continue
        if mode == "help":
            words = [w for w in shlex.split(cmd)]
            while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
                words.pop(0)
            cmd = shlex.quote(words[0]) + " --help"
        else:
            if re.search(r"\bMODEL\b", cmd):
                if not model:
                    print(f"{lineno}\tskip\t{cmd}")
                    continue
                cmd = re.sub(r"\bMODEL\b", shlex.quote(model), cmd)
            cmd = f"{cmd} {extra}".strip()
        print(f"{lineno}\t{mode}\t{cmd}")
sys.exit(1 if errors else 0)
PY

failures=0 ran=0
cd "$work/tree" || exit 1
while IFS=$'\t' read -r lineno mode cmd; do
    if [ "$mode" = skip ]; then
        echo "README.md:$lineno: skipped (no model): $cmd"
        continue
    fi
    start=$(date +%s)
    [ -n "$cmd" ] || { echo "FAIL README.md:$lineno: an empty command"; failures=$((failures + 1)); continue; }
    timeout 600 bash -c "$cmd" </dev/null >"$work/out" 2>&1
    rc=$?
    ran=$((ran + 1))
    if [ $rc -ne 0 ]; then
        echo "FAIL README.md:$lineno ($mode): exit $rc: $cmd"
        tail -n 15 "$work/out" | sed 's/^/    /'
        failures=$((failures + 1))
    else
        echo "ok   README.md:$lineno ($mode, $(($(date +%s) - start)) s): $cmd"
    fi
done <"$work/lines"
[ $ran -gt 0 ] || { echo "FAIL: no example found in README.md"; exit 1; }
[ $failures -eq 0 ] || { echo "FAIL: $failures of $ran README example lines"; exit 1; }
echo "PASS: $ran README example lines"
