// Small HVX building blocks the kernels share: float splats, lane extraction into a
// register-file copy (not a VTCM scalar read), fp16 <-> fp32, bf16 <-> fp32 and fp16 <-> bf16
// rows, Q8_0 / Q1_0 / Q2_0 -> fp32 rows (GET_ROWS' and FLASH_ATTN_EXT's), vector row copies,
// byte permutations and splats of one word.
#pragma once
#include <stdint.h>

#include "htp/dma-queue.h"
#include "htp/hvx.h"
#include "htp/memory.h"
#include "hvx-vmem.h"
#include "quant-luts.h"

// On a vector loop inside a row loop: no unrolling. Each unrolled copy of an inner loop keeps
// its own trip counts, remainder count and pointers live across the row loop, which is what
// ran the row loops of the compute functions out of the 32 scalar / 32 vector registers
// (in-loop spills, docs/tools.md); an HVX hardware loop costs nothing per trip, and these
// loops are bound by their vector work or by one accumulator's dependency chain anyway.
// (The host build with gcc has no such pragma and needs none.)
#if defined(__clang__)
#    define HTP_NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#    define HTP_NO_UNROLL
#endif

namespace htp_ops {

// A float's bits and back (__builtin_memcpy: a freestanding memcpy kept the value on the stack).
static inline uint32_t f32_bits(float x) {
    uint32_t bits;
    __builtin_memcpy(&bits, &x, 4);
    return bits;
}

static inline float f32_from_bits(uint32_t bits) {
    float f;
    __builtin_memcpy(&f, &bits, 4);
    return f;
}

static inline HVX_Vector splat_f32(float x) {
    return Q6_V_vsplat_R((int32_t) f32_bits(x));
}

// Lane 0 of a vector as float: vextract moves the word into a scalar register (a memcpy of the
// vector went through a stack copy, a vector store and a scalar load in every loop using it).
static inline float lane0_f32(HVX_Vector v) {
    return f32_from_bits((uint32_t) Q6_R_vextract_VR(v, 0));
}

// The word at byte offset off of v when off is known only at run time: v rotated to it, then
// lane 0 by vextract (a run-time offset straight into vextract went through a stack copy).
static inline uint32_t word_at(HVX_Vector v, uint32_t off) {
    return (uint32_t) Q6_R_vextract_VR(Q6_V_vror_VR(v, (int32_t) off), 0);
}

// Lane l (0..31) of a vector as float: word_at (v rotated to the lane, then lane 0 by vextract;
// a run-time lane straight into vextract went through a stack copy of the vector on Hexagon).
static inline float lane_f32(HVX_Vector v, uint32_t l) {
    return f32_from_bits(word_at(v, 4 * l));
}

// Word lane l holds l (0..31): a prefix sum of ones in five shift-and-add steps.
static inline HVX_Vector lane_index() {
    HVX_Vector v = Q6_V_vsplat_R(1);
    for (int32_t shift = 4; shift < 128; shift *= 2) {
        v = Q6_Vw_vadd_VwVw(v, Q6_V_vlalign_VVR(v, Q6_V_vzero(), shift));
    }
    return Q6_Vw_vsub_VwVw(v, Q6_V_vsplat_R(1));
}

// Sum of the 32 sf lanes, left in every lane (rotate-and-add tree).
static inline HVX_Vector reduce_sum_sf(HVX_Vector v) {
    for (int shift = 64; shift >= 4; shift >>= 1) {
        v = Q6_Vsf_vadd_VsfVsf(v, Q6_V_vror_VR(v, shift));
    }
    return v;
}

// Lane sums of 32 vectors at once, one lane each: a tree of 31 fold_pair_sf steps in place of
// 32 reduce_sum_sf (5 rotate-and-add steps each). Vectors 0..31 are fed in bit-reversed order
// (__builtin_bitreverse32(j) >> 27 is the j-th); step l (0..4) folds two operands, x fed before
// y, in blocks of 64 >> l bytes: where mask l is all-ones the result block is the sum of x's two
// half-blocks, elsewhere of y's. After 5 steps lane i is the sum of vector i's lanes.
// fold_masks writes the 5 masks (mask l: bytes k with k & (64 >> l) == 0) to m[0..4].
static inline void fold_masks(HVX_Vector * m) {
    const HVX_Vector ones = Q6_V_vsplat_R(-1);
    HVX_Vector       x    = Q6_V_vmux_QVV(Q6_Q_vsetq_R(64), ones, Q6_V_vzero());
    m[0]                  = x;
    for (int l = 1; l < 5; l++) {  // halve the blocks: ~(m ^ m rotated by the new block size)
        x    = Q6_V_vxor_VV(Q6_V_vxor_VV(x, Q6_V_vror_VR(x, 64 >> l)), ones);
        m[l] = x;
    }
}

static inline HVX_Vector fold_pair_sf(HVX_Vector x, HVX_Vector y, HVX_Vector mask, int32_t block) {
    const HVX_Vector xr = Q6_V_vror_VR(x, block), yr = Q6_V_vror_VR(y, 128 - block);
    const HVX_Vector a  = Q6_V_vxor_VV(y, Q6_V_vand_VV(Q6_V_vxor_VV(x, y), mask));     // x where mask, else y
    const HVX_Vector b  = Q6_V_vxor_VV(yr, Q6_V_vand_VV(Q6_V_vxor_VV(xr, yr), mask));  // their other halves
    return Q6_Vsf_vadd_VsfVsf(a, b);
}

// Largest |x| over the sf lanes of n vectors. With the sign cleared, float bits order like
// non-negative int32, so an integer max tree is exact (a NaN lane wins).
static inline float max_abs_sf(const HVX_Vector * v, uint32_t n) {
    const HVX_Vector abs_mask = Q6_V_vsplat_R(0x7fffffff);
    HVX_Vector       m        = Q6_V_vzero();
    for (uint32_t i = 0; i < n; i++) {
        m = Q6_Vw_vmax_VwVw(m, Q6_V_vand_VV(hvx_vmem_load(&v[i]), abs_mask));
    }
    for (int shift = 64; shift >= 4; shift >>= 1) {
        m = Q6_Vw_vmax_VwVw(m, Q6_V_vror_VR(m, shift));
    }
    return lane0_f32(m);
}

// Copies n_vec whole vectors (aligned on both sides).
static inline void copy_vectors(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_vec) {
    for (uint32_t i = 0; i < n_vec; i++) {
        hvx_vmem_store(&dst[i], hvx_vmem_load(&src[i]));
    }
}

// The row conversions are not unrolled (HTP_NO_UNROLL): they run inside row loops.
// fp32 -> fp16 for 64 * n_out elements: reads 2 * n_out vectors, writes n_out.
static inline void f32_to_f16_vectors(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_out) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n_out; i++) {
        hvx_vmem_store(&dst[i], Q6_Vh_vdeal_Vh(Q6_Vhf_vcvt_VsfVsf(hvx_vmem_load(&src[2 * i]), hvx_vmem_load(&src[2 * i + 1]))));  // Vu -> even lanes
    }
}

