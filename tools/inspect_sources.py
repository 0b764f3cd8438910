"""Which NPU kernel sources exist and which files each is made of: the scan behind
ggml-hexagon-inspect.py --ops-dir (a kernel whose compute function the gates' --func does not
select is reported there). Python 3 standard library only."""
import os
import re


def kernel_sources(ops_dir):
    """{kernel .cpp of ops_dir or a folder under it (one defining an htp_op_* entry point): the
    file names of ops_dir it and its local headers include, itself too}. An include resolves
    beside the including file first, then in ops_dir (the build's include directory)."""
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    entry = re.compile(r"^int\s+htp_op_\w+\s*\(", re.M)

    def closure(path, seen):
        if path in seen or not os.path.isfile(path):
            return seen
        seen.add(path)
        for h in inc.findall(open(path).read()):
            beside = os.path.join(os.path.dirname(path), h)
            closure(beside if os.path.isfile(beside) else os.path.join(ops_dir, h), seen)
        return seen

    kernels = {}
    for d, _, names in sorted(os.walk(ops_dir)):
        for n in sorted(names):
            path = os.path.join(d, n)
            if n.endswith(".cpp") and entry.search(open(path).read()):
                kernels[os.path.relpath(path, ops_dir)] = {os.path.basename(f) for f in closure(path, set())}
    return kernels
