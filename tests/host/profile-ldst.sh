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
# multiplies (the quantizer's scaling) and one vrmpy per 4 blocks (block sums); and its DMA
# bytes: the column tile's K/32 weight tiles (576 bytes each, Q4_0) and each activation row (4 K)
# into VTCM, each output row (4 m) out.
# Then the flat HVX path (npu/ops/mul-mat/mul-mat-flat.h, GGML_HEXAGON_MM_SELECT=flat), F32 weights,
# m=16, k=256 (kv = 8 vectors of 32 floats per row), n = 1 and 3, one chunk of each:
#   activation rows, once each (mm_copy_f32_row): kv loads and kv stores;
#   weight rows, once each (prep_weight, the same copy): kv loads and kv stores;
#   per weight row and activation row (dot_fp): 2 kv loads, and the result muxed into its
#     output vector: 1 load, 1 store;
# and 1 float multiply per weight vector and activation vector pair: m n kv.
# Then the same with 16-bit activations: F16 weights x F16 activations and F32 weights x BF16
# activations (m=16, k=256; n = 1 and 16 / 1 and 8): each activation row is first widened in its
# staging slot (mm_widen_staged, npu/ops/mul-mat/mul-mat-rows.h: ceil(kv/2) loads, twice as many
# stores), then copied as above; F16 weight rows are widened (f16_to_f32_vectors: kv/2 loads, kv
# stores) instead of copied.
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
# Then the flat path's quantized weights (GGML_HEXAGON_MM_SELECT=flat), all 15 types, m=16, k=256,
# n = 1 and 3. A weight row is p packed quant vectors (Q8_0: groups of 128; Q2_K / Q3_K: pairs of
# super-blocks; the others: 256 elements, or 8 blocks) of `planes` quant vectors each; the dots run
# over g = planes x p groups of 128 (Q2_K, Q3_K, Q2_0: 4 planes, Q1_0: 8, Q8_0: 1, the others 2),
# the activation padded to them:
#   activation rows: the staging vectors the DMA left (4 g - K/32) zeroed (zero_bytes: stores);
#     per group 4 loads (max_abs_sf, one per block), 3 stores (mm_quantize_act_row);
#   weight rows (mul-mat-prep.h), per row, headers copied or widened every N vectors (ceil(p/N)):
#     Q8_0   (mm_prep_q8_0):  FP16 scales every 16 groups (1 load, 2 stores); per group the quants
#            (1, 1), the lane scales (1 load), scales and offsets (2 stores);
#     Q4_0 / Q4_1 (mm_prep_q4_0): FP16 scales (and Q4_1's mins) every 8 (1, 2 each); per vector 1
#            quant load, 2 lane loads, 6 stores;
#     Q5_0 / Q5_1 (mm_prep_q5_0): as Q4_0 / Q4_1, plus qh every 4 (1, 1) and 2 loads of the
#            fifth-bit words per vector;
#     Q4_K / Q5_K (mm_prep_q4_k): the headers every 8 (copy 1, 1; FP16 1, 2); per super-block 1
#            quant load (Q5_K: and qh), 4 lane loads, 6 stores;
#     Q6_K   (mm_prep_q6_k):  d every 64 (1, 2), scales every 8 (1, 1); per super-block ql and qh, 4
#            lane loads, 6 stores;
#     Q2_K   (mm_prep_q2_k):  scales every 4 (1, 1), d/dmin every 16 (1, 2); per vector 1 quant load,
#            per plane 2 lane loads and 3 stores;
#     Q3_K   (mm_prep_q3_k):  d every 32 (1, 2); per vector the scales' vector (1, 1; a second when
#            the 12 or 24 bytes cross one), qs and hmask, per plane 2 lane loads and 3 stores;
#     IQ4_NL / MXFP4 (mm_prep_b16): the table once (1 load), FP16 scales every 8 (1, 2) / E8M0
#            every 16 (1, 1); per vector 1 quant load, 2 lane loads, 2 + 2 x 2 stores;
#     IQ4_XS (mm_prep_b16, a packed vector per super-block): the table once (1 load), the 8-byte
#            headers every 16 (copy 1, 1; FP16 1, 2); per vector as IQ4_NL (1 + 2 loads, 6 stores);
#     Q1_0 / Q2_0 (mm_prep_b16): FP16 scales every 8; per vector 1 quant load, 2 lane loads, and
#            per plane 3 stores;
#   per weight row and activation row (dot_q): 6 loads per group, and the output lane: 1 load,
#     1 store.
# Then the flat path's dequantized weights (GGML_HEXAGON_MM_SELECT=flat; host/ops/mul-mat/mul-mat.cpp
# is_dequant_weight): m=16, k=256, n = 1 and 3, counted as the F32 weights above (activation rows
# copied, dot_fp) but with each weight row dequantized by GET_ROWS' row dequantizers
# (npu/ops/dequant-lowbit.h) instead of copied, per row of nb blocks (super-blocks):
#     TQ1_0 / TQ2_0 (compute_ternary_row): the broadcast table and the first FP16 scales (2 loads),
#            the scales again every 64 (ceil(nb/64)); per super-block its quant vector (1 load;
#            TQ1_0 also its 2 index and 2 power tables: 5) and 8 stores;
#     NVFP4  (compute_nvfp4_row): 4 tables and the first scales (5 loads), the scales again every
#            16 blocks (ceil(nb/16)); per pair of blocks 1 quant load and 4 stores;
#     IQ2_XXS .. IQ1_M (get-rows-iq.h compute_iq_row): per super-block its vector (1 load; its
#            bytes then reach the core by vextract) and 8 stores.
# Then NORM and L2_NORM f32 (npu/ops/norm.cpp), per row of nv = ceil(ne0/32) vectors: NORM sums
# (nv loads), subtracts the mean (nv loads, nv stores) and scales (nv loads, nv stores); L2_NORM
# sums (nv loads) and scales (nv loads, nv stores).
# Then ROPE (npu/ops/rope.cpp), rows of nv = ceil(ne0/32) vectors, chunks of one plane each
# (rpc = ne1): per chunk the cos / sin tables (build_tables: 2 loads, 2 stores per vector); per
# row and vector x, cos and sin (3 loads) and y (1 store); neox adds the partner vectors: for lanes
# below h = n_dims / 2 the vector n_dims / 2 floats up (2 loads when that is not a whole number of
# vectors, else 1), from h on the one as far down (the same, 1 at vector 0); F16 rows are widened
# first (f16_to_f32_vectors: ceil(ne0/64) loads, twice as many stores) and narrowed after
# (f32_to_f16_vectors: 2 loads, 1 store per output vector). VISION is neox over the whole row:
# n_dims here is ne0 (the kernel's rotated lanes, twice the op's n_dims; host/ops/rope.cpp).
# Then PAD f32 (npu/ops/assemble.cpp), no dim-0 padding: per dst row of nv = pitch/128 vectors,
# nv loads and nv stores when a source row covers it, nv stores (zeroes) when not. And IM2COL f32
# -> f32 (npu/ops/im2col.cpp), per dst row of sv = 2 ceil(ne0 x 4 / 256) staging vectors: sv stores
# (the staging row zeroed), then sv loads and sv stores (copied).
# Then GET_ROWS to f32 (npu/ops/get-rows.cpp), rows of ne0 = 256 picked from F32, Q4_0 and Q8_0
# rows (the index is a scalar load, the rows come by DMA), per dst row: F32 copy_vectors, nv =
# ceil(ne0/32) loads and nv stores; Q4_0 (compute_nibble_row<false, false>, nb = ne0/32 blocks) 3
# table loads (low_half, lut, bcast0), the first scales vector, the scales again every 64 blocks
# (ceil(nb/64)) and one quant vector per 4 blocks, one store per block; Q8_0 (q8_0_to_f32_vectors)
# the same without the 3 tables.
# Then POOL_2D and POOL_1D f32 (npu/ops/pool.cpp; POOL_1D is POOL_2D with k1 = s1 = 1, p1 = 0), max
# and average, per dst row (one per chunk, oy): the window rows in range nky = #{ky < k1: 0 <= oy s1
# + ky - p1 < ih}; each of the ne0 windows reads nv = ceil(k0 x 4 / 128) vectors per window row,
# middle and padded windows alike (mid_windows, edge_windows: a padded window's vectors are masked,
# not skipped; a window all in the padding too): ne0 nky nv loads; the values are packed 32 a vector
# (put), ceil(ne0/32) stores.
# Then SET_ROWS (npu/ops/set-rows.cpp), per source row of ne0 values (nv = ceil(ne0/32) F32
# vectors, n64 = ceil(ne0/64) pairs of them; the index is a scalar load, the rows go out by DMA):
# F32 -> F32 copy_vectors (nv loads, nv stores), F32 -> F16 / BF16 (f32_to_f16_vectors /
# f32_to_bf16_vectors: 2 n64 loads, n64 stores), F16 -> F16 (n64, n64), F16 -> F32 (n64, 2 n64);
# F32 -> the quantized rows of npu/ops/quantize-row.h, nb = ne0/32 blocks: per block the block's
# vector (1 load; Q8_0's max_abs_sf loads its register copy once more, Q5_0 / Q5_1 the kLanePow2
# table), the pieces gathered into whole vectors (piece_collector: quants ceil(nb/4) stores for
# Q8_0, ceil(nb/8) for the 4-bit codes; the F32 scales, Q4_1 / Q5_1's mins and Q5's qh words
# ceil(nb/32) stores each), then the scales (and mins) to FP16 (quant_scales_to_f16: the odd
# group's partner zeroed, 1 store when ceil(nb/32) is odd; f32_to_f16_vectors, 2 ceil(nb/64) loads,
# ceil(nb/64) stores); F16 -> quantized widens the row first (f16_to_f32_vectors: n64, 2 n64).
# F32 -> MXFP4 / NVFP4 (npu/ops/quantize-fp4.h), nv = ne0/32 vectors: a load each; the code
# bytes ceil(nv/8) stores, the scale bytes (MXFP4 1 a vector, NVFP4 2) ceil(nv/128) / ceil(nv/64).
# F32 -> TQ2_0 / TQ1_0 (npu/ops/quantize-ternary.h), nb = ne0/256 super-blocks: max_abs_sf and
# the codes read its 8 vectors each (16 loads); 32-byte pieces (TQ2_0 2 a super-block, TQ1_0 1
# to each of two arrays) ceil(pieces/4) stores, the F32 d and FP16 as Q2_0's (above).
# Then ARGSORT and TOP_K (npu/ops/argsort.cpp), rows of ne0 keys sorted in n_sort = the power of two
# >= max(ne0, 32) lanes (nv = n_sort/32 vectors, L = log2 n_sort): compute_keys loads the
# ceil(ne0/32) source vectors and stores nv keys and nv indices; the bitonic network has L(L+1)/2
# stages, each loading and storing every key and index vector once (a stage of distance >= 32 in
# pairs, 4 loads and 4 stores per pair; a shorter one 2 and 2 per vector): 2 nv loads, 2 nv stores.
# TOP_K's segments (rows of 1025 with a thread's VTCM share cut to 16 KiB: GGML_HEXAGON_VTCM_SIZE
# 96 KiB over 6 threads), per row: nc = 32 candidates (the power of two >= max(k, 32), ncv = nc/32
# vectors), segments of S = 1024 keys (the largest power of two with 8 nc + 4 S + 2 (4 S + 128)
# bytes in the share; nsv = S/32, L = log2 S), n_seg = ceil(ne0/S) of them, the last ne0 - (n_seg -
# 1) S long: the placeholders once (2 ncv stores); per segment compute_keys (ceil(elems/32) loads,
# 2 nsv stores), the ascending network (L(L+1)/2 stages of 2 nsv loads and stores),
# compute_take_best (4 ncv loads, 2 ncv stores) and compute_merge (log2 nc stages of 2 ncv loads
# and stores); after the last the k indices (ceil(k/32) loads and stores).
# ARGSORT's runs (rows of 1025 and 2049 with the same 16 KiB share), per row: n_pad = the power of
# two >= ne0, runs of n_run = 1024 (the largest power of two <= n_pad/2 with 16 n_run bytes in the
# share; nv = n_run/32, L = log2 n_run), each as a whole row above (compute_keys loads the run's
# ceil(elems/32) values, none for a run of padding only); then log2(n_pad/n_run) merge passes, each
# pair of runs of m keys in 2 m/n_blk - 1 steps (n_blk = n_run/4, bv = n_blk/32, Lb = log2 n_blk):
# the two next keys (2 loads), compute_flip (4 bv loads, 4 bv stores) and two compute_merge of
# Lb stages (2 bv loads and stores each); and one more HVX dispatch per pass.
# Then the reductions (npu/ops/reduce.cpp), rows of ne0 (nf = floor(ne0/32) full vectors, t = 1
# for a tail, nv = ceil(ne0/32)): SUM_ROWS / MEAN nf + t loads per row, ARGMAX 2 nv (the max, then
# the first index of it), CUMSUM nv loads and nv stores; SUM_ROWS / MEAN / ARGMAX store a vector
# per 32 rows of a chunk (ceil(n/32) per chunk of n rows), SUM one per chunk (its running sum;
# only the last goes out). Threads take whole chunks of rpc rows.
# Then the linear-attention recurrences (npu/ops/linear-attn.cpp), per token and head of head size
# S (NV = S/32 state vectors a row): WKV6, per state row, k, w, r, u (4 loads: the vectors whose
# lane is the row's scalar) and per state vector v and S (2 loads, 1 store); GLA k, g, q (3) and
# the same 2 and 1; WKV7 a in its first pass (1, and NV state loads per row), w, k, b, r in its
# second (4, and per vector S and v: 2 loads, 1 store); each token's output row, NV stores.
# Then UPSCALE (npu/ops/upscale.cpp), t0 = t1 = taps (nearest 1, bilinear 2, bicubic 4), nd =
# ceil(ne0/32) dst vectors a row: per thread, start() zeroes its source slots (n_bufs = 4 slots of
# rpc rows of t1 (ceil(ne00/32) + 2) vectors: encode-util.cpp plan_rows takes 4 buffers when 4
# slots fit) and builds the tap table (3 loads, 3 stores per dst vector and tap); per dst row the
# fetch stores t1 weight vectors, and per dst vector and x tap the compute loads the table's 3
# vectors and per y tap the window's 2 vectors and the weight (3 t1), then stores the vector.
# The recurrences (WKV6, GLA, WKV7, GATED_DELTA_NET) read their per-row scalars by lane_f32
# (npu/ops/hvx-util.h: the vector rotated to the lane, then lane 0 by vextract), one rotation
# (hvx_permute) each and none else: WKV6 4 per state row (k, w, r, u), GLA 3 (k, g, q), WKV7 5 (a
# in its first pass; w, k, b, r in its second); GATED_DELTA_NET per token beta (and the scalar
# gate) and per state row k (and KDA's e^g) in pass 1, k and q in pass 2.
# And hvx_runs, the op's HVX dispatches (work_queue_run): 2 for a flat MUL_MAT of one activation
# chunk (activation prep, then the dots: mul-mat-flat.h mm_run_chunk); the tiled one the same, but
# 1 for up to 2 rows (act_private, host/ops/mul-mat/mul-mat-tiled.cpp kPrivateRows: each thread
# quantizes its own copy inside the dot dispatch, npu/ops/mul-mat/mul-mat-tiled.cpp run_pass); 1
# for the row kernels (run-threads.h).
#   profile-ldst.sh BIN
# Then SSM_CONV f32 (npu/ops/ssm-conv.cpp), per dst row (token) of nv = ceil(d_inner/32) channel
# vectors: d_conv tap pairs (an sx and a c vector: 2 d_conv loads) and 1 store per vector.
# SOLVE_TRI f32 (npu/ops/solve-tri.cpp), per n x n matrix and nvk = ceil(k/32) vectors of X's rows:
# per row i the diagonal's vector (1 load), per vector of row i: i coefficient vectors and i X
# vectors, B's (2 i + 1 loads), X's store: n + nvk n^2 loads, n nvk stores. TRI (fill-diag-tri.cpp)
# per row of nv = ceil(ne0/32): nv loads, nv stores; FILL nv stores.
# GATED_DELTA_NET f32 (npu/ops/gated-delta-net.cpp), per (head, sequence) and token, S = head_size,
# NV = ceil(S/32): the gate's vector (1 load; KDA: its NV rows, e^g stored in the output row),
# beta's (1), pass 1: per state row k's vector (KDA: and the e^g row's) and NV state loads and
# stores, delta: NV v loads, pass 2: k's and q's vectors and NV state loads and stores, the output
# row NV stores; each of the last K tokens copies the state (S NV loads and stores).
# CONV_TRANSPOSE_2D (npu/ops/conv-transpose-1d.cpp), F32 and F16 kernels [K, KH, Cout, Cin], input
# rows of L, stride s: per thread start() zeroes its kernel slots (n_bufs = 4 slots of in_rows =
# min(ceil(KH/s), H) x Cin rows of nkv = ceil(K es / 128) vectors); per dst row the row's dst_v =
# 2 ceil(((L - 1) s 4 + 128 ceil(K/32)) / 256) vectors zeroed (stores), and per input row iy that
# reaches it (a contribution) compute_conv: per position and summed vector (nvk: nkv, F16 ceil(K/32))
# Cin input and Cin kernel vectors and the dst window (2 Cin + 1 loads, 1 store); an F16 kernel
# first widens the slice (Cin nkv loads, 2 Cin nkv stores) and rounds the input rows to F16 in
# place (in_v = 2 ceil(4 L / 256) vectors a row: Cin in_v loads and stores); a multiply per input
# vector and contribution.
# ACC f32 (npu/ops/assemble.cpp compute_acc), src1 [n0, 16, 2, 3] added at the start of each
# plane of a [256, 17, 2, 3] (the view of a's strides): per dst row of nv = 8 vectors, a row the
# view covers loads src0's and src1's vectors and stores the sums (2 nv, nv), the others copy
# src0's (nv, nv); src1's rows narrower than 256 leave parts of its slots that the kernel zeroes
# once per thread (zero_init: 4 slots of rpc rows of nv vectors).
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
case_lines flat16 MUL_MAT 'MUL_MAT\|' \
    '^type_a=(f16,type_b=f16,m=16,n=(1|16)|f32,type_b=bf16,m=16,n=(1|8)),k=256,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1($|,)' \
    GGML_HEXAGON_MM_SELECT=flat
