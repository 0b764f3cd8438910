#!/usr/bin/env bash
# GGML_HEXAGON_PROFILE=3 writes a Chrome-JSON trace that Perfetto opens: valid JSON, begin/end
# events balanced and ordered on every track, and the events each run must show.
#
#   trace.sh BIN              SCALE: HVX compute and DMA-wait events on HVX threads, the
#                             dispatcher's per-op events
#   trace.sh BIN flat         MUL_MAT, flat weights (REPACK=0): quantize, dma-wait, dequantize,
#                             hvx, output events of opcode MUL_MAT
#   trace.sh BIN tiled-hvx    MUL_MAT_TILED (REPACK=all, MM_SELECT=hvx): quantize, dma-wait, hvx,
#                             output (the tile dequantization is fused into the vrmpy dots)
#   trace.sh BIN hmx          MUL_MAT_HMX (REPACK=all, MM_SELECT=hmx): quantize, dma-wait,
#                             dequantize, hmx, output
#   trace.sh BIN rt-repack    MUL_MAT_HMX on flat weights repacked at run time (REPACK=0,
#                             MM_SELECT=hmx): the same phases as hmx
set -uo pipefail
bin=$1
mode=${2:-scale}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# One small q4_0 case with 1 and with 3 activation rows: every phase runs, in seconds.
mm_cases='^type_a=q4_0,type_b=f32,m=16,n=(1|3),k=256,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1($|,)'
case $mode in
    scale)     env=();                                               args=(-o SCALE) ;;
    flat)      env=(GGML_HEXAGON_REPACK=0);                          args=(-o MUL_MAT -p "$mm_cases") ;;
    tiled-hvx) env=(GGML_HEXAGON_REPACK=all GGML_HEXAGON_MM_SELECT=hvx); args=(-o MUL_MAT -p "$mm_cases") ;;
    hmx)       env=(GGML_HEXAGON_REPACK=all GGML_HEXAGON_MM_SELECT=hmx); args=(-o MUL_MAT -p "$mm_cases") ;;
    rt-repack) env=(GGML_HEXAGON_REPACK=0 GGML_HEXAGON_MM_SELECT=hmx);   args=(-o MUL_MAT -p "$mm_cases") ;;
    *) echo "FAIL: unknown mode $mode"; exit 1 ;;
esac
out=$(env "${env[@]}" GGML_HEXAGON_PROFILE=3 GGML_HEXAGON_TRACE_DIR="$dir" "$bin/test-backend-ops" test -b HTP0 "${args[@]}" 2>&1)
echo "$out" | grep -E 'tests passed|wrote .* trace events'
# The cases must have run (N/M with M > 0) and passed.
echo "$out" | grep -qE '^ *([1-9][0-9]*)/\1 tests passed' || { echo "FAIL: test-backend-ops did not pass every case"; exit 1; }
files=("$dir"/ggml-hexagon-trace-*.json)
[ -f "${files[0]}" ] || { echo "FAIL: no trace file in $dir"; exit 1; }
python3 - "${files[0]}" "$mode" <<'PY'
import json, sys, collections
doc, mode = json.load(open(sys.argv[1])), sys.argv[2]
ev = [e for e in doc["traceEvents"] if e["ph"] in "BE"]
assert ev, "no events"
stacks, last = collections.defaultdict(list), {}
for e in ev:
    key = (e["pid"], e["tid"])
    assert e["ts"] >= last.get(key, 0), f"time goes back on track {key}"
    last[key] = e["ts"]
    if e["ph"] == "B":
        stacks[key].append(e["name"])
    else:
        assert stacks[key] and stacks[key].pop() == e["name"], f"unbalanced {e}"
assert all(not s for s in stacks.values()), "unclosed events"
cats = collections.Counter((e["cat"], e["tid"] == 100) for e in ev)
assert cats[("op", True)] > 0, cats
if mode == "scale":
    assert cats[("hvx", False)] > 0 and cats[("dma-wait", False)] > 0, cats
else:
    # Event names are "<kind> <opcode>"; phases run on the HVX threads.
    opcode, want = {
        "flat":      ("MUL_MAT",       ["quantize", "dma-wait", "dequantize", "hvx", "output"]),
        "tiled-hvx": ("MUL_MAT_TILED", ["quantize", "dma-wait", "hvx", "output"]),
        "hmx":       ("MUL_MAT_HMX",   ["quantize", "dma-wait", "dequantize", "hmx", "output"]),
        "rt-repack": ("MUL_MAT_HMX",   ["quantize", "dma-wait", "dequantize", "hmx", "output"]),
    }[mode]
    seen = collections.Counter(e["cat"] for e in ev if e["ph"] == "B" and e["tid"] != 100 and e["name"] == f'{e["cat"]} {opcode}')
    missing = [k for k in want if seen[k] == 0]
    assert not missing, f"{opcode}: no {missing} events (seen: {dict(seen)})"
    print(f"{opcode} phases: " + ", ".join(f"{k} {seen[k]}" for k in want))
print(f"PASS: {len(ev)} events on {len(last)} tracks")
PY
