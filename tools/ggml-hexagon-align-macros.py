#!/usr/bin/env python3
"""Check, diff or fix the trailing backslashes of multiline #define macros.

Every continuation backslash of one macro must sit in one column, with at least one blank
before it and nothing after it (no trailing whitespace). Macros that already follow the rule
are never touched, whatever column they chose. A misaligned macro is re-aligned to the column
most of its backslashes use when every line fits before it, else one blank after its longest
line. Tabs count as 8 columns. Python 3 standard library only.

  ggml-hexagon-align-macros.py [--check] PATH...   list file:line of each problem; exit 1 if any
  ggml-hexagon-align-macros.py --diff PATH...      print the fix as a unified diff; exit 1 if any
  ggml-hexagon-align-macros.py --fix PATH...       rewrite the files in place (idempotent)

PATH is a file or a directory (searched recursively for C/C++ sources and headers, skipping
hidden directories and CMake build directories, i.e. those holding a CMakeCache.txt). Without
PATH: this project's NPU-side sources (npu/, device-api/, abi/). Upstream's kernel folder
ggml/src/ggml-hexagon/htp/, as the spec's command lines name it, means this project's npu/
when it does not exist (one line says so).

Also reachable as scripts/snapdragon/ggml-hexagon-align-macros.py (the spec's path; a link to
tools/ggml-hexagon-align-macros.py), run from the repository root as the spec shows.
"""

import argparse
import collections
import difflib
import os
import re
import sys

SOURCE_SUFFIXES = (".h", ".hpp", ".hh", ".c", ".cc", ".cpp", ".cxx", ".inc", ".inl")
DEFINE_RE = re.compile(r"^\s*#\s*define\b")
CONTINUATION_RE = re.compile(r"\\([ \t]*)$")
TAB = 8


def width(text):
    """Display width of text with tabs expanded."""
    return len(text.expandtabs(TAB))


def split_eol(line):
    """(body, end-of-line) so that files keep their line endings."""
    for eol in ("\r\n", "\n", "\r"):
        if line.endswith(eol):
            return line[: -len(eol)], eol
    return line, ""


class Macro:
    """The continuation lines of one #define: indices into the file's lines."""

    def __init__(self, first):
        self.first = first
        self.lines = []  # (index, code before the backslash, trailing whitespace)


def find_macros(bodies):
    macros = []
    i = 0
    while i < len(bodies):
        if DEFINE_RE.match(bodies[i]) and CONTINUATION_RE.search(bodies[i]):
            macro = Macro(i)
            while i < len(bodies):
                m = CONTINUATION_RE.search(bodies[i])
                if not m:
                    break
                macro.lines.append((i, bodies[i][: m.start()], m.group(1)))
                i += 1
            macros.append(macro)
        else:
            i += 1
    return macros


def problems(macro):
    """[(line index, message)] for one macro; empty when it is clean."""
    cols = [width(code) for _, code, _ in macro.lines]
    common = collections.Counter(cols).most_common(1)[0][0]
    out = []
    for (idx, code, trail), col in zip(macro.lines, cols):
        if trail:
            out.append((idx, "trailing whitespace after the backslash"))
        if col != common:
            out.append((idx, f"backslash at column {col + 1}, the macro's others at {common + 1}"))
        elif code and not code[-1].isspace():
            out.append((idx, f"no blank before the backslash at column {col + 1}"))
    return out


def target_column(macro):
    """Where a misaligned macro's backslashes go (0-based display column)."""
    cols = collections.Counter(width(code) for _, code, _ in macro.lines)
    longest = max(width(code.rstrip()) for _, code, _ in macro.lines)
    best = max(cols.items(), key=lambda kv: (kv[1], kv[0]))[0]
    return best if best > longest else longest + 1


def fixed_lines(lines):
    """The file's lines with every misaligned macro re-aligned; (new lines, problems)."""
    bodies, eols = zip(*(split_eol(line) for line in lines)) if lines else ((), ())
    bodies = list(bodies)
    found = []
    for macro in find_macros(bodies):
        issues = problems(macro)
        if not issues:
            continue
        found.extend(issues)
        col = target_column(macro)
        for idx, code, _ in macro.lines:
            code = code.rstrip()
            bodies[idx] = code + " " * (col - width(code)) + "\\"
    return [b + e for b, e in zip(bodies, eols)], sorted(found)


def iter_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                                 and not os.path.exists(os.path.join(root, d, "CMakeCache.txt")))
                for name in sorted(files):
                    if name.endswith(SOURCE_SUFFIXES):
                        yield os.path.join(root, name)
        elif os.path.isfile(path):
            yield path
        else:
            raise FileNotFoundError(path)


def read_lines(path):
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        return f.read().splitlines(keepends=True)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    # A bad argument is one line (the usage is --help's), exit 2.
    ap.error = lambda message: ap.exit(2, f"{ap.prog}: {message} (see --help)\n")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_const", dest="mode", const="check",
                      help="list file:line of every misaligned backslash (default); exit 1 if any")
    mode.add_argument("--diff", action="store_const", dest="mode", const="diff",
                      help="print what --fix would change as a unified diff; exit 1 if anything")
    mode.add_argument("--fix", action="store_const", dest="mode", const="fix",
                      help="re-align misaligned macros in place")
    ap.add_argument("paths", nargs="*", metavar="PATH",
                    help="files or directories (default: this project's npu/, device-api/, abi/)")
    args = ap.parse_args(argv)
    mode = args.mode or "check"
    # The checkout: the current folder when it is one (the spec runs the tools from the
    # repository root), else the one this tool lives in.
    root = "." if os.path.isdir("npu") else os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    if not args.paths:
        args.paths = [os.path.relpath(os.path.join(root, d)) for d in ("npu", "device-api", "abi")]
    for i, path in enumerate(args.paths):
        if not os.path.exists(path) and os.path.normpath(path) == os.path.join("ggml", "src", "ggml-hexagon", "htp"):
            args.paths[i] = os.path.relpath(os.path.join(root, "npu"))
            print(f"align-macros: {path} is upstream's kernel folder; checking this project's {args.paths[i]}/",
                  file=sys.stderr)

    n_files = n_bad_files = n_problems = 0
    try:
        files = list(iter_files(args.paths))
    except FileNotFoundError as e:
        ap.error(f"no such file or directory: {e}")
    for path in files:
        n_files += 1
        lines = read_lines(path)
        new, found = fixed_lines(lines)
        if not found:
            continue
        n_bad_files += 1
        n_problems += len(found)
        if mode == "check":
            for idx, msg in found:
                print(f"{path}:{idx + 1}: {msg}")
        elif mode == "diff":
            # a/ b/ prefixes for relative paths, so that `git apply` takes the diff.
            old_name, new_name = (path, path) if os.path.isabs(path) else (f"a/{path}", f"b/{path}")
            sys.stdout.writelines(difflib.unified_diff(lines, new, fromfile=old_name, tofile=new_name))
        else:
            with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.writelines(new)
            print(f"fixed {path} ({len(found)} problems)")
    what = {"check": "found", "diff": "found", "fix": "fixed"}[mode]
    print(f"align-macros: {n_files} files, {n_problems} problems {what} in {n_bad_files} files", file=sys.stderr)
    return 1 if n_problems and mode != "fix" else 0


if __name__ == "__main__":
    sys.exit(main())
