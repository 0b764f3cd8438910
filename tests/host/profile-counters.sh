#!/usr/bin/env bash
# GGML_HEXAGON_PROFILE=2 on one known kernel: SCALE f32 with a bias (npu/ops/scale.cpp) must
# execute, per row of ne0 floats, ceil(ne0/32) vector multiplies and as many adds, as many
# vector loads and as many vector stores (hvx_ldst counts both, hvx_st the stores:
# npu/ops/hvx-vmem.h), and move
# the row into VTCM and back by DMA (4 * ne0 bytes each way). The counters on upstream's profile-op
# lines must say exactly that, the line must have upstream's fields, and the report tool must
# read it.
#   profile-counters.sh BIN ROOT           one session (HTP0)
#   profile-counters.sh BIN ROOT group     a device group HTP0[0-1]: each member reports its own
#                                          line, and the members' counts add up to the op's
set -uo pipefail
bin=$1
root=$2
mode=${3:-single}
env=(GGML_HEXAGON_ARCH=v79)
[ "$mode" = group ] && env+=("GGML_HEXAGON_DEVICES=HTP0[0-1]")
out=$(env "${env[@]}" GGML_HEXAGON_PROFILE=2 "$bin/test-backend-ops" test -b HTP0 -o SCALE \
      -p '^type=f32,ne=\[100,10,10,10\]' 2>&1)
echo "$out" | grep -qE '^ *([1-9][0-9]*)/\1 tests passed' || { echo "$out" | tail -20; echo "FAIL: test-backend-ops did not pass"; exit 1; }
lines=$(grep -E '^ggml-hex: HTP0(/m[01])? profile-op SCALE\|' <<<"$out")
[ -n "$lines" ] || { echo "FAIL: no profile-op SCALE line"; exit 1; }
echo "$lines" | head -3
PROF_LINES=$lines ALL_LINES=$(grep -E '^ggml-hex: ' <<<"$out") python3 - "$mode" <<'PY' || exit 1
import os, re, sys
mode = sys.argv[1]
ISSUE, DESC, RUN = 0.57, 0.2, 4.4  # host/src/profile.cpp kCostModels (docs/profiling.md)
lines = os.environ["PROF_LINES"].strip().splitlines()
pat = re.compile(r"^ggml-hex: (HTP0(?:/m\d)?) profile-op SCALE\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|"
                 r"usec (\d+) cycles (\d+) start (\d+) mhz (\d+) pmu \[((?:\d+,){7}\d+)\] counters (\S+) est-usec ([0-9.]+) est-cycles (\d+)$")