// fp16 -> fp32 for 64 * n_in elements: reads n_in vectors, writes 2 * n_in.
static inline void f16_to_f32_vectors(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_in) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n_in; i++) {
        const HVX_VectorPair w = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(hvx_vmem_load(&src[i])));
        hvx_vmem_store(&dst[2 * i], Q6_V_lo_W(w));
        hvx_vmem_store(&dst[2 * i + 1], Q6_V_hi_W(w));
    }
}

// bf16 -> fp32 for 64 * n_in elements: reads n_in vectors, writes 2 * n_in (zero-extended in
// order, then shifted up: a bf16 is the top half of its fp32).
static inline HVX_VectorPair bf16_to_f32_pair(HVX_Vector v) {
    const HVX_VectorPair w = Q6_Wuw_vunpack_Vuh(v);
    return Q6_W_vcombine_VV(Q6_Vw_vasl_VwR(Q6_V_hi_W(w), 16), Q6_Vw_vasl_VwR(Q6_V_lo_W(w), 16));
}

static inline void bf16_to_f32_vectors(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_in) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n_in; i++) {
        const HVX_VectorPair w = bf16_to_f32_pair(hvx_vmem_load(&src[i]));
        hvx_vmem_store(&dst[2 * i], Q6_V_lo_W(w));
        hvx_vmem_store(&dst[2 * i + 1], Q6_V_hi_W(w));
    }
}

