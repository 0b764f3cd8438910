#!/usr/bin/env bash
# The spec's tool command lines (docs/tools.md) run as written, from the repository root:
#   python3 scripts/snapdragon/ggml-hexagon-align-macros.py ggml/src/ggml-hexagon/htp/
#   python3 scripts/snapdragon/ggml-hexagon-align-macros.py --fix ggml/src/ggml-hexagon/htp/
#   python3 scripts/snapdragon/ggml-hexagon-inspect.py --spills --strict --func "^compute_"
#   python3 scripts/snapdragon/ggml-hexagon-inspect.py --promotions --func "^compute_"
#   python3 scripts/snapdragon/ggml-hexagon-inspect.py --disasm compute_same_shape_div_f32
#   python3 scripts/snapdragon/ggml-hexagon-inspect.py --addr2line 0x51a30 0x5ba54
# scripts/snapdragon/ holds links to tools/; upstream's kernel folder means our npu/ there. They
# run in a scratch tree (links to the checkout, npu/ copied) so that --fix touches no source.
# usage: spec-command-lines.sh SOURCE_DIR BUILD_DIR   (BUILD_DIR/hexagon: the Hexagon libraries)
set -uo pipefail
src=$1; build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for e in "$src"/*; do
    case $(basename "$e") in npu|build) ;; *) ln -s "$e" "$work/$(basename "$e")" ;; esac
done
cp -r "$src/npu" "$work/npu"
cd "$work" || exit 1
export GGML_HEXAGON_BUILD=$build

out=$(python3 scripts/snapdragon/ggml-hexagon-align-macros.py ggml/src/ggml-hexagon/htp/ 2>&1) || fail "align-macros check: $out"
grep -q "ggml/src/ggml-hexagon/htp/ is upstream's kernel folder; checking this project's npu/" <<<"$out" ||
    fail "align-macros did not say which folder it checked: $out"
grep -qE 'align-macros: [1-9][0-9]* files, 0 problems found' <<<"$out" || fail "align-macros checked nothing: $out"
echo "ok: align-macros check: $(tail -n 1 <<<"$out")"
out=$(python3 scripts/snapdragon/ggml-hexagon-align-macros.py --fix ggml/src/ggml-hexagon/htp/ 2>&1) || fail "align-macros --fix: $out"
grep -qE 'align-macros: [1-9][0-9]* files, 0 problems fixed' <<<"$out" || fail "align-macros --fix: $out"
echo "ok: align-macros --fix: $(tail -n 1 <<<"$out")"

out=$(python3 scripts/snapdragon/ggml-hexagon-inspect.py --spills --strict --func "^compute_" 2>&1) ||
    fail "inspect --spills --strict: $out"
grep -qE '\([1-9][0-9]* of [0-9]+ functions selected\)' <<<"$out" && grep -q 'total: spills 0' <<<"$out" ||
    fail "inspect --spills selected nothing or found spills: $out"
echo "ok: inspect --spills: $(grep -oE '[0-9]+ of [0-9]+ functions selected' <<<"$out"), $(tail -n 1 <<<"$out")"
out=$(python3 scripts/snapdragon/ggml-hexagon-inspect.py --promotions --func "^compute_" 2>&1) || fail "inspect --promotions: $out"
grep -q 'total: promotions 0' <<<"$out" || fail "inspect --promotions: $out"
echo "ok: inspect --promotions: $(tail -n 1 <<<"$out")"
# The spec's example function is upstream's; ours are named otherwise: one line with the nearest.
out=$(python3 scripts/snapdragon/ggml-hexagon-inspect.py --disasm compute_same_shape_div_f32 2>&1) &&
    fail "inspect --disasm of a function the library lacks exited 0: $out"
[ "$(wc -l <<<"$out")" -eq 1 ] && grep -q "no function matches 'compute_same_shape_div_f32'.*nearest: compute_" <<<"$out" ||
    fail "inspect --disasm of an unknown function: $out"
echo "ok: inspect --disasm (upstream's name): $out"
out=$(python3 scripts/snapdragon/ggml-hexagon-inspect.py --disasm compute_binary_rows 2>&1) || fail "inspect --disasm: $out"
grep -qE 'compute_binary_rows' <<<"$out" && [ "$(wc -l <<<"$out")" -gt 20 ] || fail "inspect --disasm compute_binary_rows: $out"
echo "ok: inspect --disasm compute_binary_rows: $(wc -l <<<"$out") lines"
out=$(python3 scripts/snapdragon/ggml-hexagon-inspect.py --addr2line 0x51a30 0x5ba54 2>&1) || fail "inspect --addr2line: $out"
for a in 0x51a30 0x5ba54; do
    grep -qE "^$a: .* at [^ ]+:[0-9]+" <<<"$out" || fail "inspect --addr2line did not resolve $a: $out"
done
echo "ok: inspect --addr2line: $(grep -c '^0x' <<<"$out") addresses resolved"
python3 scripts/snapdragon/ggml-hexagon-inspect.py --help | grep -q 'scripts/snapdragon/ggml-hexagon-inspect.py' ||
    fail "inspect --help does not name the spec's path"
python3 scripts/snapdragon/ggml-hexagon-align-macros.py --help | grep -q 'scripts/snapdragon/ggml-hexagon-align-macros.py' ||
    fail "align-macros --help does not name the spec's path"
echo "PASS"
