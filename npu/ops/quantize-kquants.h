// F32 rows quantized into the K-quants Q4_K, Q5_K, Q6_K (super-blocks of 256) as SET_ROWS and
// CPY write them, bit for bit ggml's quantize_row_*_ref (ggml/src/ggml-quants.c; checked by
// tests/kernels/test_npu_ops.cpp against ggml's own). A row goes 32 vectors (32 sub-blocks of
// 32, or 64 of 16: 4 super-blocks) at a time, a "group": transposed (npu/ops/transpose.h) so
// that a lane is a sub-block and row i its element i, the scale search runs on the lanes
// (npu/ops/quantize-search.h), the super-block step (6- or 8-bit sub-block scales, FP16 d) is
// scalar per super-block, the codes are redone with the rounded scales lane by lane,
// transposed back and packed. The group scratch lives at the row's v_dscratch (htp_quant_row):
// element rows, best codes, trial codes (32 vectors each) and a few vectors of lane values.
// Packed blocks go to three dense arrays that quant_row_store's DMAs join: the quants
// (128 bytes a super-block), the high bits (Q5_K 32, Q6_K 64 bytes) and the header bytes
// (Q4_K / Q5_K: d, dmin, 12 scale bytes; Q6_K: 16 scales and d at a 32-byte pitch), the last
// two written by unaligned stores (their arrays end with 128 bytes of slack).
#pragma once
#include "htp-repack/fp16.h"  // the FP16 roundings of d (GGML_FP32_TO_FP16, round to nearest even)
#include "quantize-search.h"
#include "transpose.h"

namespace htp_ops {

// Vectors of the group scratch (htp_quant_row v_dscratch; host/ops/encode-util.cpp sizes it).
static_assert(HTP_QUANT_ROW_KQ_SCRATCH == 101, "the scratch below: 3 x 32 rows and 5 lane vectors");
enum : uint32_t {
    kKqRows  = 0,   // element rows of the group's x
    kKqBest  = 32,  // best codes
    kKqAux   = 64,  // trial codes, then the final ones (transposed back: a row per 32 values)
    kKqLanes = 96,  // lane values: [0] scales (Q6_K even sub-blocks), [1] the mins (Q6_K odd
                    // sub-blocks' scales), [2] / [3] the rounded scales d (Q6_K even / odd),
                    // [2] / [3] mins dm (Q4_K / Q5_K), [4] weights' av (Q4_K / Q5_K), zero mask (Q6_K)
};

// ggml's nearest_int(f) (|f| <= 2^22 - 1).
HTP_INLINE int32_t nearest_int_f(float f) {
    const float v = f + 12582912.f;
    int32_t     i;
    __builtin_memcpy(&i, &v, 4);
    return (i & 0x007fffff) - 0x00400000;
}

HTP_INLINE HVX_Vector push_lane(HVX_Vector acc, float v) {  // 32 pushes: lane 0 first
    return Q6_V_valign_VVR(splat_f32(v), acc, 4);
}

HTP_INLINE HVX_Vector push_word(HVX_Vector acc, uint32_t w) {
    return Q6_V_valign_VVR(Q6_V_vsplat_R((int32_t) w), acc, 4);
}

// The group's 32 vectors of x (fewer at a row's end: the last one repeated, its lanes unused).
HTP_INLINE void kq_load_group(HVX_Vector * s, const HVX_Vector * x, uint32_t left) {
    HTP_NO_UNROLL
    for (uint32_t v = 0; v < 32; v++) {
        hvx_vmem_store(&s[v], hvx_vmem_load(&x[v < left ? v : left - 1]));
    }
}

// Q4_K / Q5_K weights: av = sqrtf(sum_x2 / 32), sum_x2 = sum x * x in element order.
static HTP_COMPUTE void compute_k32_weights(HVX_Vector * s) {
    HVX_Vector sum = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < 32; i++) {
        const HVX_Vector xi = hvx_vmem_load(&s[kKqRows + i]);
        sum                 = Q6_Vsf_vadd_VsfVsf(sum, Q6_Vsf_vmpy_VsfVsf(xi, xi));
    }
    hvx_vmem_store(&s[kKqLanes + 4], sqrt_lanes(Q6_Vsf_vmpy_VsfVsf(sum, splat_f32(0.03125f))));  // / 32: exact
}

// (uint8_t) nearest_int(inv * v), at most 63 (quantize_row_q4_K_ref's ls / lm).
HTP_INLINE uint32_t k_code6(float inv, float v) {
    const uint32_t u = (uint8_t) nearest_int_f(inv * v);
    return u < 63 ? u : 63;
}

