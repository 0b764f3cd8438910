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
out=$(env GGML_HEXAGON_ARCH=v79 GGML_HEXAGON_REPACK=all GGML_HEXAGON_MM_SELECT=hvx GGML_HEXAGON_PROFILE=2 \
      "$bin/test-backend-ops" test -b HTP0 -o MUL_MAT \
      -p '^type_a=q4_0,type_b=f32,m=16,n=(1|3),k=256,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1($|,)' 2>&1)
echo "$out" | grep -qE '^ *([1-9][0-9]*)/\1 tests passed' || { echo "$out" | tail -20; echo "FAIL: test-backend-ops did not pass"; exit 1; }
lines=$(grep -E '^ggml-hex: HTP0 profile-op MUL_MAT\|.*kernel=MUL_MAT_TILED' <<<"$out")
[ -n "$lines" ] || { echo "$out" | grep profile-op | head -5; echo "FAIL: no MUL_MAT_TILED profile-op line"; exit 1; }
LINES=$lines python3 - <<'PY' || exit 1
import os, re
seen = set()
for l in os.environ["LINES"].strip().splitlines():
    f = l.split("|")
    w, a = [[int(x) for x in d.split("x")] for d in f[2].split(":")[1:3]]
    k, m, n = w[0], w[1], a[1]
    c = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in re.search(r" counters (\S+)", l).group(1).split(",")}
    n_kt, blocks = k // 32, k // 32
    pairs = [2] * (n // 2) + [1] * (n % 2)
    assert m <= 32, f"one column tile expected, m={m}"
    quant_ld, quant_st = n * (1 + blocks), n * 12 * blocks
    dot_ld = n_kt * sum(5 + 10 * nr for nr in pairs)
    out_st = n
    want_ldst = quant_ld + quant_st + dot_ld + out_st
    want_st = quant_st + out_st
    want_mpy = n * n_kt * (8 + 2) + n * (blocks + (blocks + 3) // 4)
    assert c["hvx_ldst"] == want_ldst, (f"n={n}: hvx_ldst {c['hvx_ldst']}, the kernel must execute {want_ldst} "
                                        f"(quantizer {quant_ld} + {quant_st}, dots {dot_ld}, output {out_st})")
    assert c["hvx_st"] == want_st, (f"n={n}: hvx_st {c['hvx_st']}, the kernel must execute {want_st} "
                                    f"(quantizer {quant_st}, output {out_st})")
    assert c["hvx_mpy"] == want_mpy, f"n={n}: hvx_mpy {c['hvx_mpy']}, the kernel must execute {want_mpy}"
    seen.add(n)
    print(f"ok: MUL_MAT_TILED q4_0 k={k} m={m} n={n}: hvx_ldst {c['hvx_ldst']} (hvx_st {c['hvx_st']}), hvx_mpy {c['hvx_mpy']}")
assert seen == {1, 3}, f"rows seen: {sorted(seen)}"
PY
out=$(env GGML_HEXAGON_ARCH=v79 GGML_HEXAGON_MM_SELECT=flat GGML_HEXAGON_PROFILE=2 \
      "$bin/test-backend-ops" test -b HTP0 -o MUL_MAT \
      -p '^type_a=f32,type_b=f32,m=16,n=(1|3),k=256,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1($|,)' 2>&1)
echo "$out" | grep -qE '^ *([1-9][0-9]*)/\1 tests passed' || { echo "$out" | tail -20; echo "FAIL: test-backend-ops did not pass (flat)"; exit 1; }
lines=$(grep -E '^ggml-hex: HTP0 profile-op MUL_MAT\|' <<<"$out")
[ -n "$lines" ] || { echo "FAIL: no flat MUL_MAT profile-op line"; exit 1; }
LINES=$lines python3 - <<'PY' || exit 1
import os, re
seen = set()
for l in os.environ["LINES"].strip().splitlines():
    assert "kernel=" not in l, "not the flat path: " + l
    f = l.split("|")
    w, a = [[int(x) for x in d.split("x")] for d in f[2].split(":")[1:3]]
    k, m, n = w[0], w[1], a[1]
    c = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in re.search(r" counters (\S+)", l).group(1).split(",")}
    kv = k // 32
    want_ld = n * kv + m * kv + m * n * (2 * kv + 1)
    want_st = n * kv + m * kv + m * n
    assert c["hvx_ldst"] == want_ld + want_st, (f"n={n}: hvx_ldst {c['hvx_ldst']}, the flat path must execute "
                                                f"{want_ld} loads + {want_st} stores")
    assert c["hvx_st"] == want_st, f"n={n}: hvx_st {c['hvx_st']}, the flat path must execute {want_st}"
    assert c["hvx_mpy"] == m * n * kv, f"n={n}: hvx_mpy {c['hvx_mpy']}, the flat path must execute {m * n * kv}"
    seen.add(n)
    print(f"ok: MUL_MAT flat f32 k={k} m={m} n={n}: hvx_ldst {c['hvx_ldst']} (hvx_st {c['hvx_st']}), hvx_mpy {c['hvx_mpy']}")
assert seen == {1, 3}, f"rows seen: {sorted(seen)}"
PY
out=$(env GGML_HEXAGON_ARCH=v79 GGML_HEXAGON_PROFILE=2 "$bin/test-backend-ops" test -b HTP0 -o ADD \
      -p '^type=f32,ne=\[(1280,16,16,1\],nr=\[1,1,1,1|1,1,1,1\],nr=\[32,1,1,1)\],nf=1,perm1=0,src_overlap=0' 2>&1)
echo "$out" | grep -qE '^ *2/2 tests passed' || { echo "$out" | tail -20; echo "FAIL: test-backend-ops did not pass 2 ADD cases"; exit 1; }
lines=$(grep -E '^ggml-hex: HTP0 profile-op ADD\|' <<<"$out")
[ -n "$lines" ] || { echo "FAIL: no ADD profile-op line"; exit 1; }
LINES=$lines python3 - <<'PY' || exit 1
import os, re
seen = set()
for l in os.environ["LINES"].strip().splitlines():
    f = l.split("|")
    d, s0, s1 = [[int(x) for x in t.split("x")] for t in f[2].split(":")[:3]]
    rows, nv = d[1] * d[2] * d[3], (d[0] + 31) // 32
    nr0, n1 = d[0] // s1[0], (s1[0] + 31) // 32
    c = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in re.search(r" counters (\S+)", l).group(1).split(",")}
    bc = rows * nr0 * n1 if nr0 > 1 else 0
    want_ld, want_st = rows * 2 * nv + bc, rows * nv + bc
    assert c["hvx_ldst"] == want_ld + want_st, (f"{f[2]}: hvx_ldst {c['hvx_ldst']}, ADD must execute {want_ld} loads + "
                                                f"{want_st} stores")
    assert c["hvx_st"] == want_st, f"{f[2]}: hvx_st {c['hvx_st']}, ADD must execute {want_st}"
    assert c["hvx_alu"] == rows * nv, f"{f[2]}: hvx_alu {c['hvx_alu']}, ADD must execute {rows * nv}"
    seen.add(nr0 > 1)
    print(f"ok: ADD f32 {f[2]}: hvx_ldst {c['hvx_ldst']} (hvx_st {c['hvx_st']}), hvx_alu {c['hvx_alu']}")
