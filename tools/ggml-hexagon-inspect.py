#!/usr/bin/env python3
"""Audit Hexagon builds of the NPU libraries: in-loop spills, float promotions, in-loop divisions.

Reads the disassembly of a Hexagon ELF file (a libggml-htp-vNN.so of tools/hexagon-compile-check.sh
--build, or any Hexagon object) with llvm-objdump, finds each function's loops from the
hardware-loop setups (loop0/loop1 and their :endloop packets) and the backward branches, and
reports:

  --spills      stores to and loads from the stack (r29/r30, or a register derived from them)
                inside loops: register spills and fills, vector (vmem) and scalar (mem*)
  --promotions  float to double conversions and double arithmetic (convert_*df*, df* instructions,
                calls to the compiler's __hexagon_*df* helpers), anywhere in the function
  --divisions   calls to the compiler's division helpers (__hexagon_udivsi3 and friends) inside
                loops: Hexagon cores have no hardware divide; use host-precomputed fastdiv values
  --disasm FUNC the function's disassembly with source lines, loop brackets and markers
  --addr2line ADDR...  function and source line of addresses (hex; also NAME+0xOFF as the vHTP
                prints fault addresses: any ELF works, the host libraries too)

With no check given, all three checks run. Findings are reported; --strict makes the exit
status 1 when any check found something (the CI gate).

Examples:
  ggml-hexagon-inspect.py --spills --strict --func '^compute_'
  ggml-hexagon-inspect.py --promotions --arch 81 --func '^compute_'
  ggml-hexagon-inspect.py --disasm htp_op_soft_max
  ggml-hexagon-inspect.py --addr2line 0x51a30 0x5ba54
  ggml-hexagon-inspect.py --lib build/bin/libggml-htp-v79.so --addr2line libggml-htp-v79.so+0x1234

Also reachable as scripts/snapdragon/ggml-hexagon-inspect.py (the spec's path; a link to
tools/ggml-hexagon-inspect.py), run from the repository root as the spec shows.

The loop finder (the packet graph, its dominators, the natural loops) is tools/inspect_loops.py,
the kernel-source scan of --ops-dir tools/inspect_sources.py, both imported from beside this file. Python 3 standard library only; needs llvm-objdump-16, llvm-symbolizer-16 and llvm-readelf-16
(Debian's llvm-16, installed by scripts/deps-hexagon.sh; HEXAGON_LLVM_SUFFIX=-19 picks another).
"""

import argparse
import collections
import difflib
import os
import re
import shutil
import subprocess
import sys

# The loop finder and the kernel-source scan, modules beside this file (realpath: through the link too).
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from inspect_loops import find_loops  # noqa: E402
from inspect_sources import kernel_sources  # noqa: E402

# The real file: scripts/snapdragon/ggml-hexagon-inspect.py (the spec's path) links here.
ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
ARCHS = ("73", "75", "79", "81")
DEFAULT_ARCH = "79"
# llvm-objdump-16 knows no CPU newer than v73: newer binaries decode with v73's ISA (their
# newer-only instructions, if any, show as <unknown>). The features are the ones every v73+ HTP
# has and the kernels are built with.
OBJDUMP_CPU = ["--mcpu=hexagonv73", "--mattr=+hvxv73,+hvx-length128b,+hvx-ieee-fp,+hvx-qfloat"]

INSN_LINE = re.compile(r"^\s*([0-9a-f]+):\s?(\{)?\s*(.*?)\s*(\})?\s*(:endloop[01]+)?\s*$")
FUNC_LINE = re.compile(r"^([0-9a-f]+) <(.+)>:$")
# objdump -r prints a relocation on its own line or, for Hexagon, after the instruction.
RELOC_LINE = re.compile(r"^\s+([0-9a-f]+):\s+(R_HEX_\w+)\s+([^\s+]+)")
RELOC_TAIL = re.compile(r"\s+[0-9a-f]+:\s+(R_HEX_\w+)\s+([^\s+]+)\S*\s*$")
SOURCE_LINE = re.compile(r"^(/|\.\.?/|[A-Za-z]:).*:\d+$|^[^\s:]+\(\):$")
CALL = re.compile(r"\bcall\s+0x([0-9a-f]+)")
PLT_GOT = re.compile(r"r14\s*=\s*add\(pc,##0x([0-9a-f]+)\)")


