#!/usr/bin/env python3
# The self-test of tests/tools/source-size.py: files written here, just at and just over each
# limit, must pass and fail as they should; braces in comments, strings, character literals and
# macros must not open or close a function; member functions, templates, lambdas, constructors
# with initializer lists and functions in extern "C" blocks must be measured; unbalanced braces
# must be an error. (tools.source_size runs the check on the source tree.)
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "source-size.py")
failures = 0


def run(*args):
    p = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def expect(cond, what, out=""):
    global failures
    if not cond:
        failures += 1
        print(f"FAIL: {what}\n{out}")
    else:
        print(f"ok: {what}")


def body(n):
    """n lines of statements, with braces that must not count."""
    lines = []
    for k in range(n):
        lines.append([f"    x += {k};  // }} a brace in a comment",
                      f'    s = "}}{{ a brace in a string {k}";',
                      f"    c = '}}';",
                      f"    /* {{ */ x -= 25'000;"][k % 4])
    return lines


def cpp_function(head, n_lines):
    """A function of exactly n_lines lines (its head lines and closing brace included)."""
    head_lines = head.split("\n")
    head_lines[-1] += " {"
    return head_lines + body(n_lines - len(head_lines) - 1) + ["}"]


with tempfile.TemporaryDirectory() as d:
    def write(name, lines):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    limits = ["--max-file", "60", "--max-function", "20"]

    # C++: every form at exactly the limit passes; each one line longer fails, named.
    # (what stands before the function, its head, what closes it and what stands after)
    forms = {
        "free": ([], "static int free_fn(int a, const char * s)", "}", []),
        "template": ([], "template <typename T>\nT templ_fn(T a) noexcept", "}", []),
        "member": (["struct holder {", "  public:"], "    int member_fn() const", "}", ["};"]),
        "ctor": (["struct ctor_holder {", "    int x, y;"], "    ctor_holder(int a)\n        : x(a), y(a + 1)", "}", ["};"]),
        "lambda": ([], "static auto lambda_fn = [](int v) -> int", "};", []),
        "extern_c": (['extern "C" {'], "int c_fn(void)", "}", ["}"]),
    }
    for name, (before, head, close, after) in forms.items():
        for n, want in ((20, 0), (21, 1)):
            fn = cpp_function(head, n)
            fn[-1] = close
            lines = ["#define MACRO_WITH_BRACE { \\", "    }", "#if 0", "#endif"] + before + fn + after
            path = write(f"{name}-{n}.cpp", lines)
            rc, out = run(*limits, path)
            expect(rc == want and (want == 0 or f"function of {n} lines" in out),
                   f"C++ {name} function of {n} lines -> exit {want}", out)

    # A file of 61 lines fails; 60 passes.
    for n, want in ((60, 0), (61, 1)):
        rc, out = run(*limits, write(f"long-{n}.h", [f"int v{k};" for k in range(n)]))
        expect(rc == want and (want == 0 or f"{n} lines (limit 60)" in out), f"file of {n} lines -> exit {want}", out)

    # Python: a def over the limit (nested inside a class) fails.
    for n, want in ((20, 0), (21, 1)):
        lines = ["class K:", "    def method(self):"] + [f"        v = {k}" for k in range(n - 1)]
        rc, out = run(*limits, write(f"py_{n}.py", lines))
        expect(rc == want and (want == 0 or "def method" in out), f"python def of {n} lines -> exit {want}", out)

    # Unbalanced braces (an #if branch opening one): an error, not a pass.
    rc, out = run(*limits, write("unbalanced.cpp", ["void f() {", "#if A", "    if (a) {", "#endif", "}"]))
    expect(rc == 1 and "cannot scan" in out, "unbalanced braces -> exit 1", out)

sys.exit(1 if failures else 0)