assert seen == {False, True}, f"broadcast cases seen: {sorted(seen)}"
PY
out=$( (env GGML_HEXAGON_ARCH=v79 GGML_HEXAGON_PROFILE=2 "$bin/test-backend-ops" test -b HTP0 -o RMS_NORM \
        -p '^type=f32,ne=\[1025,5,4,3\],v=0,eps=0.000001,inplace=0'
       env GGML_HEXAGON_ARCH=v79 GGML_HEXAGON_PROFILE=2 "$bin/test-backend-ops" test -b HTP0 -o SOFT_MAX \
        -p '^type=f32,ne=\[1023,15,1,1\],mask=0,sinks=0,m_prec=f32,nr23=\[1,1\],scale=1.000000,max_bias=0.000000,inplace=0') 2>&1)
[ "$(grep -cE '^ *1/1 tests passed' <<<"$out")" = 2 ] || { echo "$out" | tail -20; echo "FAIL: test-backend-ops did not pass RMS_NORM and SOFT_MAX"; exit 1; }
lines=$(grep -E '^ggml-hex: HTP0 profile-op (RMS_NORM|SOFT_MAX)\|' <<<"$out")
LINES=$lines python3 - <<'PY' || exit 1
import os, re
seen = set()
for l in os.environ["LINES"].strip().splitlines():
    op = l.split(" profile-op ")[1].split("|")[0]
    f = l.split("|")
    d = [int(x) for x in f[2].split(":")[0].split("x")]
    rows = d[1] * d[2] * d[3]
    t = 1 if d[0] % 32 else 0
    c = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in re.search(r" counters (\S+)", l).group(1).split(",")}
    if op == "RMS_NORM":
        nf = d[0] // 32
        want_ld, want_st = rows * 2 * (nf + t), rows * (nf + t)
    else:
        nv = (d[0] + 31) // 32
        want_ld, want_st = rows * (4 * nv + t), rows * (3 * nv + t)
    assert c["hvx_ldst"] == want_ld + want_st, (f"{op} {f[2]}: hvx_ldst {c['hvx_ldst']}, it must execute {want_ld} "
                                                f"loads + {want_st} stores")
    assert c["hvx_st"] == want_st, f"{op} {f[2]}: hvx_st {c['hvx_st']}, it must execute {want_st}"
    seen.add(op)
    print(f"ok: {op} f32 {f[2]}: hvx_ldst {c['hvx_ldst']} (hvx_st {c['hvx_st']})")
