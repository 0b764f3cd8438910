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
    return *(const HVX_Vector *) e;
}

// Quantizes one F32 activation row (k_vecs * 4 vectors, zero past K) into q/s/x parts.
static inline void mm_quantize_act_row(HVX_Vector * q, HVX_Vector * s, HVX_Vector * x, const HVX_Vector * src,
                                       uint32_t k_vecs) {
    const HVX_Vector abs_mask = Q6_V_vsplat_R(0x7fffffff);
    const HVX_Vector ones     = Q6_V_vsplat_R(0x01010101);
    for (uint32_t g = 0; g < k_vecs; g++) {
        HVX_Vector qi[4];
        float      d[4];
        for (int b = 0; b < 4; b++) {
            const HVX_Vector v = src[4 * g + b];
            HVX_Vector       m = Q6_V_vand_VV(v, abs_mask);  // |v| bits order like ints
            for (int sh = 64; sh >= 4; sh >>= 1) {
                m = Q6_Vw_vmax_VwVw(m, Q6_V_vror_VR(m, sh));
            }
            const float amax = lane0_f32(m);
            d[b]             = amax / 127.0f;
            const float id   = amax > 0.0f ? 127.0f / amax : 0.0f;
            qi[b]            = mm_sf_to_int(Q6_Vsf_vmpy_VsfVsf(v, splat_f32(id)));
        }
        const HVX_Vector h01 = Q6_Vh_vpacke_VwVw(qi[1], qi[0]);
        const HVX_Vector h23 = Q6_Vh_vpacke_VwVw(qi[3], qi[2]);
        q[g]                 = Q6_Vb_vpacke_VhVh(h23, h01);
        s[g]                 = mm_lanes_from_blocks32(d);
        x[g]                 = Q6_Vsf_vmpy_VsfVsf(mm_int_to_sf(Q6_Vw_vrmpy_VbVb(q[g], ones)), s[g]);
    }
}

// Copies an F32 row of n_vec vectors, zeroing lanes past `tail_lanes` of the last (0: full).
static inline void mm_copy_f32_row(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_vec, uint32_t tail_lanes) {
    copy_vectors(dst, src, n_vec);
    if (tail_lanes) {
        dst[n_vec - 1] = Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (4 * tail_lanes)), dst[n_vec - 1], Q6_V_vzero());
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
        q[g] = quants[g];
        s[g] = mm_lanes_from_blocks32(d4);
        o[g] = Q6_V_vzero();
    }
}

}  // namespace htp_ops
