// MUL_MAT over tiled weights, HVX path: activation quantization into the vrmpy-ready block
// layout and the per-format tile dot products (htp-abi/params/mul-mat.h, docs/mul-mat.md
// "Tiled HVX path", tile layouts in docs/tiled-formats.md).
//
// A prepared activation block (32 columns of one row) is HTP_MMT_ACT_BLK_VECS vectors:
//   [0..7]  slot s: 4 int8 quants (columns of slot s, act_order) in every 32-bit lane
//   [8]     d (sf, every lane)       [9]  sum of the 32 quants (int, every lane)
//   [10]    sum of the quants of columns 0..15 (int)    [11] d * sum (sf)
// A tile dot turns the tile's quants into 8 (or 16, 32) "slot" byte vectors in vrmpy order
// (byte 4r + i = row r's quant of the slot's i-th column), so vrmpy(slot, act slot) sums 4
// products of row r in lane r: 32 output rows per instruction, no cross-lane reduction.
#pragma once
#include "htp-abi/htp-abi.h"
#include "hvx-util.h"
#include "hvx-vmem.h"
#include "mul-mat-prep.h"

namespace htp_ops {
namespace mmt {

enum { A_D = 8, A_QALL = 9, A_QLO = 10, A_QD = 11 };
constexpr uint32_t ABV = HTP_MMT_ACT_BLK_VECS;

// Byte p of the nibble-order permutation: p = 32 b + 4 s + i takes the quant of column
// 8 (s / 2) + s % 2 + 2 i of block b (HTP_MMT_ORDER_NIBBLE), coded for permute_bytes (hvx-util.h).
static constexpr byte_perm make_nibble_order_index() {
    byte_perm t{};
    for (int p = 0; p < 128; p++) {
        const int b = p / 32, s = (p % 32) / 4, i = p % 4;
        t.v[p]      = vlut32_perm_index(32 * b + 8 * (s / 2) + s % 2 + 2 * i);
    }
    return t;
}

alignas(128) static constexpr byte_perm kNibbleOrder = make_nibble_order_index();

// Quantizes one F32 row of n_blocks * 32 floats (vector aligned) into prepared blocks, by the
// flat path's quantizer (mm_quantize_q8_blocks4, mul-mat-prep.h). All in registers: the
// blocks' sums come from vrmpy and a rotate-and-add tree (word 8b of s8 = block b's 32 quants,
// of s4 its columns 0..15), the slot words are lanes of the (permuted) quant vector, every
// scalar is a vextract of them.
// kNibble: act_order HTP_MMT_ORDER_NIBBLE (a template, so no flag stays live in the loop).
template <bool kNibble> static inline void quantize_row(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_blocks) {
    const HVX_Vector ones = Q6_V_vsplat_R(0x01010101);
    const HVX_Vector nidx = hvx_vmem_load_at(kNibbleOrder.v);
    HTP_NO_UNROLL
    for (uint32_t b0 = 0; b0 < n_blocks; b0 += 4) {
        const uint32_t nb = n_blocks - b0 < 4 ? n_blocks - b0 : 4;
        HVX_Vector     dl;
        const HVX_Vector q  = mm_quantize_q8_blocks4(src + b0, nb, dl);
        const HVX_Vector w1 = Q6_Vw_vrmpy_VbVb(q, ones);                      // word l: quants 4l..4l+3
        const HVX_Vector s2 = Q6_Vw_vadd_VwVw(w1, Q6_V_vror_VR(w1, 4));
        const HVX_Vector s4 = Q6_Vw_vadd_VwVw(s2, Q6_V_vror_VR(s2, 8));       // word 8b: columns 0..15
        const HVX_Vector s8 = Q6_Vw_vadd_VwVw(s4, Q6_V_vror_VR(s4, 16));      // word 8b: all 32
        const HVX_Vector sl = kNibble ? permute_bytes(q, nidx) : q;           // word 8b + s: slot s
        // Every scalar is lane 0 of a vector rotated to it (vextract at offset 0; variable
        // offsets, or several extracts of one vector, went through a stack copy): slot s is
        // word s of the block, so 8 rotations by a word reach the next block.
        HVX_Vector   vs = sl, v4 = s4, v8 = s8, vd = dl;
        HVX_Vector * blk = dst + b0 * ABV;
        HTP_NO_UNROLL
        for (uint32_t b = 0; b < nb; b++, blk += ABV) {
            const int32_t sum_all = Q6_R_vextract_VR(v8, 0);
            const float   d       = lane0_f32(vd);
#pragma GCC unroll 8
            for (int s = 0; s < 8; s++) {
                hvx_vmem_store(&blk[s], Q6_V_vsplat_R(Q6_R_vextract_VR(vs, 0)));
                vs     = Q6_V_vror_VR(vs, 4);
            }
            hvx_vmem_store(&blk[A_D], splat_f32(d));
            hvx_vmem_store(&blk[A_QALL], Q6_V_vsplat_R(sum_all));
            hvx_vmem_store(&blk[A_QLO], Q6_V_vsplat_R(Q6_R_vextract_VR(v4, 0)));
            hvx_vmem_store(&blk[A_QD], splat_f32(d * (float) sum_all));
            v4          = Q6_V_vror_VR(v4, 32);
            v8          = Q6_V_vror_VR(v8, 32);
            vd          = Q6_V_vror_VR(vd, 32);
        }
    }
}

// ---- helpers ------------------------------------------------------------------------------

// Byte 32j + r -> byte 4r + j (two byte shuffles): a column-pair-major 4-bit quant vector
// (byte 32 * cp + r) becomes vrmpy order (row r's 4 column pairs in lane r).
static inline HVX_Vector transpose_4x32(HVX_Vector v) {
    return Q6_Vb_vshuff_Vb(Q6_Vb_vshuff_Vb(v));
}

// Halfword shift by n (> 0 left, < 0 logical right); callers mask the bits they keep.
static inline HVX_Vector shift_h(HVX_Vector v, int n) {
    return n > 0 ? Q6_Vh_vasl_VhR(v, n) : n < 0 ? Q6_Vuh_vlsr_VuhR(v, -n) : v;
}

// FP16 lanes 0..31 of h -> 32 sf lanes (row r = hf[r]).
static inline HVX_Vector f16_rows(HVX_Vector h) {
    return Q6_V_lo_W(Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(h)));
}

static inline HVX_Vector fadd(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_vadd_VsfVsf(a, b);
}

static inline HVX_Vector fmul(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_vmpy_VsfVsf(a, b);
}

// ---- formats ------------------------------------------------------------------------------
// Each format has `blocks` (32-column activation blocks per step) and optionally `tiles`
// (tiles per step, default 1: see tiles_per_step).
// dot<NR>(t, a, acc): t = the tile in VTCM (vector aligned), a[j] = the first prepared block
// of activation row j for this tile, acc[j] += the 32 rows' partial dot products (sf).

// Q8_0 (1088 B): quants byte 64 cp + 2r + (k&1): one halfword shuffle gives vrmpy order,
// columns in natural order. d at 1024 + 2r.
struct fmt_q8_0 {
    static constexpr uint32_t blocks = 1;

