#!/usr/bin/env bash
# Splits over HTP devices that make little sense still run, and say what is odd in one line:
#   - "-dev HTP0,HTP0" (a device named twice): one warning that the second backend shares the
#     device's session; the text is the same as on HTP0 alone;
#   - "-sm layer -ts 1,0" (a ratio that leaves HTP1 without layers): runs on HTP0, HTP1 runs
#     no op, no warning or error from the backend.
# usage: split-bad-input.sh BIN_DIR MODEL   (GGML_HEXAGON_DEVICES must give HTP0 and HTP1)
set -uo pipefail
bin=$1; model=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { [ -f "${2:-}" ] && tail -n 20 "$2"; echo "FAIL: $1"; exit 1; }
run() {  # NAME ARGS...: greedy 6 tokens; the text goes to NAME.txt, stderr to NAME.log
    local name=$1; shift
    GGML_HEXAGON_VERBOSE=1 "$bin/llama-completion" -m "$model" -ngl 99 -no-cnv --temp 0 --seed 1 -n 6 \
        -p "The quick brown fox" --no-warmup "$@" >"$work/$name.txt" 2>"$work/$name.log" ||
        fail "llama-completion $* exited $?" "$work/$name.log"
}
run one -dev HTP0
run twice -dev HTP0,HTP0
n=$(grep -c "ggml-hexagon: HTP0: a second backend on the same device" "$work/twice.log" || true)
[ "$n" -eq 1 ] || fail "-dev HTP0,HTP0: expected one 'second backend' warning, got $n" "$work/twice.log"
cmp -s "$work/one.txt" "$work/twice.txt" || fail "-dev HTP0,HTP0 generated other text than -dev HTP0"
echo "ok: -dev HTP0,HTP0 -> $(grep -m1 'second backend' "$work/twice.log" | sed 's/^.*ggml-hexagon/ggml-hexagon/')"

run empty -dev HTP0,HTP1 -sm layer -ts 1,0
grep -q "ggml-hexagon: HTP0: op " "$work/empty.log" || fail "-ts 1,0: no op ran on HTP0" "$work/empty.log"
grep -q "ggml-hexagon: HTP1: op " "$work/empty.log" && fail "-ts 1,0: HTP1 ran ops though it holds no layer"
grep -E "ggml-hexagon: .*(error|failed|cannot)" "$work/empty.log" && fail "-ts 1,0: the backend complained"
cmp -s "$work/one.txt" "$work/empty.txt" || fail "-ts 1,0 generated other text than -dev HTP0"
echo "ok: -sm layer -ts 1,0 runs on HTP0 alone, same text"
echo "PASS"