ops, ests = {}, []
for l in lines:
    m = pat.match(l)
    assert m, "not upstream's field layout: " + l
    sess, names, dims, types = m.group(1), m.group(2), m.group(3), m.group(4)
    usec, cycles, mhz = int(m.group(7)), int(m.group(8)), int(m.group(10))
    assert mhz > 0 and abs(cycles - usec * mhz) <= mhz + cycles // 1000, f"cycles {cycles} not usec x mhz ({usec} x {mhz})"
    assert types.split(":")[0] == "f32", types
    c = dict(kv.split("=") for kv in m.group(12).split(","))
    c = {k: int(v) for k, v in c.items()}
    # The estimate of docs/profiling.md's v79 row (the tests' arch): 4 HVX instructions, 2
    # multiplies, 1 permute, 1 vector load, 1 vector store per packet, ISSUE packets per cycle
    # per context (the fitted issue rate), over the 6 contexts (1 for an op the host ran on one
    # thread; HTP0[0-1]'s members are on NPUs 0 and 1, 6 each: only members on one NPU share
    # them) at 1250 MHz; 32 GB/s of DMA and DESC us per descriptor on each thread's queue
    # (the same threads); 5 us per op; the slowest unit counts.
    ctx = 6
    thr = ctx if int(re.search(r"thr=(\d+)", m.group(6)).group(1)) > 1 else 1
    hvx_n = c["hvx_alu"] + c["hvx_mpy"] + c["hvx_permute"] + c["hvx_ldst"] + c["hvx_other"]
    loads = c["hvx_ldst"] - c["hvx_st"]
    pk = max(hvx_n / 4, c["hvx_mpy"] / 2, c["hvx_permute"] / 1, loads / 1, c["hvx_st"] / 1) / thr / (1250 * ISSUE)
    dma = (c["dma_in"] + c["dma_out"]) / 32e3 + c["dma_desc"] * DESC / thr
    # what the pipelines cannot overlap (vhtp/src/exposure.h) adds to the unit it cannot hide behind
    x_dma = c["dma_exposed"] / 32e3 + c["dma_exposed_desc"] * DESC / thr
    x_hvx = pk * min(1, c["hvx_exposed"] / hvx_n) if hvx_n else 0
    est = 5 + RUN * max(0, c["hvx_runs"] - 1) + max(max(pk, c["hmx_tiles"] * 16 / 1250) + x_dma, dma + x_hvx)
    assert abs(float(m.group(13)) - est) <= 0.051, f"est-usec {m.group(13)}, the cost model gives {est:.2f}"
    # estimated device cycles: the estimate at the v79 clock (1250 MHz, the line's mhz), rounded
    assert mhz == 1250, f"mhz {mhz}, v79's clock is 1250"
    assert abs(int(m.group(14)) - est * 1250) <= 0.051 * 1250, f"est-cycles {m.group(14)}, {est:.2f} us x 1250 MHz"
    assert abs(int(m.group(14)) - float(m.group(13)) * 1250) <= 0.05 * 1250 + 1, f"est-cycles {m.group(14)} not est-usec x 1250"
    ops.setdefault(names, []).append((sess, dims, c))
    ests.append((sess, est))
    if mode == "single":
        # What the row pipeline cannot overlap (vhtp/src/exposure.h; npu/ops/row-stream.h
        # stream_rows): per thread with rows, its first chunk's fetch and its last chunk's
        # write-back had no compute between push and pop (2 descriptors, their rows' bytes), and
        # its last chunk's compute (4 instructions per vector and row, the 2 splats of scale and
        # bias per chunk: scale.cpp) ran with no fetch pending. Threads take whole chunks
        # (rows_per_thread = ceil(chunks / threads) x rpc).
        ne = [int(x) for x in dims.split(":")[0].split("x")]
        rows, nv, rpc = ne[1] * ne[2] * ne[3], (ne[0] + 31) // 32, int(re.search(r"rpc=(\d+)", m.group(6)).group(1))
        nthr = int(re.search(r"thr=(\d+)", m.group(6)).group(1))
        per = -(-(-(-rows // rpc)) // nthr) * rpc
        xd = xb = xh = 0
        for t in range(nthr):
            n = max(0, min(rows, (t + 1) * per) - t * per)
            if n:
                first, last = min(rpc, n), n - (-(-n // rpc) - 1) * rpc
                xd, xb, xh = xd + 2, xb + (first + last) * ne[0] * 4, xh + last * 4 * nv + 2
        got = (c["dma_exposed_desc"], c["dma_exposed"], c["hvx_exposed"])
        assert got == (xd, xb, xh), f"exposed (desc, bytes, hvx) {got}, the pipeline leaves {(xd, xb, xh)} ({nthr} threads, rpc {rpc})"
assert ops, "no SCALE op"
# Each graph's profile-graph line (level 2): its estimate is the batch's slowest member's, the
# ops' est-usec summed (a SCALE graph is one op in one batch; no MUL_MAT: no tokens).
graphs = [l for l in os.environ["ALL_LINES"].splitlines() if " profile-graph " in l]
want_graphs = len(ests) // (2 if mode == "group" else 1)
assert len(graphs) == want_graphs, f"{len(graphs)} profile-graph lines for {want_graphs} graphs"
for i, g in enumerate(graphs):
    m = re.match(r"^ggml-hex: HTP0 profile-graph n-batches 1 n-ops 1 tokens 0 usec (\d+) est-usec ([0-9.]+) "
                 r"est-cycles (\d+)$", g)
    assert m, "profile-graph line: " + g
    per = 2 if mode == "group" else 1
    want = max(e for _, e in ests[i * per:(i + 1) * per])
    assert abs(float(m.group(2)) - want) <= 0.11, f"graph est-usec {m.group(2)}, its ops' {want:.2f}"
    assert abs(int(m.group(3)) - want * 1250) <= 0.11 * 1250, f"graph est-cycles {m.group(3)}, its ops' {want:.2f} us x 1250"
print(f"ok: {len(graphs)} profile-graph lines, estimates (us and cycles) as their ops'")
for names, members in ops.items():
    sessions = sorted(s for s, _, _ in members)
    want = ["HTP0/m0", "HTP0/m1"] if mode == "group" else ["HTP0"]
    # test-backend-ops may run the graph more than once: every run reports every member.
    assert sorted(set(sessions)) == want, f"{names}: sessions {sessions}, want {want}"
    runs = len(sessions) // len(want)
    ne = [int(x) for x in members[0][1].split(":")[0].split("x")]
    rows, n_vec = ne[1] * ne[2] * ne[3], (ne[0] + 31) // 32
    tot = {k: sum(c[k] for _, _, c in members) // runs for k in members[0][2]}
    tot["vtcm_hwm"] = max(c["vtcm_hwm"] for _, _, c in members)  # a maximum, not a sum
    want_c = {"hvx_mpy": rows * n_vec, "hvx_alu": rows * n_vec, "hvx_ldst": 2 * rows * n_vec, "hvx_st": rows * n_vec,
              "dma_in": rows * ne[0] * 4, "dma_out": rows * ne[0] * 4, "hmx_tiles": 0}
    for k, v in want_c.items():
        assert tot[k] == v, f"{names}: {k} = {tot[k]}, the kernel must execute {v} ({rows} rows of {ne[0]} floats)"
    assert tot["dma_desc"] >= 2, tot
    assert 0 < tot["vtcm_hwm"] <= 8 << 20, tot
    print(f"ok: {names}: {rows} rows x {n_vec} vectors: mpy {tot['hvx_mpy']}, alu {tot['hvx_alu']}, ldst {tot['hvx_ldst']}, "
          f"dma in/out {tot['dma_in']}/{tot['dma_out']} bytes, on {', '.join(want)}")
PY
# The report tool reads the same log.
table=$(python3 "$root/tools/ggml-hexagon-profile.py" --by member - <<<"$out") || { echo "FAIL: the report tool failed"; exit 1; }
echo "$table" | tail -3
grep -qE '^HTP0' <<<"$table" || { echo "FAIL: no HTP0 row in the report"; exit 1; }
echo "PASS"
