#!/usr/bin/env python3
"""Tests of tools/ggml-hexagon-profile.py on recorded GGML_HEXAGON_PROFILE=2 logs
(tests/tools/fixtures/profile-*.log, README beside them): one session, a device group
(HTP0[0-1]) and a layer split over two devices. Every figure the tool prints is checked against
sums worked out here from the fixture's lines with a parser of its own.

usage: profile-report-test.py"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "ggml-hexagon-profile.py")
FIX = os.path.join(HERE, "fixtures")


def fixture(name):
    return os.path.join(FIX, name)


def run(*args, stdin=None):
    p = subprocess.run([sys.executable, TOOL, *args], input=stdin, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def expected(path, key):
    """{key: (count, usec, {counter: sum})} of the fixture's op lines, grouped by key
    ('op', 'session', 'device'); the counters' sums hold "est_cycles" too (the est-cycles
    fields')."""
    rows = {}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for line in text.splitlines():
        m = re.search(r"ggml-hex: (\S+) profile-op ([^|]+)\|.*\|usec (\d+) cycles", line)
        if not m or m.group(2) == "OPBATCH":
            continue
        session, op, usec = m.group(1), m.group(2), int(m.group(3))
        k = {"op": op, "session": session, "device": session.split("/")[0]}[key]
        cnt = {}
        c = re.search(r" counters (\S+)", line)
        if c:
            cnt = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in c.group(1).split(",")}
        e = re.search(r" est-usec [0-9.]+ est-cycles (\d+)", line)
        if e:
            cnt["est_cycles"] = int(e.group(1))
        n, u, s = rows.get(k, (0, 0, {}))
        for kk, v in cnt.items():
            s[kk] = s.get(kk, 0) + v if kk != "vtcm_hwm" else max(s.get(kk, 0), v)
        rows[k] = (n + 1, u + usec, s)
    return rows


