#!/usr/bin/env bash
# What the session's mapping window costs (issue 18), in one run: llama-bench tokens per second
# on HTP0 with GGML_HEXAGON_VMEM budgets below the model's size, each against the full budget
# and against ggml's CPU backend:
#   - the default model (Gemma 3 270M, ~253 MB of weights; its tied 262144 x 640 Q8_0
#     embedding alone is ~178 MB): the full budget, 224 MiB, and the tightest budget that works
#     (found by a one-token llama-completion probe from TIGHT_FROM down in TIGHT_STEP MiB steps)
#   - the larger-than-window model of tools/ggml-hexagon-make-model.py (Llama-2-7B shapes, 3.79e9
#     bytes, written first if it is not there): the full (default) budget, half and a quarter of
#     its size; and the v81 profile (64-bit window: no sliding)
# Writes docs/bench-large-model.md and docs/bench-large-model.svg (or OUT.md / OUT.svg). A run
# that fails is reported as such in the page and makes the script exit 1 (after writing it).
#   bench/large-model.sh [OUT_PREFIX]
#   env: PP (32) TG (8) UB (8): the default model's llama-bench -p / -n / -ub (a small micro-batch
#        keeps the pinned compute buffer, whose logits are n_vocab x n_ubatch floats, small); LARGE_PP (16) LARGE_TG (4):
#        the large model's; REPS (1); MODELS ("small large"); BUDGETS_SMALL ("full 224 tight");
#        TIGHT (MiB: skip the probe), TIGHT_FROM (216), TIGHT_STEP (8), TIGHT_MIN (176);
#        BUDGETS_LARGE ("full half quarter v81")
#   bench/large-model.sh --help
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
help_or_option 18 "$@"
prefix=${1:-$DOCS/bench-large-model}
[ -x "$BIN/llama-bench" ] && [ -x "$BIN/llama-completion" ] || die "no $BIN/llama-bench or llama-completion: run scripts/build.sh first"
pp=${PP:-32}; tg=${TG:-8}; lpp=${LARGE_PP:-16}; ltg=${LARGE_TG:-4}; reps=${REPS:-1}; ub=${UB:-8}
models=${MODELS:-small large}
for m in $models; do [ "$m" = small ] || [ "$m" = large ] || die "MODELS: 'small' and/or 'large', not '$m'"; done
unset GGML_HEXAGON_VMEM GGML_HEXAGON_ARCH GGML_HEXAGON_DEVICES GGML_HEXAGON_PROFILE GGML_HEXAGON_VERBOSE
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/runs.tsv"  # model, label, budget MiB ("" = default), arch, json, status, note
failed=0

mib() { echo $(($1 / 1048576)); }
why() {  # LOG: the most telling error line (the backend's own first, then llama's errors)
    { grep -m1 -E 'ggml-hexagon: .*(failed|error|out of memory|cannot)' "$1" ||
        grep -m1 -E ' E |error:' "$1" || grep -m1 -iE 'error|failed' "$1"; } |
        sed -E 's/^[0-9.]+ [A-Z] //' | cut -c1-160
}
# bench MODEL_KEY MODEL_PATH LABEL BUDGET_MIB ARCH PP TG DEVICE_ARGS...
bench() {
    local key=$1 path=$2 label=$3 budget=$4 arch=$5 p=$6 n=$7; shift 7
    local json="$work/$key-$label.json" err="$work/$key-$label.err" env=()
    [ -n "$budget" ] && env+=("GGML_HEXAGON_VMEM=$budget")
    [ -n "$arch" ] && env+=("GGML_HEXAGON_ARCH=$arch")
    log "llama-bench $key $label (${budget:-default} MiB${arch:+, $arch}): pp$p tg$n"
    local t0=$SECONDS
    if env "${env[@]}" "$BIN/llama-bench" -m "$path" -p "$p" -n "$n" -r "$reps" -o json "$@" >"$json" 2>"$err" &&
        python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))' "$json" 2>/dev/null; then
        printf '%s\t%s\t%s\t%s\t%s\tok\t%s s\n' "$key" "$label" "$budget" "$arch" "$json" $((SECONDS - t0)) >>"$work/runs.tsv"
    else
        local why
        why=$(why "$err")
        log "  failed: ${why:-see $err}"
        printf '%s\t%s\t%s\t%s\t%s\tfailed\t%s\n' "$key" "$label" "$budget" "$arch" "$json" "${why:-llama-bench failed, no error line}" >>"$work/runs.tsv"
        failed=1
    fi
}
# probe BUDGET_MIB: one generated token on HTP0 with that budget
probe() {
    GGML_HEXAGON_VMEM=$1 "$BIN/llama-completion" -m "$MODEL" -dev HTP0 -ngl 99 -no-cnv --temp 0 -c 256 -ub "$ub" -n 1 \
        --no-warmup -p "Hello" >/dev/null 2>"$work/probe.err"
}

