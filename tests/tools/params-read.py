#!/usr/bin/env python3
"""Every field of every op's kernel_params struct is read by its kernel (issue 14 item 5,
"strict host-kernel alignment"): the host's encoder writes every field (unit.test_npu_ops and
the ops.* suites, run with GGML_HEXAGON_PARAMS_CHECK=1, check that with a poison pattern);
this checks the other direction, so a field the host fills and no kernel reads (im2col.K, gdn.n_seqs were) fails here.

For each struct of the kernel_params union (the HTP_KERNEL_PARAMS_MEMBERS* lists of
abi/include/htp-abi), its kernel's sources are the npu/ops files (and its subfolders') that name the struct or its
union member, plus the row-streaming helpers that read the usual fields of any op
(row-stream.h: split, shape, src0, dst, vsrc, vdst). A top-level field counts as read when
`.field` or `->field` appears in them. Exit 1 listing the unread ones.
usage: params-read.py [ROOT]"""
import glob
import os
import re
import sys

if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0)
if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
    sys.exit(f"params-read.py: unknown argument {sys.argv[-1]!r} (usage: params-read.py [ROOT])")
ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ABI = os.path.join(ROOT, "abi", "include", "htp-abi")
OPS = os.path.join(ROOT, "npu", "ops")
SHARED = ("row-stream.h",)  # templates that read p->split / shape / src0 / dst / vsrc / vdst of any op


def strip_comments(t):
    return re.sub(r"/\*.*?\*/", "", re.sub(r"//[^\n]*", "", t), flags=re.S)


headers = glob.glob(os.path.join(ABI, "params", "*.h")) + [os.path.join(ABI, "htp-kernel-params.h")]
text = "\n".join(strip_comments(open(h).read()) for h in headers)
# The union's members: the HTP_KERNEL_PARAMS_MEMBERS* macros (backslash-continued lines).
macros = re.findall(r"#\s*define\s+HTP_KERNEL_PARAMS_MEMBERS\w*((?:[^\n]*\\\n)*[^\n]*)", text)
members = dict(re.findall(r"struct\s+(htp_\w+_params)\s+(\w+)\s*;", "\n".join(macros)))
structs = {n: b for n, b in re.findall(r"struct\s+(\w+)\s*\{(.*?)\};", text, re.S)}
sources = {f: open(f).read() for f in glob.glob(os.path.join(OPS, "**", "*.cpp"), recursive=True) +
           glob.glob(os.path.join(OPS, "**", "*.h"), recursive=True)}  # with the MUL_MAT wing, npu/ops/mul-mat/

unread, checked = [], 0
for sname, member in sorted(members.items()):
    body = structs.get(sname)
    if body is None:
        print(f"params-read: {sname} (kernel_params.{member}) has no definition in {ABI}")
        sys.exit(1)
    users = [f for f, t in sources.items()
             if re.search(r"\b" + sname + r"\b", t) or re.search(r"(\.|->)\s*" + member + r"\b", t)]
    if not users:
        unread.append(f"{sname}: no kernel source of npu/ops names it or kernel_params.{member}")
        continue
    code = "\n".join(strip_comments(sources[f]) for f in users + [os.path.join(OPS, s) for s in SHARED])
    for decl in body.split(";"):
        decl = re.sub(r"\[[^\]]*\]", "", decl).strip()
        if not decl:
            continue
        toks = decl.replace(",", " , ").split()
        names = toks[2:] if toks[0] == "struct" else toks[1:]
        for field in (n for n in names if n != ","):
            checked += 1
            if not re.search(r"(\.|->)\s*" + field + r"\b", code):
                unread.append(f"{sname}.{field} (kernel_params.{member}.{field}): written by the host, "
                              f"read by none of {', '.join(sorted(os.path.basename(u) for u in users))}")
for line in unread:
    print("unread: " + line)
print(f"params-read: {len(members)} params structs, {checked} fields, {len(unread)} unread")
sys.exit(1 if unread else 0)
