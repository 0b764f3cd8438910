// The super-block steps of the K-quant row quantizers (npu/ops/quantize-kquants.h), as
// ggml's quantize_row_q{2,3,4,5,6}_K_ref take them after the sub-blocks' scale searches: the
// sub-block scales (and mins) quantized against the super-block's largest, FP16 d (and dmin),
// the header bytes stored at head (unaligned: the array has 128 bytes of slack), and each
// sub-block's rounded scale (and min) into the lanes for the final codes. Scalar, per
// super-block of the group (sb0 .. sb0 + 3, lanes 8k .. 8k + 7); m: the lane vectors
// (kKqLanes: +0/+1 scales, +2/+3 mins in; +4/+5 d, +6/+7 dm, +9 zero mask out). Lanes are read
// by lane_f32 (hvx-util.h) and gathered by valign: kernels reach VTCM by HVX and DMA only, no
// scalar load or store (docs/vhtp.md "VTCM check").
#pragma once
#include "htp-repack/fp16.h"  // the FP16 roundings of d (GGML_FP32_TO_FP16, round to nearest even)
#include "quantize-lanes.h"

namespace htp_ops {

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

// Sub-block ib's value of a super-block of 16 sub-blocks: lane 8k + ib / 2 of a (even) or b.
HTP_INLINE float sub16(HVX_Vector a, HVX_Vector b, uint32_t k, uint32_t ib) {
    return lane_f32(ib & 1 ? b : a, 8 * k + ib / 2);
}

HTP_INLINE uint16_t f16_of(float f) {
    return htp_repack::fp32_to_fp16(f);
}

HTP_INLINE float f32_of(uint16_t h) {
    return htp_repack::fp16_to_fp32(h);
}

// (uint8_t) nearest_int(inv * v), at most 63 (quantize_row_q4_K_ref's ls / lm).
HTP_INLINE uint32_t k_code6(float inv, float v) {
    const uint32_t u = (uint8_t) nearest_int_f(inv * v);
    return u < 63 ? u : 63;
}

// Q4_K / Q5_K: 6-bit scales and mins against the largest of each, FP16 d / dmin; the header
// (d, dmin, the 12 packed scale bytes) at head + 16 sb.
static HTP_COMPUTE void compute_k32_scales(HVX_Vector * m, uint8_t * head, uint32_t sb0, uint32_t nb) {
    const HVX_Vector S = hvx_vmem_load(&m[0]), M = hvx_vmem_load(&m[2]);
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
        const uint16_t d16 = f16_of(max_scale / 63.f), m16 = f16_of(max_min / 63.f);
        const float    df = f32_of(d16), mf = f32_of(m16);
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
    hvx_vmem_store(&m[4], dj);
    hvx_vmem_store(&m[6], dmj);
    hvx_vmem_store(&m[9], Q6_V_vzero());
}

// Q6_K: the scale of largest magnitude (the first), 8-bit scales, FP16 d; the header (16
// scales, d) at head + 32 sb; a super-block whose scales are all below 1e-15 is all zero (the
// zero mask's lanes).
static HTP_COMPUTE void compute_q6_k_scales(HVX_Vector * m, uint8_t * head, uint32_t sb0, uint32_t nb) {
    const HVX_Vector SA = hvx_vmem_load(&m[0]), SB = hvx_vmem_load(&m[1]);
    HVX_Vector       da = Q6_V_vzero(), db = Q6_V_vzero(), zm = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4; k++) {
        float max_scale = 0.0f, max_abs = 0.0f;
        HTP_NO_UNROLL
        for (uint32_t ib = 0; ib < 16; ib++) {
            const float sc = sub16(SA, SB, k, ib);
            if (__builtin_fabsf(sc) > max_abs) {
                max_abs   = __builtin_fabsf(sc);
                max_scale = sc;
            }
        }
        const bool     valid  = sb0 + k < nb;
        const bool     zero   = max_abs < 1e-15f || !valid;
        const float    iscale = zero ? 0.0f : -128.f / max_scale;  // 0: every scale 0 (finite lanes)
        const uint16_t d16    = zero ? 0 : f16_of(1 / iscale);
        const float    df     = f32_of(d16);
        HVX_Vector     h      = Q6_V_vzero();
        uint32_t       word   = 0;
        HTP_NO_UNROLL
        for (uint32_t ib = 0; ib < 16; ib++) {
            const int32_t n  = nearest_int_f(iscale * sub16(SA, SB, k, ib));
            const int8_t  sc = (int8_t) (n < 127 ? n : 127);
            word |= (uint32_t) (uint8_t) sc << (8 * (ib & 3));
            if (ib & 1) {
                db = push_lane(db, df * (float) sc);
            } else {
                da = push_lane(da, df * (float) sc);
            }
            if ((ib & 3) == 3) {
                h    = push_word(h, word);
                word = 0;
            }
        }
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < 8; j++) {
            zm = push_word(zm, zero ? 0xffffffffu : 0u);
        }
        if (valid) {
            hvx_vmemu_store(head + 32 * (sb0 + k), Q6_V_vror_VR(push_word(h, d16), 108));
        }
    }
    hvx_vmem_store(&m[4], da);
    hvx_vmem_store(&m[5], db);
    hvx_vmem_store(&m[9], zm);
}

