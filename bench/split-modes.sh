#!/usr/bin/env bash
# llama.cpp's ways to spread a model over two HTP devices against one device, in one run:
# llama-bench pp and tg of a llama-architecture model (random weights, written by
# tools/ggml-hexagon-make-model.py: the default Gemma 3 model cannot be tensor split, README
# "Multi-device") on
#   none    HTP0 alone
#   layer   -sm layer over HTP0,HTP1: two sessions of one NPU (GGML_HEXAGON_DEVICES=2, upstream's
#           recipe for models beyond one window; pipelined: a prompt is UB-token micro-batches)
#   layer-npus  -sm layer over HTP0:0,HTP1:0: session 0 of two NPUs
#   row     the device group HTP0[0-1] (every op split over two NPUs; llama's -sm row is not offered)
#   tensor  -sm tensor over HTP0:0,HTP1:0 (two NPUs), the sums between layers on the NPUs (ALLREDUCE)
#   tensor-host  the same with GGML_HEXAGON_AR_SELECT=0 (ggml's meta backend adds on the host)
# and ggml's CPU backend. Writes docs/bench-split-modes.md and .svg (or OUT.md / OUT.svg).
#   bench/split-modes.sh [OUT_PREFIX]
#   env: PP (128) TG (16) UB (32) REPS (1) MODES ("none layer layer-npus row tensor tensor-host");
#        MAKE_MODEL (make-model.py's shape arguments, default a 1024-wide, 8-layer llama);
#        BENCH_NOTE (a sentence for the page, e.g. what else ran on the machine)
#   bench/split-modes.sh --help
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
help_or_option 16 "$@"
[ $# -le 1 ] || die "at most one argument (OUT_PREFIX), got $# (see --help)"
prefix=${1:-$DOCS/bench-split-modes}
[ -x "$BIN/llama-bench" ] || die "no $BIN/llama-bench: run scripts/build.sh first"
pp=${PP:-128}; tg=${TG:-16}; ub=${UB:-32}; reps=${REPS:-1}
modes=${MODES:-none layer layer-npus row tensor tensor-host}
for m in $modes; do
    case $m in none|layer|layer-npus|row|tensor|tensor-host) ;;
        *) die "MODES: none, layer, layer-npus, row, tensor, tensor-host; not '$m'" ;; esac
done
read -r -a shape <<<"${MAKE_MODEL:---n-embd 1024 --n-layer 8 --n-head 16 --n-ff 2816 --n-vocab 32000}"
model=$(python3 "$ROOT/tools/ggml-hexagon-make-model.py" "${shape[@]}" -q) ||
    die "tools/ggml-hexagon-make-model.py ${shape[*]} failed"
unset GGML_HEXAGON_DEVICES GGML_HEXAGON_VERBOSE GGML_HEXAGON_PROFILE GGML_HEXAGON_ALLREDUCE GGML_HEXAGON_AR_SELECT
export GGML_HEXAGON_MDEV_CHECK=0  # the group's ownership checker is not what we measure
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bench() {  # NAME ENV... -- LLAMA-BENCH ARGS...
    local name=$1 env=(); shift
    while [ "$1" != -- ]; do env+=("$1"); shift; done; shift
    log "llama-bench $name: pp$pp tg$tg -ub $ub"
    env "${env[@]}" "$BIN/llama-bench" -m "$model" -p "$pp" -n "$tg" -ub "$ub" -r "$reps" -o json "$@" \
        >"$work/$name.json" 2>"$work/$name.err" || { tail -n 20 "$work/$name.err" >&2; die "llama-bench $name failed"; }
}
bench cpu -- -dev none -ngl 0
for m in $modes; do
    case $m in
        none)        bench none GGML_HEXAGON_DEVICES=1 -- -dev HTP0 -ngl 99 ;;
        layer)       bench layer GGML_HEXAGON_DEVICES=2 -- -dev HTP0/HTP1 -sm layer -ngl 99 ;;
        layer-npus)  bench layer-npus GGML_HEXAGON_DEVICES=HTP0:0,HTP1:0 -- -dev HTP0:0/HTP1:0 -sm layer -ngl 99 ;;
        row)         bench row "GGML_HEXAGON_DEVICES=HTP0[0-1]" -- -dev HTP0 -ngl 99 ;;
        tensor)      bench tensor GGML_HEXAGON_DEVICES=HTP0:0,HTP1:0 -- -dev HTP0:0/HTP1:0 -sm tensor -ngl 99 ;;
        tensor-host) bench tensor-host GGML_HEXAGON_DEVICES=HTP0:0,HTP1:0 GGML_HEXAGON_AR_SELECT=0 -- \
                         -dev HTP0:0/HTP1:0 -sm tensor -ngl 99 ;;
    esac
done
python3 "$ROOT/bench/split-modes-report.py" "$work" "$prefix" "$modes" "$(basename "$model")" "$(git -C "$ROOT" rev-parse --short HEAD)"
log "wrote $prefix.md and $prefix.svg"
