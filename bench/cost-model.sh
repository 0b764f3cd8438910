#!/usr/bin/env bash
# The cost model (docs/profiling.md "Estimated device time") held against published runs:
# random-weight llama models with a published model's shapes and Q4_0 weights
# (tools/ggml-hexagon-make-model.py), profiled at GGML_HEXAGON_PROFILE=2 on the published run's
# arch; the ops' est-usec summed per graph give prompt (pp128) and generation (one token)
# tokens per second. Layers are alike, so each shape is made with 1 and 2 layers and the
# estimate of N layers is est(1) + (N - 1) x (est(2) - est(1)): the same ops and shapes as the
# whole model, without emulating all of it. Prints a markdown table (estimate, published,
# ratio). Not a test: the vHTP's counters are exact, the model's constants are not.
#   bench/cost-model.sh            env: DIR (models, default a temporary folder)
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
case "${1:-}" in
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
esac
[ $# -eq 0 ] || die "no arguments (see --help)"
[ -x "$BIN/llama-bench" ] || die "no $BIN/llama-bench: run scripts/build.sh first"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir=${DIR:-$work}
# name | arch | layers | make-model shape | published pp t/s | published tg t/s (issue 25's table)
rows=(
    "Llama-3.2-1B Q4_0|79|16|--n-embd 2048 --n-head 32 --n-head-kv 8 --n-ff 8192 --n-vocab 128256 --tied|169.4|51.5"
    "Llama-3.1-8B Q4_0|81|32|--n-embd 4096 --n-head 32 --n-head-kv 8 --n-ff 14336 --n-vocab 128256|148.7|13.4"
)
est() {  # model, arch, llama-bench args... -> est-usec of the last graph (its batches summed)
    local model=$1 arch=$2; shift 2
    GGML_HEXAGON_ARCH=v$arch GGML_HEXAGON_PROFILE=2 "$BIN/llama-bench" -m "$model" -r 1 -dev HTP0 -ngl 99 "$@" \
        >"$work/run.log" 2>&1 || { tail -n 20 "$work/run.log" >&2; die "llama-bench failed on $model"; }
    python3 - "$work/run.log" <<'PY'
import re, sys
graphs, cur = [], 0.0
for line in open(sys.argv[1]):
    if " profile-op OPBATCH|" in line:  # one graph per batch here (small models)
        graphs.append(cur); cur = 0.0
    elif m := re.search(r" profile-op .* est-usec ([0-9.]+)", line):
        cur += float(m.group(1))
print(graphs[-1] if graphs else 0)
PY
}
echo "| published run | arch | est. pp128 t/s | published | ratio | est. tg t/s | published | ratio |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for row in "${rows[@]}"; do
    IFS='|' read -r name arch layers shape pub_pp pub_tg <<<"$row"
    declare -A e=()
    for l in 1 2; do
        # shellcheck disable=SC2086
        model=$(python3 "$ROOT/tools/ggml-hexagon-make-model.py" $shape --n-layer $l --dir "$dir" -q --print-path 2>/dev/null)
        # shellcheck disable=SC2086
        python3 "$ROOT/tools/ggml-hexagon-make-model.py" $shape --n-layer $l --dir "$dir" -q >/dev/null
        log "$name, $l layer(s), v$arch"
        e[pp$l]=$(est "$model" "$arch" -p 128 -n 0)
        e[tg$l]=$(est "$model" "$arch" -p 0 -n 2)
    done
    python3 - "$name" "$arch" "$layers" "$pub_pp" "$pub_tg" "${e[pp1]}" "${e[pp2]}" "${e[tg1]}" "${e[tg2]}" <<'PY'
import sys
name, arch, n, pub_pp, pub_tg = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
pp1, pp2, tg1, tg2 = map(float, sys.argv[6:10])
pp_us = pp1 + (n - 1) * (pp2 - pp1)
tg_us = tg1 + (n - 1) * (tg2 - tg1)
pp, tg = 128e6 / pp_us, 1e6 / tg_us
print(f"| {name} | v{arch} | {pp:.1f} | {pub_pp} | {pp / pub_pp:.2f} | {tg:.1f} | {pub_tg} | {tg / pub_tg:.2f} |")
PY
done
echo
echo "est-usec sums of one graph (host time between ops and batches not modelled); $(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
