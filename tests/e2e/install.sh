#!/usr/bin/env bash
# The installed package works from wherever it is moved (README "Install"): cmake --install into
# a temporary prefix, mv the prefix, then from another current folder and with no environment
# variable: llama-cli --list-devices shows HTP0, and llama-completion runs the model's ops on
# HTP0 (GGML_HEXAGON_VERBOSE=1 logs 'ggml-hexagon: HTP0: op ...'). Every library the programs
# load comes from the moved prefix (LD_DEBUG=libs), and no RUNPATH names a folder outside it.
# usage: install.sh BUILD_DIR [MODEL]
set -uo pipefail
build=$1; model=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$work/staged" >"$work/install.log" 2>&1 ||
    { tail -n 20 "$work/install.log"; fail "cmake --install exited non-zero"; }
mv "$work/staged" "$work/moved"
p=$work/moved
# Cached build folders still exist; a relative layout must not need them.
for f in lib/libggml-base.so lib/libggml-cpu.so lib/libggml-hexagon.so lib/libggml-vhtp.so \
         lib/libggml-htp-v73.so lib/libggml-htp-v75.so lib/libggml-htp-v79.so lib/libggml-htp-v81.so \
         bin/llama-cli bin/llama-completion bin/llama-bench bin/test-backend-ops bin/mul-mat-bench \
         bin/libggml-hexagon.so bin/libggml-cpu.so \
         share/ggml-hexagon/bench/llama-bench.sh share/ggml-hexagon/tools/ggml-hexagon-inspect.py; do
    [ -e "$p/$f" ] || fail "the package has no $f"
done
for f in "$p"/lib/*.so* "$p"/bin/*; do
    [ -L "$f" ] || ! head -c 4 "$f" | grep -q ELF && continue
    readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -oE '\[.*\]' | tr -d '[]' | tr ':' '\n' |
        grep -vE '^(\$ORIGIN(/\.\./lib)?)?$' | sed "s|^|$f: RUNPATH entry |" >>"$work/abs.txt"
done
[ ! -s "$work/abs.txt" ] || { cat "$work/abs.txt"; fail "RUNPATH entries outside the package"; }

# A clean environment: no GGML_HEXAGON_*, no LD_LIBRARY_PATH, a current folder with nothing in it.
mkdir "$work/elsewhere" && cd "$work/elsewhere" || fail "no scratch folder"
clean=(env -i PATH=/usr/bin:/bin HOME="$HOME")
out=$("${clean[@]}" "$p/bin/llama-cli" --list-devices 2>&1) || fail "llama-cli --list-devices exited $?: $out"
echo "$out" | grep -qE '^ *HTP0: Hexagon v79' || fail "HTP0 not listed by the moved package: $out"
echo "$out" | grep -E '^ *HTP0'

"${clean[@]}" LD_DEBUG=libs "$p/bin/llama-cli" --list-devices >/dev/null 2>"$work/ld.txt"
loaded=$(grep -oE 'calling init: [^ ]*lib(ggml|llama|mtmd)[^ ]*' "$work/ld.txt" | sed 's/calling init: //' | sort -u)
[ -n "$loaded" ] || fail "LD_DEBUG showed no ggml library loading"
if echo "$loaded" | grep -v "^$p/"; then fail "libraries above were loaded from outside the package"; fi
echo "$loaded" | grep -q "libggml-htp-v79.so" || fail "the NPU library was not loaded: $loaded"
echo "loaded from the package: $(echo "$loaded" | wc -l) libraries"

"${clean[@]}" "$p/share/ggml-hexagon/bench/llama-bench.sh" --help >/dev/null || fail "installed llama-bench.sh --help"
"${clean[@]}" "$p/share/ggml-hexagon/tools/ggml-hexagon-inspect.py" --help >/dev/null || fail "installed inspect --help"

if [ -n "$model" ]; then
    "${clean[@]}" GGML_HEXAGON_VERBOSE=1 "$p/bin/llama-completion" -m "$model" -dev HTP0 -ngl 99 -p hi -n 4 \
        -no-cnv --temp 0 </dev/null >"$work/out.txt" 2>"$work/log.txt" ||
        { tail -n 20 "$work/log.txt"; fail "llama-completion from the moved package exited non-zero"; }
    ops=$(grep -c 'ggml-hexagon: HTP0: op ' "$work/log.txt" || true)
    echo "text: $(tr '\n' ' ' <"$work/out.txt")"
    echo "ops run on HTP0: $ops"
    [ "$ops" -gt 0 ] || { tail -n 20 "$work/log.txt"; fail "no op ran on HTP0"; }
fi
echo "PASS"
