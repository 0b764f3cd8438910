#!/usr/bin/env python3
"""Per-op table of a GGML_HEXAGON_PROFILE run (docs/profiling.md).

Reads the log of a run with GGML_HEXAGON_PROFILE=1 or 2 (its "ggml-hex: <session> profile-op ..."
lines) from a file or from a pipe ('-'), as upstream users do:

    GGML_HEXAGON_PROFILE=2 llama-completion ... 2>&1 | tools/ggml-hexagon-profile.py -

and prints one row per op (or per node name, device, group member or NPU kernel): count, total
and mean microseconds, share of all ops' time, cycles, and at level 2 the estimated device
time of the cost model (microseconds and device cycles) and the summed counters; then per
session its batches (OPBATCH lines), their median time and ops per batch; then, from level 2's
profile-graph lines, the per-token summary: per device its prompt graphs (more than one token)
and generation graphs (one token), host and estimated device microseconds per token, estimated
device cycles per token and tokens per second, and for a layer split the devices together (a
token passes through each in turn, so their times add). Logs from before est-cycles came
(no such field) leave the cycles out (null in --json).
Other lines are ignored; a file with no profile line is an error (exit 1).
"""
import json
import re
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))  # tool_exit.py, beside this file
import tool_exit  # noqa: E402

LINE = re.compile(r"ggml-hex: (\S+) profile-op (.*)$")
TIMES = re.compile(r"usec (\d+) cycles (\d+) start (\d+) mhz (\d+)")
PMU = re.compile(r" pmu \[([0-9,]*)\]")
COUNTERS = re.compile(r" counters (\S+)")
EST = re.compile(r" est-usec ([0-9.]+)(?: est-cycles (\d+))?")
GRAPH = re.compile(r"ggml-hex: (\S+) profile-graph n-batches (\d+) n-ops (\d+) tokens (\d+) usec (\d+) "
                   r"est-usec ([0-9.]+)(?: est-cycles (\d+))?")
# The counters shown as columns (all of them are in --json).
SHOWN = ("hvx_alu", "hvx_mpy", "hvx_permute", "hmx_tiles", "dma_in", "dma_out", "dma_wait_us")


def parse(stream):
    """(ops, batches, graphs): one dict per profile-op line, per profile-graph line."""
    ops, batches, graphs = [], [], []
    for raw in stream:
        g = GRAPH.search(raw)
        if g:
            graphs.append({"device": g.group(1), "batches": int(g.group(2)), "n_ops": int(g.group(3)),
                           "tokens": int(g.group(4)), "usec": int(g.group(5)), "est_usec": float(g.group(6)),
                           "est_cycles": int(g.group(7)) if g.group(7) else None})
            continue
        m = LINE.search(raw.rstrip("\n"))
        if not m:
            continue
        session, rest = m.group(1), m.group(2)
        fields = rest.split("|")
        if len(fields) < 7:
            continue
        t = TIMES.search(fields[6])
        if not t:
            continue
        rec = {
            "session": session,
            "device": session.split("/")[0],
            "member": session,
            "op": fields[0],
            "names": fields[1],
            "name": fields[1].split(":")[0],
            "dims": fields[2],
            "types": fields[3],
            "strides": fields[4],
            "kparams": fields[5],
            "usec": int(t.group(1)),
            "cycles": int(t.group(2)),
            "start": int(t.group(3)),
            "mhz": int(t.group(4)),
            "est_usec": None,
            "est_cycles": None,
            "pmu": [],
            "counters": {},
        }
        kernel = re.search(r"kernel=([^,]+)", fields[5])
        rec["kernel"] = kernel.group(1) if kernel else fields[0]
        p = PMU.search(fields[6])
        if p and p.group(1):
            rec["pmu"] = [int(x) for x in p.group(1).split(",")]
        e = EST.search(fields[6])
        if e:
            rec["est_usec"] = float(e.group(1))
            if e.group(2):
                rec["est_cycles"] = int(e.group(2))
        c = COUNTERS.search(fields[6])
        if c:
            for kv in c.group(1).split(","):
                k, _, v = kv.partition("=")
                if v.isdigit():
                    rec["counters"][k] = int(v)
        if rec["op"] == "OPBATCH":
            n = re.match(r"n-ops (\d+)", fields[2])
            rec["n_ops"] = int(n.group(1)) if n else 0
            batches.append(rec)
        else:
            ops.append(rec)
    return ops, batches, graphs


