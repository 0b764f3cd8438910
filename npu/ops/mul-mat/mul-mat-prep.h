// MUL_MAT flat HVX path: turning one activation row or one weight row (as DMA'd into VTCM)
// into the form the dot products read.
//
// Q path, per 128-element group g of a row (one HVX vector of int8 each):
//   quants  q[g]   int8, element k at byte k % 128 (natural order)
//   scales  s[g]   32 sf lanes: lane l scales elements 4l..4l+3 of the group
//   extra   x[g]   32 sf lanes: weights: offset o with w = s*q - o (K-quant mins; else 0);
//                  activations: the lane's sum of its 4 dequantized values
// so that sum_k w_k a_k = sum_g sum_l [ s_w s_a vrmpy(q_w, q_a) - o_w * sum_a ]_l.
#pragma once
#include "hvx-util.h"
#include "quant-luts.h"

namespace htp_ops {

// 1.5 * 2^23: adding it to a float |x| < 2^22 leaves round-to-nearest-even(x) in the low
// mantissa bits; integer lanes |x| < 2^22 turn into floats exactly the reverse way.
#define HTP_MM_MAGIC_F   12582912.0f
#define HTP_MM_MAGIC_BITS 0x4B400000

static inline HVX_Vector mm_int_to_sf(HVX_Vector w) {
    return Q6_Vsf_vsub_VsfVsf(Q6_Vw_vadd_VwVw(w, Q6_V_vsplat_R(HTP_MM_MAGIC_BITS)), splat_f32(HTP_MM_MAGIC_F));
}

static inline HVX_Vector mm_sf_to_int(HVX_Vector f) {
    return Q6_Vw_vsub_VwVw(Q6_Vsf_vadd_VsfVsf(f, splat_f32(HTP_MM_MAGIC_F)), Q6_V_vsplat_R(HTP_MM_MAGIC_BITS));
}

// Per-lane scale vector of one group from 4 block scales (32-element blocks, 8 lanes each).
static inline HVX_Vector mm_lanes_from_blocks32(const float * d4) {
    float e[32] __attribute__((aligned(128)));
    for (int l = 0; l < 32; l++) {
        e[l] = d4[l >> 3];
    }
    return hvx_vmem_load_at(e);
}

// vlut32 index: byte p <- byte 4 (p % 32), the low bytes of the 32 int32 lanes in every
// quarter (vlut32 reads byte 2 (idx % 64) when idx >> 5 == Rt: Rt 0 for sources below 64, 1
// above). A byte gather of one vector: no vpacke (which the host emulation runs byte by byte).
struct mm_byte_idx {
    uint8_t v[128] __attribute__((aligned(128)));
};

static constexpr mm_byte_idx mm_make_low_bytes_idx() {
    mm_byte_idx t{};
    for (int p = 0; p < 128; p++) {
        const int src = 4 * (p % 32);
        t.v[p]        = (uint8_t) (src >= 64 ? 32 + (src / 2) % 32 : src / 2);
    }
    return t;
}

alignas(128) static constexpr mm_byte_idx kMmLowBytes = mm_make_low_bytes_idx();

// Q8 activation quantization, shared by the flat path (mm_quantize_act_row) and the tiled
// HVX path (mmt::quantize_row): blocks src[0..n_blocks) of 32 floats (n_blocks <= 4; missing
// blocks get quants 0 and d = 0); per block d = amax / 127 and q = round-to-nearest-even(x *
// 127 / amax). Returns the 128 int8 quants, block b in bytes [32 b, 32 b + 32); dl: the
// blocks' d, block b in lanes 8b..8b+7 (the lanes of its elements). One block per trip, not
// unrolled, each muxed into place as it is made: no stack array, and no block's scalars live
// while the next is made (the callers' row loops keep no stack traffic).
static inline HVX_Vector mm_quantize_q8_blocks4(const HVX_Vector * src, uint32_t n_blocks, HVX_Vector & dl) {
    // Not counted (hvx_ldst, hvx-vmem.h), as the code a compiler makes would not load them
    // here: lowb is a constant the callers' loops keep in a register, and src[b] the vector
    // max_abs_sf has just loaded (counted there).
    const HVX_Vector lowb = *(const HVX_Vector *) kMmLowBytes.v;
    HVX_Vector       q = Q6_V_vzero(), d = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t b = 0; b < n_blocks; b++) {
        const float          amax = max_abs_sf(src + b, 1);
        const float          id   = amax > 0.0f ? 127.0f / amax : 0.0f;
        const HVX_Vector     qi   = mm_sf_to_int(Q6_Vsf_vmpy_VsfVsf(src[b], splat_f32(id)));
        // the block's 32 quants (low bytes of the lanes) in every quarter
        const HVX_Vector     rep  = Q6_V_vor_VV(Q6_Vb_vlut32_VbVbR(lowb, qi, 0), Q6_Vb_vlut32_VbVbR(lowb, qi, 1));
        const HVX_VectorPred in   = Q6_Q_and_QQ(Q6_Q_vsetq2_R((int32_t) (32 * b + 32)),
                                                Q6_Q_not_Q(Q6_Q_vsetq_R((int32_t) (32 * b))));
        q                         = Q6_V_vmux_QVV(in, rep, q);
        d                         = Q6_V_vmux_QVV(in, splat_f32(amax / 127.0f), d);
    }
    dl = d;
    return q;
}

