#!/usr/bin/env bash
# GGML_HEXAGON_PROFILE=3 over llama-completion on the default model writes ONE trace for the
# process (docs/tracing.md "One timeline"): well-formed, balanced and ordered on every track
# (tools/ggml-hexagon-trace.py --check, and again here), the host's tracks and every session's
# (HVX threads, dispatcher, DMA queues with bytes), and all on one clock: each op a session ran
# lies inside the host's batch that sent it.
#   trace-timeline.sh BIN ROOT MODEL group   GGML_HEXAGON_DEVICES=HTP0[0-1]: processes HTP0/m0 and
#                                            HTP0/m1, each with fences and L2 flushes
#   trace-timeline.sh BIN ROOT MODEL layer   GGML_HEXAGON_DEVICES=2 -dev HTP0,HTP1 -sm layer:
#                                            processes HTP0 and HTP1, HTP1's stream waiting for HTP0's
set -uo pipefail
bin=$1 root=$2 model=$3 mode=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
case $mode in
    group) env=("GGML_HEXAGON_DEVICES=HTP0[0-1]"); args=(-dev HTP0) ;;
    layer) env=(GGML_HEXAGON_DEVICES=2);           args=(-dev HTP0,HTP1 -sm layer) ;;
    *) echo "FAIL: unknown mode $mode"; exit 1 ;;
esac
out=$(env "${env[@]}" GGML_HEXAGON_PROFILE=3 GGML_HEXAGON_TRACE_DIR="$dir" "$bin/llama-completion" -m "$model" \
      -p "hi" -n 2 -c 256 -ngl 99 -no-cnv --temp 0 "${args[@]}" 2>&1) || { echo "$out" | tail -20; echo "FAIL: llama-completion"; exit 1; }
echo "$out" | grep -E 'wrote .* trace events'
files=("$dir"/ggml-hexagon-trace-*.json)
[ ${#files[@]} -eq 1 ] && [ -f "${files[0]}" ] || { ls "$dir"; echo "FAIL: want exactly one trace file"; exit 1; }
python3 "$root/tools/ggml-hexagon-trace.py" --check "${files[0]}" || { echo "FAIL: the trace tool refuses the file"; exit 1; }
python3 - "${files[0]}" "$mode" <<'PY' || exit 1
import collections, json, sys
doc, mode = json.load(open(sys.argv[1])), sys.argv[2]
ev = doc["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
slices, stacks, last = [], collections.defaultdict(list), {}
for e in ev:
    if e["ph"] not in "BE":
        continue
    key = (e["pid"], e["tid"])
    assert e["ts"] >= last.get(key, 0), f"time goes back on {key}"
    last[key] = e["ts"]
    if e["ph"] == "B":
        stacks[key].append(e)
    else:
        b = stacks[key].pop()
        assert b["name"] == e["name"], f"unbalanced on {key}: {b['name']} / {e['name']}"
        slices.append((procs[key[0]], names[key], b["cat"], b["name"], b["ts"], e["ts"], b.get("args", {})))
assert not any(stacks.values()), "unclosed slices"
want = {"group": ["HTP0/m0", "HTP0/m1", "host"], "layer": ["HTP0", "HTP1", "host"]}[mode]
assert sorted(procs.values()) == want, f"processes {sorted(procs.values())}, want {want}"
by = collections.defaultdict(list)
for s in slices:
    by[(s[0], s[1], s[2])].append(s)
for dev in want[:2]:
    for track, cat in (("dispatcher", "op"), ("HVX 0", "hvx"), ("HVX 0", "dma-wait"), ("DMA queue 0", "dma")):
        assert by[(dev, track, cat)], f"{dev}: no {cat} slices on track {track!r}"
    dma = by[(dev, "DMA queue 0", "dma")]
    assert all(s[6].get("bytes", 0) > 0 for s in dma), f"{dev}: a DMA slice without bytes"
    if mode == "group":  # a member's barriers and the flush of what it wrote before them
        assert by[(dev, "fences", "fence")], f"{dev}: no fence slices"
        assert by[(dev, "L2 flush", "l2flush")], f"{dev}: no L2 flush slices"
host = [s for s in slices if s[0] == "host"]
for name in ("graph_compute", "batch", "send", "receive"):
    assert any(s[3] == name for s in host), f"host: no {name} slice"
if mode == "layer":  # who waited for whom: the second device's stream for the first's work
    w = [s for s in host if s[1] == "HTP1 stream" and s[3] == "wait" and s[6].get("for") == "HTP0 stream"]
    assert w, "no wait of HTP1's stream for HTP0's"
# One clock: every op a session ran lies inside a host batch of its device (sent, then answered).
batches = collections.defaultdict(list)
for s in host:
    if s[3] == "batch":
        batches[s[6]["device"]].append((s[4], s[5]))
n = 0
for s in slices:
    if s[1] == "dispatcher" and s[2] == "op":
        dev = s[0].split("/")[0]
        assert any(b <= s[4] and s[5] <= e for b, e in batches[dev]), f"{s[0]} op at {s[4]} outside every {dev} batch"
        n += 1
print(f"PASS: {len(slices)} slices on {len(last)} tracks of {len(procs)} processes; {n} ops inside their host batches")
PY