if [[ " $models " == *" small "* ]]; then
    [ -f "$MODEL" ] || die "no model at $MODEL: run scripts/deps.sh first"
    bench small "$MODEL" cpu "" "" "$pp" "$tg" -dev none -ngl 0 -ub "$ub"
    for b in ${BUDGETS_SMALL:-full 224 tight}; do
        case $b in
            full) bench small "$MODEL" full "" "" "$pp" "$tg" -dev HTP0 -ngl 99 -ub "$ub" ;;
            tight)
                t=${TIGHT:-}
                if [ -z "$t" ]; then
                    c=${TIGHT_FROM:-216}
                    while [ "$c" -ge "${TIGHT_MIN:-176}" ]; do
                        log "probe: one token with a budget of $c MiB"
                        probe "$c" || break
                        t=$c; c=$((c - ${TIGHT_STEP:-8}))
                    done
                fi
                if [ -n "$t" ]; then
                    bench small "$MODEL" tight "$t" "" "$pp" "$tg" -dev HTP0 -ngl 99 -ub "$ub"
                else
                    why=$(why "$work/probe.err")
                    printf 'small\ttight\t%s\t\t-\tfailed\tno budget from %s MiB down worked: %s\n' "${TIGHT_FROM:-216}" \
                        "${TIGHT_FROM:-216}" "${why:-?}" >>"$work/runs.tsv"
                    failed=1
                fi ;;
            [0-9]*) bench small "$MODEL" "$b" "$b" "" "$pp" "$tg" -dev HTP0 -ngl 99 -ub "$ub" ;;
            *) die "BUDGETS_SMALL: full, tight or MiB, not '$b'" ;;
        esac
    done
fi

if [[ " $models " == *" large "* ]]; then
    large=$(python3 "$ROOT/tools/ggml-hexagon-make-model.py") || die "the large model could not be written"
    size=$(stat -c %s "$large")
    bench large "$large" cpu "" "" "$lpp" "$ltg" -dev none -ngl 0
    for b in ${BUDGETS_LARGE:-full half quarter v81}; do
        case $b in
            full) bench large "$large" full "" "" "$lpp" "$ltg" -dev HTP0 -ngl 99 ;;
            half) bench large "$large" half "$(mib $((size / 2)))" "" "$lpp" "$ltg" -dev HTP0 -ngl 99 ;;
            quarter) bench large "$large" quarter "$(mib $((size / 4)))" "" "$lpp" "$ltg" -dev HTP0 -ngl 99 ;;
            v81) bench large "$large" v81 "" v81 "$lpp" "$ltg" -dev HTP0 -ngl 99 ;;
            [0-9]*) bench large "$large" "$b" "$b" "" "$lpp" "$ltg" -dev HTP0 -ngl 99 ;;
            *) die "BUDGETS_LARGE: full, half, quarter, v81 or MiB, not '$b'" ;;
        esac
    done
    echo "$size" >"$work/large-size"
    basename "$large" >"$work/large-name"
fi

python3 "$ROOT/bench/large-model-report.py" "$work" "$prefix" "$(basename "$MODEL")" "$(git -C "$ROOT" rev-parse --short HEAD)"
log "wrote $prefix.md and $prefix.svg"
[ "$failed" = 0 ] || die "some runs failed (marked in $prefix.md)"