    template <int NR> static inline void dot(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc) {
        HVX_Vector s[NR];
        for (int j = 0; j < NR; j++) {
            s[j] = Q6_V_vzero();
        }
        #pragma GCC unroll 8
        for (int v = 0; v < 8; v++) {
            const HVX_Vector w = Q6_Vh_vshuff_Vh(hvx_vmem_load(&t[v]));
            for (int j = 0; j < NR; j++) {
                s[j] = Q6_Vw_vrmpyacc_VwVbVb(s[j], w, hvx_vmem_load(&a[j][v]));
            }
        }
        const HVX_Vector dw = f16_rows(hvx_vmem_load(&t[8]));
        for (int j = 0; j < NR; j++) {
            acc[j] = fadd(acc[j], fmul(mm_int_to_sf(s[j]), fmul(dw, hvx_vmem_load(&a[j][A_D]))));
        }
    }
};

// 4-bit quants of Q4_0 / Q4_1 / Q4_K / Q5_K / Q5_0 / Q5_1 (bytes 0..511, byte 32 cp + r): vector v holds
// column pairs 4v..4v+3; transposed, its low nibbles are slot 2v (columns 8v + {0,2,4,6}),
// its high nibbles slot 2v + 1 (nibble act order).
// lut (IQ4_NL): codes become table bytes through vlut32 (code k -> byte 2k of *lut).
template <int NR>
static inline void dot_nibbles(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * s,
                               const HVX_Vector * fifth, const HVX_Vector * lut = nullptr) {
    const HVX_Vector m4 = Q6_V_vsplat_R(0x0F0F0F0F);
    const HVX_Vector b4 = Q6_V_vsplat_R(0x10101010);
    for (int j = 0; j < NR; j++) {
        s[j] = Q6_V_vzero();
    }
    #pragma GCC unroll 8
    for (int v = 0; v < 4; v++) {
        const HVX_Vector x  = transpose_4x32(hvx_vmem_load(&t[v]));
        HVX_Vector       lo = Q6_V_vand_VV(x, m4);
        HVX_Vector       hi = Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(x, 4), m4);
        if (fifth) {  // Q5_K / Q5_0 / Q5_1: bit 2v (low nibble) / 2v + 1 (high) of the transposed plane -> bit 4
            lo = Q6_V_vor_VV(lo, Q6_V_vand_VV(shift_h(*fifth, 4 - 2 * v), b4));
            hi = Q6_V_vor_VV(hi, Q6_V_vand_VV(shift_h(*fifth, 3 - 2 * v), b4));
        }
        if (lut) {
            lo = Q6_Vb_vlut32_VbVbR(lo, *lut, 0);
            hi = Q6_Vb_vlut32_VbVbR(hi, *lut, 0);
        }
        for (int j = 0; j < NR; j++) {
            s[j] = Q6_Vw_vrmpyacc_VwVbVb(s[j], lo, hvx_vmem_load(&a[j][2 * v]));
            s[j] = Q6_Vw_vrmpyacc_VwVbVb(s[j], hi, hvx_vmem_load(&a[j][2 * v + 1]));
        }
    }
}

