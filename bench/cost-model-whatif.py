#!/usr/bin/env python3
"""What a change of the cost model would do to the published rows, without running them again.

Reads the logs `LOGS=DIR bench/cost-model.sh` kept (DIR/rows.txt names each row's four runs) and
recomputes every op's estimate from its level-2 counters with the formula of host/src/profile.cpp
(htp_estimate_usec; docs/profiling.md "Estimated device time"), first with the model as built
(and checks that it gives the logged est-usec of every op), then with each variant below, the
issue rate refitted to the fit row (Llama-3.1-8B prompt) for each, as docs/profiling.md does.
Prints one markdown table: per variant and row, the prompt and generation ratios (estimate /
published).

  bench/cost-model-whatif.py DIR [--no-refit] [--per-layer]

--per-layer adds, per row, a layer's estimated prompt and generation microseconds and the
layer's ops and HVX dispatches (hvx_runs: work_queue_run calls).
Single-session rows only (a graph's estimate is the sum of its ops').
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "tools"))
import tool_exit  # noqa: E402  tools/tool_exit.py: one-line option errors

# host/src/profile.cpp kCostModels: arch -> (MHz, HVX contexts, per packet, mpy, perm, ld, st, issue,
# HMX cycles per tile, DDR GB/s, descriptor round trip us, per-op us, per HVX dispatch after an op's first us)
MODELS = {
    73: (1100, 4, 4, 2, 1, 1, 1, 0.57, 16, 32, 0.2, 5, 4.4),
    75: (1150, 4, 4, 2, 1, 1, 1, 0.57, 16, 32, 0.2, 5, 4.4),
    79: (1250, 6, 4, 2, 1, 1, 1, 0.57, 16, 32, 0.2, 5, 4.4),
    81: (1400, 8, 4, 2, 1, 1, 1, 0.57, 16, 32, 0.2, 5, 4.4),
}
FIT_ROW = ("Llama-3.1-8B Q4_0", "pp")


def op_lines(path):
    """The counters and thread count of every op of the log's last graph, and its logged estimate."""
    lines = open(path).read().splitlines()
    graphs = [i for i, l in enumerate(lines) if " profile-graph " in l]
    if not graphs:
        sys.exit(f"{path}: no profile-graph line (not a GGML_HEXAGON_PROFILE=2 log?)")
    start = graphs[-2] + 1 if len(graphs) > 1 else 0
    ops = []
    for l in lines[start:graphs[-1]]:
        if " profile-op " not in l or " profile-op OPBATCH|" in l:
            continue
        c = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in re.search(r" counters (\S+)", l).group(1).split(",")}
        thr = int(re.search(r"\|thr=(\d+)", l).group(1))
        est = float(re.search(r" est-usec ([0-9.]+)", l).group(1))
        ops.append((c, thr, est))
    logged = float(re.search(r" est-usec ([0-9.]+)", lines[graphs[-1]]).group(1))
    return ops, logged


def estimate(m, c, thr, v):
    """htp_estimate_usec with the variant v's changes (a dict; {} = the model as built)."""
    mhz, ctx, per_pkt, mpy, perm, ldp, stp, issue, tile, ddr, desc, op_us, run_us = m
    issue = v.get("issue", issue)
    desc = v.get("desc_us", desc)
    allv = c["hvx_alu"] + c["hvx_mpy"] + c["hvx_permute"] + c["hvx_ldst"] + c["hvx_other"]
    loads = c["hvx_ldst"] - min(c["hvx_ldst"], c["hvx_st"])
    pkts = max(allv / per_pkt, c["hvx_mpy"] / mpy, c["hvx_permute"] / perm, loads / ldp, c["hvx_st"] / stp)
    t = max(1, ctx) if thr > 1 else 1
    hvx = pkts / t / (mhz * issue)
    hmx = c["hmx_tiles"] * tile / mhz
    dma = (c["dma_in"] + c["dma_out"]) / (ddr * 1e3) + c["dma_desc"] * desc / t
    # what the threads' pipelines cannot overlap (vhtp/src/exposure.h; counted since ABI 20)
    x_dma = c.get("dma_exposed", 0) / (ddr * 1e3) + c.get("dma_exposed_desc", 0) * desc / t
    x_hvx = hvx * min(1.0, c.get("hvx_exposed", 0) / allv) if allv else 0
    if v.get("no_exposed"):
        x_dma = x_hvx = 0
    units = hvx + hmx + dma if v.get("no_overlap") else max(max(hvx, hmx) + x_dma, dma + x_hvx)
    runs = c.get("hvx_runs", 0)
    return v.get("op_us", op_us) + v.get("run_us", run_us) * max(0, runs - 1) + units


def graph_us(m, ops, v):
    return sum(estimate(m, c, thr, v) for c, thr, _ in ops)


