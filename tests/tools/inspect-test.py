#!/usr/bin/env python3
"""Fixture tests of tools/ggml-hexagon-inspect.py on tiny Hexagon binaries.

fixtures/inspect-fixture.c plants one problem per function (an in-loop vector spill, an
in-loop scalar spill, a float->double promotion, an in-loop division) next to a clean
function; it is compiled with the pinned zig cc for Hexagon, as a shared object (calls go
through the PLT, as in the NPU libraries) and as a relocatable object. Each check must find
its planted problem, and only there, so the test fails when a check is broken.
Exit 77 (skip) without zig or llvm-objdump (scripts/deps-hexagon.sh installs both)."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "tools", "ggml-hexagon-inspect.py")
FIXTURE = os.path.join(HERE, "fixtures", "inspect-fixture.c")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import inspect_loops  # noqa: E402  (the tool's loop finder)


def pinned_zig():
    if os.environ.get("HEXAGON_ZIG"):
        return os.environ["HEXAGON_ZIG"]
    pins = {}
    with open(os.path.join(ROOT, "deps", "pins.env")) as f:
        for line in f:
            m = re.match(r"^([A-Z0-9_]+)=(.*)$", line.strip())
            if m:
                pins[m.group(1)] = m.group(2)
    cache = os.environ.get("GGML_HEXAGON_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ggml-hexagon")
    return os.path.join(cache, f"ziglang-{pins['HEXAGON_ZIGLANG_VERSION']}", "ziglang", "zig")


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def findings(stdout):
    """{check: {function: count}} from the report."""
    out, check = {}, None
    for line in stdout.splitlines():
        m = re.match(r"^-- (\w+): (\d+) in", line)
        if m:
            check = m.group(1)
            out[check] = {}
            continue
        m = re.match(r"^   (\S.*?): (\d+) \(", line)
        if m and check:
            out[check][m.group(1)] = int(m.group(2))
    return out


class Fixture:
    tmp = None
    libs = {}


def setUpModule():
    zig = pinned_zig()
    if not os.path.isfile(zig) or not shutil.which("llvm-objdump-16"):
        print(f"SKIP: needs {zig} and llvm-objdump-16 (scripts/deps-hexagon.sh)")
        sys.exit(77)
    Fixture.tmp = tempfile.TemporaryDirectory()
    d = Fixture.tmp.name
    env = dict(os.environ, ZIG_GLOBAL_CACHE_DIR=os.path.join(d, "zig-cache"), ZIG_LOCAL_CACHE_DIR=os.path.join(d, "zig-cache"))
    for arch, kind in (("79", "so"), ("73", "o")):
        obj = os.path.join(d, f"fixture-v{arch}.o")
        subprocess.run([zig, "cc", "--target=hexagon-freestanding",
                        f"-mcpu=hexagonv{arch}+hvxv{arch}+hvx_length128b+hvx_ieee_fp+hvx_qfloat",
                        "-O2", "-g", "-fPIC", "-ffreestanding", "-c", FIXTURE, "-o", obj], check=True, env=env)
        if kind == "so":
            lib = os.path.join(d, f"fixture-v{arch}.so")
            subprocess.run([zig, "ld.lld", "-shared", "-o", lib, obj], check=True, env=env)
            Fixture.libs[kind] = lib
        else:
            Fixture.libs[kind] = obj


def tearDownModule():
    if Fixture.tmp:
        Fixture.tmp.cleanup()


class Inspect(unittest.TestCase):
    def report(self, kind, *args):
        res = run("--lib", Fixture.libs[kind], "--func", "^compute_", *args)
        self.assertIn(res.returncode, (0, 1), res.stderr)
        return res, findings(res.stdout)

    def test_help(self):
        res = run("--help")
        self.assertEqual(res.returncode, 0)
        for flag in ("--spills", "--strict", "--promotions", "--divisions", "--disasm", "--addr2line",
                     "--func", "--arch", "--lib"):
            self.assertIn(flag, res.stdout)

    def check_all(self, kind):
        res, found = self.report(kind)
        self.assertEqual(res.returncode, 0, "without --strict findings are only reported")
        self.assertEqual(set(found["spills"]), {"compute_spill_vector", "compute_spill_scalar"})
        self.assertEqual(set(found["promotions"]), {"compute_promote"})
        self.assertEqual(set(found["divisions"]), {"compute_divide"})
        self.assertRegex(res.stdout, r"compute_spill_vector: \d+ \(.*vector spill")
        self.assertRegex(res.stdout, r"compute_spill_vector: \d+ \(.*vector fill")
        self.assertRegex(res.stdout, r"compute_spill_scalar: \d+ \(scalar ")
        self.assertRegex(res.stdout, r"compute_promote: \d+ \(.*convert_sf2df")
        self.assertRegex(res.stdout, r"compute_divide: \d+ \(.*call __hexagon_udivsi3")
        self.assertRegex(res.stdout, r"call __hexagon_umodsi3")

    def test_checks_on_shared_object(self):
        self.check_all("so")

    def test_checks_on_relocatable_object(self):
        self.check_all("o")

    def test_strict(self):
        for check in ("--spills", "--promotions", "--divisions"):
            res = run("--lib", Fixture.libs["so"], "--func", "^compute_", check, "--strict")
            self.assertEqual(res.returncode, 1, f"{check} --strict must fail on the planted problem")
            res = run("--lib", Fixture.libs["so"], "--func", "^compute_clean$", check, "--strict")
            self.assertEqual(res.returncode, 0, f"{check} --strict must pass on compute_clean:\n{res.stdout}")

    def test_func_selects(self):
        # helper_divide divides in a loop too; it is reported only when selected.
        res = run("--lib", Fixture.libs["so"], "--divisions", "--func", "^helper_")
        self.assertEqual(set(findings(res.stdout)["divisions"]), {"helper_divide"})

    def test_gate_selection(self):
        # --exclude leaves functions out of the checks; --min-functions and --ops-dir make a
        # gate that selects by name fail when the selection shrinks or misses a kernel.
        base = ("--lib", Fixture.libs["so"], "--spills", "--strict", "--func", "^compute_")
        res = run(*base, "--exclude", "^compute_spill_")
        self.assertEqual(res.returncode, 0, res.stdout)
        self.assertRegex(res.stdout, r"2 more left out by --exclude")
        res = run(*base, "--exclude", "^compute_spill_", "--min-functions", "99")
        self.assertEqual(res.returncode, 1)
        self.assertIn("fewer than --min-functions 99", res.stdout)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "kernel.cpp"), "w") as f:
                f.write('#include "kernel.h"\nint htp_op_kernel(struct htp_op_context * octx) { return 0; }\n')
            with open(os.path.join(d, "kernel.h"), "w") as f:
                f.write("// no compute function here\n")
            res = run(*base, "--exclude", "^compute_spill_", "--ops-dir", d)
            self.assertEqual(res.returncode, 1)
            self.assertIn("kernel kernel.cpp has no function --func selects", res.stdout)
            with open(os.path.join(d, "kernel.h"), "w") as f:  # now it includes the fixture's source
                f.write('#include "' + os.path.basename(FIXTURE) + '"\n')
            shutil.copy(FIXTURE, d)
            res = run(*base, "--exclude", "^compute_spill_", "--ops-dir", d)
            self.assertEqual(res.returncode, 0, res.stdout)

    def test_findings_have_source_lines(self):
        res = run("--lib", Fixture.libs["so"], "--divisions", "--func", "^compute_divide$")
        self.assertRegex(res.stdout, r"inspect-fixture\.c:\d+")

    def test_disasm(self):
        res = run("--lib", Fixture.libs["so"], "--disasm", "compute_divide")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("<compute_divide>", res.stdout)
        self.assertRegex(res.stdout, r"\+-- loop 0x[0-9a-f]+-0x[0-9a-f]+")
        self.assertIn("<-- division: call __hexagon_udivsi3", res.stdout)
        self.assertIn("inspect-fixture.c", res.stdout)
        self.assertNotIn("<compute_clean>", res.stdout)
        res = run("--lib", Fixture.libs["so"], "--disasm", "compute_spill_vector")
        self.assertIn("<-- spill: vector spill", res.stdout)
        res = run("--lib", Fixture.libs["so"], "--disasm", "no_such_function")
        self.assertNotEqual(res.returncode, 0)

    def test_addr2line(self):
        nm = subprocess.run(["llvm-nm-16", Fixture.libs["so"]], stdout=subprocess.PIPE, text=True).stdout
        addr = int(re.search(r"^([0-9a-f]+) T compute_divide$", nm, re.M).group(1), 16) + 8
        lib = os.path.basename(Fixture.libs["so"])
        for arg in (hex(addr), f"{lib}+{addr:#x}"):
            res = run("--lib", Fixture.libs["so"], "--addr2line", arg)
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertRegex(res.stdout, rf"^{addr:#x}: compute_divide at .*inspect-fixture\.c:\d+")


def synthetic(packets):
    """A function of (address, [instruction texts]) packets for the loop finder (an
    ":endloopN" text marks the packet that closes a hardware loop, as the tool's parser does)."""
    insns = [types.SimpleNamespace(addr=a + 4 * k, text=t, packet=a, loops=[]) for a, ts in packets for k, t in enumerate(ts)]
    return types.SimpleNamespace(insns=insns, loops=[])


class LoopFinder(unittest.TestCase):
    """tools/inspect_loops.py on hand-made packet graphs: what the default finder misses and
    --all-loops finds."""

    def loops(self, packets, all_loops):
        f = synthetic(packets)
        inspect_loops.find_loops(f, all_loops)
        return [(h, how) for h, _, how in f.loops]

    def test_rotated_hardware_loop(self):
        # The setup jumps to the start S (0x30), placed after the :endloop packet (0x10) it
        # reaches; nop padding (0x08) falls into 0x10 and reaches nothing else.
        packets = [(0x00, ["loop0(0x30,#0x4)", "jump 0x30"]), (0x08, ["nop", "nop"]),
                   (0x10, ["r1 = add(r1,#0x1)", "memw(r29+#0x8) = r1", ":endloop0"]),
                   (0x18, ["jumpr r31"]), (0x30, ["r2 = add(r2,#0x1)", "jump 0x10"])]
        self.assertEqual(self.loops(packets, False), [])
        self.assertEqual(self.loops(packets, True), [(0x30, "hardware loop")])

    def test_hardware_loop_in_order(self):  # both finders agree on the usual layout
        packets = [(0x00, ["loop0(0x08,#0x4)"]), (0x08, ["r1 = add(r1,#0x1)", ":endloop0"]), (0x10, ["jumpr r31"])]
        for all_loops in (False, True):
            self.assertEqual(self.loops(packets, all_loops), [(0x08, "hardware loop")])

    def test_jump_table_case(self):
        # A switch through a jump table (jumpr r4): the case at 0x10 holds a loop, reached from
        # nothing the disassembly shows.
        packets = [(0x00, ["r4 = memw(r5+r4<<#0x2)"]), (0x04, ["jumpr r4"]), (0x08, ["nop"]),
                   (0x10, ["r1 = add(r1,#0x1)"]), (0x14, ["p0 = cmp.gt(r1,#0x9)", "if (!p0.new) jump:t 0x10"]),
                   (0x1c, ["jumpr r31"])]
        self.assertEqual(self.loops(packets, False), [])
        self.assertEqual(self.loops(packets, True), [(0x10, "back-edge")])

    def test_all_loops_flag(self):
        self.assertIn("--all-loops", run("--help").stdout)


if __name__ == "__main__":
    unittest.main()
