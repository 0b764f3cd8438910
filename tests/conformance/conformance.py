#!/usr/bin/env python3
"""HVX conformance: the host emulation (hvx-emu) against qemu-hexagon, bit for bit.

  conformance.py run --build-dir D [--isa v73|v67]   generate, build, run both sides, compare
  conformance.py hello --build-dir D                 the freestanding runtime under each qemu
  conformance.py qemu-check --build-dir D            every table intrinsic under both qemus
  conformance.py check-used                          Q6_* names used in npu/ are all tested
  conformance.py list [--isa v73|v67]                the names `run` would test
  conformance.py table [--protos PATH]               regenerate intrinsics.tsv from clang

Exit codes: 0 pass, 1 mismatch or failure, 77 toolchain absent (ctest reports a skip).
Tools: HEXAGON_CLANG, HEXAGON_LLD, QEMU_HEXAGON (Debian 12, v65-v67 ELF), QEMU_HEXAGON_V73
(Debian 13's static one; default: the scripts/deps-hexagon.sh cache), CXX for the host side.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import codegen  # noqa: E402
import inputs  # noqa: E402
import table  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
EMU_DIR = os.environ.get("HVX_EMU_INCLUDE") or os.path.join(ROOT, "hvx-emu", "include")
NPU_DIR = os.path.join(ROOT, "npu")
RT_DIR = os.path.join(HERE, "hexagon-rt")
SKIP = 77
# The Q6 names the harness itself needs to move pairs and predicates in and out.
PLUMBING = {
    "W": ["Q6_W_vcombine_VV", "Q6_V_lo_W", "Q6_V_hi_W"],
    "Q": ["Q6_Q_vand_VR", "Q6_V_vand_QR"],
    "QP": ["Q6_Q_vand_VR", "Q6_V_vand_QR"],
}
TESTED_CLASSES = ("int", "store")
# Names tested elsewhere (reference tests of the floating-point families): one per line.
REFERENCE_TESTED = os.path.join(HERE, "reference-tested.txt")


def log(msg):
    print(f"[conformance] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------- tools
def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.environ.get("GGML_HEXAGON_CACHE") or os.path.join(base, "ggml-hexagon")


def pinned(key):
    with open(os.path.join(ROOT, "deps", "pins.env")) as f:
        for line in f:
            if line.startswith(key + "="):
                return line.split("=", 1)[1].strip()
    return None


def find_tools():
    tools = {
        "clang": os.environ.get("HEXAGON_CLANG") or shutil.which("clang-16"),
        "lld": os.environ.get("HEXAGON_LLD") or shutil.which("ld.lld-16"),
        "qemu_v67": os.environ.get("QEMU_HEXAGON") or shutil.which("qemu-hexagon"),
        "qemu_v73": os.environ.get("QEMU_HEXAGON_V73"),
    }
    if not tools["qemu_v73"]:
        version = (pinned("HEXAGON_QEMU13_VERSION") or "").split(":")[-1]
        path = os.path.join(cache_dir(), f"qemu-user-{version}", "usr", "bin", "qemu-hexagon")
        tools["qemu_v73"] = path if os.access(path, os.X_OK) else None
    # A tool named by the environment that is not there counts as absent.
    return {k: (v if v and os.access(v, os.X_OK) else None) for k, v in tools.items()}


def qemu_for(isa, tools):
    return tools["qemu_v73"] if isa == "v73" else tools["qemu_v67"]


def require_tools(isa):
    tools = find_tools()
    need = {"clang": "clang-16", "lld": "ld.lld-16",
            "qemu_v73" if isa == "v73" else "qemu_v67": f"qemu-hexagon for {isa}"}
    missing = [what for key, what in need.items() if not tools[key]]
    if missing:
        print(f"SKIP: Hexagon toolchain absent ({', '.join(missing)}); run scripts/deps-hexagon.sh")
        sys.exit(SKIP)
    return tools


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.stderr.write(f"command failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr[-4000:]}")
        raise SystemExit(1)
    return r.stdout


def hexagon_cflags(isa):
    return [f"-m{isa}", "-mhvx", "-mhvx-length=128b", "-ffreestanding", "-nostdlib", "-O1"]


def build_hexagon(tools, isa, sources, out, includes):
    """Compiles C/C++ sources plus the runtime's start.c for Hexagon and links them statically."""
    objs = []
    for src in [os.path.join(RT_DIR, "start.c")] + sources:
        obj = os.path.join(os.path.dirname(out), os.path.basename(src) + f".{isa}.o")
        lang = ["-x", "c++", "-std=c++17", "-fno-exceptions", "-fno-rtti"] if src.endswith(".cpp") else []
        run([tools["clang"], "--target=hexagon", *hexagon_cflags(isa), *lang,
             *[f"-I{i}" for i in includes + [RT_DIR]], "-c", src, "-o", obj])
        objs.append(obj)
    run([tools["lld"], "-static", "-e", "_start", *objs, "-o", out])
    return out


