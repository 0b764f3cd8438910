#!/usr/bin/env bash
# GGML_HEXAGON_PROFILE=3 writes a Chrome-JSON trace that Perfetto opens: valid JSON, begin/end
# events balanced and ordered on every track, HVX compute and DMA-wait events on HVX threads,
# and the dispatcher's per-op events.
set -uo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$(GGML_HEXAGON_PROFILE=3 GGML_HEXAGON_TRACE_DIR="$dir" "$bin/test-backend-ops" test -b HTP0 -o SCALE 2>&1)
echo "$out" | grep -E 'tests passed|wrote .* trace events'
files=("$dir"/ggml-hexagon-trace-*-HTP0.json)
[ -f "${files[0]}" ] || { echo "FAIL: no trace file in $dir"; exit 1; }
python3 - "${files[0]}" <<'PY'
import json, sys, collections
doc = json.load(open(sys.argv[1]))
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
assert cats[("hvx", False)] > 0 and cats[("dma-wait", False)] > 0, cats
assert cats[("op", True)] > 0, cats
print(f"PASS: {len(ev)} events on {len(last)} tracks")
PY