// Lookup-table formats (IQ4_NL, MXFP4): the Q4_0 nibble layout, codes mapped to signed bytes
// by vlut32 (mm_lut_*: code k -> lut_bytes[2k]), one vrmpy per block; dw: the rows' F32 scales.
template <int NR>
static inline void dot_lut(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc, const int8_t * lut_bytes,
                           HVX_Vector dw) {
    const HVX_Vector lut = hvx_vmem_load_at(lut_bytes);
    HVX_Vector       s[NR];
    dot_nibbles<NR>(t, a, s, nullptr, &lut);
    for (int j = 0; j < NR; j++) {
        acc[j] = fadd(acc[j], fmul(mm_int_to_sf(s[j]), fmul(dw, hvx_vmem_load(&a[j][A_D]))));
    }
}

// Q4_0 (576 B): value (code - 8) * d, d at 512 + 2r.
struct fmt_q4_0 {
    static constexpr uint32_t blocks = 1;

    template <int NR> static inline void dot(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc) {
        HVX_Vector s[NR];
        dot_nibbles<NR>(t, a, s, nullptr);
        const HVX_Vector dw = f16_rows(hvx_vmem_load(&t[4]));
        for (int j = 0; j < NR; j++) {
            const HVX_Vector sj = Q6_Vw_vsub_VwVw(s[j], Q6_Vw_vasl_VwR(hvx_vmem_load(&a[j][A_QALL]), 3));
            acc[j]              = fadd(acc[j], fmul(mm_int_to_sf(sj), fmul(dw, hvx_vmem_load(&a[j][A_D]))));
        }
    }
};

// IQ4_NL (576 B): Q4_0's layout, value d * kvalues_iq4nl[code] (ggml's table, all within
// int8): vlut32 turns the codes into the signed values, which vrmpy takes as they are.
struct fmt_iq4_nl {
    static constexpr uint32_t blocks = 1;

    template <int NR> static inline void dot(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc) {
        dot_lut<NR>(t, a, acc, kLutIq4nl, f16_rows(hvx_vmem_load(&t[4])));
    }
};

