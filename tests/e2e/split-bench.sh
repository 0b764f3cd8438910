#!/usr/bin/env bash
# llama-bench runs a split over several HTP devices: every test of its JSON has a positive
# speed, and every device ran ops (GGML_HEXAGON_VERBOSE=1's per-op log).
# usage: split-bench.sh BIN_DIR MODEL DEVICES SPLIT_MODE   (DEVICES: HTP0,HTP1; SPLIT_MODE: layer, tensor)
set -uo pipefail
bin=$1; model=$2; devices=$3; sm=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GGML_HEXAGON_VERBOSE=1 "$bin/llama-bench" -m "$model" -dev "${devices//,//}" -sm "$sm" -ngl 99 -p 32 -n 4 -ub 16 -r 1 \
    -o json >"$work/out.json" 2>"$work/err.log"
rc=$?
if [ $rc -ne 0 ]; then
    tail -n 20 "$work/err.log"
    echo "FAIL: llama-bench -dev ${devices//,//} -sm $sm exited $rc"
    exit 1
fi
python3 - "$work/out.json" <<'PY' || exit 1
import json, sys
runs = json.load(open(sys.argv[1]))
assert runs, "FAIL: llama-bench wrote no result"
for r in runs:
    kind = f"pp{r['n_prompt']}" if r["n_prompt"] else f"tg{r['n_gen']}"
    print(f"{r['devices'] if 'devices' in r else ''} -sm {r.get('split_mode')}: {kind} {r['avg_ts']:.2f} t/s")
    assert r["avg_ts"] > 0, f"FAIL: {kind} at {r['avg_ts']} t/s"
PY
for dev in ${devices//,/ }; do
    n=$(grep -c "ggml-hexagon: $dev: op " "$work/err.log" || true)
    echo "$dev ran $n ops"
    [ "$n" -gt 0 ] || { echo "FAIL: no op ran on $dev"; exit 1; }
done
echo "PASS"