def llvm_tool(name):
    suffix = os.environ.get("HEXAGON_LLVM_SUFFIX", "-16")
    for cand in (name + suffix, name):
        path = shutil.which(cand)
        if path:
            return path
    print(f"ggml-hexagon-inspect: {name}{suffix} not found; run scripts/deps-hexagon.sh", file=sys.stderr)
    sys.exit(77)


def run(cmd):
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    if res.returncode != 0:
        sys.exit(f"ggml-hexagon-inspect: {' '.join(cmd[:2])} ... failed:\n{res.stderr.strip()}")
    return res.stdout


class Insn:
    __slots__ = ("addr", "text", "packet", "callee", "loops")

    def __init__(self, addr, text, packet):
        self.addr = addr
        self.text = text
        self.packet = packet  # address of the packet's first word
        self.callee = None
        self.loops = []  # (start, end) of every loop holding it, innermost last


class Function:
    all_loops = False  # --all-loops: also rotated hardware loops and a jump table's cases (inspect_loops.py)

    def __init__(self, addr, name):
        self.addr = addr
        self.name = name
        self.demangled = name
        self.insns = []
        self.loops = []  # (start, end, how)
        self.lines = []  # disassembly lines as printed (for --disasm)
        self.analysed = False

    def analyse(self):
        """Find the loops once, on demand: a run that selects a few functions (--func,
        --disasm) does not pay for the hundreds it leaves out."""
        if not self.analysed:
            find_loops(self, Function.all_loops)
            self.analysed = True

    @property
    def short(self):
        """The unqualified name: 'void (anonymous namespace)::compute_rows<6>(long...)' ->
        'compute_rows<6>', so that --func '^compute_' selects it as in C code."""
        depth, cut, cur = 0, len(self.demangled), ""
        text = self.demangled
        # Drop the parameter list: the last top-level '(...)'.
        for i in range(len(text) - 1, -1, -1):
            c = text[i]
            depth += c in ")>"
            depth -= c in "(<"
            if depth == 0 and c == "(":
                cut = i
                break
        depth, head = 0, text[:cut]
        for i, c in enumerate(head):
            if c in "(<":
                depth += 1
            elif c in ")>":
                depth -= 1
            if depth == 0 and (c == " " or head.startswith("::", i - 1)):
                cur = ""  # a return type or a scope before the name
                continue
            cur += c
        return cur if depth == 0 and cur else self.demangled

    def matches(self, regex):
        return bool(regex.search(self.short) or regex.search(self.demangled) or regex.search(self.name))