assert seen == {"RMS_NORM", "SOFT_MAX"}, f"ops seen: {sorted(seen)}"
PY
out=$( (env GGML_HEXAGON_ARCH=v79 GGML_HEXAGON_PROFILE=2 "$bin/test-backend-ops" test -b HTP0 -o SWIGLU \
        -p '^type=f32,ne_a=\[128,2,2,2\],v=0,(split|swapped=0)$'
       env GGML_HEXAGON_ARCH=v79 GGML_HEXAGON_PROFILE=2 "$bin/test-backend-ops" test -b HTP0 -o GELU \
        -p '^type=f32,ne_a=\[(128,2,2,2|5,7,11,13)\],v=0$') 2>&1)
[ "$(grep -cE '^ *2/2 tests passed' <<<"$out")" = 2 ] || { echo "$out" | tail -20; echo "FAIL: test-backend-ops did not pass SWIGLU and GELU"; exit 1; }
lines=$(grep -E '^ggml-hex: HTP0 profile-op (GLU|UNARY|SWIGLU|GELU)\|' <<<"$out")
[ -n "$lines" ] || { echo "$out" | grep profile-op | head -3; echo "FAIL: no element-wise profile-op line"; exit 1; }
LINES=$lines python3 - <<'PY' || exit 1
import os, re
seen = set()
for l in os.environ["LINES"].strip().splitlines():
    f = l.split("|")
    glu = "swiglu" in f[1].lower() or f[0].endswith("GLU")
    d = [int(x) for x in f[2].split(":")[0].split("x")]
    rows, nv = d[1] * d[2] * d[3], (d[0] + 31) // 32
    c = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in re.search(r" counters (\S+)", l).group(1).split(",")}
    want_ld, want_st = (rows * 2 * nv, rows * nv) if glu else (rows * 3 * nv, rows * 2 * nv)
    what = "SWIGLU" if glu else "GELU"
    assert c["hvx_ldst"] == want_ld + want_st, (f"{what} {f[2]}: hvx_ldst {c['hvx_ldst']}, it must execute {want_ld} "
                                                f"loads + {want_st} stores")
    assert c["hvx_st"] == want_st, f"{what} {f[2]}: hvx_st {c['hvx_st']}, it must execute {want_st}"
    seen.add(what)
    print(f"ok: {what} f32 {f[2]}: hvx_ldst {c['hvx_ldst']} (hvx_st {c['hvx_st']})")
assert seen == {"SWIGLU", "GELU"}, f"ops seen: {sorted(seen)}"
PY
echo "PASS"
