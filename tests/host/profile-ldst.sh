#!/usr/bin/env bash
# GGML_HEXAGON_PROFILE=2 counts a kernel's vector loads and stores (hvx_ldst, of them stores:
# hvx_st; npu/ops/hvx-vmem.h):
# MUL_MAT Q4_0 on the tiled HVX path (npu/ops/mul-mat/mul-mat-tiled.h, .cpp), m=16 (one column tile),
# k=256 (8 tiles of 32 columns), n = 1 and 3 activation rows, one K chunk. What its code must
# execute, worked out from the shapes:
#   act quantizer, per row: 1 (the nibble order) + K/32 (a block each, max_abs_sf) loads and
#     12 stores per block (8 slots, d, sum, low sum, d * sum);
#   dots, per tile and row pair (NR rows, 2 then the odd 1): 5 tile vectors + 10 per row
#     (8 slots, A_QALL, A_D);
#   output: one store per row (a single K chunk keeps no partial sums).
# and its multiplies: per row and tile 8 vrmpy + 2 float multiplies; per row K/32 float
# multiplies (the quantizer's scaling) and one vrmpy per 4 blocks (block sums).
# Then the flat HVX path (npu/ops/mul-mat/mul-mat-flat.h, GGML_HEXAGON_MM_SELECT=flat), F32 weights,
# m=16, k=256 (kv = 8 vectors of 32 floats per row), n = 1 and 3, one chunk of each:
#   activation rows, once each (mm_copy_f32_row): kv loads and kv stores;
#   weight rows, once each (prep_weight, the same copy): kv loads and kv stores;
#   per weight row and activation row (dot_fp): 2 kv loads, and the result muxed into its
#     output vector: 1 load, 1 store;
# and 1 float multiply per weight vector and activation vector pair: m n kv.
# Then ADD f32 (npu/ops/binary.cpp), per dst row of nv = ceil(ne0/32) vectors: 2 nv loads, nv
# stores, nv adds; with a dim-0 broadcast (nr0 = ne0 / ne10 > 1) the src1 row of n1 =
# ceil(ne10/32) vectors is first expanded nr0 times into a scratch row (expand_row): nr0 n1
# loads and as many (unaligned) stores more per row.
# Then RMS_NORM f32 (npu/ops/rms-norm.cpp), per row of nf = floor(ne0/32) full vectors and t = 1
# if a tail is left: the sum of squares loads nf + t vectors, the scaling nf + t more and
# stores nf + t. And SOFT_MAX f32 without mask or sinks (npu/ops/softmax.cpp), per row of
# nv = ceil(ne0/32) vectors: x * scale (nv loads, nv stores; the tail's -inf padding 1 load, 1
# store more), the max (nv loads), e^(y - max) (nv loads, nv stores), the 1/sum scaling (nv
# loads, nv stores).
# Then the element-wise kernel (npu/ops/elementwise.cpp), f32, per dst row of nv = ceil(ne0/32)
# vectors: SWIGLU (one pass, two operands) 2 nv loads, nv stores; GELU (two passes: the first
# leaves its exp part in y, the second reads x and y) 3 nv loads, 2 nv stores.
#   profile-ldst.sh BIN
set -uo pipefail
bin=$1
all=""
# case TAG OP LINE-REGEX PATTERN [ENV=VALUE ...]: runs test-backend-ops on the op's cases matching
# PATTERN at level 2 (every case must pass) and keeps the profile-op lines matching LINE-REGEX,
# tagged TAG.
case_lines() {
    local tag=$1 op=$2 line=$3 pat=$4 out lines
    shift 4
    out=$(env GGML_HEXAGON_ARCH=v79 GGML_HEXAGON_PROFILE=2 "$@" "$bin/test-backend-ops" test -b HTP0 -o "$op" -p "$pat" 2>&1)
    grep -qE '^ *([1-9][0-9]*)/\1 tests passed' <<<"$out" || { echo "$out" | tail -20; echo "FAIL: test-backend-ops did not pass ($tag)"; exit 1; }
    lines=$(grep -E "^ggml-hex: HTP0 profile-op ($line)" <<<"$out")
    [ -n "$lines" ] || { echo "$out" | grep profile-op | head -5; echo "FAIL: no $tag profile-op line"; exit 1; }
    all+=$(sed "s/^/$tag /" <<<"$lines")$'\n'
}
case_lines tiled MUL_MAT 'MUL_MAT\|.*kernel=MUL_MAT_TILED' \
    '^type_a=q4_0,type_b=f32,m=16,n=(1|3),k=256,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1($|,)' \
    GGML_HEXAGON_REPACK=all GGML_HEXAGON_MM_SELECT=hvx
case_lines flat MUL_MAT 'MUL_MAT\|' \
    '^type_a=f32,type_b=f32,m=16,n=(1|3),k=256,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1($|,)' \
    GGML_HEXAGON_MM_SELECT=flat