def per_token(graphs):
    """{"devices": {device: {"prompt"|"generation": summary}}, "all": {...}}: graphs of more than
    one token are prompt graphs, of one token generation graphs (graphs of no known token count
    are left out). A summary: graphs, tokens, host and estimated microseconds per token and the
    tokens per second they make. "all": the devices' per-token times added (a layer split runs
    a token through each device in turn; one device: the same as its own)."""
    out = {"devices": {}, "all": {}}
    for g in graphs:
        if g["tokens"] <= 0:
            continue
        kind = "prompt" if g["tokens"] > 1 else "generation"
        d = out["devices"].setdefault(g["device"], {}).setdefault(
            kind, {"graphs": 0, "tokens": 0, "usec": 0, "est_usec": 0.0, "est_cycles": 0})
        d["graphs"] += 1
        d["tokens"] += g["tokens"]
        d["usec"] += g["usec"]
        d["est_usec"] += g["est_usec"]
        # None once a graph line has no est-cycles (a log from before the field came)
        d["est_cycles"] = None if d["est_cycles"] is None or g["est_cycles"] is None else d["est_cycles"] + g["est_cycles"]
    for kinds in out["devices"].values():
        for d in kinds.values():
            d["usec_per_token"] = d["usec"] / d["tokens"]
            d["est_usec_per_token"] = d["est_usec"] / d["tokens"]
            d["est_cycles_per_token"] = None if d["est_cycles"] is None else d["est_cycles"] / d["tokens"]
    for kind in ("prompt", "generation"):
        ds = [k[kind] for k in out["devices"].values() if kind in k]
        if ds:
            out["all"][kind] = {"usec_per_token": sum(d["usec_per_token"] for d in ds),
                                "est_usec_per_token": sum(d["est_usec_per_token"] for d in ds),
                                "est_cycles_per_token": None if any(d["est_cycles_per_token"] is None for d in ds)
                                else sum(d["est_cycles_per_token"] for d in ds)}
    for kinds in list(out["devices"].values()) + [out["all"]]:
        for d in kinds.values():
            d["tokens_per_s"] = 1e6 / d["usec_per_token"] if d["usec_per_token"] else 0.0
            d["est_tokens_per_s"] = 1e6 / d["est_usec_per_token"] if d["est_usec_per_token"] else 0.0
    return out


def table(ops, by):
    rows = {}
    for o in ops:
        r = rows.setdefault(o[by], {"key": o[by], "count": 0, "usec": 0, "cycles": 0, "est_usec": None,
                                    "est_cycles": None, "counters": {}})
        r["count"] += 1
        if o["est_usec"] is not None:
            r["est_usec"] = (r["est_usec"] or 0.0) + o["est_usec"]
        if o["est_cycles"] is not None:
            r["est_cycles"] = (r["est_cycles"] or 0) + o["est_cycles"]
        r["usec"] += o["usec"]
        r["cycles"] += o["cycles"]
        for k, v in o["counters"].items():
            if k == "vtcm_hwm":
                r["counters"][k] = max(r["counters"].get(k, 0), v)
            else:
                r["counters"][k] = r["counters"].get(k, 0) + v
    total = sum(r["usec"] for r in rows.values())
    for r in rows.values():
        r["mean_usec"] = r["usec"] / r["count"]
        r["share"] = r["usec"] / total if total else 0.0
    return list(rows.values()), total