class Binary:
    """The functions of one ELF file, its PLT, and its loops."""

    def __init__(self, path, with_source=False):
        self.path = path
        self.functions = []
        self.unknown = 0
        header = run([llvm_tool("llvm-readelf"), "-h", path])
        if "Hexagon" not in header and "QDSP6" not in header:
            sys.exit(f"ggml-hexagon-inspect: {path} is not a Hexagon ELF file (inspect the --build libraries)")
        self.is_object = re.search(r"Type:\s+REL\b", header) is not None
        self.plt = self._plt_symbols()
        cmd = [llvm_tool("llvm-objdump"), "-d", "--no-show-raw-insn"] + OBJDUMP_CPU
        if self.is_object:
            cmd.append("-r")
        if with_source:
            cmd.append("-l")
        self._parse(run(cmd + [path]))
        self._demangle()
        by_addr = {f.addr: f.name for f in self.functions}
        for f in self.functions:
            for insn in f.insns:
                if insn.callee is None:
                    m = CALL.search(insn.text)
                    if m:
                        target = int(m.group(1), 16)
                        insn.callee = self.plt.get(target) or by_addr.get(target)

    def _plt_symbols(self):
        """PLT stub address -> symbol, from .rela.plt and each stub's `r14 = add(pc,##GOT-stub)`."""
        out = run([llvm_tool("llvm-readelf"), "-r", "-S", "-W", self.path])
        slots = {}
        in_plt_relocs = False
        for line in out.splitlines():
            if line.startswith("Relocation section"):
                in_plt_relocs = "'.rela.plt'" in line
                continue
            fields = line.split()
            if in_plt_relocs and len(fields) >= 5 and fields[2] == "R_HEX_JMP_SLOT":
                slots[int(fields[0], 16)] = fields[4]
        if not slots:
            return {}
        dis = run([llvm_tool("llvm-objdump"), "-d", "--no-show-raw-insn", "-j", ".plt"] + OBJDUMP_CPU + [self.path])
        stubs = {}
        packet = None
        for line in dis.splitlines():
            m = INSN_LINE.match(line)
            if not m or FUNC_LINE.match(line):
                continue
            addr = int(m.group(1), 16)
            if m.group(2):
                packet = addr
            g = PLT_GOT.search(m.group(3))
            if g and packet is not None:
                sym = slots.get(packet + int(g.group(1), 16))
                if sym:
                    stubs[packet] = sym
        return stubs

    def _parse(self, text):
        func = None
        packet = None
        last = None
        for line in text.splitlines():
            m = FUNC_LINE.match(line)
            if m:
                func = Function(int(m.group(1), 16), m.group(2))
                self.functions.append(func)
                packet = last = None
                continue
            if func is None:
                continue
            m = RELOC_LINE.match(line)
            if m:
                if last is not None and (CALL.search(last.text) or "call" in last.text):
                    last.callee = m.group(3)
                func.lines.append(("reloc", line))
                continue
            reloc = RELOC_TAIL.search(line)
            if reloc:
                line = line[:reloc.start()]
            m = INSN_LINE.match(line)
            if not m:
                if line.strip() and SOURCE_LINE.match(line.strip()):
                    func.lines.append(("source", line.strip()))
                continue
            addr = int(m.group(1), 16)
            if m.group(2) or packet is None:
                packet = addr
            body = m.group(3)
            for part in [p.strip() for p in body.split(";") if p.strip()]:
                last = Insn(addr, part, packet)
                func.insns.append(last)
            if reloc and "call" in last.text:
                last.callee = reloc.group(2)
            func.lines.append(("insn", addr, line + (f"  [{reloc.group(1)} {reloc.group(2)}]" if reloc else "")))
            if m.group(5):
                # A pseudo instruction marks the packet that closes a hardware loop.
                func.lines.append(("endloop", addr, m.group(5)))
                func.insns.append(Insn(addr, m.group(5), packet))
            if m.group(4):
                packet = None
        self.functions = [f for f in self.functions if not f.name.startswith(".")]
        # Undecodable words, not counting the zero padding after a function's last packet.
        for f in self.functions:
            unknown = [i for i, insn in enumerate(f.insns) if insn.text == "<unknown>"]
            end = len(f.insns)
            while unknown and unknown[-1] == end - 1:
                unknown.pop()
                end -= 1
            self.unknown += len(unknown)

    def _demangle(self):
        names = [f.name for f in self.functions if f.name.startswith("_Z")]
        if not names:
            return
        out = subprocess.run([llvm_tool("llvm-cxxfilt")], input="\n".join(names) + "\n", stdout=subprocess.PIPE,
                             text=True).stdout.splitlines()
        table = dict(zip(names, out))
        for f in self.functions:
            f.demangled = table.get(f.name, f.name)


# Stack accesses: vector or scalar memory operand on a base register.
MEM_OPERAND = re.compile(r"\b(vmemu?|mem[bhwd]|memu[bh])\((r\d+)(?:\+|\)|\+\+)")
DEST_REG = re.compile(r"^(?:if\s*\([^)]*\)\s*)?(r\d+)(?::(\d+))?(?:\.new)?\s*=(?!=)")
STACK_DERIVE = re.compile(r"^(r\d+)\s*=\s*(?:add\((r\d+),#-?0x[0-9a-f]+\)|(r\d+))$")


def stack_accesses(f):
    """(insn, 'vector'|'scalar', 'spill'|'fill') for every stack store/load of the function."""
    stack = {"r29", "r30"}
    out = []
    for insn in f.insns:
        text = insn.text
        for m in MEM_OPERAND.finditer(text):
            if m.group(2) in stack:
                kind = "vector" if m.group(1).startswith("vmem") else "scalar"
                eq = text.find("=")
                op = "spill" if eq > m.start() else "fill"
                out.append((insn, kind, op))
                break
        # Which registers point into the frame: rN = add(r29|r30|derived, #imm) or rN = r29.
        d = STACK_DERIVE.match(text)
        if d and (d.group(2) or d.group(3)) in stack:
            stack.add(d.group(1))
            continue
        dm = DEST_REG.match(text)
        if dm:
            hi = int(dm.group(1)[1:])
            regs = {f"r{hi}"} | ({f"r{dm.group(2)}"} if dm.group(2) else set())
            stack -= regs - {"r29", "r30"}
    return out


def check_spills(f):
    findings = []
    for insn, kind, op in stack_accesses(f):
        if insn.loops:
            findings.append((insn, f"{kind} {op}"))
    return findings