// fp32 -> bf16 as ggml's GGML_FP32_TO_BF16: round to nearest even; a NaN stays a quiet NaN.
static inline HVX_Vector f32_to_bf16_bits(HVX_Vector u) {
    const HVX_Vector     odd = Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(u, 16), Q6_V_vsplat_R(1));
    const HVX_Vector     rnd = Q6_Vw_vadd_VwVw(u, Q6_Vw_vadd_VwVw(Q6_V_vsplat_R(0x7fff), odd));
    const HVX_VectorPred nan = Q6_Q_vcmp_gt_VwVw(Q6_V_vand_VV(u, Q6_V_vsplat_R(0x7fffffff)), Q6_V_vsplat_R(0x7f800000));
    return Q6_Vuw_vlsr_VuwR(Q6_V_vmux_QVV(nan, Q6_V_vor_VV(u, Q6_V_vsplat_R(0x00400000)), rnd), 16);
}

// Two fp32 vectors (elements in order: lo's 32, then hi's) -> one vector of 64 bf16.
static inline HVX_Vector f32_to_bf16_vector(HVX_Vector lo, HVX_Vector hi) {
    return Q6_Vh_vpacke_VwVw(f32_to_bf16_bits(hi), f32_to_bf16_bits(lo));
}

// fp32 -> bf16 for 64 * n_out elements (GGML_FP32_TO_BF16's rounding): reads 2 * n_out
// vectors, writes n_out.
static inline void f32_to_bf16_vectors(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_out) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n_out; i++) {
        hvx_vmem_store(&dst[i], f32_to_bf16_vector(hvx_vmem_load(&src[2 * i]), hvx_vmem_load(&src[2 * i + 1])));
    }
}

// fp16 -> bf16 for 64 * n elements, through fp32 (exact) and its bf16 rounding: n vectors each.
static inline void f16_to_bf16_vectors(HVX_Vector * dst, const HVX_Vector * src, uint32_t n) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        const HVX_VectorPair w = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(hvx_vmem_load(&src[i])));
        hvx_vmem_store(&dst[i], f32_to_bf16_vector(Q6_V_lo_W(w), Q6_V_hi_W(w)));
    }
}

// bf16 -> fp16 for 64 * n elements, through fp32 (exact) and its fp16 rounding: n vectors each.
static inline void bf16_to_f16_vectors(HVX_Vector * dst, const HVX_Vector * src, uint32_t n) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        const HVX_VectorPair w = bf16_to_f32_pair(hvx_vmem_load(&src[i]));
        hvx_vmem_store(&dst[i], Q6_Vh_vdeal_Vh(Q6_Vhf_vcvt_VsfVsf(Q6_V_lo_W(w), Q6_V_hi_W(w))));
    }
}

// Scale d[b & 63] of a block from the fp32 scales of its 64-block group (lo: blocks 0..31,
// hi: 32..63, as f16_to_f32_vectors lays them out), splatted: vextract, no stack copy.
static inline HVX_Vector block_scale(HVX_VectorPair d, uint32_t b) {
    const HVX_Vector half = (b & 32) ? Q6_V_hi_W(d) : Q6_V_lo_W(d);
    return Q6_V_vsplat_R(Q6_R_vextract_VR(half, (int32_t) (4 * (b & 31))));
}

// The 64 fp16 scales of one vector as fp32 (lo: scales 0..31, hi: 32..63).
static inline HVX_VectorPair f16_scales_f32(HVX_Vector s) {
    return Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(s));
}

// Values 64 half .. 64 half + 63 of 128 int8 values v (in element order) as F32, lo: the first
// 32, hi: the next: widened b -> h in order, h -> hf exactly (|v| <= 128), hf -> sf in order.
static inline HVX_VectorPair i8_to_f32_half(HVX_Vector v, uint32_t half) {
    const HVX_VectorPair h = Q6_Wh_vunpack_Vb(v);
    return Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(Q6_Vhf_vcvt_Vh(half ? Q6_V_hi_W(h) : Q6_V_lo_W(h))));
}

// 128 int8 values (4 blocks of 32, in element order) -> F32 in f[0..3], values 32k..32k+31
// in f[k].
static inline void i8_to_f32_vectors4(HVX_Vector v, HVX_Vector f[4]) {
    const HVX_VectorPair w0 = i8_to_f32_half(v, 0);
    const HVX_VectorPair w1 = i8_to_f32_half(v, 1);
    f[0] = Q6_V_lo_W(w0);
    f[1] = Q6_V_hi_W(w0);
    f[2] = Q6_V_lo_W(w1);
    f[3] = Q6_V_hi_W(w1);
}