// Q4_1 / Q4_K (640 B): value code * x + y with (x, y) FP16 at 512 + 4r: Q4_1 (d, m), Q4_K
// (d * sc, -dmin * m). Q5_K / Q5_1 (768 B): the same with a fifth bit from the plane at 640.
template <bool Q5> struct fmt_q4_k {
    static constexpr uint32_t blocks = 1;

    template <int NR> static inline void dot(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc) {
        HVX_Vector s[NR];
        if (Q5) {
            const HVX_Vector fifth = transpose_4x32(hvx_vmem_load(&t[5]));
            dot_nibbles<NR>(t, a, s, &fifth);
        } else {
            dot_nibbles<NR>(t, a, s, nullptr);
        }
        const HVX_VectorPair xy = Q6_Wsf_vcvt_Vhf(hvx_vmem_load(&t[4]));  // lo lane r = hf[2r], hi = hf[2r + 1]
        const HVX_Vector     x  = Q6_V_lo_W(xy);
        const HVX_Vector     y  = Q6_V_hi_W(xy);
        for (int j = 0; j < NR; j++) {
            acc[j] = fadd(acc[j], fadd(fmul(x, fmul(mm_int_to_sf(s[j]), hvx_vmem_load(&a[j][A_D]))), fmul(y, hvx_vmem_load(&a[j][A_QD]))));
        }
    }
};

// Q5_0 (704 B): the Q4_0 nibbles plus the Q5_K fifth-bit plane at 512 (vector 4), value
// (code - 16) * d, d at 640 + 2r (vector 5). (Q5_1 has Q5_K's layout: fmt_q4_k<true>.)
struct fmt_q5_0 {
    static constexpr uint32_t blocks = 1;

    template <int NR> static inline void dot(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc) {
        HVX_Vector       s[NR];
        const HVX_Vector fifth = transpose_4x32(hvx_vmem_load(&t[4]));
        dot_nibbles<NR>(t, a, s, &fifth);
        const HVX_Vector dw = f16_rows(hvx_vmem_load(&t[5]));
        for (int j = 0; j < NR; j++) {
            const HVX_Vector sj = Q6_Vw_vsub_VwVw(s[j], Q6_Vw_vasl_VwR(hvx_vmem_load(&a[j][A_QALL]), 4));
            acc[j]              = fadd(acc[j], fmul(mm_int_to_sf(sj), fmul(dw, hvx_vmem_load(&a[j][A_D]))));
        }
    }
};

// MXFP4 (544 B): 4-bit E2M1 codes in the Q4_0 layout, E8M0 e at 512 + r. ggml's value is
// kv[code] * 2^(e - 128) with kv = 2 * E2M1 = {0, 1, 2, 3, 4, 6, 8, 12} and bit 3 the sign:
// signed bytes, so vlut32 maps codes to kv and one vrmpy per block does the rest (as IQ4_NL).
struct fmt_mxfp4 {
    static constexpr uint32_t blocks = 1;

    template <int NR> static inline void dot(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc) {
        // 2^(e - 128) per row: (e - 1) << 23 for e >= 2, else the subnormals 2^-128, 2^-127.
        const HVX_Vector e   = Q6_V_lo_W(Q6_Wuw_vunpack_Vuh(Q6_V_lo_W(Q6_Wuh_vunpack_Vub(hvx_vmem_load(&t[4])))));
        const HVX_Vector one = Q6_V_vsplat_R(1);
        const HVX_Vector dw  = Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VwVw(e, one), Q6_Vw_vasl_VwR(Q6_Vw_vsub_VwVw(e, one), 23),
                                             Q6_Vw_vadd_VwVw(Q6_Vw_vasl_VwR(e, 21), Q6_V_vsplat_R(0x00200000)));
        dot_lut<NR>(t, a, acc, kLutMxfp4x2, dw);
    }
};

// 2-bit codes of group g (columns 4g..4g+3) from vrmpy-order vectors holding 4 groups each
// at bits 0, 2, 4, 6 (Q2_0, Q3_K low bits).
static inline HVX_Vector codes2(const HVX_Vector * t, int g) {
    return Q6_V_vand_VV(shift_h(hvx_vmem_load(&t[g / 4]), -2 * (g % 4)), Q6_V_vsplat_R(0x03030303));
}