// The super-block step of Q4_K / Q5_K for the group's super-blocks sb0 .. sb0 + 3 (lanes 8k ..
// 8k + 7): 6-bit scales and mins of the largest, FP16 d / dmin, the header (d, dmin, the 12
// packed scale bytes) at head + 16 sb, and each sub-block's d * sc, dmin * m into the lanes.
static HTP_COMPUTE void compute_k32_scales(HVX_Vector * m, uint8_t * head, uint32_t sb0, uint32_t nb) {
    const HVX_Vector S = hvx_vmem_load(&m[0]), M = hvx_vmem_load(&m[1]);
    HVX_Vector       dj = Q6_V_vzero(), dmj = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4; k++) {
        float max_scale = 0.0f, max_min = 0.0f;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < 8; j++) {
            const float sc = lane_f32(S, 8 * k + j), mi = lane_f32(M, 8 * k + j);
            max_scale      = sc > max_scale ? sc : max_scale;
            max_min        = mi > max_min ? mi : max_min;
        }
        const float    inv_s = max_scale > 0 ? 63.f / max_scale : 0.f;
        const float    inv_m = max_min > 0 ? 63.f / max_min : 0.f;
        const uint16_t d16 = htp_repack::fp32_to_fp16(max_scale / 63.f), m16 = htp_repack::fp32_to_fp16(max_min / 63.f);
        const float    df = htp_repack::fp16_to_fp32(d16), mf = htp_repack::fp16_to_fp32(m16);
        uint32_t       w1 = 0, w2 = 0, w3 = 0;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < 8; j++) {
            const uint32_t ls = k_code6(inv_s, lane_f32(S, 8 * k + j)), lm = k_code6(inv_m, lane_f32(M, 8 * k + j));
            dj                = push_lane(dj, df * (float) ls);
            dmj               = push_lane(dmj, mf * (float) lm);
            const uint32_t b  = 8 * (j & 3);
            if (j < 4) {
                w1 |= ls << b;
                w2 |= lm << b;
            } else {
                w1 |= (ls >> 4) << (b + 6);
                w2 |= (lm >> 4) << (b + 6);
                w3 |= ((ls & 0xF) | ((lm & 0xF) << 4)) << b;
            }
        }
        if (sb0 + k < nb) {
            const HVX_Vector h = push_word(push_word(push_word(push_word(Q6_V_vzero(), d16 | ((uint32_t) m16 << 16)), w1), w2), w3);
            hvx_vmemu_store(head + 16 * (sb0 + k), Q6_V_vror_VR(h, 112));
        }
    }
    hvx_vmem_store(&m[2], dj);
    hvx_vmem_store(&m[3], dmj);
}

// Q4_K / Q5_K codes with the rounded scales: clamp(nearest_int((x + dm) / d), 0, NMAX); where
// d = 0 the search's codes stay.
template <int NMAX> static HTP_COMPUTE void compute_k32_codes(HVX_Vector * s) {
    const HVX_Vector dj = hvx_vmem_load(&s[kKqLanes + 2]), dm = hvx_vmem_load(&s[kKqLanes + 3]);
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < 32; i++) {
        const HVX_Vector q = div_lanes(Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(&s[kKqRows + i]), dm), dj);
        const HVX_Vector l = clamp_w(nearest_int_sf(q), 0, NMAX);
        hvx_vmem_store(&s[kKqAux + i], Q6_V_vmux_QVV(eq_sf(dj, Q6_V_vzero()), hvx_vmem_load(&s[kKqBest + i]), l));
    }
}

// Q4_K / Q5_K quants of the group's super-blocks from their code rows c (8 a super-block):
// byte l of part p = code l of sub-block 2p | code l of sub-block 2p + 1 << 4; Q5_K's qh byte
// l: bit s = bit 4 of sub-block s's code l.
template <bool HIGH>
static HTP_COMPUTE void compute_k32_pack(const HVX_Vector * c, HVX_Vector * quants, uint8_t * high, uint32_t sb0,
                                         uint32_t nb) {
    const HVX_Vector lo4 = Q6_V_vsplat_R(0xF);
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4 && sb0 + k < nb; k++) {
        const HVX_Vector * r = c + 8 * k;
        HVX_Vector         q = Q6_V_vzero(), h = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t p = 0; p < 4; p++) {
            const HVX_Vector a = hvx_vmem_load(&r[2 * p]), b = hvx_vmem_load(&r[2 * p + 1]);
            q = Q6_V_valign_VVR(word_bytes(Q6_V_vor_VV(Q6_V_vand_VV(a, lo4), Q6_Vw_vasl_VwR(Q6_V_vand_VV(b, lo4), 4))), q, 32);
            if (HIGH) {
                h = Q6_V_vor_VV(h, Q6_Vw_vasl_VwR(Q6_Vuw_vlsr_VuwR(a, 4), (int32_t) (2 * p)));
                h = Q6_V_vor_VV(h, Q6_Vw_vasl_VwR(Q6_Vuw_vlsr_VuwR(b, 4), (int32_t) (2 * p + 1)));
            }
        }
        hvx_vmem_store(&quants[sb0 + k], q);
        if (HIGH) {
            hvx_vmemu_store(high + 32 * (sb0 + k), word_bytes(h));
        }
    }
}