// Q8_0 -> fp32 for n_blocks blocks of 32 as DMA'd apart into dense FP16 scales and dense
// int8 quants (GET_ROWS, FLASH_ATTN_EXT's K / V). 4 blocks (128 quants) per step, so it
// writes whole groups of 4 output vectors; scales convert 64 at a time and stay in registers.
// Quants widen b -> h (in order), convert h -> hf exactly (|q| <= 128), then hf -> sf in
// order, times their block's scale.
static inline void q8_0_to_f32_vectors(HVX_Vector * y, const HVX_Vector * scales, const HVX_Vector * quants,
                                       uint32_t n_blocks) {
    HVX_VectorPair d = f16_scales_f32(hvx_vmem_load(&scales[0]));
    HTP_NO_UNROLL
    for (uint32_t b0 = 0; b0 < n_blocks; b0 += 4) {
        if ((b0 & 63) == 0) {
            d = f16_scales_f32(hvx_vmem_load(&scales[b0 / 64]));
        }
        HVX_Vector f[4];
        i8_to_f32_vectors4(hvx_vmem_load(&quants[b0 / 4]), f);
        hvx_vmem_store(&y[b0 + 0], Q6_Vsf_vmpy_VsfVsf(f[0], block_scale(d, b0 + 0)));
        hvx_vmem_store(&y[b0 + 1], Q6_Vsf_vmpy_VsfVsf(f[1], block_scale(d, b0 + 1)));
        hvx_vmem_store(&y[b0 + 2], Q6_Vsf_vmpy_VsfVsf(f[2], block_scale(d, b0 + 2)));
        hvx_vmem_store(&y[b0 + 3], Q6_Vsf_vmpy_VsfVsf(f[3], block_scale(d, b0 + 3)));
    }
}

// Any byte permutation of a vector (byte p <- byte src(p)) as four vlut32, OR-ed: each sets
// the bytes whose source is in its quarter and zeroes the rest. vlut32 reads halfword idx % 64,
// byte (Rt >> 1) & 1, when idx >> 5 == Rt & 7: for source byte S, Rt = m = (S >= 64) | (S % 2)
// << 1 and idx = 32 m + (S / 2) % 32 (vlut32_perm_index). Tables are built at compile time.
struct byte_perm {
    uint8_t v[128] __attribute__((aligned(128)));
};

static constexpr uint8_t vlut32_perm_index(int src) {
    return (uint8_t) (32 * ((src >= 64 ? 1 : 0) | (src % 2) << 1) + (src / 2) % 32);
}

static inline HVX_Vector permute_bytes(HVX_Vector v, HVX_Vector idx) {
    return Q6_V_vor_VV(Q6_V_vor_VV(Q6_Vb_vlut32_VbVbR(idx, v, 0), Q6_Vb_vlut32_VbVbR(idx, v, 1)),
                       Q6_V_vor_VV(Q6_Vb_vlut32_VbVbR(idx, v, 2), Q6_Vb_vlut32_VbVbR(idx, v, 3)));
}

// Byte quarter k (0..3) of v: bytes 32k .. 32k + 31, in all four quarters (no permute: two
// rotates and two muxes).
static inline HVX_Vector rep_quarter(HVX_Vector v, uint32_t k) {
    const HVX_Vector x = Q6_V_vror_VR(v, (int32_t) (32 * k));
    const HVX_Vector y = Q6_V_vmux_QVV(Q6_Q_vsetq_R(32), x, Q6_V_vror_VR(x, 96));
    return Q6_V_vmux_QVV(Q6_Q_vsetq_R(64), y, Q6_V_vror_VR(y, 64));
}

// The bytes of quarter q (0..3) of x shifted right by s0 + q * ds (ds * 3 + s0 <= 7). A
// halfword shift: each byte's top bits take its neighbour's, so callers mask the low
// 8 - shift bits (the bit fields of the K-quants' packed high bits).
static inline HVX_Vector quarter_lsr(HVX_Vector x, int32_t s0, int32_t ds) {
    const HVX_Vector v0 = Q6_Vuh_vlsr_VuhR(x, s0);
    const HVX_Vector v1 = Q6_Vuh_vlsr_VuhR(x, s0 + ds);
    const HVX_Vector v2 = Q6_Vuh_vlsr_VuhR(x, s0 + 2 * ds);
    const HVX_Vector v3 = Q6_Vuh_vlsr_VuhR(x, s0 + 3 * ds);
    return Q6_V_vmux_QVV(Q6_Q_vsetq_R(32), v0,
                         Q6_V_vmux_QVV(Q6_Q_vsetq_R(64), v1, Q6_V_vmux_QVV(Q6_Q_vsetq_R(96), v2, v3)));
}

