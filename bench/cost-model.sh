#!/usr/bin/env bash
# The cost model (docs/profiling.md "Estimated device time") held against published runs:
# random-weight llama models with a published model's shapes and Q4_0 weights
# (tools/ggml-hexagon-make-model.py), profiled at GGML_HEXAGON_PROFILE=2 on the published run's
# arch; each graph's profile-graph est-usec gives prompt (the published prompt length) and
# generation (one token) tokens per second. Layers are alike, so each shape is made with 1 and 2 layers and the
# estimate of N layers is est(1) + (N - 1) x (est(2) - est(1)): the same ops and shapes as the
# whole model, without emulating all of it. Prints a markdown table (estimate, published,
# ratio). Not a test: the vHTP's counters are exact, the model's constants are not.
#   bench/cost-model.sh            env: DIR (models, default a temporary folder),
#                                  ROWS (a regex: only the rows whose line matches),
#                                  LOGS (a folder: keep each run's log there, named
#                                  <model>-v<arch>-<pp|tg>-l<layers>.log, and rows.txt naming
#                                  each row's four logs: bench/cost-model-whatif.py reads them)
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
help_or_option 13 "$@"
[ $# -eq 0 ] || die "no arguments (see --help)"
[ -x "$BIN/llama-bench" ] || die "no $BIN/llama-bench: run scripts/build.sh first"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir=${DIR:-$work}
# name | arch | layers | make-model shape | prompt tokens | published pp t/s | published tg t/s | env
# (docs/profiling.md "Held against published runs" gives each row's source). The v79 row's run
# predates upstream's HMX path, so it is estimated on our HVX path (GGML_HEXAGON_NHMX=0).
rows=(
    "Llama-3.2-1B Q4_0|79|16|--n-embd 2048 --n-head 32 --n-head-kv 8 --n-ff 8192 --n-vocab 128256 --tied|128|169.4|51.5|GGML_HEXAGON_NHMX=0"
    "Llama-3.2-1B Q4_0|81|16|--n-embd 2048 --n-head 32 --n-head-kv 8 --n-ff 8192 --n-vocab 128256 --tied|256|889.5|64.6|"
    "Llama-3.1-8B Q4_0|81|32|--n-embd 4096 --n-head 32 --n-head-kv 8 --n-ff 14336 --n-vocab 128256|256|148.7|13.4|"
    "Qwen3-4B Q4_0|81|36|--n-embd 2560 --n-head 32 --n-head-kv 8 --head-dim 128 --n-ff 9728 --n-vocab 151936 --tied|512|690|21.6|"
    "OLMoE-1B-7B Q4_0|81|16|--n-embd 2048 --n-head 16 --n-ff 1024 --n-expert 64 --n-expert-used 8 --n-vocab 50304|128|122.5|45.7|"
)
[ -z "${ROWS:-}" ] || mapfile -t rows < <(printf '%s\n' "${rows[@]}" | grep -E -- "$ROWS")
[ -z "${LOGS:-}" ] || { mkdir -p "$LOGS" && : >"$LOGS/rows.txt"; }
est() {  # model, arch, env, log tag, llama-bench args... -> est-usec of the last graph (profile-graph line)
    local model=$1 arch=$2 extra=$3 tag=$4; shift 4
    # shellcheck disable=SC2086
    env $extra GGML_HEXAGON_ARCH=v$arch GGML_HEXAGON_PROFILE=2 "$BIN/llama-bench" -m "$model" -r 1 -dev HTP0 -ngl 99 "$@" \
        >"$work/run.log" 2>&1 || { tail -n 20 "$work/run.log" >&2; die "llama-bench failed on $model"; }
    [ -z "${LOGS:-}" ] || cp "$work/run.log" "$LOGS/$(basename "$model" .gguf)-v$arch-$tag.log"
    python3 - "$work/run.log" <<'PY'
import re, sys
graphs = [float(m.group(1)) for line in open(sys.argv[1])
          if (m := re.search(r" profile-graph .* est-usec ([0-9.]+)", line))]
print(graphs[-1] if graphs else 0)
PY
}
echo "| published run | arch | prompt | est. pp t/s | published | ratio | est. tg t/s | published | ratio |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for row in "${rows[@]}"; do
    IFS='|' read -r name arch layers shape pp pub_pp pub_tg extra <<<"$row"
    declare -A e=() logs=()
    for l in 1 2; do
        # shellcheck disable=SC2086
        model=$(python3 "$ROOT/tools/ggml-hexagon-make-model.py" $shape --n-layer $l --dir "$dir" -q --print-path 2>/dev/null)
        # shellcheck disable=SC2086
        python3 "$ROOT/tools/ggml-hexagon-make-model.py" $shape --n-layer $l --dir "$dir" -q >/dev/null
        log "$name, $l layer(s), v$arch ${extra}"
        e[pp$l]=$(est "$model" "$arch" "$extra" "pp-l$l" -p "$pp" -n 0)
        e[tg$l]=$(est "$model" "$arch" "$extra" "tg-l$l" -p 0 -n 2)
        for t in pp tg; do logs[$t$l]="$(basename "$model" .gguf)-v$arch-$t-l$l.log"; done
    done
    [ -z "${LOGS:-}" ] || echo "$name|$arch|$layers|$pp|$pub_pp|$pub_tg|$extra|${logs[pp1]}|${logs[pp2]}|${logs[tg1]}|${logs[tg2]}" \
        >>"$LOGS/rows.txt"
    python3 - "$name" "$arch" "$layers" "$pub_pp" "$pub_tg" "${e[pp1]}" "${e[pp2]}" "${e[tg1]}" "${e[tg2]}" "$pp" "$extra" <<'PY'
import sys
name, arch, n, pub_pp, pub_tg = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
pp1, pp2, tg1, tg2 = map(float, sys.argv[6:10])
ntok, extra = int(sys.argv[10]), sys.argv[11]
pp_us = pp1 + (n - 1) * (pp2 - pp1)
tg_us = tg1 + (n - 1) * (tg2 - tg1)
pp, tg = ntok * 1e6 / pp_us, 1e6 / tg_us
arch = f"v{arch}" + (f" ({extra})" if extra else "")
print(f"| {name} | {arch} | pp{ntok} | {pp:.1f} | {pub_pp} | {pp / pub_pp:.2f} | {tg:.1f} | {pub_tg} | {tg / pub_tg:.2f} |")
PY
done
echo
echo "profile-graph est-usec of one graph (host time between ops and batches not modelled); $(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