# ------------------------------------------------------------------------------ what is tested
def emulated_names():
    """Q6_* names the host emulation defines (functions or macros) in hvx-emu headers."""
    defined = set()
    fn = re.compile(r"\b(?:HVX_Vector(?:Pair|Pred)?|Word(?:32|64)|u?int(?:32|64)_t|int|void)\s*\*?\s+"
                    r"(Q6_\w+)\s*\(")
    macro = re.compile(r"#\s*define\s+(Q6_\w+)")
    # Intrinsic families defined one line per name (hvx-emu/include/hvx-emu/types.h HVX_EMU_VV,
    # HVX_EMU_V and the macros built on them): the name is an argument of the invocation.
    family = re.compile(r"^\s*HVX_EMU_V\w*\((?:[^,()]*,\s*)?(Q6_\w+)\s*,", re.M)
    for path in glob.glob(os.path.join(EMU_DIR, "**", "*.h"), recursive=True):
        text = open(path).read()
        defined.update(fn.findall(text))
        defined.update(macro.findall(text))
        defined.update(family.findall(text))
    return defined


def plan(isa):
    """(tested rows, notes): the intrinsics `run` covers for this ISA, and why others are not."""
    rows = table.load_table()
    emu = emulated_names()
    max_arch = int(isa[1:])
    tested, notes = [], {}
    for name in sorted(emu):
        r = rows.get(name)
        if r is None:
            notes[name] = "not in clang's hvx_hexagon_protos.h"
            continue
        if r["class"] not in TESTED_CLASSES:
            notes[name] = f"class {r['class']}: not run under qemu"
            continue
        if r["arch"] > max_arch:
            notes[name] = f"needs v{r['arch']} (this run: {isa})"
            continue
        kinds = [k for k, _ in r["args"]] + [r["ret"]]
        missing = sorted({p for k in kinds for p in PLUMBING.get(k, []) if p not in emu})
        if missing:
            notes[name] = f"the emulation lacks {', '.join(missing)} to move its operands"
            continue
        tested.append(r)
    return tested, notes


def tested_names_any_isa():
    return {r["name"] for r in plan("v73")[0]}


# ----------------------------------------------------------------------------------- commands
def cmd_run(args):
    isa = args.isa
    tools = require_tools(isa)
    os.makedirs(args.build_dir, exist_ok=True)
    rows, notes = plan(isa)
    if args.only:
        rows = [r for r in rows if re.search(args.only, r["name"])]
    for name, why in sorted(notes.items()):
        log(f"not tested: {name}: {why}")
    if not rows:
        print("0 intrinsics, 0 cases, 0 mismatches: the emulation defines no testable intrinsic")
        return 1
    pools = inputs.Pools()
    src, cases = codegen.generate(rows, pools)
    src_path = os.path.join(args.build_dir, f"conformance_cases_{isa}.cpp")
    with open(src_path, "w") as f:
        f.write(src)
    includes = [os.path.join(ROOT, "device-api", "include"), os.path.join(ROOT, "abi", "include"), HERE]
    hex_bin = os.path.join(args.build_dir, f"conformance_{isa}.hexagon")
    host_bin = os.path.join(args.build_dir, f"conformance_{isa}.host")
    cxx = args.cxx or os.environ.get("CXX") or "c++"
    host_cmd = [cxx, "-std=c++17", "-O1", *args.host_flags.split(), *[f"-I{i}" for i in includes],
                f"-I{EMU_DIR}", src_path, "-o", host_bin]
    log(f"building {len(rows)} intrinsics, {sum(len(c) for c in cases)} cases for {isa} and the host")
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        fh = ex.submit(build_hexagon, tools, isa, [src_path], hex_bin, includes)
        fc = ex.submit(run, host_cmd)
        fh.result(), fc.result()
    qemu = qemu_for(isa, tools)
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        fq = ex.submit(subprocess.run, [qemu, hex_bin], capture_output=True, text=True)
        fe = ex.submit(subprocess.run, [host_bin], capture_output=True, text=True)
        rq, re_ = fq.result(), fe.result()
    want, got = rq.stdout, re_.stdout
    # A side that dies still gave every result up to the intrinsic it died in; compare those.
    for side, r, out in (("qemu-hexagon", rq, want), ("the host emulation", re_, got)):
        if r.returncode != 0:
            last = out.rstrip("\n").rsplit("\n", 1)[-1].split(" ")[0] if out.strip() else None
            at = rows[int(last)]["name"] if last and last.isdigit() and int(last) < len(rows) else "the start"
            print(f"ERROR: {side} exited with {r.returncode} at or after {at}: {r.stderr.strip()[-500:]}")
    rc = report(rows, cases, pools, parse_results(want), parse_results(got), args)
    return 1 if rq.returncode or re_.returncode else rc