// Q2_K: 4-bit scales (low nibbles) and mins (high) against the largest of each, FP16 d and
// dmin; the header (16 scale bytes, d, dmin) at head + 32 sb.
static HTP_COMPUTE void compute_q2_k_scales(HVX_Vector * m, uint8_t * head, uint32_t sb0, uint32_t nb) {
    const HVX_Vector SA = hvx_vmem_load(&m[0]), SB = hvx_vmem_load(&m[1]);
    const HVX_Vector MA = hvx_vmem_load(&m[2]), MB = hvx_vmem_load(&m[3]);
    HVX_Vector       da = Q6_V_vzero(), db = Q6_V_vzero(), dma = Q6_V_vzero(), dmb = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4; k++) {
        float max_scale = 0.0f, max_min = 0.0f;
        HTP_NO_UNROLL
        for (uint32_t ib = 0; ib < 16; ib++) {
            const float sc = sub16(SA, SB, k, ib), mi = sub16(MA, MB, k, ib);
            max_scale      = sc > max_scale ? sc : max_scale;
            max_min        = mi > max_min ? mi : max_min;
        }
        const float    inv_s = max_scale > 0 ? 15.f / max_scale : 0.f;
        const float    inv_m = max_min > 0 ? 15.f / max_min : 0.f;
        const uint16_t d16   = max_scale > 0 ? f16_of(max_scale / 15.f) : 0;
        const uint16_t m16   = max_min > 0 ? f16_of(max_min / 15.f) : 0;
        const float    df = f32_of(d16), mf = f32_of(m16);
        HVX_Vector     h  = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t w = 0; w < 4; w++) {
            uint32_t word = 0;
            HTP_NO_UNROLL
            for (uint32_t b = 0; b < 4; b++) {
                const uint32_t ib = 4 * w + b;
                uint32_t       sc = max_scale > 0 ? (uint8_t) nearest_int_f(inv_s * sub16(SA, SB, k, ib)) : 0;
                if (max_min > 0) {
                    sc = (uint8_t) (sc | (uint32_t) (nearest_int_f(inv_m * sub16(MA, MB, k, ib)) << 4));
                }
                word |= sc << (8 * b);
                const float dj = df * (float) (sc & 0xF), dm = mf * (float) (sc >> 4);
                if (ib & 1) {
                    db  = push_lane(db, dj);
                    dmb = push_lane(dmb, dm);
                } else {
                    da  = push_lane(da, dj);
                    dma = push_lane(dma, dm);
                }
            }
            h = push_word(h, word);
        }
        if (sb0 + k < nb) {
            hvx_vmemu_store(head + 32 * (sb0 + k), Q6_V_vror_VR(push_word(h, d16 | ((uint32_t) m16 << 16)), 108));
        }
    }
    hvx_vmem_store(&m[4], da);
    hvx_vmem_store(&m[5], db);
    hvx_vmem_store(&m[6], dma);
    hvx_vmem_store(&m[7], dmb);
    hvx_vmem_store(&m[9], Q6_V_vzero());
}