case_lines add ADD 'ADD\|' '^type=f32,ne=\[(1280,16,16,1\],nr=\[1,1,1,1|1,1,1,1\],nr=\[32,1,1,1)\],nf=1,perm1=0,src_overlap=0'
case_lines rms_norm RMS_NORM 'RMS_NORM\|' '^type=f32,ne=\[1025,5,4,3\],v=0,eps=0.000001,inplace=0'
case_lines soft_max SOFT_MAX 'SOFT_MAX\|' \
    '^type=f32,ne=\[1023,15,1,1\],mask=0,sinks=0,m_prec=f32,nr23=\[1,1\],scale=1.000000,max_bias=0.000000,inplace=0'
case_lines swiglu SWIGLU '(GLU|SWIGLU)\|' '^type=f32,ne_a=\[128,2,2,2\],v=0,(split|swapped=0)$'
case_lines gelu GELU '(UNARY|GELU)\|' '^type=f32,ne_a=\[(128,2,2,2|5,7,11,13)\],v=0$'
case_lines flat_q MUL_MAT 'MUL_MAT\|' \
    '^type_a=(q8_0|q4_0|q4_1|q5_0|q5_1|q4_K|q5_K|q6_K|q2_K|q3_K|iq4_nl|iq4_xs|mxfp4|q1_0|q2_0),type_b=f32,m=16,n=(1|3),k=256,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1($|,)' \
    GGML_HEXAGON_MM_SELECT=flat