// The byte tables of word_bcast (kind 0) and q1_0_to_f32_vectors (1, 2) below.
static constexpr byte_perm make_bcast_table(int kind) {
    byte_perm t{};
    for (int l = 0; l < 128; l++) {
        t.v[l] = kind == 0 ? vlut32_perm_index(l % 4)   // word 0 into every word
                 : kind == 1 ? vlut32_perm_index(l / 8)  // byte l <- byte l / 8: each of 16 bytes 8 times
                             : (uint8_t) (1u << (l % 8));  // the bit of its byte element l reads
    }
    return t;
}

inline constexpr byte_perm kWordBcast0 = make_bcast_table(0);
inline constexpr byte_perm kQ1Rep8     = make_bcast_table(1);
inline constexpr byte_perm kQ1Bit      = make_bcast_table(2);

// Word j (0..31) of v in every lane: a byte permutation whose index is kWordBcast0's plus 2j
// in every byte (vlut32_perm_index(4j + k) = vlut32_perm_index(k) + 2j for k < 4; no byte
// carries: the sums stay below 128), so no vextract (a stack copy at a variable offset).
static inline HVX_Vector word_bcast(HVX_Vector v, HVX_Vector bcast0, uint32_t j) {
    const HVX_Vector idx = Q6_Vh_vadd_VhVh(bcast0, Q6_V_vsplat_R((int32_t) (0x02020202u * j)));
    return permute_bytes(v, idx);
}

// Block b's scale from the fp32 scales of its 64-block group (lo: 0..31, hi: 32..63), splatted.
static inline HVX_Vector block_bcast(HVX_VectorPair d, uint32_t b, HVX_Vector bcast0) {
    return word_bcast((b & 32) ? Q6_V_hi_W(d) : Q6_V_lo_W(d), bcast0, b & 31);
}

// Q1_0 -> fp32 for n_blocks blocks of 128 (FP16 d, 16 bytes: element j is bit j % 8 of byte
// j / 8, d when set, -d when clear: ggml's dequantize_row_q1_0) as DMA'd apart into dense
// scales and dense quants, 8 blocks a quant vector (GET_ROWS, FLASH_ATTN_EXT's K / V). A
// block a step, 4 output vectors: its 16 bytes each 8 times (kQ1Rep8 plus 8 (b % 8) in every
// byte picks block b % 8's: vlut32_perm_index(16c + s) = vlut32_perm_index(s) + 8c for s <
// 16), each byte's own bit tested, +-1 as int8, times d (exact).
static inline void q1_0_to_f32_vectors(HVX_Vector * y, const HVX_Vector * scales, const HVX_Vector * quants,
                                       uint32_t n_blocks) {
    const HVX_Vector bcast0 = hvx_vmem_load((const HVX_Vector *) kWordBcast0.v);
    const HVX_Vector rep    = hvx_vmem_load((const HVX_Vector *) kQ1Rep8.v);
    const HVX_Vector bit    = hvx_vmem_load((const HVX_Vector *) kQ1Bit.v);
    HVX_VectorPair   d      = f16_scales_f32(hvx_vmem_load(&scales[0]));
    HTP_NO_UNROLL
    for (uint32_t b = 0; b < n_blocks; b++) {
        if ((b & 63) == 0) {
            d = f16_scales_f32(hvx_vmem_load(&scales[b / 64]));
        }
        const HVX_Vector     idx = Q6_Vh_vadd_VhVh(rep, Q6_V_vsplat_R((int32_t) (0x08080808u * (b % 8))));
        const HVX_Vector     q   = permute_bytes(hvx_vmem_load(&quants[b / 8]), idx);
        const HVX_VectorPred set = Q6_Q_vcmp_eq_VbVb(Q6_V_vand_VV(q, bit), bit);
        HVX_Vector           f[4];
        i8_to_f32_vectors4(Q6_V_vmux_QVV(set, Q6_V_vsplat_R(0x01010101), Q6_V_vsplat_R(-1)), f);
        const HVX_Vector db = block_bcast(d, b, bcast0);
        for (uint32_t k = 0; k < 4; k++) {
            hvx_vmem_store(&y[4 * b + k], Q6_Vsf_vmpy_VsfVsf(f[k], db));
        }
    }
}

