#!/usr/bin/env bash
# Device groups against one session, in one run: MUL_MAT throughput (mul-mat-bench, tiled Q4_0
# weights, a GEMV and a GEMM shape) and llama-bench of the default model (pp and tg) on HTP0
# alone, on HTP0[0-1] and on HTP0[0-3] (sessions on separate virtual NPUs), with ggml's CPU
# backend as the reference. Writes docs/bench-multi-device.md and docs/bench-multi-device.svg
# (or OUT.md / OUT.svg). Not a test: the vHTP's NPUs all run on this host's cores, so a group
# can only be as fast as the cores it shares (see the page's reading).
#   bench/multi-device.sh [OUT_PREFIX]    env: PP (default 128), TG (32), REPS (1), MEMBERS ("1 2 4")
#   bench/multi-device.sh --help
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
help_or_option 9 "$@"
[ $# -le 1 ] || die "at most one argument (OUT_PREFIX), got $# (see --help)"
prefix=${1:-$DOCS/bench-multi-device}
[ -x "$BIN/llama-bench" ] && [ -x "$BIN/mul-mat-bench" ] || die "no $BIN/llama-bench or mul-mat-bench: run scripts/build.sh first"
[ -f "$MODEL" ] || die "no model at $MODEL: run scripts/deps.sh first"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pp=${PP:-128}; tg=${TG:-32}; reps=${REPS:-1}; groups=${MEMBERS:-1 2 4}
export GGML_HEXAGON_MDEV_CHECK=0  # the ownership checker's bookkeeping is not what we measure

devices_for() {  # members -> GGML_HEXAGON_DEVICES value
    [ "$1" = 1 ] && echo HTP0 || echo "HTP0[0-$(($1 - 1))]"
}

: >"$work/mm.tsv"
for g in $groups; do
    for n in 1 64; do
        log "mul-mat-bench q4_0 n=$n on $(devices_for "$g")"
        GGML_HEXAGON_DEVICES=$(devices_for "$g") "$BIN/mul-mat-bench" --type q4_0 -n "$n" -m 4096 -k 2048 \
            --min-time 1 2>"$work/mm.err" | sed "s/^/$g\t/" >>"$work/mm.tsv" ||
            { tail -n 20 "$work/mm.err" >&2; die "mul-mat-bench failed"; }
    done
done
for g in $groups; do
    log "llama-bench on $(devices_for "$g"): pp$pp, tg$tg"
    GGML_HEXAGON_DEVICES=$(devices_for "$g") "$BIN/llama-bench" -m "$MODEL" -p "$pp" -n "$tg" -r "$reps" -o json \
        -dev HTP0 -ngl 99 >"$work/llama-$g.json" 2>"$work/llama.err" ||
        { tail -n 20 "$work/llama.err" >&2; die "llama-bench on $(devices_for "$g") failed"; }
done
log "llama-bench on the CPU"
"$BIN/llama-bench" -m "$MODEL" -p "$pp" -n "$tg" -r "$reps" -o json -dev none -ngl 0 >"$work/llama-cpu.json" 2>"$work/llama.err" ||
    { tail -n 20 "$work/llama.err" >&2; die "llama-bench on the CPU failed"; }

python3 "$ROOT/bench/multi-device-report.py" "$work" "$prefix" "$groups" "$(basename "$MODEL")" "$(git -C "$ROOT" rev-parse --short HEAD)"
log "wrote $prefix.md and $prefix.svg"