// Quantizes one F32 activation row (k_vecs * 4 vectors, zero past K) into q/s/x parts.
static inline void mm_quantize_act_row(HVX_Vector * q, HVX_Vector * s, HVX_Vector * x, const HVX_Vector * src,
                                       uint32_t k_vecs) {
    const HVX_Vector ones = Q6_V_vsplat_R(0x01010101);
    HTP_NO_UNROLL
    for (uint32_t g = 0; g < k_vecs; g++) {
        HVX_Vector       dl;
        const HVX_Vector qg = mm_quantize_q8_blocks4(src + 4 * g, 4, dl);
        hvx_vmem_store(q + g, qg);
        hvx_vmem_store(s + g, dl);
        hvx_vmem_store(x + g, Q6_Vsf_vmpy_VsfVsf(mm_int_to_sf(Q6_Vw_vrmpy_VbVb(qg, ones)), dl));
    }
}

// Copies an F32 row of n_vec vectors, zeroing lanes past `tail_lanes` of the last (0: full).
static inline void mm_copy_f32_row(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_vec, uint32_t tail_lanes) {
    copy_vectors(dst, src, n_vec);
    if (tail_lanes) {
        hvx_vmem_store(dst + n_vec - 1,
                       Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (4 * tail_lanes)), hvx_vmem_load(dst + n_vec - 1), Q6_V_vzero()));
    }
}

// Q8_0 weight row: quants (32 per block, dense) and FP16 scales (dense) as DMA'd.
static inline void mm_prep_q8_0(HVX_Vector * q, HVX_Vector * s, HVX_Vector * o, const HVX_Vector * quants,
                                const HVX_Vector * scales, uint32_t n_blocks, uint32_t k_vecs) {
    float d[64] __attribute__((aligned(128)));
    for (uint32_t g = 0; g < k_vecs; g++) {
        const uint32_t b0 = 4 * g;
        if ((b0 & 63) == 0) {
            f16_to_f32_vectors((HVX_Vector *) d, scales + b0 / 64, 1);
        }
        float d4[4];
        for (uint32_t b = 0; b < 4; b++) {
            d4[b] = b0 + b < n_blocks ? d[(b0 + b) & 63] : 0.0f;
        }
        // Quants past the row's last block are stale VTCM bytes: their scale lanes are 0 and
        // the activation's quants there are 0, so they add 0.
        hvx_vmem_store(q + g, hvx_vmem_load(quants + g));
        hvx_vmem_store(s + g, mm_lanes_from_blocks32(d4));
        hvx_vmem_store(o + g, Q6_V_vzero());
    }
}

// Split types (Q4_0, Q5_0, Q4_K, q6_K): a packed quant vector m unpacks into a "lo" vector (low
// nibbles) and a "hi" vector (high nibbles) without any lane shuffle; wq[m] = lo, wq[n_lo + m] =
// hi. The activation row is DMA'd in the matching order (even chunks of act_split_elems
// elements first, odd chunks from act_b_offset), so lanes of both line up for vrmpy. Per-lane
// scales come from a register-file copy of the block headers.

static inline HVX_Vector mm_lanes(const float * e32) {
    return hvx_vmem_load_at(e32);
}