case_lines flat_dq MUL_MAT 'MUL_MAT\|' \
    '^type_a=(tq1_0|tq2_0|nvfp4|iq2_xxs|iq2_xs|iq2_s|iq3_xxs|iq3_s|iq1_s|iq1_m),type_b=f32,m=16,n=(1|3),k=256,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1($|,)' \
    GGML_HEXAGON_MM_SELECT=flat
case_lines norm NORM 'NORM\|' '^type=f32,ne=\[1025,5,4,3\],v=0,eps=0.000000,noncontig_rows=0'
case_lines l2_norm L2_NORM 'L2_NORM\|' '^type=f32,ne=\[1025,5,4,3\],eps=0.000000,v=0,noncontig_rows=0'
rope_tail=',n_ctx=512,fs=1.000000,ef=0.000000,af=1.000000,ff=0,v=0,inplace=0,n_offs=0'
case_lines rope_normal ROPE 'ROPE\|' "^type=f(32|16),ne_a=\[128,32,2,1\],n_dims=128,mode=0$rope_tail"
case_lines rope_neox64 ROPE 'ROPE\|' "^type=f32,ne_a=\[64,71,2,1\],n_dims=64,mode=2$rope_tail"
case_lines rope_neox20 ROPE 'ROPE\|' "^type=f32,ne_a=\[80,32,2,1\],n_dims=20,mode=2$rope_tail"
case_lines rope_vision ROPE 'ROPE\|' "^type=f32,ne_a=\[80,16,2,1\],n_dims=80,mode=24$rope_tail"
case_lines pad PAD 'PAD\|' '^type=f32,ne_a=\[1024,16,1,1\],pad_0=0,pad_1=1,circular=0'
case_lines im2col IM2COL 'IM2COL\|' \
    '^type_input=f32,type_kernel=f32,dst_type=f32,ne_input=\[20,2,2,1\],ne_kernel=\[3,2,2,1\],s0=1,s1=0,p0=0,p1=0,d0=1,d1=0,is_2D=0'