// q6_K (896 B): low nibbles vector g/2 (nibble g%2), high 2 bits vector 4 + g/4 at bits
// 2(g%4), vrmpy order, natural columns; value (code - 32) * s_half, FP16 s at 768 + 2r
// (columns 0..15) and 832 + 2r (16..31).
struct fmt_q6_k {
    static constexpr uint32_t blocks = 1;

    template <int NR> static inline void dot(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc) {
        const HVX_Vector m4  = Q6_V_vsplat_R(0x0F0F0F0F);
        const HVX_Vector m30 = Q6_V_vsplat_R(0x30303030);
        HVX_Vector       s[2][NR];
        for (int j = 0; j < NR; j++) {
            s[0][j] = s[1][j] = Q6_V_vzero();
        }
        #pragma GCC unroll 8
        for (int g = 0; g < 8; g++) {
            const HVX_Vector l    = hvx_vmem_load(&t[g / 2]);
            const HVX_Vector low  = g % 2 ? Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(l, 4), m4) : Q6_V_vand_VV(l, m4);
            const HVX_Vector high = Q6_V_vand_VV(shift_h(hvx_vmem_load(&t[4 + g / 4]), 4 - 2 * (g % 4)), m30);
            const HVX_Vector code = Q6_V_vor_VV(low, high);
            for (int j = 0; j < NR; j++) {
                s[g / 4][j] = Q6_Vw_vrmpyacc_VwVbVb(s[g / 4][j], code, hvx_vmem_load(&a[j][g]));
            }
        }
        const HVX_VectorPair sc = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(hvx_vmem_load(&t[6])));  // lo: half 0 rows, hi: half 1
        for (int j = 0; j < NR; j++) {
            const HVX_Vector qlo = hvx_vmem_load(&a[j][A_QLO]);
            const HVX_Vector qhi = Q6_Vw_vsub_VwVw(hvx_vmem_load(&a[j][A_QALL]), qlo);
            const HVX_Vector s0  = Q6_Vw_vsub_VwVw(s[0][j], Q6_Vw_vasl_VwR(qlo, 5));
            const HVX_Vector s1  = Q6_Vw_vsub_VwVw(s[1][j], Q6_Vw_vasl_VwR(qhi, 5));
            const HVX_Vector f   = fadd(fmul(Q6_V_lo_W(sc), mm_int_to_sf(s0)), fmul(Q6_V_hi_W(sc), mm_int_to_sf(s1)));
            acc[j]               = fadd(acc[j], fmul(f, hvx_vmem_load(&a[j][A_D])));
        }
    }
};

// Q3_K (512 B): low 2 bits as Q2_0 (vectors 0, 1), sign plane vector 2 (bit g set: value
// low2 - 4), FP16 d * (scale - 32) at 384 + 2r (columns 0..15) and 448 + 2r (16..31).
// code = low2 | 4 * !sign, value code - 4.
struct fmt_q3_k {
    static constexpr uint32_t blocks = 1;

    template <int NR> static inline void dot(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc) {
        const HVX_Vector b2    = Q6_V_vsplat_R(0x04040404);
        const HVX_Vector nsign = Q6_V_vnot_V(hvx_vmem_load(&t[2]));
        HVX_Vector       s[2][NR];
        for (int j = 0; j < NR; j++) {
            s[0][j] = s[1][j] = Q6_V_vzero();
        }
        #pragma GCC unroll 8
        for (int g = 0; g < 8; g++) {
            const HVX_Vector code = Q6_V_vor_VV(codes2(t, g), Q6_V_vand_VV(shift_h(nsign, 2 - g), b2));
            for (int j = 0; j < NR; j++) {
                s[g / 4][j] = Q6_Vw_vrmpyacc_VwVbVb(s[g / 4][j], code, hvx_vmem_load(&a[j][g]));
            }
        }
        const HVX_VectorPair sc = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(hvx_vmem_load(&t[3])));
        for (int j = 0; j < NR; j++) {
            const HVX_Vector qlo = hvx_vmem_load(&a[j][A_QLO]);
            const HVX_Vector qhi = Q6_Vw_vsub_VwVw(hvx_vmem_load(&a[j][A_QALL]), qlo);
            const HVX_Vector s0  = Q6_Vw_vsub_VwVw(s[0][j], Q6_Vw_vasl_VwR(qlo, 2));
            const HVX_Vector s1  = Q6_Vw_vsub_VwVw(s[1][j], Q6_Vw_vasl_VwR(qhi, 2));
            const HVX_Vector f   = fadd(fmul(Q6_V_lo_W(sc), mm_int_to_sf(s0)), fmul(Q6_V_hi_W(sc), mm_int_to_sf(s1)));
            acc[j]               = fadd(acc[j], fmul(f, hvx_vmem_load(&a[j][A_D])));
        }
    }
};