// Q4_0: fields d (FP16, dense) and qs (16 B per block, dense). w = d*q - 8d, q = 0..15.
// Q4_1: also m (FP16, dense, `mins`): w = d*q + m.
static inline void mm_prep_q4_0(HVX_Vector * q, HVX_Vector * s, HVX_Vector * o, const HVX_Vector * quants,
                                const HVX_Vector * scales, uint32_t n_blocks, uint32_t n_lo,
                                const HVX_Vector * mins = nullptr) {
    const HVX_Vector m4 = Q6_V_vsplat_R(0x0F0F0F0F);
    float            d[64] __attribute__((aligned(128)));
    float            mn[64] __attribute__((aligned(128)));
    float            es[32] __attribute__((aligned(128)));
    float            eo[32] __attribute__((aligned(128)));
    for (uint32_t m = 0; m < n_lo; m++) {
        const uint32_t b0 = 8 * m;  // 8 blocks per packed vector, 4 lanes per block
        if ((b0 & 63) == 0) {
            f16_to_f32_vectors((HVX_Vector *) d, scales + b0 / 64, 1);
            if (mins) {
                f16_to_f32_vectors((HVX_Vector *) mn, mins + b0 / 64, 1);
            }
        }
        for (int l = 0; l < 32; l++) {
            const uint32_t b = b0 + (uint32_t) l / 4;
            es[l]            = b < n_blocks ? d[b & 63] : 0.0f;
            eo[l]            = mins ? (b < n_blocks ? -mn[b & 63] : 0.0f) : 8.0f * es[l];
        }
        const HVX_Vector v = hvx_vmem_load(quants + m);
        hvx_vmem_store(q + m, Q6_V_vand_VV(v, m4));
        hvx_vmem_store(q + n_lo + m, Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(v, 4), m4));
        const HVX_Vector sv = mm_lanes(es), ov = mm_lanes(eo);
        hvx_vmem_store(s + m, sv);
        hvx_vmem_store(s + n_lo + m, sv);
        hvx_vmem_store(o + m, ov);
        hvx_vmem_store(o + n_lo + m, ov);
    }
}

// Q4_K: fields hdr (d, dmin, scales[12]: 16 B per super-block, dense) and qs (128 B, dense).
// Packed vector m = super-block m; byte 32j + l: low nibble = sub-block 2j, high = 2j + 1.
// Q5_K: also qh (`qhs`, DMA'd 4 times per super-block so that qh byte l sits at 32j + l): the
// fifth bit of byte 32j + l is qh bit 2j (low nibble) / 2j + 1 (high nibble).
static inline HVX_Vector mm_q5k_fifth(HVX_Vector h, int base) {
    return Q6_Vh_vasl_VhR(Q6_V_vand_VV(quarter_lsr(h, base, 2), Q6_V_vsplat_R(0x01010101)), 4);
}

// A super-block's scales (es) and offsets (eo), 32 lanes for its low half of elements and 32
// for its high half, as the K-quant preps with two halves per packed vector (Q4_K, Q5_K, Q6_K)
// fill them; store writes them as lane vectors, the low half at m and the high half at n_sb + m.
struct mm_sb_lanes {
    float es[2][32] __attribute__((aligned(128)));
    float eo[2][32] __attribute__((aligned(128)));

    void store(HVX_Vector * s, HVX_Vector * o, uint32_t n_sb, uint32_t m) const {
        hvx_vmem_store(s + m, mm_lanes(es[0]));
        hvx_vmem_store(s + n_sb + m, mm_lanes(es[1]));
        hvx_vmem_store(o + m, mm_lanes(eo[0]));
        hvx_vmem_store(o + n_sb + m, mm_lanes(eo[1]));
    }
};

static inline void mm_prep_q4_k(HVX_Vector * q, HVX_Vector * s, HVX_Vector * o, const HVX_Vector * quants,
                                const HVX_Vector * hdrs, uint32_t n_sb, const HVX_Vector * qhs = nullptr) {
    const HVX_Vector m4 = Q6_V_vsplat_R(0x0F0F0F0F);
    float            dd[64] __attribute__((aligned(128)));   // d, dmin at 8i, 8i + 1 (FP16 index)
    uint8_t          raw[128] __attribute__((aligned(128)));
    mm_sb_lanes      e;
    for (uint32_t m = 0; m < n_sb; m++) {
        if ((m & 7) == 0) {
            hvx_vmem_store((HVX_Vector *) raw, hvx_vmem_load(hdrs + m / 8));
            f16_to_f32_vectors((HVX_Vector *) dd, hdrs + m / 8, 1);
        }
        const uint8_t * sc   = raw + 16 * (m & 7) + 4;
        const float     d    = dd[8 * (m & 7)];
        const float     dmin = dd[8 * (m & 7) + 1];
        for (int j = 0; j < 8; j++) {
            uint32_t scv, mnv;
            k4_scale_min([sc](int i) { return sc[i]; }, j, scv, mnv);
            for (int l = 0; l < 8; l++) {  // sub-block j: lanes 8 * (j / 2) .. + 7 of lo (j even) / hi
                e.es[j & 1][8 * (j / 2) + l] = d * (float) scv;
                e.eo[j & 1][8 * (j / 2) + l] = dmin * (float) mnv;
            }
        }
        const HVX_Vector v  = hvx_vmem_load(quants + m);
        HVX_Vector       lo = Q6_V_vand_VV(v, m4);
        HVX_Vector       hi = Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(v, 4), m4);
        if (qhs) {
            const HVX_Vector h = hvx_vmem_load(qhs + m);
            lo                 = Q6_V_vor_VV(lo, mm_q5k_fifth(h, 0));
            hi                 = Q6_V_vor_VV(hi, mm_q5k_fifth(h, 1));
        }
        hvx_vmem_store(q + m, lo);
        hvx_vmem_store(q + n_sb + m, hi);
        e.store(s, o, n_sb, m);
    }
}