// Q4_K (NMAX 15: make_qkx2_quants(32, 15, .., -1, 0.1, 20)) and Q5_K (31: -0.5, 0.1, 15).
template <int NMAX> struct kquant_k32 {
    static HTP_INLINE void group(const quant_row_arrays & a, uint32_t sb0, uint32_t nb) {
        HVX_Vector *      s = a.dscr;
        const qkx2_params p = NMAX == 15 ? qkx2_params{ 15, -1.0f, 0.1f, 20 } : qkx2_params{ 31, -0.5f, 0.1f, 15 };
        compute_k32_weights(s);
        compute_qkx2_lanes<false>(s + kKqRows, 32, s + kKqLanes + 4, p, s + kKqBest, s + kKqAux, s + kKqLanes);
        compute_k32_scales(s + kKqLanes, (uint8_t *) a.scales, sb0, nb);
        compute_k32_codes<NMAX>(s);
        compute_transpose_32x32(s + kKqAux, 1, s + kKqAux, 1);
        compute_k32_pack<NMAX == 31>(s + kKqAux, a.quants, (uint8_t *) a.high, sb0, nb);
    }
};

// The super-block step of Q6_K (quantize_row_q6_K_ref) for super-blocks sb0 .. sb0 + 3: the
// scale of largest magnitude (sub-blocks in order: 2j even lanes, 2j + 1 odd), 8-bit scales,
// FP16 d, the header (16 scales, d) at head + 32 sb, d * scale per sub-block into the lanes; a
// super-block whose scales are all below 1e-15 is all zero (the zero mask's lanes).
static HTP_COMPUTE void compute_q6_k_scales(HVX_Vector * m, uint8_t * head, uint32_t sb0, uint32_t nb) {
    const HVX_Vector SA = hvx_vmem_load(&m[0]), SB = hvx_vmem_load(&m[1]);
    HVX_Vector       da = Q6_V_vzero(), db = Q6_V_vzero(), zm = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4; k++) {
        float max_scale = 0.0f, max_abs = 0.0f;
        HTP_NO_UNROLL
        for (uint32_t ib = 0; ib < 16; ib++) {
            const float sc = lane_f32(ib & 1 ? SB : SA, 8 * k + ib / 2);
            if (__builtin_fabsf(sc) > max_abs) {
                max_abs   = __builtin_fabsf(sc);
                max_scale = sc;
            }
        }
        const bool     zero   = max_abs < 1e-15f || sb0 + k >= nb;
        const float    iscale = zero ? 0.0f : -128.f / max_scale;
        const uint16_t d16    = zero ? 0 : htp_repack::fp32_to_fp16(1 / iscale);
        const float    df     = htp_repack::fp16_to_fp32(d16);
        HVX_Vector     h      = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t w = 0; w < 4; w++) {
            uint32_t word = 0;
            HTP_NO_UNROLL
            for (uint32_t b = 0; b < 4; b++) {
                const uint32_t ib = 4 * w + b;
                const int32_t  n  = zero ? 0 : nearest_int_f(iscale * lane_f32(ib & 1 ? SB : SA, 8 * k + ib / 2));
                const int8_t   sc = (int8_t) (n < 127 ? n : 127);
                word |= (uint32_t) (uint8_t) sc << (8 * b);
                if (ib & 1) {
                    db = push_lane(db, df * (float) sc);
                } else {
                    da = push_lane(da, df * (float) sc);
                }
            }
            h = push_word(h, word);
        }
        for (uint32_t j = 0; j < 8; j++) {
            zm = push_word(zm, zero ? 0xffffffffu : 0u);
        }
        if (sb0 + k < nb) {
            hvx_vmemu_store(head + 32 * (sb0 + k), Q6_V_vror_VR(push_word(h, d16), 108));
        }
    }
    hvx_vmem_store(&m[2], da);
    hvx_vmem_store(&m[3], db);
    hvx_vmem_store(&m[4], zm);
}