def main():
    ap = tool_exit.Parser(
        description="Per-op table of a GGML_HEXAGON_PROFILE=1/2 log (docs/profiling.md).",
        epilog="example: GGML_HEXAGON_PROFILE=2 llama-completion ... 2>&1 | %(prog)s -")
    ap.add_argument("log", help="the run's log file, or - for standard input")
    ap.add_argument("--by", choices=("op", "name", "device", "member", "kernel"), default="op",
                    help="group rows by op (default), node name, device, group member (HTP0/m1) or NPU kernel")
    ap.add_argument("--sort", choices=("total", "count", "mean", "key"), default="total",
                    help="row order: total time (default), count, mean time, or key")
    ap.add_argument("--filter", metavar="REGEX", help="only ops whose name matches REGEX (case-insensitive)")
    ap.add_argument("--top", metavar="N", type=int, default=0, help="only the first N rows")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON instead of a table")
    args = ap.parse_args()
    if args.top < 0:
        ap.error("--top must be 0 or more")
    try:
        flt = re.compile(args.filter, re.IGNORECASE) if args.filter else None
    except re.error as e:
        ap.error(f"--filter {args.filter!r}: {e}")

    if args.log == "-":
        ops, batches, graphs = parse(sys.stdin)
    else:
        try:
            with open(args.log, encoding="utf-8", errors="replace") as f:
                ops, batches, graphs = parse(f)
        except OSError as e:
            print(f"ggml-hexagon-profile: {args.log}: {e.strerror}", file=sys.stderr)
            return 1
    if not ops:
        print(f"ggml-hexagon-profile: {args.log}: no 'ggml-hex: ... profile-op' lines "
              "(run with GGML_HEXAGON_PROFILE=1 or 2)", file=sys.stderr)
        return 1
    if flt:
        ops = [o for o in ops if flt.search(o["op"])]
    rows, total = table(ops, args.by)
    key = {"total": lambda r: -r["usec"], "count": lambda r: -r["count"],
           "mean": lambda r: -r["mean_usec"], "key": lambda r: r["key"]}[args.sort]
    rows.sort(key=key)
    if args.top:
        rows = rows[:args.top]

    tokens = per_token(graphs)
    if args.json:
        json.dump({"total_usec": total, "batches": len(batches), "rows": rows, "per_token": tokens}, sys.stdout,
                  indent=1)
        print()
        return 0
    # The optional columns, each shown when some row has it: (title, width, the row's cell).
    extra = []
    if any(r["est_usec"] is not None for r in rows):
        extra.append(("est us", 11, lambda r: f"{r['est_usec'] or 0:.1f}"))
    if any(r["est_cycles"] is not None for r in rows):
        extra.append(("est cycles", 14, lambda r: f"{r['est_cycles'] or 0}"))
    if any(r["counters"] for r in rows):
        extra += [(c, 12, lambda r, c=c: f"{r['counters'].get(c, 0)}") for c in SHOWN]
    print(f"{args.by:<28} {'count':>7} {'total us':>11} {'mean us':>10} {'share':>7} {'cycles':>14}"
          + "".join(f" {title:>{width}}" for title, width, _ in extra))
    for r in rows:
        print(f"{r['key'][:28]:<28} {r['count']:>7} {r['usec']:>11} {r['mean_usec']:>10.1f} "
              f"{100 * r['share']:>6.1f}% {r['cycles']:>14}" + "".join(f" {cell(r):>{width}}" for _, width, cell in extra))
    sessions = sorted({o["session"] for o in ops})
    print(f"{len(ops)} ops, {total} us on {len(sessions)} session(s) ({', '.join(sessions)}), "
          f"{len(batches)} batches")
    # Per batch (a decode graph is one batch per session unless OPBATCH or the window splits it).
    for s in sessions:
        mine = [b for b in batches if b["session"] == s]
        if mine:
            usec = sorted(b["usec"] for b in mine)
            print(f"{s}: {len(mine)} batches, median {usec[len(usec) // 2]} us, "
                  f"{sum(b['n_ops'] for b in mine) / len(mine):.0f} ops per batch")
    # Per token (level 2's profile-graph lines): host time beside the cost model's estimate.
    rows_t = [(dev, kind, d) for dev, kinds in sorted(tokens["devices"].items()) for kind, d in sorted(kinds.items())]
    if len(tokens["devices"]) > 1:
        rows_t += [("all", kind, d) for kind, d in sorted(tokens["all"].items())]
    if rows_t:
        cyc = all(d["est_cycles_per_token"] is not None for _, _, d in rows_t)
        print(f"{'per token':<10} {'graphs of':<11} {'count':>6} {'tokens':>7} {'host us/tok':>12} {'est us/tok':>11} "
              + (f"{'est cyc/tok':>12} " if cyc else "") + f"{'host t/s':>9} {'est t/s':>9}")
        for dev, kind, d in rows_t:
            print(f"{dev:<10} {kind:<11} {d.get('graphs', ''):>6} {d.get('tokens', ''):>7} {d['usec_per_token']:>12.1f} "
                  f"{d['est_usec_per_token']:>11.1f} " + (f"{d['est_cycles_per_token']:>12.0f} " if cyc else "")
                  + f"{d['tokens_per_s']:>9.2f} {d['est_tokens_per_s']:>9.2f}")
    return 0


if __name__ == "__main__":
    tool_exit.run(main)