// q6_K: fields ql (128 B, dense), qh (arranged by DMA as [qh0..31, qh0..31, qh32..63,
// qh32..63] per super-block), sc (16 int8, dense), d (FP16, dense). Packed byte b = 64n + c of
// ql: low nibble = element 128n + c, high = 128n + 64 + c; its 2 high bits are bits
// 2 * (c / 32) (+4 for the high nibble) of the qh byte DMA'd to the same position.
// w = ds * q - 32 ds, q = 0..63.
static inline void mm_prep_q6_k(HVX_Vector * q, HVX_Vector * s, HVX_Vector * o, const HVX_Vector * ql,
                                const HVX_Vector * qh, const HVX_Vector * scs, const HVX_Vector * ds, uint32_t n_sb) {
    const HVX_Vector     m4 = Q6_V_vsplat_R(0x0F0F0F0F);
    const HVX_Vector     m2 = Q6_V_vsplat_R(0x03030303);
    // Bytes whose c = b % 64 is >= 32 take the next 2-bit field of their qh byte.
    const HVX_VectorPred up = Q6_Q_or_QQ(Q6_Q_and_QQ(Q6_Q_vsetq_R(64), Q6_Q_not_Q(Q6_Q_vsetq_R(32))),
                                         Q6_Q_not_Q(Q6_Q_vsetq_R(96)));
    float       dd[64] __attribute__((aligned(128)));
    int8_t      sc[128] __attribute__((aligned(128)));
    mm_sb_lanes e;
    for (uint32_t m = 0; m < n_sb; m++) {
        if ((m & 63) == 0) {
            f16_to_f32_vectors((HVX_Vector *) dd, ds + m / 64, 1);
        }
        if ((m & 7) == 0) {
            hvx_vmem_store((HVX_Vector *) sc, hvx_vmem_load(scs + m / 8));
        }
        const int8_t * scm = sc + 16 * (m & 7);
        const float    d   = dd[m & 63];
        for (int l = 0; l < 32; l++) {
            const int n = l / 16, c = (4 * l) % 64;
            const int is = 8 * n + (c % 32) / 16 + 2 * (c / 32);
            e.es[0][l]   = d * (float) scm[is];
            e.es[1][l]   = d * (float) scm[is + 4];
            e.eo[0][l]   = 32.0f * e.es[0][l];
            e.eo[1][l]   = 32.0f * e.es[1][l];
        }
        const HVX_Vector L    = hvx_vmem_load(ql + m);
        const HVX_Vector H    = hvx_vmem_load(qh + m);
        const HVX_Vector h_lo = Q6_V_vmux_QVV(up, Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(H, 2), m2), Q6_V_vand_VV(H, m2));
        const HVX_Vector h_hi = Q6_V_vmux_QVV(up, Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(H, 6), m2),
                                              Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(H, 4), m2));
        hvx_vmem_store(q + m, Q6_V_vor_VV(Q6_V_vand_VV(L, m4), Q6_Vh_vasl_VhR(h_lo, 4)));
        hvx_vmem_store(q + n_sb + m, Q6_V_vor_VV(Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(L, 4), m4), Q6_Vh_vasl_VhR(h_hi, 4)));
        e.store(s, o, n_sb, m);
    }
}