def parse_results(text):
    out = {}
    for line in text.splitlines():
        parts = line.split(" ")
        if len(parts) == 3:
            out[(int(parts[0]), int(parts[1]))] = parts[2]
    return out


def describe_inputs(row, slots, pools):
    out, s = [], 0
    for kind, pname in row["args"]:
        n = inputs.slots_of(kind)
        idx = slots[s:s + n]
        s += n
        if kind in ("V", "W"):
            vals = [f"{pools.vectors[i][0]}={pools.vectors[i][1].hex()}" for i in idx]
        elif kind in ("Q", "QP"):
            vals = [f"{pools.preds[i][0]}={pools.preds[i][1].hex()}" for i in idx]
        elif kind in ("R", "P"):
            vals = [f"0x{pools.scalars[i]:08x}" for i in idx]
            if kind == "P":
                vals = [f"hi={vals[1]} lo={vals[0]}"]
        elif kind.startswith("I"):
            vals = [str(idx[0])]
        else:
            vals = ["scratch vector preset to VPOOL ramp"]
        out.append(f"    {pname} ({kind}): " + " ".join(vals))
    return out


def first_diff(a, b):
    for i in range(0, min(len(a), len(b)), 2):
        if a[i:i + 2] != b[i:i + 2]:
            return i // 2
    return min(len(a), len(b)) // 2


def report(rows, cases, pools, want, got, args):
    n_cases = sum(len(c) for c in cases)
    mismatches = 0
    per_name = []
    for i, (row, clist) in enumerate(zip(rows, cases)):
        bad = []
        for c, slots in enumerate(clist):
            w, g = want.get((i, c)), got.get((i, c))
            if w is None or w != g:
                bad.append((c, slots, w, g))
        mismatches += len(bad)
        if bad:
            per_name.append((row, bad, len(clist)))
    lines = []
    for row, bad, total in per_name:
        lines.append(f"MISMATCH {row['name']} ({row['asm']}): {len(bad)}/{total} cases")
        for c, slots, w, g in bad[: args.show]:
            if w is None:
                lines.append(f"  case {c}: no result from qemu-hexagon (did it crash?)")
                continue
            if g is None:
                lines.append(f"  case {c}: no result from the host emulation")
                continue
            off = first_diff(w, g)
            lines.append(f"  case {c}: first difference at result byte {off}")
            lines += describe_inputs(row, slots, pools)
            lines.append(f"    qemu:     {w}")
            lines.append(f"    emulated: {g}")
    text = "\n".join(lines)
    with open(os.path.join(args.build_dir, f"conformance-report-{args.isa}.txt"), "w") as f:
        f.write(text + "\n")
    if lines:
        print(text if len(text) < 200000 else text[:200000] + "\n... (see the report file)")
    print(f"{len(rows)} intrinsics, {n_cases} cases, {mismatches} mismatches")
    return 1 if mismatches else 0


def cmd_hello(args):
    tools = find_tools()
    if not (tools["clang"] and tools["lld"]) or not (tools["qemu_v67"] or tools["qemu_v73"]):
        print("SKIP: Hexagon toolchain absent; run scripts/deps-hexagon.sh")
        return SKIP
    os.makedirs(args.build_dir, exist_ok=True)
    ok = True
    for isa, qemus in (("v67", ["qemu_v67", "qemu_v73"]), ("v73", ["qemu_v73"])):
        exe = build_hexagon(tools, isa, [os.path.join(RT_DIR, "hello.c")],
                            os.path.join(args.build_dir, f"hello_{isa}.hexagon"), [])
        for q in qemus:
            if not tools[q]:
                continue
            r = subprocess.run([tools[q], exe], capture_output=True, text=True)
            good = r.returncode == 0 and r.stdout.strip() == "hello hvx 0806040208060402"
            ok &= good
            print(f"{'ok  ' if good else 'FAIL'} {isa} on {tools[q]}: {r.stdout.strip() or r.stderr.strip()}")
    return 0 if ok else 1


