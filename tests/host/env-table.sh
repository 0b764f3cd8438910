#!/usr/bin/env bash
# The README's table of environment variables and the code agree: every GGML_HEXAGON_* name the
# sources of host/, vhtp/, npu/ and abi/ read has a row, every row's variable is read somewhere,
# and every row says its default and origin (upstream or ours). The code reads variables through
# getenv or config.cpp's env_int / env_choice, which take the name as a string literal, so a
# name "read" is one that appears as a complete literal "GGML_HEXAGON_..." in those sources.
# The test then checks itself: a copy of the tree with a variable added to the code but not to
# the table, and one with a row for a variable nothing reads, must both fail.
# usage: env-table.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: env-table.sh SOURCE_DIR}
code_dirs=(host vhtp npu abi)

# check ROOT: prints the disagreements and returns non-zero when there are any.
check() {
    local root=$1 readme=$1/README.md bad=0
    local code table origins
    code=$(cd "$root" && grep -RhoE '"GGML_HEXAGON_[A-Z0-9_]+"' --include='*.c' --include='*.cpp' --include='*.h' \
        "${code_dirs[@]}" | tr -d '"' | sort -u)
    # Rows of the "## Environment variables" section: | `NAME` | default | meaning | origin |
    local section
    section=$(awk '/^## Environment variables/ { on = 1; next } /^## / { on = 0 } on' "$readme")
    [ -n "$section" ] || { echo "README.md has no '## Environment variables' section"; return 1; }
    table=$(grep -oE '^\| `GGML_HEXAGON_[A-Z0-9_]+`' <<<"$section" | tr -d '|` ' | sort)
    [ -n "$table" ] || { echo "the table has no rows"; return 1; }
    local dup
    dup=$(uniq -d <<<"$table")
    [ -z "$dup" ] || { echo "rows given twice: $dup"; bad=1; }
    local v
    for v in $(comm -23 <(echo "$code") <(uniq <<<"$table")); do
        echo "read by the code but not in README.md's table: $v ($(cd "$root" && grep -RlE "\"$v\"" "${code_dirs[@]}" | tr '\n' ' '))"
        bad=1
    done
    for v in $(comm -13 <(echo "$code") <(uniq <<<"$table")); do
        echo "in README.md's table but read nowhere in ${code_dirs[*]}: $v"
        bad=1
    done
    # Every row has four cells, a default, and an origin that is upstream or ours.
    while IFS= read -r row; do
        local name ncells def origin
        name=$(grep -oE 'GGML_HEXAGON_[A-Z0-9_]+' <<<"$row" | head -n 1)
        ncells=$(awk -F' \\| ' '{ print NF }' <<<"${row#| }")
        def=$(awk -F' \\| ' '{ print $2 }' <<<"${row#| }")
        origin=$(sed -E 's/.*\| ([^|]*) \|$/\1/' <<<"$row")
        [ "$ncells" -eq 4 ] || { echo "$name: expected 4 cells (variable, default, meaning, origin), got $ncells"; bad=1; continue; }
        [ -n "$def" ] || { echo "$name: no default"; bad=1; }
        [[ $origin =~ ^(upstream|ours)( \(.*\))?$ ]] || { echo "$name: origin '$origin' is neither upstream nor ours"; bad=1; }
    done < <(grep -E '^\| `GGML_HEXAGON_' <<<"$section")
    return $bad
}

out=$(check "$src"); rc=$?
[ -z "$out" ] || echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: README.md's environment-variable table and the code disagree"; exit 1; }
echo "ok: $(grep -RhoE '"GGML_HEXAGON_[A-Z0-9_]+"' --include='*.c' --include='*.cpp' --include='*.h' \
    "${code_dirs[@]/#/$src/}" | sort -u | wc -l) variables, each read by the code and in the table"

# Self-check on a scratch copy (sources as symlinks, README and one added file real).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkcopy() {
    rm -rf "$tmp/root"; mkdir -p "$tmp/root"
    local d
    for d in "${code_dirs[@]}"; do cp -rs "$src/$d" "$tmp/root/$d"; done
    cp "$src/README.md" "$tmp/root/README.md"
}
mkcopy
printf '#include <cstdlib>\nstatic const char * knob = std::getenv("GGML_HEXAGON_UNDOCUMENTED_KNOB");\n' \
    >"$tmp/root/host/src/env-table-selftest.cpp"
out=$(check "$tmp/root") && { echo "FAIL: a variable read by the code without a row was not caught"; exit 1; }
[ "$(wc -l <<<"$out")" -eq 1 ] && grep -q 'GGML_HEXAGON_UNDOCUMENTED_KNOB' <<<"$out" ||
    { echo "FAIL: expected one complaint naming the undocumented variable: $out"; exit 1; }
echo "ok: self-check: $out"
mkcopy
sed -i 's/^| `GGML_HEXAGON_VERBOSE` |/| `GGML_HEXAGON_IGNORED_KNOB` | `0` | nothing | ours |\n&/' "$tmp/root/README.md"
out=$(check "$tmp/root") && { echo "FAIL: a row for a variable nothing reads was not caught"; exit 1; }
[ "$(wc -l <<<"$out")" -eq 1 ] && grep -q 'GGML_HEXAGON_IGNORED_KNOB' <<<"$out" ||
    { echo "FAIL: expected one complaint naming the unread variable: $out"; exit 1; }
echo "ok: self-check: $out"
echo "PASS"
