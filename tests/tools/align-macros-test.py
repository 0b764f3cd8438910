#!/usr/bin/env python3
"""Fixture tests of tools/ggml-hexagon-align-macros.py: planted problems must be found at their
lines, --fix must clean them and be idempotent, clean macros must stay untouched.
The fixtures are written to a temporary folder (a planted file in the tree would fail the
tree-wide check)."""

import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "ggml-hexagon-align-macros.py")

CLEAN = (
    "#define ADD(a, b)      \\\n"
    "    do {               \\\n"
    "        (a) += (b);    \\\n"
    "    } while (0)\n"
    "#define ONE_LINE(x) (x)\n"
)
MISALIGNED = (
    "// header\n"
    "#define SWAP(a, b)      \\\n"
    "    do {                \\\n"
    "        int t = (a);  \\\n"        # line 4: two columns short
    "        (a) = (b);          \\\n"  # line 5: four columns long
    "        (b) = t;        \\\n"
    "    } while (0)\n"
)
TRAILING = (
    "#define TWICE(x)    \\\n"
    "    ((x) + (x))     \\ \t\n"       # line 2: blanks after the backslash
    "    + 0\n"
)
NO_BLANK = (
    "#define LONG_NAME_IS_LONG(x)\\\n"  # line 1: touches the backslash
    "    (x)                     \\\n"
    "    + 1\n"
)


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class AlignMacros(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text, newline="\n"):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", newline=newline) as f:
            f.write(text)
        return path

    def read(self, path):
        with open(path, newline="") as f:
            return f.read()

    def test_help(self):
        res = run("--help")
        self.assertEqual(res.returncode, 0)
        for flag in ("--check", "--diff", "--fix"):
            self.assertIn(flag, res.stdout)

    def test_clean_passes(self):
        path = self.write("clean.h", CLEAN)
        res = run(path)
        self.assertEqual(res.returncode, 0, res.stdout)
        self.assertEqual(res.stdout, "")
        self.assertEqual(run("--fix", path).returncode, 0)
        self.assertEqual(self.read(path), CLEAN)

    def test_misaligned_found_at_its_lines(self):
        path = self.write("bad.h", MISALIGNED)
        res = run("--check", path)
        self.assertEqual(res.returncode, 1)
        lines = sorted({int(line.split(":")[1]) for line in res.stdout.splitlines()})
        self.assertEqual(lines, [4, 5])
        self.assertTrue(all(line.startswith(path + ":") for line in res.stdout.splitlines()))

    def test_trailing_whitespace_found(self):
        path = self.write("trail.c", TRAILING)
        res = run(path)
        self.assertEqual(res.returncode, 1)
        self.assertIn(f"{path}:2: trailing whitespace", res.stdout)

    def test_backslash_touching_code_found(self):
        path = self.write("noblank.cpp", NO_BLANK)
        res = run(path)
        self.assertEqual(res.returncode, 1)
        self.assertIn(f"{path}:1:", res.stdout)

    def test_diff_changes_nothing(self):
        path = self.write("bad.h", MISALIGNED)
        res = run("--diff", path)
        self.assertEqual(res.returncode, 1)
        self.assertIn("-        int t = (a);  \\", res.stdout)
        self.assertIn("+        int t = (a);    \\", res.stdout)
        self.assertEqual(self.read(path), MISALIGNED)

    def test_fix_then_clean_and_idempotent(self):
        paths = [self.write("bad.h", MISALIGNED), self.write("trail.c", TRAILING), self.write("noblank.cpp", NO_BLANK)]
        self.assertEqual(run("--fix", *paths).returncode, 0)
        fixed = [self.read(p) for p in paths]
        res = run(*paths)
        self.assertEqual(res.returncode, 0, res.stdout)
        self.assertEqual(run("--fix", *paths).returncode, 0)
        self.assertEqual([self.read(p) for p in paths], fixed)
        # Only the backslash columns move: the code is the same.
        strip = lambda text: [line.rstrip(" \t\\") for line in text.splitlines()]  # noqa: E731
        self.assertEqual(strip(fixed[0]), strip(MISALIGNED))
        # Misaligned lines join the column most lines use (the code fits before it).
        cols = {line.index("\\") for line in fixed[0].splitlines() if line.endswith("\\")}
        self.assertEqual(cols, {MISALIGNED.splitlines()[1].index("\\")})
        self.assertNotIn("\\ ", fixed[1])

    def test_directories_recursed_hidden_and_build_dirs_skipped(self):
        self.write("src/a/bad.h", MISALIGNED)
        self.write("src/b/clean.cpp", CLEAN)
        self.write("src/notes.txt", MISALIGNED)             # not a C/C++ file
        self.write("src/.hidden/bad.h", MISALIGNED)          # hidden folder
        self.write("src/build/CMakeCache.txt", "")
        self.write("src/build/gen.h", MISALIGNED)            # a CMake build folder
        res = run(os.path.join(self.dir, "src"))
        self.assertEqual(res.returncode, 1)
        files = {line.split(":")[0] for line in res.stdout.splitlines()}
        self.assertEqual(files, {os.path.join(self.dir, "src", "a", "bad.h")})

    def test_crlf_kept(self):
        path = self.write("crlf.h", MISALIGNED, newline="\r\n")
        self.assertEqual(run("--fix", path).returncode, 0)
        text = self.read(path)
        self.assertEqual(text.count("\r\n"), MISALIGNED.count("\n"))
        self.assertEqual(run(path).returncode, 0)

    def test_missing_path_is_an_error(self):
        res = run(os.path.join(self.dir, "nope"))
        self.assertEqual(res.returncode, 2)


if __name__ == "__main__":
    unittest.main()