def cmd_qemu_check(args):
    """Every integer intrinsic of the table under qemu: v67-and-older ones built for v67 run on
    both qemus (their outputs must agree), all of them built for v73 on Debian 13's qemu."""
    tools = find_tools()
    if not (tools["clang"] and tools["lld"] and tools["qemu_v67"] and tools["qemu_v73"]):
        print("SKIP: Hexagon toolchain absent; run scripts/deps-hexagon.sh")
        return SKIP
    os.makedirs(args.build_dir, exist_ok=True)
    rows_all = [r for r in table.load_table().values() if r["class"] in TESTED_CLASSES]
    rows_all.sort(key=lambda r: r["name"])
    pools = inputs.Pools()
    includes = [os.path.join(ROOT, "device-api", "include"), os.path.join(ROOT, "abi", "include"), HERE]
    outs, ok = {}, True
    for isa, qemus in (("v67", ["qemu_v67", "qemu_v73"]), ("v73", ["qemu_v73"])):
        rows = [r for r in rows_all if r["arch"] <= int(isa[1:])]
        src, _ = codegen.generate(rows, pools)
        src_path = os.path.join(args.build_dir, f"qemu_check_{isa}.cpp")
        with open(src_path, "w") as f:
            f.write(src)
        exe = build_hexagon(tools, isa, [src_path], os.path.join(args.build_dir, f"qemu_check_{isa}.hexagon"),
                            includes)
        for q in qemus:
            r = subprocess.run([tools[q], exe], capture_output=True, text=True)
            n = len(r.stdout.splitlines())
            print(f"{isa} build on {q}: {len(rows)} intrinsics, {n} result lines, exit {r.returncode}")
            ok &= r.returncode == 0
            outs[(isa, q)] = parse_results(r.stdout)
    a, b = outs[("v67", "qemu_v67")], outs[("v67", "qemu_v73")]
    rows = [r for r in rows_all if r["arch"] <= 67]
    differ = sorted({rows[k[0]]["name"] for k in set(a) | set(b) if a.get(k) != b.get(k)})
    for name in differ:
        print(f"qemu 7.2 and 10.0 differ on {name}")
    print(f"qemu 7.2 vs 10.0 on {len(rows)} v67 intrinsics: {len(differ)} differ")
    return 0 if ok and not differ else 1


def npu_used_names():
    used = {}
    for path in glob.glob(os.path.join(NPU_DIR, "**", "*"), recursive=True):
        if not path.endswith((".c", ".cpp", ".h", ".hpp", ".inc")):
            continue
        for name in re.findall(r"\bQ6_[A-Z][A-Za-z0-9]*_[a-z]\w*", open(path, errors="replace").read()):
            used.setdefault(name, set()).add(os.path.relpath(path, ROOT))
    return used


def reference_tested():
    if not os.path.exists(REFERENCE_TESTED):
        return set()
    return {l.split()[0] for l in open(REFERENCE_TESTED) if l.strip() and not l.startswith("#")}


def cmd_check_used(args):
    used = npu_used_names()
    tested = tested_names_any_isa() | reference_tested()
    untested = sorted(set(used) - tested)
    for name in untested:
        print(f"untested: {name} (used in {', '.join(sorted(used[name]))})")
    print(f"{len(used)} Q6 names used in npu/, {len(used) - len(untested)} conformance-tested, "
          f"{len(untested)} untested")
    return 1 if untested else 0


def cmd_list(args):
    rows, notes = plan(args.isa)
    for r in rows:
        print(f"{r['name']}\tv{r['arch']}\t{r['ret']} <- {','.join(k for k, _ in r['args'])}")
    for name, why in sorted(notes.items()):
        print(f"# not tested: {name}: {why}")
    return 0


def cmd_table(args):
    rows = table.parse_protos(args.protos)
    table.write_table(rows)
    print(f"{len(rows)} intrinsics written to {table.TABLE}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run")
    p.add_argument("--build-dir", required=True)
    p.add_argument("--isa", choices=["v73", "v67"], default="v73",
                   help="v73: Debian 13's qemu-hexagon, every integer intrinsic up to v73; "
                        "v67: Debian 12's qemu-hexagon, the intrinsics of v67 and older")
    p.add_argument("--cxx", help="host C++ compiler (default $CXX or c++)")
    p.add_argument("--host-flags", default="-mavx2 -mfma -mf16c -mbmi2 -Wno-psabi",
                   help="host compiler flags (default: the project's SIMD level)")
    p.add_argument("--only", help="regex: test only the matching names")
    p.add_argument("--show", type=int, default=3, help="mismatching cases shown per intrinsic")
    p.set_defaults(fn=cmd_run)
    p = sub.add_parser("hello")
    p.add_argument("--build-dir", required=True)
    p.set_defaults(fn=cmd_hello)
    p = sub.add_parser("qemu-check")
    p.add_argument("--build-dir", required=True)
    p.set_defaults(fn=cmd_qemu_check)
    p = sub.add_parser("check-used")
    p.set_defaults(fn=cmd_check_used)
    p = sub.add_parser("list")
    p.add_argument("--isa", choices=["v73", "v67"], default="v73")
    p.set_defaults(fn=cmd_list)
    p = sub.add_parser("table")
    p.add_argument("--protos", default="/usr/lib/llvm-16/lib/clang/16/include/hvx_hexagon_protos.h")
    p.set_defaults(fn=cmd_table)
    args = ap.parse_args()
    sys.exit(args.fn(args))


if __name__ == "__main__":
    main()
