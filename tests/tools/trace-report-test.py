#!/usr/bin/env python3
"""Tests of tools/ggml-hexagon-trace.py on small traces written here in the layout the host
writes (host/src/host-trace.cpp: process and thread names, B/E slices per track): the summary's
slices, busy times, time per kind and DMA bytes against the values put in, who waited for whom,
--check, and a one-line refusal of each kind of malformed file.

usage: trace-report-test.py"""

import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "ggml-hexagon-trace.py")


def meta(pid, name, tid=None):
    if tid is None:
        return {"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}}
    return {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}


def sl(pid, tid, name, cat, b, e, args=None):
    """A slice as a B/E pair (args on the B event, as the host writes them)."""
    ev_b = {"name": name, "cat": cat, "ph": "B", "ts": b, "pid": pid, "tid": tid}
    if args:
        ev_b["args"] = args
    return [ev_b, {"name": name, "cat": cat, "ph": "E", "ts": e, "pid": pid, "tid": tid}]


def trace():
    """A group of two members and the host: known times and bytes."""
    ev = [meta(0, "host"), meta(1, "HTP0/m0"), meta(2, "HTP0/m1"), meta(0, "host thread 0", 1000),
          meta(0, "HTP0 stream", 1001)]
    for pid in (1, 2):
        ev += [meta(pid, "dispatcher", 100), meta(pid, "HVX 0", 0), meta(pid, "DMA queue 0", 300),
               meta(pid, "fences", 201)]
    # host: a graph with one batch (send, receive) on the caller, a wait on the stream
    body = []
    body += [sl(0, 1000, "graph_compute", "host", 0.0, 100.0)[0],
             sl(0, 1000, "batch", "host", 1.0, 90.0, {"device": "HTP0", "seq": 1, "ops": 2})[0]]
    body += sl(0, 1000, "send", "host", 2.0, 3.0)
    body += sl(0, 1000, "receive", "host", 3.0, 89.0)
    body += [sl(0, 1000, "batch", "host", 1.0, 90.0)[1]]
    body += sl(0, 1000, "wait", "host", 91.0, 99.0, {"for": "HTP0 stream", "ticket": 3})
    body += [sl(0, 1000, "graph_compute", "host", 0.0, 100.0)[1]]
    for pid, fence in ((1, 5.0), (2, 12.0)):
        body += [sl(pid, 100, "op MUL_MAT", "op", 4.0, 60.0, {"info": 0})[0]]
        body += sl(pid, 201, "fence MUL_MAT", "fence", 60.0 - fence, 60.0, {"info": 0})
        body += [sl(pid, 100, "op MUL_MAT", "op", 4.0, 60.0)[1]]
        body += [sl(pid, 0, "hvx MUL_MAT", "hvx", 10.0, 40.0)[0]]
        body += sl(pid, 0, "dma-wait MUL_MAT", "dma-wait", 12.0, 20.0, {"info": 1})
        body += [sl(pid, 0, "hvx MUL_MAT", "hvx", 10.0, 40.0)[1]]
        body += sl(pid, 300, "dma MUL_MAT", "dma", 5.0, 9.0, {"info": 4096, "bytes": 4096})
        body += sl(pid, 300, "dma MUL_MAT", "dma", 9.0, 11.0, {"info": 0x8000 | 40, "bytes": 40960})
    return {"displayTimeUnit": "ns", "traceEvents": ev + body}


def run(*args):
    p = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


class TraceTool(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, doc, name="t.json", raw=None):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(raw if raw is not None else json.dumps(doc))
        return path

    def test_summary(self):
        rc, out, err = run(self.write(trace()), "--json", "--waits")
        self.assertEqual(rc, 0, err)
        s = json.loads(out)
        self.assertEqual(sorted(s["processes"]), ["HTP0/m0", "HTP0/m1", "host"])
        self.assertAlmostEqual(s["span_us"], 100.0)
        host = s["processes"]["host"]["tracks"]["host thread 0"]
        self.assertEqual(host["slices"], 5)
        self.assertAlmostEqual(host["busy_us"], 100.0)  # the outermost slice only
        for m, fence in (("HTP0/m0", 5.0), ("HTP0/m1", 12.0)):
            t = s["processes"][m]["tracks"]
            self.assertEqual(t["DMA queue 0"]["bytes"], 4096 + 40960)
            self.assertAlmostEqual(t["DMA queue 0"]["busy_us"], 6.0)
            self.assertAlmostEqual(t["HVX 0"]["us_by_kind"]["hvx"], 30.0)
            self.assertAlmostEqual(t["HVX 0"]["us_by_kind"]["dma-wait"], 8.0)
            self.assertAlmostEqual(t["HVX 0"]["busy_us"], 30.0)  # the wait nests in the hvx slice
            self.assertAlmostEqual(t["fences"]["busy_us"], fence)
        waits = {(w["who"], w["what"]): (w["count"], w["us"]) for w in s["waits"]}
        self.assertEqual(waits[("host: host thread 0", "waited for HTP0 stream")], (1, 8.0))
        self.assertEqual(waits[("HTP0/m1", "waited at fences for its peers")], (1, 12.0))

    def test_table_and_check(self):
        path = self.write(trace())
        rc, out, err = run(path, "--waits")
        self.assertEqual(rc, 0, err)
        self.assertIn("HTP0/m1 waited at fences for its peers: 1 times, 12.0 us", out)
        self.assertRegex(out, r"\n  DMA queue 0 +2 +6\.0 +45056 ")
        rc, out, err = run(path, "--check")
        self.assertEqual((rc, out.strip()), (0, "ok: 17 slices on 9 tracks of 3 processes"), err)

    def test_malformed_one_line(self):
        good = trace()
        ev = good["traceEvents"]
        first_b = next(i for i, e in enumerate(ev) if e["ph"] == "B")
        unbalanced = copy.deepcopy(good)
        unbalanced["traceEvents"] = [e for i, e in enumerate(ev) if not (e["ph"] == "E" and e["name"] == "send")]
        back = copy.deepcopy(good)
        back["traceEvents"].append({"name": "x", "cat": "host", "ph": "B", "ts": -5.0, "pid": 0, "tid": 1000})
        crossed = copy.deepcopy(good)
        crossed["traceEvents"] += sl(0, 1002, "a", "host", 200, 0)[:1] + sl(0, 1002, "b", "host", 201, 0)[:1] + \
            [sl(0, 1002, "a", "host", 0, 202)[1], sl(0, 1002, "b", "host", 0, 203)[1]]
        no_proc = copy.deepcopy(good)
        no_proc["traceEvents"] += sl(7, 0, "op X", "op", 1, 2)
        bad_phase = copy.deepcopy(good)
        bad_phase["traceEvents"][first_b]["ph"] = "X"
        cases = {"not-json": (None, "{not json"), "no-events": ({"foo": []}, None),
                 "unbalanced": (unbalanced, None), "back": (back, None), "crossed": (crossed, None),
                 "no-proc": (no_proc, None), "phase": (bad_phase, None),
                 "empty": ({"traceEvents": [meta(0, "host")]}, None)}
        for name, (doc, raw) in cases.items():
            rc, out, err = run(self.write(doc, name + ".json", raw), "--check")
            self.assertEqual(rc, 1, (name, out, err))
            self.assertEqual(out, "", name)
            self.assertEqual(len(err.strip().splitlines()), 1, (name, err))
            self.assertTrue(err.startswith("ggml-hexagon-trace: "), err)
        rc, out, err = run(os.path.join(self.tmp.name, "missing.json"))
        self.assertEqual((rc, len(err.strip().splitlines())), (1, 1), err)

    def test_help(self):
        rc, out, _ = run("--help")
        self.assertEqual(rc, 0)
        for opt in ("--check", "--waits", "--json"):
            self.assertIn(opt, out)
        rc, _, err = run("--bogus")
        self.assertEqual((rc, len(err.strip().splitlines())), (2, 1))


if __name__ == "__main__":
    unittest.main()