case_lines get_rows GET_ROWS 'GET_ROWS\|' '^type=(f32|q4_0|q8_0),n=256,m=5,r=4,be1=(1|7),be2=1,v=0,vs0=0,offset_cols=0$'
case_lines cpy_i32 CPY 'CPY\|' \
    '^type_src=(f32,type_dst=i32|i32,type_dst=f32),ne_src=\[256,2,3,4\],permute_src=\[0,0,0,0\],permute_dst=\[0,0,0,0\]'
pool2d_tail=',k0=3,k1=3,s0=2,s1=2,p0=1,p1=1$'
case_lines pool2d_avg POOL_2D 'POOL_2D\|' "^pool_type=avg,type_input=f32,ne_input=\[10,10,3,1\]$pool2d_tail"
case_lines pool2d_max POOL_2D 'POOL_2D\|' "^pool_type=max,type_input=f32,ne_input=\[10,10,3,1\]$pool2d_tail"
case_lines pool1d POOL_1D 'POOL_1D\|' \
    '^pool_type=(avg|max),type_input=f32,ne_input=\[(128,2,1,3\],k0=3,s0=1,p0=1|10,3,2,1\],k0=3,s0=2,p0=3)$'
case_lines set_rows SET_ROWS 'SET_ROWS\|' \
    '^type_src=(f32,type_dst=(f32|f16|bf16|q8_0|q4_0|q4_1|q5_0|q5_1|iq4_nl)|f16,type_dst=(f16|f32|q8_0|q4_0)),type_idx=i64,ne=\[(256,5,1,3\],nr23=\[1,1\],r=1|256,11,1,7\],nr23=\[2,3\],r=7),v=0$'
case_lines set_rows_fp4 SET_ROWS 'SET_ROWS\|' \
    '^type_src=f32,type_dst=(mxfp4|nvfp4|tq1_0|tq2_0),type_idx=i64,ne=\[(256,5,1,3\],nr23=\[1,1\],r=1|256,11,1,7\],nr23=\[2,3\],r=7),v=0$'
case_lines argsort ARGSORT 'ARGSORT\|' '^type=f32,ne=\[(1025,2,1,3|60,10,10,10)\],order=(0|1)$'
case_lines top_k TOP_K '(TOP_K|ARGSORT)\|' '^type=f32,ne=\[1025,2,1,3\],k=(1|7),ties=0$'
case_lines argsort_runs ARGSORT 'ARGSORT\|' '^type=f32,ne=\[(1025|2049),2,1,3\],order=(0|1)$' \
    GGML_HEXAGON_NHVX=6 GGML_HEXAGON_VTCM_SIZE=98304
case_lines top_k_seg TOP_K 'TOP_K\|' '^type=f32,ne=\[1025,2,1,3\],k=(1|7),ties=0$' \
    GGML_HEXAGON_NHVX=6 GGML_HEXAGON_VTCM_SIZE=98304
case_lines sum_rows SUM_ROWS 'SUM_ROWS\|' '^type=f32,ne=\[(33,256,1,1|10,5,4,3)\],permute=0,slice=0$'
case_lines mean MEAN 'MEAN\|' '^type=f32,ne=\[(33,256,1,1|32769,1,1,1)\],permute=0,slice=0$'
case_lines sum SUM 'SUM\|' '^type=f32,ne=\[(33,1024,1,1|10,5,4,3)\]$'
case_lines argmax ARGMAX 'ARGMAX\|' '^type=f32,ne=\[(100,10,1,1|1024,12,1,1|32,513,1,1)\]$'
case_lines cumsum CUMSUM 'CUMSUM\|' '^type=f32,ne=\[(127|128),5,4,3\]$'
case_lines wkv6 RWKV_WKV6 'RWKV_WKV6\|' '^type=f32,head_count=32,head_size=64,n_seq_tokens=(1|32),n_seqs=1$'
case_lines wkv7 RWKV_WKV7 'RWKV_WKV7\|' '^type=f32,head_count=32,head_size=64,n_seq_tokens=(1|32),n_seqs=(1|4)$'
case_lines gla GATED_LINEAR_ATTN 'GATED_LINEAR_ATTN\|' '^type=f32,head_count=32,head_size=64,n_seq_tokens=(1|32),n_seqs=1$'
for mode in nearest bilinear bicubic; do
    case_lines "upscale_$mode" UPSCALE 'UPSCALE\|' "^type=f32,ne=\\[(2,5,7,11\\],ne_tgt=\\[5,7,11,13|5,7,11,13\\],ne_tgt=\\[2,5,7,11)\\],mode=$mode\$"
done
case_lines ssm_conv SSM_CONV 'SSM_CONV\|' '^type=f32,ne_a=\[(6|66),1024,(1|4),1\],ne_b=\[3,1024,1,1\]$'
case_lines solve_tri SOLVE_TRI 'SOLVE_TRI\|' '^type=f32,ne_lhs=\[(10,10,4,3|79,79,5,3)\]'
case_lines tri TRI 'TRI\|' '^type=f32,ne=\[10,10,4,3\],tri_type=(0|3)$'
case_lines fill FILL 'FILL\|' '^type=f32,ne=\[(10,10,4,3|303,207,11,3)\]'
case_lines gdn GATED_DELTA_NET 'GATED_DELTA_NET\|' \
    '^type=f32,head_count=(4,head_size=64,n_seq_tokens=(1|4)|32,head_size=16,n_seq_tokens=1),n_seqs=1,v_repeat=1,permuted=0,kda=(0|1),K=1$'
case_lines conv_t2d CONV_TRANSPOSE_2D 'CONV_TRANSPOSE_2D\|' '^kernel_type=f(32|16),ne_input=\[(3,2,3,1|10,10,9,2)\]'
case_lines acc ACC 'ACC\|' '^type=f32,ne_a=\[256,17,2,3\]'
LINES=$all python3 - <<'PY' || exit 1
import os, re