// Q2_0 -> fp32 for n_blocks blocks of 64 (FP16 d, 16 bytes of 2-bit codes q: element j in bits
// 2 (j % 4) of byte j / 4, value (q - 1) d: ggml's dequantize_row_q2_0), laid out as Q1_0's
// above. Two blocks (a 32-byte quarter of a quant vector) a step, 4 output vectors: the
// quarter's 4 bit fields into the 4 quarters of a vector (rep_quarter, quarter_lsr: byte 32k + i
// holds element 4i + k), and two perfect shuffles (vshuff: byte 2j + h <- byte j + 64h; twice,
// 4i + k <- 32k + i) put them in element order; q - 1 by kLutTernary. An odd n_blocks writes
// one block past the last (4 vectors a step).
static inline void q2_0_to_f32_vectors(HVX_Vector * y, const HVX_Vector * scales, const HVX_Vector * quants,
                                       uint32_t n_blocks) {
    const HVX_Vector bcast0 = hvx_vmem_load((const HVX_Vector *) kWordBcast0.v);
    const HVX_Vector lut    = hvx_vmem_load((const HVX_Vector *) kLutTernary.v);
    HVX_VectorPair   d      = f16_scales_f32(hvx_vmem_load(&scales[0]));
    HTP_NO_UNROLL
    for (uint32_t b0 = 0; b0 < n_blocks; b0 += 2) {
        if ((b0 & 63) == 0) {
            d = f16_scales_f32(hvx_vmem_load(&scales[b0 / 64]));
        }
        const HVX_Vector x = rep_quarter(hvx_vmem_load(&quants[b0 / 8]), (b0 / 2) % 4);
        const HVX_Vector c = Q6_V_vand_VV(quarter_lsr(x, 0, 2), Q6_V_vsplat_R(0x03030303));
        HVX_Vector       f[4];
        i8_to_f32_vectors4(Q6_Vb_vlut32_VbVbR(Q6_Vb_vshuff_Vb(Q6_Vb_vshuff_Vb(c)), lut, 0), f);
        for (uint32_t k = 0; k < 4; k++) {
            hvx_vmem_store(&y[2 * b0 + k], Q6_Vsf_vmpy_VsfVsf(f[k], block_bcast(d, b0 + k / 2, bcast0)));
        }
    }
}

static inline HVX_Vector * vptr(dma_addr_t a) {
    return (HVX_Vector *) htp_va(a);
}

// A small F32 table that is a model weight read value by value (SOFT_MAX's and
// FLASH_ATTN_EXT's sinks, one per head). On a v81 with 64-bit DMA bases it lies above 4 GiB,
// where only DMA reaches DDR (docs/vhtp.md "64-bit DMA bases"), so load() brings it by DMA into
// the thread's VTCM scratch once (with the thread's DMA queue empty), and get(i) copies the
// vector that holds value i to the stack by an HVX load and reads its lane there (the core
// reads no VTCM: docs/vhtp.md "VTCM check").
struct vtcm_f32_table {
    dma_addr_t vtcm = 0;
    uint32_t   vec  = UINT32_MAX;  // the vector the copy holds
    union {
        HVX_Vector v;
        float      f[32];
    } copy;

    // bytes of F32 values from DDR address ddr into VTCM address at (bytes 0: no table).
    // False when the DMA descriptor was refused.
    bool load(dma_queue * q, dma_addr_t at, dma_addr_t ddr, uint32_t bytes) {
        vtcm = at;
        vec  = UINT32_MAX;
        if (!bytes) {
            return true;
        }
        if (!dma_queue_push_1d(q, at, ddr, bytes)) {
            return false;
        }
        dma_queue_pop(q);
        return true;
    }

    float get(uint32_t i) {
        if (i / 32 != vec) {
            vec    = i / 32;
            copy.v = hvx_vmem_load(&vptr(vtcm)[vec]);
            __asm__ volatile("" : : "r"(&copy) : "memory");  // the copy is made, then read
        }
        return copy.f[i % 32];
    }
};

}  // namespace htp_ops