case_lines add ADD 'ADD\|' '^type=f32,ne=\[(1280,16,16,1\],nr=\[1,1,1,1|1,1,1,1\],nr=\[32,1,1,1)\],nf=1,perm1=0,src_overlap=0'
case_lines rms_norm RMS_NORM 'RMS_NORM\|' '^type=f32,ne=\[1025,5,4,3\],v=0,eps=0.000001,inplace=0'
case_lines soft_max SOFT_MAX 'SOFT_MAX\|' \
    '^type=f32,ne=\[1023,15,1,1\],mask=0,sinks=0,m_prec=f32,nr23=\[1,1\],scale=1.000000,max_bias=0.000000,inplace=0'
case_lines swiglu SWIGLU '(GLU|SWIGLU)\|' '^type=f32,ne_a=\[128,2,2,2\],v=0,(split|swapped=0)$'
case_lines gelu GELU '(UNARY|GELU)\|' '^type=f32,ne_a=\[(128,2,2,2|5,7,11,13)\],v=0$'
LINES=$all python3 - <<'PY' || exit 1
import os, re


def tiled(d):  # d: dst, src0, src1 dims of the line
    k, m, n = d[1][0], d[1][1], d[2][1]
    n_kt = blocks = k // 32
    pairs = [2] * (n // 2) + [1] * (n % 2)
    assert m <= 32, f"one column tile expected, m={m}"
    quant_ld, quant_st = n * (1 + blocks), n * 12 * blocks
    dot_ld, out_st = n_kt * sum(5 + 10 * nr for nr in pairs), n
    mpy = n * n_kt * (8 + 2) + n * (blocks + (blocks + 3) // 4)
    return n, quant_ld + dot_ld, quant_st + out_st, {"hvx_mpy": mpy}


def flat(d):
    k, m, n = d[1][0], d[1][1], d[2][1]
    kv = k // 32
    return n, n * kv + m * kv + m * n * (2 * kv + 1), n * kv + m * kv + m * n, {"hvx_mpy": m * n * kv}


def add(d):
    rows, nv = d[0][1] * d[0][2] * d[0][3], (d[0][0] + 31) // 32
    nr0, n1 = d[0][0] // d[2][0], (d[2][0] + 31) // 32
    bc = rows * nr0 * n1 if nr0 > 1 else 0
    return nr0 > 1, rows * 2 * nv + bc, rows * nv + bc, {"hvx_alu": rows * nv}


def rows_of(d):
    return d[0][1] * d[0][2] * d[0][3], (d[0][0] + 31) // 32, 1 if d[0][0] % 32 else 0


def rms_norm(d):
    rows, _, t = rows_of(d)
    nf = d[0][0] // 32
    return "rms", rows * 2 * (nf + t), rows * (nf + t), {}


def soft_max(d):
    rows, nv, t = rows_of(d)
    return "soft", rows * (4 * nv + t), rows * (3 * nv + t), {}


def swiglu(d):
    rows, nv, _ = rows_of(d)
    return len(d), rows * 2 * nv, rows * nv, {}


def gelu(d):
    rows, nv, _ = rows_of(d)
    return d[0][0], rows * 3 * nv, rows * 2 * nv, {}


# tag -> (what the code must execute, the cases each must cover)
want = {"tiled": (tiled, {1, 3}), "flat": (flat, {1, 3}), "add": (add, {False, True}), "rms_norm": (rms_norm, {"rms"}),
        "soft_max": (soft_max, {"soft"}), "swiglu": (swiglu, {2, 3}), "gelu": (gelu, {128, 5})}
seen = {t: set() for t in want}
for l in os.environ["LINES"].strip().splitlines():
    tag, l = l.split(" ", 1)
    assert tag != "flat" or "kernel=" not in l, "not the flat path: " + l
    f = l.split("|")
    dims = [[int(x) for x in t.split("x")] for t in f[2].split(":")]
    c = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in re.search(r" counters (\S+)", l).group(1).split(",")}
    key, ld, st, more = want[tag][0](dims)
    assert c["hvx_ldst"] == ld + st, f"{tag} {f[2]}: hvx_ldst {c['hvx_ldst']}, the code must execute {ld} loads + {st} stores"
    assert c["hvx_st"] == st, f"{tag} {f[2]}: hvx_st {c['hvx_st']}, the code must execute {st}"
    for k, v in more.items():
        assert c[k] == v, f"{tag} {f[2]}: {k} {c[k]}, the code must execute {v}"
    seen[tag].add(key)
    print(f"ok: {tag} {f[2]}: hvx_ldst {c['hvx_ldst']} (hvx_st {c['hvx_st']})" +
          "".join(f", {k} {v}" for k, v in more.items()))
for tag, (_, cases) in want.items():
    assert seen[tag] == cases, f"{tag}: cases seen {sorted(seen[tag], key=str)}, want {sorted(cases, key=str)}"
PY
echo "PASS"