// Q5_0: fields d (FP16), qh (4 B per block), qs (16 B per block), all dense; as Q4_0 plus a
// fifth bit: element j (< 16) of a block takes qh bit j, element j + 16 bit j + 16.
// w = d*q - 16d, q = 0..31.
// Q5_1: also m (FP16, dense, `mins`): w = d*q + m.
static inline void mm_prep_q5_0(HVX_Vector * q, HVX_Vector * s, HVX_Vector * o, const HVX_Vector * quants,
                                const HVX_Vector * qhs, const HVX_Vector * scales, uint32_t n_blocks, uint32_t n_lo,
                                const HVX_Vector * mins = nullptr) {
    const HVX_Vector m4 = Q6_V_vsplat_R(0x0F0F0F0F);
    float            d[64] __attribute__((aligned(128)));
    float            mn[64] __attribute__((aligned(128)));
    uint32_t         qh[32] __attribute__((aligned(128)));
    uint32_t         vb[2][32] __attribute__((aligned(128)));
    float            es[32] __attribute__((aligned(128)));
    float            eo[32] __attribute__((aligned(128)));
    for (uint32_t m = 0; m < n_lo; m++) {
        const uint32_t b0 = 8 * m;
        if ((b0 & 63) == 0) {
            f16_to_f32_vectors((HVX_Vector *) d, scales + b0 / 64, 1);
            if (mins) {
                f16_to_f32_vectors((HVX_Vector *) mn, mins + b0 / 64, 1);
            }
        }
        if ((b0 & 31) == 0) {
            hvx_vmem_store((HVX_Vector *) qh, hvx_vmem_load(qhs + b0 / 32));
        }
        for (int l = 0; l < 32; l++) {  // word l: bytes 4l..4l+3 = elements 4(l%4).. of block b0 + l/4
            const uint32_t b = b0 + (uint32_t) l / 4;
            const uint32_t h = qh[b & 31];
            vb[0][l]         = h >> (4 * (l % 4));
            vb[1][l]         = h >> (16 + 4 * (l % 4));
            es[l]            = b < n_blocks ? d[b & 63] : 0.0f;
            eo[l]            = mins ? (b < n_blocks ? -mn[b & 63] : 0.0f) : 16.0f * es[l];
        }
        HVX_Vector fifth[2];
        for (int h = 0; h < 2; h++) {  // bit k of word -> bit 4 of its byte k
            const HVX_Vector v = hvx_vmem_load_at(vb[h]);
            HVX_Vector       r = Q6_V_vand_VV(Q6_Vw_vasl_VwR(v, 4), Q6_V_vsplat_R(0x10));
            r = Q6_V_vor_VV(r, Q6_V_vand_VV(Q6_Vw_vasl_VwR(v, 11), Q6_V_vsplat_R(0x1000)));
            r = Q6_V_vor_VV(r, Q6_V_vand_VV(Q6_Vw_vasl_VwR(v, 18), Q6_V_vsplat_R(0x100000)));
            fifth[h] = Q6_V_vor_VV(r, Q6_V_vand_VV(Q6_Vw_vasl_VwR(v, 25), Q6_V_vsplat_R(0x10000000)));
        }
        const HVX_Vector v = hvx_vmem_load(quants + m);
        hvx_vmem_store(q + m, Q6_V_vor_VV(Q6_V_vand_VV(v, m4), fifth[0]));
        hvx_vmem_store(q + n_lo + m, Q6_V_vor_VV(Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(v, 4), m4), fifth[1]));
        const HVX_Vector sv = mm_lanes(es), ov = mm_lanes(eo);
        hvx_vmem_store(s + m, sv);
        hvx_vmem_store(s + n_lo + m, sv);
        hvx_vmem_store(o + m, ov);
        hvx_vmem_store(o + n_lo + m, ov);
    }
}

// Blocks with 16 quant bytes each (8 blocks per packed vector, lane l -> block 8m + l / 4):
// IQ4_NL, MXFP4 (nibbles through a table), Q1_0 (8 bit planes), Q2_0 (4 2-bit planes), and
// IQ4_XS, whose 32-element sub-blocks are such blocks (16 qs bytes each, IQ4_NL's nibble order
// and table), 8 to a super-block: packed vector m = super-block m.
// Plane k of packed vector m goes to q[k * n_lo + m].
enum mm_b16_kind { MM_B16_IQ4_NL, MM_B16_MXFP4, MM_B16_Q1_0, MM_B16_Q2_0, MM_B16_IQ4_XS };

// Bytes (codes 0..15) of idx through a vlut32 table of quant-luts.h (loaded once per row).
static inline HVX_Vector mm_lut16(HVX_Vector idx, HVX_Vector lut) {
    return Q6_Vb_vlut32_VbVbR(idx, lut, 0);
}