// Q2_K (336 B, tile pitch 384 in VTCM): one step = the 8 tiles of a super-block (K chunks
// are whole super-blocks). Codes as Q2_0's first two vectors; raw scale bytes (min << 4 | sc)
// at 256 + r (columns 0..15) and 288 + r (16..31); FP16 d of rows 8j..8j+7 at 320.. of tile j
// < 4, -dmin in tiles 4..7. value = d * sc * code + (-dmin) * min: sc (<= 15) multiplies the
// 2-bit codes before vrmpy (halfword products stay below 256 per byte), the min term is
// min_0 * sum_lo + min_1 * sum_hi per row (halfword multiplies into words).
struct fmt_q2_k {
    static constexpr uint32_t blocks = 8;
    static constexpr uint32_t tiles  = 8;
    static constexpr int      P      = 3;  // vectors per tile in VTCM

    template <int NR> static inline void dot(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc) {
        // The super-block's d / -dmin: 16 bytes at 64.. of each tile's third vector -> bytes 16j..
        HVX_Vector dm = Q6_V_vzero();
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            const HVX_VectorPred q = Q6_Q_and_QQ(Q6_Q_vsetq2_R(16 * j + 16), Q6_Q_not_Q(Q6_Q_vsetq_R(16 * j)));
            dm                     = Q6_V_vmux_QVV(q, Q6_V_vror_VR(hvx_vmem_load(&t[P * j + 2]), 64 - 16 * j), dm);
        }
        const HVX_VectorPair dd   = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(dm));  // lo: d of rows, hi: -dmin
        const HVX_Vector     lo16 = Q6_V_vsplat_R(0x0000FFFF);
        const HVX_Vector     m4   = Q6_V_vsplat_R(0x000F000F);
        for (int j = 0; j < 8; j++) {
            const HVX_Vector * tj = t + P * j;
            // word r = raw0[r] | raw1[r] << 16
            const HVX_Vector   x   = Q6_Vh_vshuff_Vh(Q6_V_lo_W(Q6_Wuh_vunpack_Vub(hvx_vmem_load(&tj[2]))));
            const HVX_Vector   sc  = Q6_V_vand_VV(x, m4);
            const HVX_Vector   mn  = Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(x, 4), m4);
            const HVX_Vector   sc0 = Q6_V_vor_VV(Q6_V_vand_VV(sc, lo16), Q6_Vw_vasl_VwR(sc, 16));
            const HVX_Vector   sc1 = Q6_V_vor_VV(Q6_Vuw_vlsr_VuwR(sc, 16), Q6_V_vand_VV(sc, Q6_V_vnot_V(lo16)));
            HVX_Vector         s[NR];
            for (int r = 0; r < NR; r++) {
                s[r] = Q6_V_vzero();
            }
#pragma GCC unroll 8
            for (int g = 0; g < 8; g++) {
                const HVX_Vector code = Q6_Vh_vmpyi_VhVh(codes2(tj, g), g < 4 ? sc0 : sc1);
                for (int r = 0; r < NR; r++) {
                    s[r] = Q6_Vw_vrmpyacc_VwVbVb(s[r], code, hvx_vmem_load(&a[r][j * ABV + g]));
                }
            }
            for (int r = 0; r < NR; r++) {
                const HVX_Vector * ab  = a[r] + j * ABV;
                const HVX_Vector   qlo = hvx_vmem_load(&ab[A_QLO]);
                const HVX_Vector   qhi = Q6_Vw_vsub_VwVw(hvx_vmem_load(&ab[A_QALL]), qlo);
                const HVX_Vector   qp  = Q6_V_vor_VV(Q6_V_vand_VV(qlo, lo16), Q6_Vw_vasl_VwR(qhi, 16));
                const HVX_VectorPair mp = Q6_Ww_vmpy_VhVh(mn, qp);
                const HVX_Vector   m   = Q6_Vw_vadd_VwVw(Q6_V_lo_W(mp), Q6_V_hi_W(mp));
                const HVX_Vector   f   = fadd(fmul(Q6_V_lo_W(dd), mm_int_to_sf(s[r])), fmul(Q6_V_hi_W(dd), mm_int_to_sf(m)));
                acc[r]                 = fadd(acc[r], fmul(f, hvx_vmem_load(&ab[A_D])));
            }
        }
    }
};