def main():
    ap = tool_exit.Parser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", help="the LOGS folder of bench/cost-model.sh")
    ap.add_argument("--no-refit", action="store_true", help="keep the issue rate instead of refitting it per variant")
    ap.add_argument("--per-layer", action="store_true", help="per row: a layer's estimate, ops and HVX dispatches")
    a = ap.parse_args()
    rows_txt = os.path.join(a.dir, "rows.txt")
    if not os.path.exists(rows_txt):
        sys.exit(f"{rows_txt}: missing (run LOGS={a.dir} bench/cost-model.sh first)")
    rows = []
    for line in open(rows_txt):
        f = line.rstrip("\n").split("|")
        name, arch, layers, ntok, pub_pp, pub_tg, extra = f[0], int(f[1]), int(f[2]), int(f[3]), float(f[4]), float(f[5]), f[6]
        logs = {k: op_lines(os.path.join(a.dir, p)) for k, p in zip(("pp1", "pp2", "tg1", "tg2"), f[7:11])}
        for k, (ops, logged) in logs.items():
            recomputed = graph_us(MODELS[arch], ops, {})
            for c, thr, est in ops:  # the formula here is the one the backend used
                mine = estimate(MODELS[arch], c, thr, {})
                if abs(mine - est) > 0.06:
                    sys.exit(f"{name} {k}: an op's estimate recomputes to {mine:.2f}, logged {est:.1f}: "
                             "this tool's formula is not host/src/profile.cpp's")
            if abs(recomputed - logged) > 0.05 * len(ops) + 0.1:
                sys.exit(f"{name} {k}: graph recomputes to {recomputed:.1f} us, logged {logged:.1f}")
        rows.append((name, arch, layers, ntok, pub_pp, pub_tg, extra, logs))

    def ratios(v):
        out = {}
        for name, arch, n, ntok, pub_pp, pub_tg, extra, logs in rows:
            g = {k: graph_us(MODELS[arch], ops, v) for k, (ops, _) in logs.items()}
            pp_us = g["pp1"] + (n - 1) * (g["pp2"] - g["pp1"])
            tg_us = g["tg1"] + (n - 1) * (g["tg2"] - g["tg1"])
            key = f"{name} v{arch}" + (f" ({extra})" if extra else "")
            out[key] = (ntok * 1e6 / pp_us / pub_pp, 1e6 / tg_us / pub_tg, name)
        return out

    def refit(v):
        if a.no_refit or not any(r[0] == FIT_ROW[0] for r in rows):
            return v
        lo, hi = 0.01, 10.0  # the fit row's prompt ratio grows with the issue rate
        for _ in range(60):
            mid = (lo + hi) / 2
            r = next(x for x in ratios(dict(v, issue=mid)).values() if x[2] == FIT_ROW[0])
            lo, hi = (mid, hi) if r[0] < 1 else (lo, mid)
        return dict(v, issue=round((lo + hi) / 2, 3))

    variants = [
        ("the model as built", {}),
        ("DMA round trip 0.4 us per descriptor (twice A)", {"desc_us": 0.4}),
        ("DMA round trip 1.0 us", {"desc_us": 1.0}),
        ("25 us per op instead of 5 (dispatch, message decode, cache maintenance)", {"op_us": 25}),
        ("100 us per op", {"op_us": 100}),
        ("no cost per HVX dispatch after an op's first (the model before source E)", {"run_us": 0}),
        ("2 us per HVX dispatch after an op's first (threads' start and join)", {"run_us": 2}),
        ("10 us per HVX dispatch", {"run_us": 10}),
        ("37 us per HVX dispatch", {"run_us": 37}),
        ("HVX, HMX and DMA do not overlap (their sum)", {"no_overlap": True}),
        ("no pipeline fill and drain (exposed DMA and HVX not priced: the model before)", {"no_exposed": True}),
    ]
    keys = list(ratios({}).keys())
    print("| variant | issue rate | " + " | ".join(f"{k} pp, tg" for k in keys) + " |")
    print("|---|---:|" + "---:|" * len(keys))
    for label, v in variants:
        v = refit(v)
        r = ratios(v)
        issue = v.get("issue", MODELS[81][7])
        print(f"| {label} | {issue} | " + " | ".join(f"{r[k][0]:.2f}, {r[k][1]:.2f}" for k in keys) + " |")
    if a.per_layer:
        print()
        print("| row | prompt us per layer | ops | hvx_runs | generation us per layer | ops | hvx_runs |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, arch, n, ntok, pub_pp, pub_tg, extra, logs in rows:
            m = MODELS[arch]
            cells = []
            for t in ("pp", "tg"):
                (o1, _), (o2, _) = logs[t + "1"], logs[t + "2"]
                us = graph_us(m, o2, {}) - graph_us(m, o1, {})
                runs = sum(c.get("hvx_runs", 0) for c, _, _ in o2) - sum(c.get("hvx_runs", 0) for c, _, _ in o1)
                cells += [f"{us:.0f}", str(len(o2) - len(o1)), str(runs)]
            print(f"| {name} v{arch} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