# What the promotion and division checks look for: instructions and the compiler's helpers.
PROMOTION_INSN = re.compile(r"\b(convert_\w*df\w*|df[a-z]+(?:\.[a-z]+)?)\(")
DOUBLE_HELPER = re.compile(r"^__hexagon_\w*df\d?$|^__(?:\w+df\d|extendsfdf2|truncdfsf2)$")
DIVISION_HELPER = re.compile(r"^__hexagon_\w*(?:div|mod)\w*$|^__u?(?:div|mod)(?:si|di)3$|^__udivmod\w+$")


def check_promotions(f):
    findings = []
    for insn in f.insns:
        m = PROMOTION_INSN.search(insn.text)
        if m:
            findings.append((insn, m.group(1)))
        elif insn.callee and DOUBLE_HELPER.match(insn.callee):
            findings.append((insn, f"call {insn.callee}"))
    return findings


def check_divisions(f):
    return [(insn, f"call {insn.callee}") for insn in f.insns
            if insn.loops and insn.callee and DIVISION_HELPER.match(insn.callee)]


CHECKS = {"spills": check_spills, "promotions": check_promotions, "divisions": check_divisions}


class Symbolizer:
    def __init__(self, path):
        self.path = path
        self.cache = {}
        self.proc = None

    def lines(self, addrs):
        # One llvm-symbolizer for the whole run, fed an address per line: starting one per
        # function re-read the library's debug information a hundred times per check.
        want = sorted({a for a in addrs if a not in self.cache})
        if want and self.proc is None:
            self.proc = subprocess.Popen([llvm_tool("llvm-symbolizer"), f"--obj={self.path}", "--no-inlines",
                                          "--functions=none"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         text=True, errors="replace")
        for a in want:
            self.proc.stdin.write(hex(a) + "\n")
            self.proc.stdin.flush()
            block = []
            while True:  # its answer: lines, then an empty line
                line = self.proc.stdout.readline()
                if not line or not line.strip():
                    break
                block.append(line.strip())
            self.cache[a] = short_path(block[0]) if block else "??"
        return {a: self.cache.get(a, "??") for a in addrs}

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()
            self.proc = None


def short_path(loc):
    # Debug info may hold "build/../x.cpp" (a build through ccache writes relative paths).
    path, sep, line = loc.partition(":")
    if path and path != "??":
        loc = os.path.normpath(path) + sep + line
    if loc.startswith(ROOT + os.sep):
        return loc[len(ROOT) + 1:]
    return loc


def lib_for_arch(arch):
    build = os.environ.get("GGML_HEXAGON_BUILD", os.path.join(ROOT, "build"))
    return os.path.join(build, "hexagon", f"libggml-htp-v{arch}.so")


def report(binary, label, checks, regex, limit, exclude=None):
    symb = Symbolizer(binary.path)
    funcs = [f for f in binary.functions if regex is None or f.matches(regex)]
    left_out = [f for f in funcs if exclude is not None and f.matches(exclude)]
    funcs = [f for f in funcs if f not in left_out]
    for f in funcs:
        f.analyse()
    totals = collections.Counter()
    kinds = {c: collections.Counter() for c in checks}
    print(f"== {label}: {binary.path} ({len(funcs)} of {len(binary.functions)} functions selected"
          + (f", {len(left_out)} more left out by --exclude" if left_out else "") + ")")
    if binary.unknown:
        print(f"   note: {binary.unknown} instructions llvm-objdump could not decode (instructions newer than v73?)")
    for check in checks:
        per_func = []
        for f in funcs:
            found = CHECKS[check](f)
            if found:
                per_func.append((f, found))
        n = sum(len(found) for _, found in per_func)
        totals[check] = n
        print(f"-- {check}: {n} in {len(per_func)} functions")
        for f, found in per_func:
            kinds[check].update(what.split(" ")[0] if check == "spills" else what for _, what in found)
            summary = collections.Counter(what for _, what in found)
            print(f"   {f.demangled}: {len(found)} (" + ", ".join(f"{k} {v}" for k, v in sorted(summary.items())) + ")")
            shown = found if limit == 0 else found[:limit]
            where = symb.lines([insn.addr for insn, _ in shown])
            for insn, what in shown:
                loop = f"  loop {insn.loops[-1][0]:#x}-{insn.loops[-1][1]:#x}" if insn.loops else ""
                print(f"      {insn.addr:#x} {f.name}+{insn.addr - f.addr:#x}  {what:<24} {insn.text:<40}"
                      f"{loop}  {where[insn.addr]}")
            if len(found) > len(shown):
                print(f"      ... {len(found) - len(shown)} more (--limit 0 shows all)")
    symb.close()
    return totals, kinds, funcs, funcs + left_out


def missing_kernels(path, funcs, ops_dir):
    """Kernel sources of ops_dir none of whose files defines one of funcs."""
    symb = Symbolizer(path)
    where = symb.lines([f.addr for f in funcs])
    symb.close()
    files = {os.path.basename(where[f.addr].split(":")[0]) for f in funcs}
    return [k for k, own in kernel_sources(ops_dir).items() if not own & files]


def disasm(binary, name):
    cands = [f for f in binary.functions
             if name in (f.name, f.demangled, f.short, f.short.split("<")[0])]
    if not cands:
        regex = re.compile(name)
        cands = [f for f in binary.functions if f.matches(regex)]
    if not cands:
        # Names differ between code bases (the spec's examples name upstream's kernels): offer
        # this library's nearest compute functions.
        near = difflib.get_close_matches(name, sorted({f.short for f in binary.functions}), n=3, cutoff=0.4)
        hint = f"; nearest: {', '.join(near)}" if near else ""
        sys.exit(f"ggml-hexagon-inspect: no function matches '{name}' in {binary.path}{hint} "
                 f"(list them: --spills --func '^compute_')")
    for f in cands:
        f.analyse()
        marks = collections.defaultdict(list)
        for check, fn in CHECKS.items():
            for insn, what in fn(f):
                marks[insn.addr].append(f"{check[:-1]}: {what}")
        for insn in f.insns:
            if insn.callee and not any(insn.callee in m for m in marks[insn.addr]):
                marks[insn.addr].append(f"-> {insn.callee}")
        starts = collections.defaultdict(list)
        for s, e, how in f.loops:
            starts[s].append((e, how))
        print(f"{f.addr:08x} <{f.demangled}>  ({len(f.loops)} loops)")
        depth_of = {insn.addr: len(insn.loops) for insn in f.insns}
        for entry in f.lines:
            if entry[0] == "source":
                print(f"    ; {short_path(entry[1])}")
                continue
            if entry[0] == "reloc":
                print("    " + entry[1].strip())
                continue
            if entry[0] == "endloop":
                continue
            _, addr, line = entry
            for e, how in starts.get(addr, []):
                print(f"    {'|' * (depth_of.get(addr, 1) - 1)}+-- loop {addr:#x}-{e:#x} ({how})")
            depth = depth_of.get(addr, 0)
            note = "  <-- " + "; ".join(marks[addr]) if marks.get(addr) else ""
            print(f"    {'|' * depth}{line.rstrip()}{note}")
        print()


ADDR_ARG = re.compile(r"^(?:(?P<lib>[^\s+]+)\+)?(?P<off>(?:0x)?[0-9a-fA-F]+)$")


def addr2line(path, addrs):
    parsed = []
    for a in addrs:
        m = ADDR_ARG.match(a)
        if not m:
            sys.exit(f"ggml-hexagon-inspect: bad address '{a}' (hex, or LIB+0xOFFSET)")
        off = m.group("off")
        parsed.append(int(off, 16))
    out = run([llvm_tool("llvm-symbolizer"), f"--obj={path}", "--inlines", "--functions=linkage", "--demangle"]
              + [hex(a) for a in parsed])
    blocks = out.strip("\n").split("\n\n")
    for a, b in zip(parsed, blocks):
        lines = b.strip().splitlines()
        frames = [(lines[i], short_path(lines[i + 1]) if i + 1 < len(lines) else "??")
                  for i in range(0, len(lines), 2)]
        if not frames or frames[0][0] == "??":
            print(f"{a:#x}: ?? (no symbol in {path})")
            continue
        text = f"{a:#x}: {frames[0][0]} at {frames[0][1]}"
        for func, loc in frames[1:]:
            text += f"\n    inlined into {func} at {loc}"
        print(text)


def main(argv=None):
    doc = __doc__.split("\n\n")
    ap = argparse.ArgumentParser(description=doc[0], epilog="\n\n".join(doc[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    # A bad argument is one line (the usage is --help's), exit 2.
    ap.error = lambda message: ap.exit(2, f"{ap.prog}: {message} (see --help)\n")
    ap.add_argument("--spills", action="store_true", help="stack stores/loads inside loops (register spills and fills)")
    ap.add_argument("--promotions", action="store_true", help="float to double conversions and double arithmetic")
    ap.add_argument("--divisions", action="store_true", help="calls to integer/float division helpers inside loops")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a check finds anything")
    ap.add_argument("--func", metavar="REGEX",
                    help="only functions whose name matches: the unqualified name (compute_rows<6>), the "
                         "demangled or the mangled one")
    ap.add_argument("--disasm", metavar="FUNC", help="annotated disassembly of FUNC (name, or a regex)")
    ap.add_argument("--addr2line", metavar="ADDR", nargs="+", help="function and source line of addresses")
    ap.add_argument("--arch", default=None,
                    help=f"which library of the Hexagon build: 73, 75, 79, 81, a comma list or 'all' (default {DEFAULT_ARCH}); "
                         "it is $GGML_HEXAGON_BUILD/hexagon/libggml-htp-vNN.so, default build/hexagon/")
    ap.add_argument("--lib", metavar="FILE", action="append", help="inspect this ELF file instead (repeatable)")
    ap.add_argument("--exclude", metavar="REGEX",
                    help="leave out of the checks the functions --func selected whose name matches this")
    ap.add_argument("--min-functions", type=int, metavar="N",
                    help="with --strict, also exit 1 when fewer than N functions are checked (in a "
                         "library): a gate that selects by name must not shrink unnoticed")
    ap.add_argument("--ops-dir", metavar="DIR",
                    help="with --strict, also exit 1 when a kernel source of DIR (a .cpp defining an "
                         "htp_op_* entry) has no function --func selects, defined in it or a header of "
                         "DIR it includes (a kernel whose compute is not named compute_*)")
    ap.add_argument("--all-loops", action="store_true",
                    help="also find the loops the default finder misses: rotated hardware loops (the setup "
                         "jumps to a start placed after the :endloop packet) and the cases of a switch "
                         "compiled to a jump table (docs/tools.md)")
    ap.add_argument("--limit", type=int, default=8, metavar="N",
                    help="findings listed per function and check (default 8; 0 = all)")
    args = ap.parse_args(argv)
    Function.all_loops = args.all_loops

    if args.lib:
        if args.arch:
            ap.error("give --arch or --lib, not both")
        targets = [(os.path.basename(p), p) for p in args.lib]
    else:
        archs = ARCHS if args.arch == "all" else tuple((args.arch or DEFAULT_ARCH).split(","))
        for a in archs:
            if a.lstrip("v") not in ARCHS:
                ap.error(f"unknown arch '{a}' (one of {', '.join(ARCHS)} or all)")
        targets = [(f"v{a.lstrip('v')}", lib_for_arch(a.lstrip("v"))) for a in archs]
    for label, path in targets:
        if not os.path.isfile(path):
            sys.exit(f"ggml-hexagon-inspect: {path} not found; build the Hexagon libraries with\n"
                     f"  tools/hexagon-compile-check.sh --build build/hexagon   (or: cmake --build build --target hexagon-libs)")

    if args.addr2line:
        for label, path in targets:
            addr2line(path, args.addr2line)
        return 0
    regex = re.compile(args.func) if args.func else None
    if args.disasm:
        for label, path in targets:
            disasm(Binary(path, with_source=True), args.disasm)
        return 0
    checks = [c for c in CHECKS if getattr(args, c)] or list(CHECKS)
    exclude = re.compile(args.exclude) if args.exclude else None
    grand = collections.Counter()
    short = []  # gate conditions that failed, beside the findings
    for label, path in targets:
        totals, _, checked, selected = report(Binary(path), label, checks, regex, args.limit, exclude)
        grand.update(totals)
        if args.min_functions is not None and len(checked) < args.min_functions:
            short.append(f"{label}: {len(checked)} functions checked, fewer than --min-functions {args.min_functions}")
        if args.ops_dir:
            for k in missing_kernels(path, selected, args.ops_dir):
                short.append(f"{label}: kernel {k} has no function --func selects")
    print("total: " + ", ".join(f"{c} {grand[c]}" for c in checks)
          + (f" (in {len(targets)} files)" if len(targets) > 1 else ""))
    for line in short:
        print("gate: " + line)
    return 1 if args.strict and (sum(grand.values()) or short) else 0


if __name__ == "__main__":
    sys.exit(main())