// Q3_K: the scale of largest magnitude (the first), 6-bit scales (biased by 32) in
// quantize_row_q3_K_ref's 12-byte layout (low nibbles of 0..7 in bytes 0..7, of 8..15 in their
// high nibbles, the top two bits of j in byte 8 + j % 4 at bit 2 (j / 4)), FP16 d; the
// header (12 bytes, d) at head + 16 sb. No scale at all: scales 0 (each d = 0 * -32).
static HTP_COMPUTE void compute_q3_k_scales(HVX_Vector * m, uint8_t * head, uint32_t sb0, uint32_t nb) {
    const HVX_Vector SA = hvx_vmem_load(&m[0]), SB = hvx_vmem_load(&m[1]);
    HVX_Vector       da = Q6_V_vzero(), db = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4; k++) {
        float max_scale = 0.0f, amax = 0.0f;
        HTP_NO_UNROLL
        for (uint32_t ib = 0; ib < 16; ib++) {
            const float sc = sub16(SA, SB, k, ib);
            if (__builtin_fabsf(sc) > amax) {
                amax      = __builtin_fabsf(sc);
                max_scale = sc;
            }
        }
        const bool     any    = max_scale != 0.0f;
        const float    iscale = any ? -32.f / max_scale : 0.0f;
        const uint16_t d16    = any ? f16_of(1 / iscale) : 0;
        const float    df     = f32_of(d16);
        uint32_t       w0 = 0, w1 = 0, w2 = 0;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < 16; j++) {
            int32_t l = 0;  // the biased 6-bit scale
            if (any) {
                l = (int8_t) nearest_int_f(iscale * sub16(SA, SB, k, j));
                l = (l < -32 ? -32 : l > 31 ? 31 : l) + 32;
            }
            const uint32_t lo = ((uint32_t) l & 0xF) << (8 * (j & 3) + (j >= 8 ? 4 : 0));
            w0 |= (j & 4) ? 0 : lo;
            w1 |= (j & 4) ? lo : 0;
            w2 |= ((uint32_t) l >> 4) << (8 * (j & 3) + 2 * (j / 4));
            const float dj = df * (float) (l - 32);
            if (j & 1) {
                db = push_lane(db, dj);
            } else {
                da = push_lane(da, dj);
            }
        }
        if (sb0 + k < nb) {
            const HVX_Vector h = push_word(push_word(push_word(push_word(Q6_V_vzero(), w0), w1), w2), d16);
            hvx_vmemu_store(head + 16 * (sb0 + k), Q6_V_vror_VR(h, 112));
        }
    }
    hvx_vmem_store(&m[4], da);
    hvx_vmem_store(&m[5], db);
    hvx_vmem_store(&m[9], Q6_V_vzero());
}

// IQ4_XS: the scale of largest magnitude (the first), d = -max / 32 (not rounded for the
// codes, FP16 in the block), 6-bit scales biased by 32 (low nibbles two a byte, top bits two
// a sub-block in a 16-bit word), each sub-block's 1 / (d l) (0 for l = 0) into the lanes; the
// header (d, scales_h, scales_l) at head + 8 sb.
static HTP_COMPUTE void compute_iq4_xs_scales(HVX_Vector * m, uint8_t * head, uint32_t sb0, uint32_t nb) {
    const HVX_Vector S   = hvx_vmem_load(&m[0]);
    HVX_Vector       idl = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4; k++) {
        float max_scale = 0.0f, amax = 0.0f;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < 8; j++) {
            const float sc = lane_f32(S, 8 * k + j);
            if (__builtin_fabsf(sc) > amax) {
                amax      = __builtin_fabsf(sc);
                max_scale = sc;
            }
        }
        const float d  = -max_scale / 32;
        const float id = d != 0.0f ? 1 / d : 0.0f;
        uint32_t    lo = 0, hi = 0;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < 8; j++) {
            int32_t l = nearest_int_f(id * lane_f32(S, 8 * k + j));
            l         = l < -32 ? -32 : l > 31 ? 31 : l;
            const float dl = d * (float) l;
            idl            = push_lane(idl, dl != 0.0f ? 1 / dl : 0.0f);
            lo |= (uint32_t) ((l + 32) & 0xF) << (4 * j);
            hi |= (uint32_t) ((l + 32) >> 4) << (2 * j);
        }
        if (sb0 + k < nb) {
            const HVX_Vector h = push_word(push_word(Q6_V_vzero(), f16_of(d) | (hi << 16)), lo);
            hvx_vmemu_store(head + 8 * (sb0 + k), Q6_V_vror_VR(h, 120));
        }
    }
    hvx_vmem_store(&m[4], idl);
}

}  // namespace htp_ops
