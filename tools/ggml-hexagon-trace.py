#!/usr/bin/env python3
"""Checks and summarizes a GGML_HEXAGON_PROFILE=3 trace (docs/tracing.md).

Reads ggml-hexagon-trace-<pid>.json, the process's one Chrome-JSON trace (the file Perfetto
opens), checks that it is well formed (JSON with traceEvents; every begin has its end on the
same track, in time order, properly nested) and prints per process (the host, each device's
session or group member) and per track: slices, busy time (the track's outermost slices),
the time of each kind of slice and, on DMA queue tracks, the bytes moved. --waits lists who
waited for whom: the host's waits on a device's queued work, and each member's fences.

    GGML_HEXAGON_PROFILE=3 GGML_HEXAGON_TRACE_DIR=/tmp llama-completion ... -dev HTP0
    tools/ggml-hexagon-trace.py /tmp/ggml-hexagon-trace-*.json

A malformed trace is one line naming the first fault (exit 1).
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))  # tool_exit.py, beside this file
import tool_exit  # noqa: E402


class Malformed(Exception):
    pass


def load(path):
    """(processes {pid: name}, tracks {(pid, tid): name}, slices [dict]) of a checked trace."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise Malformed(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise Malformed(f"{path}: not JSON ({e.msg} at line {e.lineno})")
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        raise Malformed(f"{path}: no traceEvents list")
    procs, tracks, slices = {}, {}, []
    stacks, last = collections.defaultdict(list), {}
    for i, e in enumerate(events):
        if not isinstance(e, dict) or "ph" not in e:
            raise Malformed(f"{path}: event {i} has no phase")
        if e["ph"] == "M":
            if e.get("name") == "process_name":
                procs[e["pid"]] = e["args"]["name"]
            elif e.get("name") == "thread_name":
                tracks[(e["pid"], e["tid"])] = e["args"]["name"]
            continue
        if e["ph"] not in ("B", "E"):
            raise Malformed(f"{path}: event {i}: phase {e['ph']!r} (only B, E and M are written)")
        for k in ("name", "ts", "pid", "tid"):
            if k not in e:
                raise Malformed(f"{path}: event {i} has no {k}")
        key = (e["pid"], e["tid"])
        if e["ts"] < last.get(key, float("-inf")):
            raise Malformed(f"{path}: event {i} ({e['name']}) goes back in time on track {key}")
        last[key] = e["ts"]
        if e["ph"] == "B":
            stacks[key].append((e, len(stacks[key])))
        else:
            if not stacks[key]:
                raise Malformed(f"{path}: event {i}: end of {e['name']!r} with nothing open on track {key}")
            b, depth = stacks[key].pop()
            if b["name"] != e["name"]:
                raise Malformed(f"{path}: event {i}: end of {e['name']!r} closes {b['name']!r} on track {key}")
            slices.append({"pid": key[0], "tid": key[1], "name": b["name"], "cat": b.get("cat", ""),
                           "ts": b["ts"], "dur": e["ts"] - b["ts"], "depth": depth, "args": b.get("args", {})})
    for key, st in stacks.items():
        if st:
            raise Malformed(f"{path}: {len(st)} slice(s) never end on track {key} (first: {st[0][0]['name']!r})")
    for pid, tid in last:
        if pid not in procs:
            raise Malformed(f"{path}: events of process {pid}, which has no process_name")
        tracks.setdefault((pid, tid), f"thread {tid}")
    return procs, tracks, slices


def summarize(procs, tracks, slices):
    out = {"processes": {}}
    per_track = collections.defaultdict(list)
    for s in slices:
        per_track[(s["pid"], s["tid"])].append(s)
    t0 = min((s["ts"] for s in slices), default=0)
    t1 = max((s["ts"] + s["dur"] for s in slices), default=0)
    out["span_us"] = t1 - t0
    for (pid, tid), ss in sorted(per_track.items()):
        p = out["processes"].setdefault(procs[pid], {"pid": pid, "tracks": {}})
        kinds = collections.defaultdict(float)
        for s in ss:
            kinds[s["cat"]] += s["dur"]
        t = {"tid": tid, "slices": len(ss), "busy_us": sum(s["dur"] for s in ss if s["depth"] == 0),
             "us_by_kind": dict(kinds)}
        dma = [s["args"].get("bytes") for s in ss if "bytes" in s["args"]]
        if dma:
            t["bytes"] = sum(dma)
        p["tracks"][tracks[(pid, tid)]] = t
    return out


def waits(procs, tracks, slices):
    """Who waited for whom: host waits (on a device's queued work) and fences, per track."""
    rows = collections.defaultdict(lambda: [0, 0.0])
    for s in slices:
        if s["cat"] == "host" and s["name"] == "wait":
            key = (procs[s["pid"]] + ": " + tracks[(s["pid"], s["tid"])], "waited for " + s["args"].get("for", "?"))
        elif s["cat"] == "fence":
            key = (procs[s["pid"]], "waited at fences for its peers")
        else:
            continue
        rows[key][0] += 1
        rows[key][1] += s["dur"]
    return [{"who": w, "what": what, "count": n, "us": us} for (w, what), (n, us) in sorted(rows.items())]


def main():
    ap = tool_exit.Parser(description="Check and summarize a GGML_HEXAGON_PROFILE=3 trace (docs/tracing.md).",
                epilog="example: %(prog)s ggml-hexagon-trace-1234.json --waits")
    ap.add_argument("trace", help="ggml-hexagon-trace-<pid>.json")
    ap.add_argument("--check", action="store_true", help="only check the file: one line, exit 0 or 1")
    ap.add_argument("--waits", action="store_true", help="also list who waited for whom (host waits, fences)")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args()
    try:
        procs, tracks, slices = load(args.trace)
    except Malformed as e:
        print(f"ggml-hexagon-trace: {e}", file=sys.stderr)
        return 1
    if not slices:
        print(f"ggml-hexagon-trace: {args.trace}: no slices", file=sys.stderr)
        return 1
    if args.check:
        print(f"ok: {len(slices)} slices on {len({(s['pid'], s['tid']) for s in slices})} tracks of "
              f"{len(procs)} processes")
        return 0
    summary = summarize(procs, tracks, slices)
    if args.waits:
        summary["waits"] = waits(procs, tracks, slices)
    if args.json:
        json.dump(summary, sys.stdout, indent=1)
        print()
        return 0
    print(f"{'process / track':<32} {'slices':>8} {'busy us':>12} {'bytes':>12}  time by kind (us)")
    for pname, p in summary["processes"].items():
        print(pname)
        for tname, t in p["tracks"].items():
            kinds = ", ".join(f"{k} {v:.0f}" for k, v in sorted(t["us_by_kind"].items(), key=lambda kv: -kv[1]))
            print(f"  {tname:<30} {t['slices']:>8} {t['busy_us']:>12.1f} {t.get('bytes', ''):>12}  {kinds}")
    print(f"{summary['span_us']:.1f} us from the first slice to the last")
    for w in summary.get("waits", []):
        print(f"{w['who']} {w['what']}: {w['count']} times, {w['us']:.1f} us")
    return 0


if __name__ == "__main__":
    tool_exit.run(main)
