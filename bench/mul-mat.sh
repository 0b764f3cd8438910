#!/usr/bin/env bash
# MUL_MAT throughput, HTP0 against ggml's CPU backend, for every weight type MUL_MAT on HTP
# takes, at a GEMV shape (n = 1, token generation) and a GEMM shape (n = 512, prompt), with
# flat weights and, for the types that have a tiled format, repacked (tiled) weights.
# Runs build/bin/mul-mat-bench (bench/mul-mat/) per type and shape and writes
# docs/bench-mul-mat.md (table), docs/bench-mul-mat.svg (plot, python3 standard library) and
# docs/bench-mul-mat.tsv (raw rows of mul-mat-bench).
# A benchmark, not a test: run it by hand, best on an otherwise idle machine.
#
#   bench/mul-mat.sh                          # all types, n = 1 and 512 (~3 min on 2 idle cores)
#   TYPES="q4_0 q8_0" NS=1 bench/mul-mat.sh   # a subset
#   K=4096 M_GEMV=4096 M_GEMM=512 bench/mul-mat.sh
#
# Shapes are small on purpose: every HVX instruction of HTP0 is emulated on the host, so
# test-backend-ops' perf shapes (m = 4096, k = 14336, ~100 GFLOP per case) take 5-20 minutes
# per case; here one case is a few seconds.
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
case "${1:-}" in
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    ?*) die "no arguments (settings are environment variables: see --help), got '$1'" ;;
esac

TYPES=${TYPES:-"f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 iq4_nl mxfp4 q1_0 q2_0 q2_K q3_K q4_K q5_K q6_K"}
# Types with a tiled format (docs/tiled-formats.md), measured flat and tiled: the repacker's
# own list (HTP_TYPE_Q4_K -> q4_K).
TILED_TYPES=" $(sed -nE 's/.*case HTP_TYPE_([A-Z0-9_]+): *return ops_.*/\1/p' "$ROOT/repack/repack-ops.cpp" |
    tr 'A-Z' 'a-z' | sed 's/_k$/_K/' | tr '\n' ' ')"
[ "$TILED_TYPES" != " " ] || die "no tiled types found in repack/repack-ops.cpp"
NS=${NS:-"1 512"}
K=${K:-2048}
M_GEMV=${M_GEMV:-2048}  # weight rows at n = 1
M_GEMM=${M_GEMM:-512}   # weight rows at n = 512
MIN_TIME=${MIN_TIME:-1}
CASE_TIMEOUT=${CASE_TIMEOUT:-300}
OUT_MD=${OUT_MD:-$DOCS/bench-mul-mat.md}
OUT_SVG=${OUT_SVG:-${OUT_MD%.md}.svg}
OUT_TSV=${OUT_TSV:-${OUT_MD%.md}.tsv}  # the raw rows, so the report can be remade
MMB=$BIN/mul-mat-bench
[ -x "$MMB" ] || die "$MMB not built (scripts/build.sh)"

# Flat weights stay flat only with the default repack mode (usage WEIGHTS = tiled), and stay
# on the flat HVX path only without run-time repacking (by default a flat weight of a tiled
# type with > 8 activation rows is repacked in VTCM for HMX: the tiled column's path again).
export GGML_HEXAGON_REPACK=1 GGML_HEXAGON_RTREPACK=0
unset GGML_HEXAGON_MM_SELECT GGML_HEXAGON_NHMX GGML_HEXAGON_PROFILE

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results=$tmp/results.tsv
: >"$results"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
loads=()
t_start=$(date +%s)
for t in $TYPES; do
    layouts=flat
    [[ "$TILED_TYPES" == *" $t "* ]] && layouts=flat,tiled
    for n in $NS; do
        m=$([ "$n" -eq 1 ] && echo "$M_GEMV" || echo "$M_GEMM")
        log "MUL_MAT $t m=$m n=$n k=$K: CPU, HTP0 $layouts"
        rc=0
        timeout "$CASE_TIMEOUT" "$MMB" --type "$t" -n "$n" -m "$m" -k "$K" --min-time "$MIN_TIME" --layouts "$layouts" \
            >"$tmp/case.tsv" 2>"$tmp/case.err" || rc=$?
        cat "$tmp/case.tsv" >>"$results"
        cat "$tmp/case.tsv" >&2
        if [ $rc -ne 0 ]; then
            log "  exit $rc$([ $rc -eq 124 ] && echo " (timeout ${CASE_TIMEOUT}s)"): $(tail -3 "$tmp/case.err" | tr '\n' ' ')"
            printf '%s\t%s\t%s\t%s\tHTP0\t%s\t%s\t-\t-\t-\n' "$t" "$n" "$m" "$K" "incomplete" \
                "$([ $rc -eq 124 ] && echo timeout || echo error)" >>"$results"
        fi
        loads+=("$(cut -d' ' -f1 /proc/loadavg)")
    done
done
t_end=$(date +%s)

cp "$results" "$OUT_TSV"
python3 "$ROOT/bench/mul-mat-report.py" "$results" "$OUT_MD" "$OUT_SVG" \
    "date=$(date -u '+%Y-%m-%d %H:%M UTC')" \
    "commit=$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- npu host abi vhtp || echo '+local changes')" \
    "cores=$(nproc)" "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" \
    "tiled_types=$TILED_TYPES" "arch=${GGML_HEXAGON_ARCH:-v79}" "k=$K" "m_gemv=$M_GEMV" "m_gemm=$M_GEMM" "min_time=$MIN_TIME" \
    "load_before=$load_before" "loads=${loads[*]}" "minutes=$(( (t_end - t_start + 59) / 60 ))"
log "wrote $OUT_MD and $OUT_SVG"
