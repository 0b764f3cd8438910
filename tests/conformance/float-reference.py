#!/usr/bin/env python3
"""Floating-point HVX intrinsics of the host emulation against scalar references, bit for bit.

No qemu here runs HVX floating point, so the float intrinsics are checked against the reference
definitions of float-reference.h (written from the documented semantics) instead.

  float-reference.py run --build-dir D [--cxx CXX]   build float-reference-test.cpp for the
                                                     float intrinsics the emulation defines, run it
  float-reference.py list                            what would run, and what has no reference

Fails (exit 1) on a mismatch, on a reference self-check failure, or when the emulation defines a
float intrinsic that has no reference here (it would otherwise go untested).
"""
import argparse
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import conformance  # noqa: E402
import table  # noqa: E402

ROOT = conformance.ROOT
TEST_SRC = os.path.join(HERE, "float-reference-test.cpp")
FLOAT_CLASSES = ("float",)


def referenced_names():
    """Names float-reference-test.cpp has a reference test for."""
    return set(re.findall(r"FREF_HAVE_(Q6_\w+)", open(TEST_SRC).read()))


def plan():
    """(names to test, float names the emulation defines without a reference, notes)."""
    rows = table.load_table()
    emu = conformance.emulated_names()
    refs = referenced_names()
    test, missing, notes = [], [], []
    for name in sorted(emu):
        r = rows.get(name)
        is_float = (r is not None and r["class"] in FLOAT_CLASSES) or (r is None and name in refs)
        if not is_float:
            continue
        if name not in refs:
            missing.append(name)
            continue
        test.append(name)
        if r is None:
            notes.append(f"{name}: not in clang-16's hvx_hexagon_protos.h (kernels must not use it)")
    return test, missing, notes


def cmd_list(args):
    test, missing, notes = plan()
    for n in test:
        print(n)
    for n in missing:
        print(f"# no reference: {n}")
    for n in notes:
        print(f"# note: {n}")
    return 0


def cmd_run(args):
    test, missing, notes = plan()
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    os.makedirs(args.build_dir, exist_ok=True)
    exe = os.path.join(args.build_dir, "float-reference-test")
    cxx = args.cxx or os.environ.get("CXX") or "c++"
    cmd = [cxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Wno-psabi", "-ffp-contract=off",
           *args.host_flags.split(),
           "-I", HERE, "-I", os.path.join(ROOT, "device-api", "include"), "-I", os.path.join(ROOT, "abi", "include"),
           "-I", os.path.join(ROOT, "hvx-emu", "include"),
           *[f"-DFREF_HAVE_{n}" for n in test], TEST_SRC, "-o", exe]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(f"build failed: {' '.join(cmd)}\n{r.stderr[-6000:]}")
        return 1
    if r.stderr.strip():
        sys.stderr.write(r.stderr)
    r = subprocess.run([exe], capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    for n in missing:
        print(f"no reference: {n} (the emulation defines it; add a reference test)")
    return 1 if (r.returncode or missing) else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run")
    p.add_argument("--build-dir", required=True)
    p.add_argument("--cxx", help="host C++ compiler (default $CXX or c++)")
    p.add_argument("--host-flags", default="-mavx2 -mfma -mf16c -mbmi2",
                   help="host flags (the project's SIMD level); the references need F16C for their self-check")
    p.set_defaults(fn=cmd_run)
    p = sub.add_parser("list")
    p.set_defaults(fn=cmd_list)
    args = ap.parse_args()
    sys.exit(args.fn(args))


if __name__ == "__main__":
    main()