// 2^(e - 128), ggml's E8M0 "half" scale of MXFP4.
static inline float mm_e8m0_half(uint8_t e) {
    union {
        uint32_t u;
        float    f;
    } v;
    v.u = e8m0_half_bits(e);
    return v.f;
}

// IQ4_XS's sub-block scales d * (ls - 32) (dequantize_row_iq4_xs: ls = 4 bits of scales_l,
// 2 of scales_h) of super-block i of a header vector: hdr = its 16 raw 8-byte headers (d,
// scales_h, scales_l[4]), d = their FP16 halfwords widened (super-block i's d at 4i).
static inline void mm_iq4_xs_scales(const uint8_t * hdr, const float * d, uint32_t i, float sub[8]) {
    const uint8_t * h  = hdr + 8 * i;
    const uint32_t  sh = (uint32_t) h[2] | (uint32_t) h[3] << 8;
    for (uint32_t ib = 0; ib < 8; ib++) {
        const uint32_t ls = ((uint32_t) (h[4 + ib / 2] >> (4 * (ib % 2))) & 0xf) | ((sh >> (2 * ib)) & 3) << 4;
        sub[ib]           = d[4 * i] * (float) ((int32_t) ls - 32);
    }
}

// scales: FP16 d per block (MXFP4: one E8M0 byte per block; IQ4_XS: the 8-byte super-block
// headers), dense. The kind is a template argument: the per-lane scale loop and the plane
// stores are straight code for each type, with no test of the kind per lane (mul-mat-flat.h
// prep_weight: one call per type).
template <mm_b16_kind kind>
static inline void mm_prep_b16(HVX_Vector * q, HVX_Vector * s, HVX_Vector * o, const HVX_Vector * quants,
                               const HVX_Vector * scales, uint32_t n_blocks, uint32_t n_lo) {
    const HVX_Vector    m4           = Q6_V_vsplat_R(0x0F0F0F0F);
    float               d[64] __attribute__((aligned(128)));
    uint8_t             e8[128] __attribute__((aligned(128)));
    float               es[32] __attribute__((aligned(128)));
    float               eo[32] __attribute__((aligned(128)));
    float               sub[8];
    constexpr bool      lut_kind     = kind == MM_B16_IQ4_NL || kind == MM_B16_MXFP4 || kind == MM_B16_IQ4_XS;
    constexpr uint32_t  np           = kind == MM_B16_Q1_0 ? 8 : kind == MM_B16_Q2_0 ? 4 : 2;  // quant planes
    const HVX_Vector    lut          = lut_kind ? hvx_vmem_load_at(kind == MM_B16_MXFP4 ? kLutMxfp4x2 : kLutIq4nl)
                                                : Q6_V_vzero();
    for (uint32_t m = 0; m < n_lo; m++) {
        const uint32_t b0 = 8 * m;
        if constexpr (kind == MM_B16_MXFP4) {
            if ((b0 & 127) == 0) {
                hvx_vmem_store((HVX_Vector *) e8, hvx_vmem_load(scales + b0 / 128));
            }
        } else if constexpr (kind == MM_B16_IQ4_XS) {  // 16 headers per vector: raw bytes and widened d
            if ((m & 15) == 0) {
                hvx_vmem_store((HVX_Vector *) e8, hvx_vmem_load(scales + m / 16));
                f16_to_f32_vectors((HVX_Vector *) d, scales + m / 16, 1);
            }
            mm_iq4_xs_scales(e8, d, m & 15, sub);
        } else if ((b0 & 63) == 0) {
            f16_to_f32_vectors((HVX_Vector *) d, scales + b0 / 64, 1);
        }
        for (int l = 0; l < 32; l++) {
            const uint32_t b  = b0 + (uint32_t) l / 4;
            float          dv = 0.0f;
            if constexpr (kind == MM_B16_IQ4_XS) {
                dv = sub[l / 4];  // n_lo == n_blocks: every packed vector is a whole super-block
            } else if (b < n_blocks) {
                if constexpr (kind == MM_B16_MXFP4) {
                    dv = mm_e8m0_half(e8[b & 127]);
                } else {
                    dv = d[b & 63];
                }
            }
            // Q1_0: w = d * (2 bit - 1); Q2_0: w = d * (q - 1); the tables are signed already.
            es[l] = kind == MM_B16_Q1_0 ? 2.0f * dv : dv;
            eo[l] = kind == MM_B16_Q1_0 || kind == MM_B16_Q2_0 ? dv : 0.0f;
        }
        const HVX_Vector v = hvx_vmem_load(quants + m);
        if constexpr (lut_kind) {
            hvx_vmem_store(q + m, mm_lut16(Q6_V_vand_VV(v, m4), lut));
            hvx_vmem_store(q + n_lo + m, mm_lut16(Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(v, 4), m4), lut));
        } else {  // np planes of 8 / np bits
            constexpr int      bits = 8 / (int) np;
            constexpr int32_t  mask = kind == MM_B16_Q1_0 ? 0x01010101 : 0x03030303;
            for (uint32_t k = 0; k < np; k++) {
                hvx_vmem_store(q + k * n_lo + m, Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(v, bits * (int) k), Q6_V_vsplat_R(mask)));
            }
        }
        const HVX_Vector sv = mm_lanes(es), ov = mm_lanes(eo);
        for (uint32_t k = 0; k < np; k++) {
            hvx_vmem_store(s + k * n_lo + m, sv);
            hvx_vmem_store(o + k * n_lo + m, ov);
        }
    }
}

