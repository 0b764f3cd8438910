#!/usr/bin/env python3
# The modules of host/src include each other without a circle. A module is a file stem
# (graph.h + graph.cpp); module A depends on B when a file of A includes B's header. Fails,
# naming the circle, when the dependencies close one (as context.h did when it declared the
# functions of every module: backend, buffer, device and graph then reached each other through
# it). A header without a .cpp of its stem (context.h, log.h) may hold data, macros and inline
# functions only: declaring another module's functions there would hide that module's
# dependencies from this check.
# usage: include-cycles.py DIR   (host/src)
import os
import re
import sys

root = sys.argv[1]
files = sorted(f for f in os.listdir(root) if f.endswith((".h", ".cpp")))
stem = lambda f: os.path.splitext(f)[0]
stems = {stem(f) for f in files}
cpps = {stem(f) for f in files if f.endswith(".cpp")}
deps = {s: set() for s in stems}
bad = 0
for f in files:
    text = open(os.path.join(root, f), encoding="utf-8").read()
    for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
        if inc in files and stem(inc) != stem(f):
            deps[stem(f)].add(stem(inc))
    if f.endswith(".h") and stem(f) not in cpps:
        # top-level declarations of functions: a line at column 0 that names a function and ends
        # the statement with ');' (definitions, inline or static ones are allowed)
        for m in re.finditer(r"^(?!static|inline|#|//|typedef|using|template|struct|class|enum)([A-Za-z_][^;{}()]*\b\w+\s*\([^;{}]*\)\s*);",
                             text, re.M):
            print(f"{root}/{f}: declares a function without a {stem(f)}.cpp: {' '.join(m.group(1).split())}")
            bad = 1

state = {}  # 1: on the path, 2: done
path = []


def visit(s):
    global bad
    state[s] = 1
    path.append(s)
    for d in sorted(deps[s]):
        if state.get(d) == 1:
            print("include circle in " + root + ": " + " -> ".join(path[path.index(d):] + [d]))
            bad = 1
        elif d not in state:
            visit(d)
    path.pop()
    state[s] = 2


for s in sorted(stems):
    if s not in state:
        visit(s)
print(f"{len(stems)} modules of {root}: " + ("a circle or a hidden declaration (above)" if bad else "no include circle"))
sys.exit(bad)