def tiled(d, x):  # d: dst, src0, src1 dims of the line
    k, m, n = d[1][0], d[1][1], d[2][1]
    n_kt = blocks = k // 32
    pairs = [2] * (n // 2) + [1] * (n % 2)
    assert m <= 32, f"one column tile expected, m={m}"
    quant_ld, quant_st = n * (1 + blocks), n * 12 * blocks
    dot_ld, out_st = n_kt * sum(5 + 10 * nr for nr in pairs), n
    mpy = n * n_kt * (8 + 2) + n * (blocks + (blocks + 3) // 4)
    # DMA: the column tile's n_kt weight tiles (576 bytes each for Q4_0: htp-tile-formats.h) once,
    # each activation row once (F32), each output row's m floats once
    dma_in, dma_out = n_kt * 576 + n * k * 4, n * m * 4
    return n, quant_ld + dot_ld, quant_st + out_st, {"hvx_mpy": mpy, "hvx_runs": 1 if n <= 2 else 2,
                                                     "dma_in": dma_in, "dma_out": dma_out}


def flat(d, x):
    k, m, n = d[1][0], d[1][1], d[2][1]
    kv = k // 32
    return n, n * kv + m * kv + m * n * (2 * kv + 1), n * kv + m * kv + m * n, {"hvx_mpy": m * n * kv, "hvx_runs": 2}


def flat16(d, x):
    k, m, n = d[1][0], d[1][1], d[2][1]
    kv, nin = k // 32, (k // 32 + 1) // 2
    wl, ws = (k // 64, kv) if x["types"][1] == "f16" else (kv, kv)
    ld = n * (nin + kv) + m * wl + m * n * (2 * kv + 1)
    st = n * (2 * nin + kv) + m * ws + m * n
    return (x["types"][1], n), ld, st, {"hvx_mpy": m * n * kv, "hvx_runs": 2}


def add(d, x):
    rows, nv = d[0][1] * d[0][2] * d[0][3], (d[0][0] + 31) // 32
    nr0, n1 = d[0][0] // d[2][0], (d[2][0] + 31) // 32
    bc = rows * nr0 * n1 if nr0 > 1 else 0
    return nr0 > 1, rows * 2 * nv + bc, rows * nv + bc, {"hvx_alu": rows * nv, "hvx_runs": 1}


def rows_of(d):
    return d[0][1] * d[0][2] * d[0][3], (d[0][0] + 31) // 32, 1 if d[0][0] % 32 else 0


def rms_norm(d, x):
    rows, _, t = rows_of(d)
    nf = d[0][0] // 32
    return "rms", rows * 2 * (nf + t), rows * (nf + t), {}


def soft_max(d, x):
    rows, nv, t = rows_of(d)
    return "soft", rows * (4 * nv + t), rows * (3 * nv + t), {}


def swiglu(d, x):
    rows, nv, _ = rows_of(d)
    return len(d), rows * 2 * nv, rows * nv, {}


def gelu(d, x):
    rows, nv, _ = rows_of(d)
    return d[0][0], rows * 3 * nv, rows * 2 * nv, {}


def cdiv(a, b):
    return (a + b - 1) // b


# Flat path, quantized weights. Per type: packed quant vectors per row (n_lo) from K, quant planes
# per packed vector (the weight row's groups of 128: g = planes x n_lo), and the prep's loads and
# stores per row for p = n_lo.
def q3k_loads(p, n_sb):  # the scales' vector(s) copied per packed vector: a second one when they cross
    ld = 0
    for m in range(p):
        sb0 = 2 * m
        if sb0 < n_sb:
            need = 24 if sb0 + 1 < n_sb else 12
            ld += 1 + (1 if (12 * sb0) % 128 + need > 128 else 0)
    return ld


PREP = {  # type: (n_lo(K), planes, prep(p, K) -> (loads, stores))
    "q8_0": (lambda k: cdiv(k, 128), 1, lambda p, k: (cdiv(p, 16) + 2 * p, 2 * cdiv(p, 16) + 3 * p)),
    "q4_0": (lambda k: k // 256, 2, lambda p, k: (cdiv(p, 8) + 3 * p, 2 * cdiv(p, 8) + 6 * p)),
    "q4_1": (lambda k: k // 256, 2, lambda p, k: (2 * cdiv(p, 8) + 3 * p, 4 * cdiv(p, 8) + 6 * p)),
    "q5_0": (lambda k: k // 256, 2, lambda p, k: (cdiv(p, 8) + cdiv(p, 4) + 5 * p, 2 * cdiv(p, 8) + cdiv(p, 4) + 6 * p)),
    "q5_1": (lambda k: k // 256, 2,
             lambda p, k: (2 * cdiv(p, 8) + cdiv(p, 4) + 5 * p, 4 * cdiv(p, 8) + cdiv(p, 4) + 6 * p)),
    "q4_K": (lambda k: k // 256, 2, lambda p, k: (2 * cdiv(p, 8) + 5 * p, 3 * cdiv(p, 8) + 6 * p)),
    "q5_K": (lambda k: k // 256, 2, lambda p, k: (2 * cdiv(p, 8) + 6 * p, 3 * cdiv(p, 8) + 6 * p)),
    "q6_K": (lambda k: k // 256, 2, lambda p, k: (cdiv(p, 64) + cdiv(p, 8) + 6 * p, 2 * cdiv(p, 64) + cdiv(p, 8) + 6 * p)),
    "q2_K": (lambda k: cdiv(k // 256, 2), 4, lambda p, k: (cdiv(p, 4) + cdiv(p, 16) + 9 * p, cdiv(p, 4) + 2 * cdiv(p, 16) + 12 * p)),
    "q3_K": (lambda k: cdiv(k // 256, 2), 4,
             lambda p, k: (cdiv(p, 32) + q3k_loads(p, k // 256) + 10 * p, 2 * cdiv(p, 32) + q3k_loads(p, k // 256) + 12 * p)),
    "iq4_nl": (lambda k: k // 256, 2, lambda p, k: (1 + cdiv(p, 8) + 3 * p, 2 * cdiv(p, 8) + 6 * p)),
    "mxfp4": (lambda k: k // 256, 2, lambda p, k: (1 + cdiv(p, 16) + 3 * p, cdiv(p, 16) + 6 * p)),
    "iq4_xs": (lambda k: k // 256, 2, lambda p, k: (1 + 2 * cdiv(p, 16) + 3 * p, 3 * cdiv(p, 16) + 6 * p)),
    "q1_0": (lambda k: cdiv(k // 128, 8), 8, lambda p, k: (cdiv(p, 8) + 3 * p, 2 * cdiv(p, 8) + 24 * p)),
    "q2_0": (lambda k: cdiv(k // 64, 8), 4, lambda p, k: (cdiv(p, 8) + 3 * p, 2 * cdiv(p, 8) + 12 * p)),
}


def flat_q(d, x):
    k, m, n = d[1][0], d[1][1], d[2][1]
    wtype = x["types"][1]
    n_lo, planes, prep = PREP[wtype]
    p = n_lo(k)
    g = planes * p  # groups of 128 the dots run over (the activation is padded to them)
    zero = 4 * g - k // 32  # staging vectors the activation's DMA leaves to be zeroed (zero_bytes)
    pl, ps = prep(p, k)
    return (wtype, n), n * 4 * g + m * pl + m * n * (6 * g + 1), n * (3 * g + zero) + m * ps + m * n, {"hvx_runs": 2}


# Flat path, dequantized weights: per type, the dequantizer's loads and stores for a row of K.
DQ = {  # type: prep(K) -> (loads, stores)
    "tq1_0": lambda k: (2 + cdiv(k // 256, 64) + 5 * (k // 256), 8 * (k // 256)),
    "tq2_0": lambda k: (2 + cdiv(k // 256, 64) + k // 256, 8 * (k // 256)),
    "nvfp4": lambda k: (5 + cdiv(k // 64, 16) + cdiv(k // 64, 2), 4 * cdiv(k // 64, 2)),
    **{t: (lambda k: (k // 256, 8 * (k // 256)))
       for t in ("iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq1_s", "iq1_m")},
}


def flat_dq(d, x):
    k, m, n = d[1][0], d[1][1], d[2][1]
    kv, wtype = k // 32, x["types"][1]
    pl, ps = DQ[wtype](k)
    return ((wtype, n), n * kv + m * pl + m * n * (2 * kv + 1), n * kv + m * ps + m * n,
            {"hvx_runs": 2})


def norm(d, x):
    rows, nv, _ = rows_of(d)
    return "norm", rows * 3 * nv, rows * 2 * nv, {"hvx_runs": 1}


def l2_norm(d, x):
    rows, nv, _ = rows_of(d)
    return "l2", rows * 2 * nv, rows * nv, {"hvx_runs": 1}


def rope(neox, n_dims):
    def count(d, x):
        ne0, rows, nv = d[0][0], d[0][1] * d[0][2] * d[0][3], cdiv(d[0][0], 32)
        half = n_dims // 2
        hq, hr = half * 4 // 128, half * 4 % 128
        ld, st = 3 * nv, nv
        for v in range(nv if neox else 0):
            t = half - 32 * v
            if t > 0:
                ld += 2 if hr else 1
            if t < 32:
                ld += 2 if hr and v - hq > 0 else 1
        f16 = x["types"][0] == "f16"
        if f16:
            nh = cdiv(ne0, 64)
            ld, st = ld + nh + 2 * nh, st + 2 * nh + nh
        assert x["rpc"] == d[0][1], f"ROPE chunks of one plane expected: rpc {x['rpc']}, ne1 {d[0][1]}"
        builds = rows // x["rpc"]
        return x["types"][0], rows * ld + builds * 2 * nv, rows * st + builds * 2 * nv, {"hvx_runs": 1}
    return count


def pad(d, x):
    nv = cdiv(d[0][0] * 4, 128)
    covered, rows = d[1][1] * d[1][2] * d[1][3], d[0][1] * d[0][2] * d[0][3]
    assert d[0][0] == d[1][0], "no dim-0 padding expected"
    return "pad", covered * nv, rows * nv, {"hvx_runs": 1}


def im2col(d, x):
    rows, sv = d[0][1] * d[0][2] * d[0][3], 2 * cdiv(d[0][0] * 4, 256)
    return "f32", rows * sv, 2 * rows * sv, {"hvx_runs": 1}


def get_rows(d, x):
    rows, nv, _ = rows_of(d)
    t, nb = x["types"][1], d[0][0] // 32
    assert nb % 4 == 0, "whole groups of 4 blocks expected"
    if t == "f32":
        ld, st = nv, nv
    else:
        ld, st = (3 if t == "q4_0" else 0) + 1 + cdiv(nb, 64) + nb // 4, nb
    return (t, d[0][2]), rows * ld, rows * st, {"hvx_runs": 1}


def cpy_i32(d, x):  # cpy.cpp compute_i32_to_f32 / compute_f32_to_i32: one load, one store per vector
    rows, nv, _ = rows_of(d)
    return x["types"][1] + "->" + x["types"][2], rows * nv, rows * nv, {"hvx_runs": 1}


def pool(k0, k1, s0, s1, p0, p1):  # pool.cpp: ne0 nky nv loads and ceil(ne0/32) stores per dst row
    def count(d, x):
        ne0, oh, planes, ih = d[0][0], d[0][1], d[0][2] * d[0][3], d[1][1]
        nv = cdiv(k0 * 4, 128)
        nky = [sum(1 for ky in range(k1) if 0 <= oy * s1 + ky - p1 < ih) for oy in range(oh)]
        return (ne0, d[1][0]), planes * ne0 * nv * sum(nky), planes * oh * cdiv(ne0, 32), {"hvx_runs": 1}
    return count


def pool1d(d, x):  # the two POOL_1D cases: k0 = 3, s0 = 1, p0 = 1 on rows of 128; k0 = 3, s0 = 2, p0 = 3 on 10
    return pool(3, 1, 1, 1, 1, 0)(d, x) if d[1][0] == 128 else pool(3, 1, 2, 1, 3, 0)(d, x)


SET_ROWS_QUANT = {  # dst type: (quant bytes per block, loads per block, mins, qh)
    "q8_0": (32, 2, False, False), "q4_0": (16, 1, False, False), "q4_1": (16, 1, True, False),
    "q5_0": (16, 2, False, True), "q5_1": (16, 2, True, True), "iq4_nl": (16, 1, False, False)}


def set_rows(d, x):
    ts, td = x["types"][1], x["types"][0]
    ne0, rows = d[1][0], d[1][1] * d[1][2] * d[1][3]
    nv, n64 = cdiv(ne0, 32), cdiv(ne0, 64)
    if td in SET_ROWS_QUANT:
        qb, lpb, mins, qh = SET_ROWS_QUANT[td]
        nb = ne0 // 32
        g, n_out = cdiv(nb, 32), cdiv(nb, 64)
        fields = 2 if mins else 1  # F32 scales (and mins) gathered, then narrowed to FP16
        ld = lpb * nb + fields * 2 * n_out
        st = cdiv(nb, 128 // qb) + (fields + qh) * g + fields * (g % 2 + n_out)
        if ts == "f16":
            ld, st = ld + n64, st + 2 * n64
    else:
        ld, st = {("f32", "f32"): (nv, nv), ("f32", "f16"): (2 * n64, n64), ("f32", "bf16"): (2 * n64, n64),
                  ("f16", "f16"): (n64, n64), ("f16", "f32"): (n64, 2 * n64)}[(ts, td)]
    return (ts, td, d[1][1]), rows * ld, rows * st, {"hvx_runs": 1}


def set_rows_fp4(d, x):  # F32 into the FP4 / ternary rows (npu/ops/quantize-fp4.h, quantize-ternary.h)
    td, ne0, rows = x["types"][0], d[1][0], d[1][1] * d[1][2] * d[1][3]
    nv, nb = ne0 // 32, ne0 // 256
    if td in ("mxfp4", "nvfp4"):  # a load a vector; codes and scale bytes gathered (16 / 16 and 1 / 2 bytes a piece)
        ld, st = nv, cdiv(nv, 8) + (cdiv(nv, 128) if td == "mxfp4" else cdiv(nv, 64))
    else:  # max_abs_sf and the codes read the 8 vectors of a super-block; 32-byte pieces; d to FP16
        g, n_out = cdiv(nb, 32), cdiv(nb, 64)
        ld = 16 * nb + 2 * n_out
        st = (2 if td == "tq1_0" else 1) * cdiv(2 * nb if td == "tq2_0" else nb, 4) + g + g % 2 + n_out
    return ("f32", td, d[1][1]), rows * ld, rows * st, {"hvx_runs": 1}


def chunks(rows, rpc, nthr):  # the chunk sizes of row-stream.h: whole chunks per thread, the last one shorter
    per = cdiv(cdiv(rows, rpc), nthr) * rpc
    out = []
    for t in range(nthr):
        lo, hi = t * per, min(rows, (t + 1) * per)
        out += [min(rpc, hi - r) for r in range(lo, hi, rpc)]
    return out


def argsort(d, x):
    ne0, rows = d[1][0], d[1][1] * d[1][2] * d[1][3]
    n_sort = 32
    while n_sort < ne0:
        n_sort *= 2
    nv, stages = n_sort // 32, sum(range(1, n_sort.bit_length()))  # L (L + 1) / 2, L = log2 n_sort
    return (ne0, d[0][0]), rows * (cdiv(ne0, 32) + 2 * stages * nv), rows * (2 * nv + 2 * stages * nv), {"hvx_runs": 1}


def top_k_seg(d, x):
    ne0, k, rows = d[1][0], d[0][0], d[1][1] * d[1][2] * d[1][3]
    budget, nc = 98304 // 6 // 128 * 128, 32
    while nc < k:
        nc *= 2
    S = max(w for w in (nc << j for j in range(16)) if 8 * nc + 4 * w + 2 * (4 * w + cdiv(k * 4, 128) * 128) <= budget)
    n_seg, L, Lc, nsv, ncv = cdiv(ne0, S), S.bit_length() - 1, nc.bit_length() - 1, S // 32, nc // 32
    elems = [S] * (n_seg - 1) + [ne0 - (n_seg - 1) * S]
    net = L * (L + 1) // 2 * 2 * nsv + Lc * 2 * ncv  # the segment's network and the merge, loads (and stores)
    ld = sum(cdiv(e, 32) for e in elems) + n_seg * (net + 4 * ncv) + cdiv(k, 32)
    st = 2 * ncv + n_seg * (2 * nsv + net + 2 * ncv) + cdiv(k, 32)
    return (ne0, k, S, n_seg), rows * ld, rows * st, {"hvx_runs": 1}


def argsort_runs(d, x):
    ne0, rows = d[1][0], d[1][1] * d[1][2] * d[1][3]
    budget, n_pad = 98304 // 6 // 128 * 128, 32
    while n_pad < ne0:
        n_pad *= 2
    n_run = max(w for w in (128 << j for j in range(14)) if w <= n_pad // 2 and 16 * w <= budget)
    n_runs, n_blk = n_pad // n_run, min(n_run // 4, 4096)
    nv, bv, L, Lb = n_run // 32, n_blk // 32, n_run.bit_length() - 1, n_blk.bit_length() - 1
    net = L * (L + 1) // 2 * 2 * nv
    ld = sum(cdiv(min(max(ne0 - r * n_run, 0), n_run), 32) + net for r in range(n_runs))
    st = n_runs * (2 * nv + net)
    passes = n_runs.bit_length() - 1
    for p in range(passes):
        steps = (n_runs >> (p + 1)) * (2 * ((n_run << p) // n_blk) - 1)
        ld += steps * (2 + 4 * bv + 2 * Lb * 2 * bv)
        st += steps * (4 * bv + 2 * Lb * 2 * bv)
    return (ne0, n_run, passes), rows * ld, rows * st, {"hvx_runs": 1 + passes}


def reduce(kind):
    def count(d, x):
        ne0, rows = d[1][0], d[1][1] * d[1][2] * d[1][3]
        nf, t, nv = ne0 // 32, 1 if ne0 % 32 else 0, cdiv(ne0, 32)
        ch = chunks(rows, x["rpc"], x["thr"])
        ld = {"sum_rows": nf + t, "mean": nf + t, "sum": nf + t, "argmax": 2 * nv, "cumsum": nv}[kind] * rows
        st = rows * nv if kind == "cumsum" else len(ch) if kind == "sum" else sum(cdiv(n, 32) for n in ch)
        return tuple(d[1]), ld, st, {"hvx_runs": 1}
    return count


def wkv(kind):  # per token and head: (loads, stores) of S state rows of NV vectors
    def count(d, x):
        S, H, T = d[1][0], d[1][1], d[1][2]
        nv = S // 32
        ld = {"wkv6": S * (4 + 2 * nv), "gla": S * (3 + 2 * nv), "wkv7": S * (5 + 3 * nv)}[kind]
        lanes = {"wkv6": 4, "gla": 3, "wkv7": 5}[kind]  # lane_f32 per state row, a rotation each
        return (T, d[0][1]), H * T * ld, H * T * (S * nv + nv), {"hvx_runs": 1, "hvx_permute": H * T * S * lanes}
    return count


def upscale(taps):
    def count(d, x):
        ne0, ne00, rows = d[0][0], d[1][0], d[0][1] * d[0][2] * d[0][3]
        nd, thr, rpc = cdiv(ne0, 32), x["thr"], x["rpc"]
        zero = 4 * rpc * taps * (cdiv(ne00, 32) + 2)
        ld = thr * 3 * nd * taps + rows * nd * taps * 3 * (1 + taps)
        st = thr * (zero + 3 * nd * taps) + rows * (taps + nd)
        return ne00, ld, st, {"hvx_runs": 1}
    return count


def ssm_conv(d, x):
    rows, nv, dc = d[0][1] * d[0][2], cdiv(d[0][0], 32), d[2][0]
    return tuple(d[1]), rows * nv * 2 * dc, rows * nv, {"hvx_runs": 1}


def solve_tri(d, x):
    n, k, mats = d[1][0], d[0][0], d[1][2] * d[1][3]
    nvk = cdiv(k, 32)
    return (n, k), mats * (n + nvk * n * n), mats * n * nvk, {"hvx_runs": 1}


def tri(loads):
    def count(d, x):
        n = d[0][1] * d[0][2] * d[0][3] * cdiv(d[0][0], 32)
        return tuple(d[0]), n if loads else 0, n, {"hvx_runs": 1}
    return count


def gdn(d, x):
    S, H, T, ns = d[3][0], d[3][1], d[3][2], d[3][3]  # v: S x H x T x n_seqs
    nv, kda = cdiv(S, 32), d[4][0] == S               # g: S values per token (KDA) or 1
    K = (d[0][1] - T * ns) // (S * ns)                # dst: S H x (T n_seqs + S n_seqs K)
    ld = (nv + 1 if kda else 2) + S * (1 + kda + nv) + nv + S * (2 + nv)
    st = (nv if kda else 0) + 2 * S * nv + nv
    snaps = H * ns * min(K, T) * S * nv
    lanes = 1 + 4 * S if kda else 2 + 3 * S  # lane_f32: beta (and the gate), k (and e^g) per row, k and q per row
    return (S, T, kda), H * ns * T * ld + snaps, H * ns * T * st + snaps, {"hvx_runs": 1, "hvx_permute": H * ns * T * lanes}


def conv_t2d(d, x):
    (OW, OH, Cout, N), (K, KH, _, Cin), (L, H, _, _) = d[0], d[1], d[2]
    f16 = x["types"][1] == "f16"
    s = (OW - K) // (L - 1)
    in_rows, nkv = min(cdiv(KH, s), H), cdiv(K * (2 if f16 else 4), 128)
    nvk, in_v = (cdiv(K, 32), 2 * cdiv(4 * L, 256)) if f16 else (nkv, cdiv(4 * L, 128))
    dst_v = 2 * cdiv((L - 1) * s * 4 + 128 * cdiv(K, 32), 256)
    contrib = Cout * N * sum(1 for oy in range(OH) for iy in range(H) if 0 <= oy - iy * s < KH)
    f16_ld, f16_st = (Cin * nkv + Cin * in_v, 2 * Cin * nkv + Cin * in_v) if f16 else (0, 0)
    ld = contrib * (L * nvk * (2 * Cin + 1) + f16_ld)
    st = x["thr"] * 4 * in_rows * Cin * nkv + OH * Cout * N * dst_v + contrib * (L * nvk + f16_st)
    return (x["types"][1], L), ld, st, {"hvx_mpy": contrib * L * nvk * Cin, "hvx_runs": 1}


def acc(d, x):
    (ne0, ne1, ne2, ne3), b = d[0], d[2]
    rows, cov, nv = ne1 * ne2 * ne3, b[1] * b[2] * b[3], cdiv(ne0 * 4, 128)
    zero = x["thr"] * 4 * x["rpc"] * nv if b[0] < ne0 else 0
    return b[0], 2 * nv * cov + nv * (rows - cov), nv * rows + zero, {"hvx_runs": 1}


# tag -> (what the code must execute, the cases each must cover)
want = {"tiled": (tiled, {1, 3}), "flat": (flat, {1, 3}),
        "flat16": (flat16, {("f16", 1), ("f16", 16), ("f32", 1), ("f32", 8)}), "add": (add, {False, True}), "rms_norm": (rms_norm, {"rms"}),
        "soft_max": (soft_max, {"soft"}), "swiglu": (swiglu, {2, 3}), "gelu": (gelu, {128, 5}),
        "flat_q": (flat_q, {(t, n) for t in PREP for n in (1, 3)}), "norm": (norm, {"norm"}),
        "flat_dq": (flat_dq, {(t, n) for t in DQ for n in (1, 3)}),
        "l2_norm": (l2_norm, {"l2"}), "rope_normal": (rope(False, 128), {"f32", "f16"}),
        "rope_neox64": (rope(True, 64), {"f32"}), "rope_neox20": (rope(True, 20), {"f32"}),
        "rope_vision": (rope(True, 80), {"f32"}), "pad": (pad, {"pad"}),
        "im2col": (im2col, {"f32"}),
        "get_rows": (get_rows, {(t, b) for t in ("f32", "q4_0", "q8_0") for b in (1, 7)}),
        "cpy_i32": (cpy_i32, {"f32->i32", "i32->f32"}),
        "pool2d_avg": (pool(3, 3, 2, 2, 1, 1), {(5, 10)}), "pool2d_max": (pool(3, 3, 2, 2, 1, 1), {(5, 10)}),
        "pool1d": (pool1d, {(128, 128), (7, 10)}),
        "set_rows": (set_rows, {(s, t, r) for s, ts in (("f32", ("f32", "f16", "bf16", *SET_ROWS_QUANT)),
                                                        ("f16", ("f16", "f32", "q8_0", "q4_0")))
                                for t in ts for r in (1, 7)}),
        "set_rows_fp4": (set_rows_fp4, {("f32", t, r) for t in ("mxfp4", "nvfp4", "tq1_0", "tq2_0") for r in (1, 7)}),
        "argsort": (argsort, {(1025, 1025), (60, 60)}), "top_k": (argsort, {(1025, 1), (1025, 7)}),
        "argsort_runs": (argsort_runs, {(1025, 1024, 1), (2049, 1024, 2)}),
        "top_k_seg": (top_k_seg, {(1025, 1, 1024, 2), (1025, 7, 1024, 2)}),
        "sum_rows": (reduce("sum_rows"), {(33, 256, 1, 1), (10, 5, 4, 3)}),
        "mean": (reduce("mean"), {(33, 256, 1, 1), (32769, 1, 1, 1)}),
        "sum": (reduce("sum"), {(33, 1024, 1, 1), (10, 5, 4, 3)}),
        "argmax": (reduce("argmax"), {(100, 10, 1, 1), (1024, 12, 1, 1), (32, 513, 1, 1)}),
        "cumsum": (reduce("cumsum"), {(127, 5, 4, 3), (128, 5, 4, 3)}),
        "wkv6": (wkv("wkv6"), {(1, 65), (32, 96)}), "gla": (wkv("gla"), {(1, 65), (32, 96)}),
        "wkv7": (wkv("wkv7"), {(1, 65), (4, 260), (32, 96), (128, 384)}),
        "upscale_nearest": (upscale(1), {2, 5}), "upscale_bilinear": (upscale(2), {2, 5}),
        "upscale_bicubic": (upscale(4), {2, 5}),
        "ssm_conv": (ssm_conv, {(6, 1024, 1, 1), (66, 1024, 1, 1), (66, 1024, 4, 1)}),
        "solve_tri": (solve_tri, {(10, 3), (79, 417)}), "tri": (tri(True), {(10, 10, 4, 3)}),
        "fill": (tri(False), {(10, 10, 4, 3), (303, 207, 11, 3)}),
        "gdn": (gdn, {(64, 1, True), (64, 4, False), (16, 1, False), (16, 1, True)}),
        "conv_t2d": (conv_t2d, {(t, L) for t in ("f32", "f16") for L in (3, 10)}),
        "acc": (acc, {256, 128, 64})}
seen = {t: set() for t in want}
for l in os.environ["LINES"].strip().splitlines():
    tag, l = l.split(" ", 1)
    assert tag not in ("flat", "flat16", "flat_q", "flat_dq") or "kernel=" not in l, "not the flat path: " + l
    f = l.split("|")
    dims = [[int(x) for x in t.split("x")] for t in f[2].split(":")]
    x = {"types": f[3].split(":"), "rpc": int(re.search(r"rpc=(\d+)", f[5]).group(1)),
         "thr": int(re.search(r"thr=(\d+)", f[5]).group(1))}
    c = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in re.search(r" counters (\S+)", l).group(1).split(",")}
    key, ld, st, more = want[tag][0](dims, x)
    assert c["hvx_ldst"] == ld + st, f"{tag} {f[2]} {f[3]}: hvx_ldst {c['hvx_ldst']}, the code must execute {ld} loads + {st} stores"
    assert c["hvx_st"] == st, f"{tag} {f[2]} {f[3]}: hvx_st {c['hvx_st']}, the code must execute {st}"
    for k, v in more.items():
        assert c[k] == v, f"{tag} {f[2]} {f[3]}: {k} {c[k]}, the code must execute {v}"
    # est-usec by the v79 cost model (host/src/profile.cpp; tests/host/profile-counters.sh works
    # out the same): each HVX dispatch after the op's first adds 4.4 us (the two-dispatch MUL_MATs).
    thr = 6 if int(re.search(r"thr=(\d+)", f[5]).group(1)) > 1 else 1
    hvx_n = c["hvx_alu"] + c["hvx_mpy"] + c["hvx_permute"] + c["hvx_ldst"] + c["hvx_other"]
    pk = max(hvx_n / 4, c["hvx_mpy"] / 2, c["hvx_permute"], c["hvx_ldst"] - c["hvx_st"], c["hvx_st"]) / thr / (1250 * 0.57)
    dma = (c["dma_in"] + c["dma_out"]) / 32e3 + c["dma_desc"] * 0.2 / thr
    x_dma = c["dma_exposed"] / 32e3 + c["dma_exposed_desc"] * 0.2 / thr  # what the pipelines cannot overlap
    x_hvx = pk * min(1, c["hvx_exposed"] / hvx_n) if hvx_n else 0
    est = 5 + 4.4 * max(0, c["hvx_runs"] - 1) + max(max(pk, c["hmx_tiles"] * 16 / 1250) + x_dma, dma + x_hvx)
    got = float(re.search(r" est-usec ([0-9.]+)", l).group(1))
    assert abs(got - est) <= 0.051, f"{tag} {f[2]} {f[3]}: est-usec {got}, the cost model gives {est:.2f}"
    cyc = int(re.search(r" est-cycles (\d+)", l).group(1))  # the estimate at v79's 1250 MHz
    assert abs(cyc - est * 1250) <= 0.051 * 1250, f"{tag} {f[2]} {f[3]}: est-cycles {cyc}, {est:.2f} us x 1250 MHz"
    seen[tag].add(key)
    print(f"ok: {tag} {f[2]}: hvx_ldst {c['hvx_ldst']} (hvx_st {c['hvx_st']})" +
          "".join(f", {k} {v}" for k, v in more.items()))
for tag, (_, cases) in want.items():
    assert seen[tag] == cases, f"{tag}: cases seen {sorted(seen[tag], key=str)}, want {sorted(cases, key=str)}"
PY
echo "PASS"