// Q2_K / Q3_K: 4 planes of 2-bit fields. Packed vector m = the 64 qs bytes of super-blocks 2m
// and 2m + 1; byte 64t + 32n + l, plane j (bits 2j) = element 128n + 32j + l of super-block
// 2m + t, whose 16-element sub-block is 8n + 2j + l / 16. The activation arrives as chunks of
// 32 elements, chunk c in plane c % 4.
// Lane l of plane j: super-block 2m + l / 16, n = (l / 8) % 2, sub-block 8n + 2j + (l % 8) / 4.
static inline uint32_t mm_k4_sub(uint32_t j, int l) {
    return 8 * (((uint32_t) l / 8) % 2) + 2 * j + ((uint32_t) l % 8) / 4;
}

// Q2_K: fields scales (16 B per super-block: low nibble scale, high nibble min), qs (64 B),
// dm (d, dmin FP16), all dense. w = d * sc * q - dmin * mn, q = 0..3.
static inline void mm_prep_q2_k(HVX_Vector * q, HVX_Vector * s, HVX_Vector * o, const HVX_Vector * qs,
                                const HVX_Vector * scs, const HVX_Vector * dms, uint32_t n_sb, uint32_t n_lo) {
    float   dd[64] __attribute__((aligned(128)));
    uint8_t sc[128] __attribute__((aligned(128)));
    float   es[32] __attribute__((aligned(128)));
    float   eo[32] __attribute__((aligned(128)));
    for (uint32_t m = 0; m < n_lo; m++) {
        const uint32_t sb0 = 2 * m;
        if ((sb0 & 7) == 0) {
            hvx_vmem_store((HVX_Vector *) sc, hvx_vmem_load(scs + sb0 / 8));
        }
        if ((sb0 & 31) == 0) {
            f16_to_f32_vectors((HVX_Vector *) dd, dms + sb0 / 32, 1);
        }
        const HVX_Vector v = hvx_vmem_load(qs + m);
        for (uint32_t j = 0; j < 4; j++) {
            for (int l = 0; l < 32; l++) {
                const uint32_t sb = sb0 + (uint32_t) l / 16;
                if (sb >= n_sb) {
                    es[l] = eo[l] = 0.0f;
                    continue;
                }
                const uint8_t c = sc[16 * (sb & 7) + mm_k4_sub(j, l)];
                es[l]           = dd[2 * (sb & 31)] * (float) (c & 15);
                eo[l]           = dd[2 * (sb & 31) + 1] * (float) (c >> 4);
            }
            hvx_vmem_store(q + j * n_lo + m, Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(v, (int) (2 * j)), Q6_V_vsplat_R(0x03030303)));
            hvx_vmem_store(s + j * n_lo + m, mm_lanes(es));
            hvx_vmem_store(o + j * n_lo + m, mm_lanes(eo));
        }
    }
}