class Report(unittest.TestCase):
    def json_rows(self, *args, stdin=None):
        rc, out, err = run(*args, "--json", stdin=stdin)
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        return doc, {r["key"]: r for r in doc["rows"]}

    def check_against(self, name, by, key):
        want = expected(fixture(name), key)
        self.assertGreaterEqual(len(want), 2, f"{name}: the fixture should have several {key}s")
        doc, rows = self.json_rows(fixture(name), "--by", by)
        self.assertEqual(set(rows), set(want))
        total = sum(u for _, u, _ in want.values())
        self.assertEqual(doc["total_usec"], total)
        for k, (n, u, s) in want.items():
            self.assertEqual(rows[k]["count"], n, k)
            self.assertEqual(rows[k]["usec"], u, k)
            self.assertAlmostEqual(rows[k]["share"], u / total, places=6)
            s = dict(s)
            self.assertEqual(rows[k]["est_cycles"], s.pop("est_cycles", None), k)
            self.assertEqual(rows[k]["counters"], s, k)
        self.assertAlmostEqual(sum(r["share"] for r in rows.values()), 1.0, places=6)

    def test_single_by_op(self):
        self.check_against("profile-single.log", "op", "op")

    def test_fixtures_have_est_cycles(self):
        # every level-2 op line has est-cycles: its est-usec at the line's clock (mhz), rounded
        for name in ("profile-single.log", "profile-group.log", "profile-layer-split.log"):
            n = 0
            with open(fixture(name), encoding="utf-8") as f:
                for line in f:
                    if " profile-op " not in line or "OPBATCH" in line:
                        continue
                    m = re.search(r" mhz (\d+) .* est-usec ([0-9.]+) est-cycles (\d+)$", line)
                    self.assertTrue(m, line)
                    self.assertLessEqual(abs(int(m.group(3)) - float(m.group(2)) * int(m.group(1))),
                                         0.05 * int(m.group(1)) + 1, line)
                    n += 1
            self.assertGreater(n, 0, name)

    def test_group_by_member(self):
        self.check_against("profile-group.log", "member", "session")
        _, rows = self.json_rows(fixture("profile-group.log"), "--by", "member")
        self.assertEqual(sorted(rows), ["HTP0/m0", "HTP0/m1"])

    def test_group_by_device_sums_members(self):
        _, rows = self.json_rows(fixture("profile-group.log"), "--by", "device")
        self.assertEqual(list(rows), ["HTP0"])

    def test_layer_split_by_device(self):
        self.check_against("profile-layer-split.log", "device", "device")
        _, rows = self.json_rows(fixture("profile-layer-split.log"), "--by", "device")
        self.assertEqual(sorted(rows), ["HTP0", "HTP1"])

    def test_sort_top_filter(self):
        want = expected(fixture("profile-single.log"), "op")
        doc, _ = self.json_rows(fixture("profile-single.log"), "--sort", "count", "--top", "2")
        counts = sorted((n for n, _, _ in want.values()), reverse=True)[:2]
        self.assertEqual([r["count"] for r in doc["rows"]], counts)
        doc, rows = self.json_rows(fixture("profile-single.log"), "--filter", "^mul_mat$")
        self.assertEqual(list(rows), ["MUL_MAT"])  # case-insensitive, whole name
        self.assertEqual(rows["MUL_MAT"]["usec"], want["MUL_MAT"][1])
        doc, _ = self.json_rows(fixture("profile-single.log"))
        totals = [r["usec"] for r in doc["rows"]]
        self.assertEqual(totals, sorted(totals, reverse=True))

    def test_pipe_and_table(self):
        with open(fixture("profile-single.log"), encoding="utf-8") as f:
            text = f.read()
        rc, out, err = run("-", stdin=text)
        self.assertEqual(rc, 0, err)
        lines = out.strip().splitlines()
        self.assertTrue(lines[0].startswith("op "), lines[0])
        self.assertIn("hvx_mpy", lines[0])
        self.assertIn("est cycles", lines[0])
        want = expected(fixture("profile-single.log"), "op")
        self.assertEqual(len(lines), 1 + len(want) + 2)
        n_ops = sum(n for n, _, _ in want.values())
        self.assertRegex(lines[-2], rf"^{n_ops} ops, {sum(u for _, u, _ in want.values())} us on 1 session")
        batch = re.search(r"profile-op OPBATCH\|----\|n-ops (\d+)\|.*\|usec (\d+) ", text)
        self.assertEqual(lines[-1], f"HTP0: 1 batches, median {batch.group(2)} us, {batch.group(1)} ops per batch")

    def graph_lines(self, name):
        """{device: {kind: (graphs, tokens, host us, est us)}} of a fixture's profile-graph lines."""
        want, self.cycles = {}, {}
        with open(fixture(name), encoding="utf-8") as f:
            for line in f:
                m = re.search(r"ggml-hex: (\S+) profile-graph n-batches \d+ n-ops \d+ tokens (\d+) usec (\d+) "
                              r"est-usec ([0-9.]+) est-cycles (\d+)", line)
                if " profile-graph " in line:
                    self.assertTrue(m, line)
                if not m or int(m.group(2)) == 0:
                    continue
                kind = "prompt" if int(m.group(2)) > 1 else "generation"
                g, t, u, e = want.setdefault(m.group(1), {}).get(kind, (0, 0, 0, 0.0))
                want[m.group(1)][kind] = (g + 1, t + int(m.group(2)), u + int(m.group(3)), e + float(m.group(4)))
                key = (m.group(1), kind)
                self.cycles[key] = self.cycles.get(key, 0) + int(m.group(5))
        return want

    def check_per_token(self, name, devices):
        want = self.graph_lines(name)
        self.assertEqual(sorted(want), devices)
        doc, _ = self.json_rows(fixture(name))
        got = doc["per_token"]
        self.assertEqual(sorted(got["devices"]), devices)
        for dev, kinds in want.items():
            self.assertEqual(sorted(kinds), ["generation", "prompt"], dev)
            for kind, (g, t, u, e) in kinds.items():
                d = got["devices"][dev][kind]
                self.assertEqual((d["graphs"], d["tokens"], d["usec"]), (g, t, u), (dev, kind))
                self.assertAlmostEqual(d["est_usec"], e, places=3)
                self.assertAlmostEqual(d["est_usec_per_token"], e / t, places=6)
                self.assertEqual(d["est_cycles"], self.cycles[(dev, kind)], (dev, kind))
                self.assertAlmostEqual(d["est_cycles_per_token"], self.cycles[(dev, kind)] / t, places=6)
                self.assertAlmostEqual(d["est_tokens_per_s"], t * 1e6 / e, places=3)
                self.assertAlmostEqual(d["tokens_per_s"], t * 1e6 / u, places=3)
        # the devices together: a layer split's token passes through each, so their times add
        for kind in ("prompt", "generation"):
            est = sum(k[kind][3] / k[kind][1] for k in want.values())
            self.assertAlmostEqual(got["all"][kind]["est_usec_per_token"], est, places=6)
            cyc = sum(self.cycles[(dev, kind)] / k[kind][1] for dev, k in want.items())
            self.assertAlmostEqual(got["all"][kind]["est_cycles_per_token"], cyc, places=6)
        # the estimate sits beside the host's time in the table
        rc, out, err = run(fixture(name))
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        head = [i for i, l in enumerate(lines) if l.startswith("per token")]
        self.assertEqual(len(head), 1, out)
        body = lines[head[0] + 1:]
        self.assertEqual(len(body), 2 * len(devices) + (2 if len(devices) > 1 else 0), out)
        g, t, u, e = want[devices[0]]["generation"]
        c = self.cycles[(devices[0], "generation")]
        self.assertRegex(body[0], rf"^{devices[0]} +generation +{g} +{t} +{u / t:.1f} +{e / t:.1f} +{c / t:.0f} ")

    def test_per_token_single(self):
        self.check_per_token("profile-graph-single.log", ["HTP0"])

    def test_per_token_group(self):
        self.check_per_token("profile-graph-group.log", ["HTP0"])  # one line per device, not per member

    def test_per_token_layer_split(self):
        self.check_per_token("profile-graph-layer-split.log", ["HTP0", "HTP1"])

    def test_level1_log_has_no_per_token(self):
        doc, _ = self.json_rows(fixture("profile-single.log"))
        self.assertEqual(doc["per_token"], {"devices": {}, "all": {}})

    def test_bad_input_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            empty = os.path.join(d, "empty.log")
            with open(empty, "w") as f:
                f.write("llama: nothing profiled here\n")
            for args in ([os.path.join(d, "missing.log")], [empty], [fixture("profile-single.log"), "--top", "-1"],
                         [fixture("profile-single.log"), "--filter", "("], [fixture("profile-single.log"), "--by", "x"]):
                rc, out, err = run(*args)
                self.assertNotEqual(rc, 0, args)
                self.assertEqual(out, "", args)
                self.assertEqual(len(err.strip().splitlines()), 1, (args, err))

    def test_help(self):
        rc, out, _ = run("--help")
        self.assertEqual(rc, 0)
        for opt in ("--by", "--sort", "--filter", "--top", "--json"):
            self.assertIn(opt, out)


if __name__ == "__main__":
    unittest.main()