// Q2_0 (576 B, 64 columns = 2 activation blocks): codes 0..3 at vector g/4 bits 2(g%4),
// value (code - 1) * d, d at 512 + 2r.
struct fmt_q2_0 {
    static constexpr uint32_t blocks = 2;

    template <int NR> static inline void dot(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc) {
        const HVX_Vector dw = f16_rows(hvx_vmem_load(&t[4]));
        for (int b = 0; b < 2; b++) {
            HVX_Vector s[NR];
            for (int j = 0; j < NR; j++) {
                s[j] = Q6_V_vzero();
            }
            #pragma GCC unroll 8
        for (int g = 0; g < 8; g++) {
                const HVX_Vector code = codes2(t, 8 * b + g);
                for (int j = 0; j < NR; j++) {
                    s[j] = Q6_Vw_vrmpyacc_VwVbVb(s[j], code, hvx_vmem_load(&a[j][b * ABV + g]));
                }
            }
            for (int j = 0; j < NR; j++) {
                const HVX_Vector * ab = a[j] + b * ABV;
                const HVX_Vector   sj = Q6_Vw_vsub_VwVw(s[j], hvx_vmem_load(&ab[A_QALL]));
                acc[j]                = fadd(acc[j], fmul(mm_int_to_sf(sj), fmul(dw, hvx_vmem_load(&ab[A_D]))));
            }
        }
    }
};

// Q1_0 (576 B, 128 columns = 4 activation blocks): quarter q = vector q, group g at bit g of
// byte 4r + k%4; bit 1 = +d, 0 = -d: sum (2 bit - 1) a = 2 vrmpy(bit, a) - sum a. d at 512 + 2r.
struct fmt_q1_0 {
    static constexpr uint32_t blocks = 4;

    template <int NR> static inline void dot(const HVX_Vector * t, const HVX_Vector * const * a, HVX_Vector * acc) {
        const HVX_Vector one = Q6_V_vsplat_R(0x01010101);
        const HVX_Vector dw  = f16_rows(hvx_vmem_load(&t[4]));
        for (int b = 0; b < 4; b++) {
            HVX_Vector s[NR];
            for (int j = 0; j < NR; j++) {
                s[j] = Q6_V_vzero();
            }
            #pragma GCC unroll 8
        for (int g = 0; g < 8; g++) {
                const HVX_Vector bit = Q6_V_vand_VV(shift_h(hvx_vmem_load(&t[b]), -g), one);
                for (int j = 0; j < NR; j++) {
                    s[j] = Q6_Vw_vrmpyacc_VwVbVb(s[j], bit, hvx_vmem_load(&a[j][b * ABV + g]));
                }
            }
            for (int j = 0; j < NR; j++) {
                const HVX_Vector * ab = a[j] + b * ABV;
                const HVX_Vector   sj = Q6_Vw_vsub_VwVw(Q6_Vw_vasl_VwR(s[j], 1), hvx_vmem_load(&ab[A_QALL]));
                acc[j]                = fadd(acc[j], fmul(mm_int_to_sf(sj), fmul(dw, hvx_vmem_load(&ab[A_D]))));
            }
        }
    }
};

template <class F, class = void> struct tiles_per_step {
    static constexpr uint32_t value = 1;
};

template <class F> struct tiles_per_step<F, decltype((void) F::tiles, void())> {
    static constexpr uint32_t value = F::tiles;
};

}  // namespace mmt
}  // namespace htp_ops