// Q3_K: fields hmask (DMA'd twice per super-block: 64 B with hmask[l] at l and 32 + l), qs
// (64 B), scales (12 B, 6-bit packed), d (FP16), all dense. Byte 64t + 32n + l, plane j takes
// hmask bit 4n + j as its third bit; w = d * (sc - 32) * q - 4 * d * (sc - 32), q = 0..7.
static inline void mm_prep_q3_k(HVX_Vector * q, HVX_Vector * s, HVX_Vector * o, const HVX_Vector * qs,
                                const HVX_Vector * hms, const uint8_t * scs, const HVX_Vector * ds, uint32_t n_sb,
                                uint32_t n_lo) {
    const HVX_Vector     m2 = Q6_V_vsplat_R(0x03030303);
    const HVX_Vector     m1 = Q6_V_vsplat_R(0x01010101);
    // Bytes with (b % 64) >= 32 (n = 1) take bits 4..7 of their hmask byte.
    const HVX_VectorPred up = Q6_Q_or_QQ(Q6_Q_and_QQ(Q6_Q_vsetq_R(64), Q6_Q_not_Q(Q6_Q_vsetq_R(32))),
                                         Q6_Q_not_Q(Q6_Q_vsetq_R(96)));
    float   dd[64] __attribute__((aligned(128)));
    int8_t  sc[2][16];
    float   es[32] __attribute__((aligned(128)));
    float   eo[32] __attribute__((aligned(128)));
    uint8_t scb[256] __attribute__((aligned(128)));  // the scales of super-blocks 2m, 2m + 1, by HVX
    for (uint32_t m = 0; m < n_lo; m++) {
        const uint32_t sb0 = 2 * m;
        if ((sb0 & 63) == 0) {
            f16_to_f32_vectors((HVX_Vector *) dd, ds + sb0 / 64, 1);
        }
        // The 12 or 24 bytes of scales lie in VTCM, which the core must not load from: the
        // aligned vector(s) holding them come to the stack with HVX loads (the second only when
        // the bytes cross into it, so nothing past the scales field is read).
        const uintptr_t at = (uintptr_t) (scs + 12 * sb0);
        if (sb0 < n_sb) {
            const uint32_t     need = sb0 + 1 < n_sb ? 24u : 12u;
            const HVX_Vector * sv   = (const HVX_Vector *) (at & ~(uintptr_t) 127);
            hvx_vmem_store((HVX_Vector *) scb, hvx_vmem_load(sv));
            if ((at & 127) + need > 128) {
                hvx_vmem_store((HVX_Vector *) scb + 1, hvx_vmem_load(sv + 1));
            }
        }
        for (uint32_t t = 0; t < 2; t++) {
            if (sb0 + t >= n_sb) {
                continue;
            }
            const uint8_t * r = scb + (at & 127) + 12 * t;
            uint32_t        aux[4];
            for (int i = 0; i < 3; i++) {
                aux[i] = (uint32_t) r[4 * i] | (uint32_t) r[4 * i + 1] << 8 | (uint32_t) r[4 * i + 2] << 16 |
                         (uint32_t) r[4 * i + 3] << 24;
            }
            const uint32_t tmp = aux[2];
            aux[2]             = ((aux[0] >> 4) & 0x0f0f0f0f) | (((tmp >> 4) & 0x03030303) << 4);
            aux[3]             = ((aux[1] >> 4) & 0x0f0f0f0f) | (((tmp >> 6) & 0x03030303) << 4);
            aux[0]             = (aux[0] & 0x0f0f0f0f) | (((tmp >> 0) & 0x03030303) << 4);
            aux[1]             = (aux[1] & 0x0f0f0f0f) | (((tmp >> 2) & 0x03030303) << 4);
            for (int i = 0; i < 16; i++) {
                sc[t][i] = (int8_t) ((aux[i / 4] >> (8 * (i % 4))) & 0xff);
            }
        }
        const HVX_Vector v = hvx_vmem_load(qs + m);
        const HVX_Vector h = hvx_vmem_load(hms + m);
        for (uint32_t j = 0; j < 4; j++) {
            for (int l = 0; l < 32; l++) {
                const uint32_t t  = (uint32_t) l / 16;
                const uint32_t sb = sb0 + t;
                if (sb >= n_sb) {
                    es[l] = eo[l] = 0.0f;
                    continue;
                }
                es[l] = dd[sb & 63] * (float) (sc[t][mm_k4_sub(j, l)] - 32);
                eo[l] = 4.0f * es[l];
            }
            const HVX_Vector hb = Q6_V_vand_VV(Q6_V_vmux_QVV(up, Q6_Vuh_vlsr_VuhR(h, (int) (4 + j)),
                                                              Q6_Vuh_vlsr_VuhR(h, (int) j)), m1);
            hvx_vmem_store(q + j * n_lo + m,
                           Q6_V_vor_VV(Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(v, (int) (2 * j)), m2), Q6_Vh_vasl_VhR(hb, 2)));
            hvx_vmem_store(s + j * n_lo + m, mm_lanes(es));
            hvx_vmem_store(o + j * n_lo + m, mm_lanes(eo));
        }
    }
}

}  // namespace htp_ops