// Q6_K codes with the rounded scales: clamp(nearest_int(x / d), -32, 31) + 32; where d = 0 the
// search's codes stay; a zero super-block's are 0. Rows 0..15: even sub-blocks, 16..31: odd.
static HTP_COMPUTE void compute_q6_k_codes(HVX_Vector * s) {
    const HVX_Vector keep = Q6_V_vnot_V(hvx_vmem_load(&s[kKqLanes + 4]));
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < 32; i++) {
        const HVX_Vector d = hvx_vmem_load(&s[kKqLanes + 2 + i / 16]);
        const HVX_Vector l = clamp_w(nearest_int_sf(div_lanes(hvx_vmem_load(&s[kKqRows + i]), d)), -32, 31);
        const HVX_Vector c = Q6_V_vmux_QVV(eq_sf(d, Q6_V_vzero()), hvx_vmem_load(&s[kKqBest + i]),
                                           Q6_Vw_vadd_VwVw(l, Q6_V_vsplat_R(32)));
        hvx_vmem_store(&s[kKqAux + i], Q6_V_vand_VV(c, keep));
    }
}

// Q6_K quants from the code rows c (8 a super-block, row r = values 32 r ..): per half h,
// ql = rows 4h | 4h + 2 << 4, then 4h + 1 | 4h + 3 << 4 (low nibbles); qh = the four rows'
// bits 4-5 at 0, 2, 4, 6.
static HTP_COMPUTE void compute_q6_k_pack(const HVX_Vector * c, HVX_Vector * quants, uint8_t * high, uint32_t sb0,
                                          uint32_t nb) {
    const HVX_Vector lo4 = Q6_V_vsplat_R(0xF);
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4 && sb0 + k < nb; k++) {
        HVX_Vector ql = Q6_V_vzero(), qh = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t h = 0; h < 2; h++) {
            const HVX_Vector * r  = c + 8 * k + 4 * h;
            const HVX_Vector   a0 = hvx_vmem_load(&r[0]), a1 = hvx_vmem_load(&r[1]);
            const HVX_Vector   a2 = hvx_vmem_load(&r[2]), a3 = hvx_vmem_load(&r[3]);
            ql = Q6_V_valign_VVR(word_bytes(Q6_V_vor_VV(Q6_V_vand_VV(a0, lo4), Q6_Vw_vasl_VwR(Q6_V_vand_VV(a2, lo4), 4))), ql, 32);
            ql = Q6_V_valign_VVR(word_bytes(Q6_V_vor_VV(Q6_V_vand_VV(a1, lo4), Q6_Vw_vasl_VwR(Q6_V_vand_VV(a3, lo4), 4))), ql, 32);
            const HVX_Vector b = Q6_V_vor_VV(
                Q6_V_vor_VV(Q6_Vuw_vlsr_VuwR(a0, 4), Q6_Vw_vasl_VwR(Q6_Vuw_vlsr_VuwR(a1, 4), 2)),
                Q6_V_vor_VV(Q6_Vw_vasl_VwR(Q6_Vuw_vlsr_VuwR(a2, 4), 4), Q6_Vw_vasl_VwR(Q6_Vuw_vlsr_VuwR(a3, 4), 6)));
            qh = Q6_V_valign_VVR(word_bytes(b), qh, 32);
        }
        hvx_vmem_store(&quants[sb0 + k], ql);
        hvx_vmemu_store(high + 64 * (sb0 + k), Q6_V_vror_VR(qh, 64));
    }
}

struct kquant_q6_k {
    static HTP_INLINE void group(const quant_row_arrays & a, uint32_t sb0, uint32_t nb) {
        HVX_Vector * s = a.dscr;
        compute_qx_lanes(s + kKqRows, 16, 32, s + kKqBest, s + kKqAux, s + kKqLanes);
        compute_qx_lanes(s + kKqRows + 16, 16, 32, s + kKqBest + 16, s + kKqAux + 16, s + kKqLanes + 1);
        compute_q6_k_scales(s + kKqLanes, (uint8_t *) a.scales, sb0, nb);
        compute_q6_k_codes(s);
        compute_transpose_32x32(s + kKqAux, 1, s + kKqAux, 1);
        compute_q6_k_pack(s + kKqAux, a.quants, (uint8_t *) a.high, sb0, nb);
    }
};

// A K-quant row of n_blocks super-blocks from F32 at x, a group (4 super-blocks) at a time.
template <class K> static HTP_COMPUTE void compute_kquant_row(const HVX_Vector * x, HVX_Vector * y, const htp_quant_row * L) {
    const quant_row_arrays a(y, *L);
    const uint32_t         nb = L->n_blocks, nv = 8 * nb;
    HTP_NO_UNROLL
    for (uint32_t g = 0; 32 * g < nv; g++) {
        kq_load_group(a.dscr, x + 32 * g, nv - 32 * g);
        compute_transpose_32x32(a.dscr + kKqRows, 1, a.dscr + kKqRows, 1);
        K::group(a, 4 * g, nb);
    }
}

}  // namespace htp_ops
