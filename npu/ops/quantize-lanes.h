// What the row quantizers share (npu/ops/quantize-row.h: blocks of 32; npu/ops/quantize-kquants.h:
// the K-quants): the VTCM arrays of a dst row, byte gathering, and the lane-wise pieces of
// ggml's scalar quantizers (ggml/src/ggml-quants.c) that the K-quants run with one lane per
// sub-block. Every float operation there is one IEEE operation of the C code, in its order:
// HVX sf add / sub / mpy lane by lane; the divisions and square roots HVX lacks are scalar
// IEEE ones, lane by lane (a vector Newton quotient can be an ulp off, and the codes round it);
// comparisons through the order key of hvx-math.h on x + 0 (so -0 equals +0, as in C).
#pragma once
#include "hvx-math.h"
#include "quant-luts.h"
#include "row-stream.h"

namespace htp_ops {

// Pieces of W bytes (bytes 0 .. W - 1 of v) gathered in order into whole vectors: push moves
// the pieces so far down W bytes and puts the new one at the top; after the last piece of a
// vector (128 / W of them), or the row's last piece (i = n - 1), the vector goes to
// out[i / (128 / W)], its first piece at byte 0. W = 4 gathers per-block scalars (splatted),
// one lane per block.
template <int W> struct piece_collector {
    HVX_Vector acc;

    HTP_INLINE void push(HVX_Vector v, HVX_Vector * out, uint32_t i, uint32_t n) {
        constexpr uint32_t per = 128 / W;
        acc                    = Q6_V_valign_VVR(v, acc, W);
        if (i % per == per - 1 || i == n - 1) {
            hvx_vmem_store(&out[i / per], Q6_V_vror_VR(acc, (int32_t) (128 - W * (i % per + 1))));
        }
    }
};

// The low bytes of the 32 words of w in bytes 0..31.
HTP_INLINE HVX_Vector word_bytes(HVX_Vector w) {
    const HVX_Vector h = Q6_Vh_vpacke_VwVw(w, w);
    return Q6_Vb_vpacke_VhVh(h, h);
}

// The VTCM arrays of one dst row (htp_quant_row offsets from the row's start y).
struct quant_row_arrays {
    HVX_Vector *quants, *scales, *mins, *high, *dscr, *mscr;

    HTP_INLINE quant_row_arrays(HVX_Vector * y, const htp_quant_row & L)
        : quants(y + L.v_quants / 128),
          scales(y + L.v_scales / 128),
          mins(y + L.v_mins / 128),
          high(y + L.v_high / 128),
          dscr(y + L.v_dscratch / 128),
          mscr(y + L.v_mscratch / 128) {}
};

// a < b, a > b, a == b as C compares floats (NaN aside): -0 and +0 are equal.
HTP_INLINE HVX_VectorPred lt_sf(HVX_Vector a, HVX_Vector b) {
    const HVX_Vector z = Q6_V_vzero();
    return Q6_Q_vcmp_gt_VwVw(sf_key(Q6_Vsf_vadd_VsfVsf(b, z)), sf_key(Q6_Vsf_vadd_VsfVsf(a, z)));
}

HTP_INLINE HVX_VectorPred gt0_sf(HVX_Vector a) {  // a > 0: the key of -0 is -1
    return Q6_Q_vcmp_gt_VwVw(sf_key(a), Q6_V_vzero());
}

HTP_INLINE HVX_VectorPred eq_sf(HVX_Vector a, HVX_Vector b) {
    const HVX_Vector z = Q6_V_vzero();
    return Q6_Q_vcmp_eq_VwVw(Q6_Vsf_vadd_VsfVsf(a, z), Q6_Vsf_vadd_VsfVsf(b, z));
}

// ggml's nearest_int(v) lane by lane: v + 1.5 * 2^23 (rounded to nearest even), its low 23
// bits less 2^22 (|v| <= 2^22 - 1).
HTP_INLINE HVX_Vector nearest_int_sf(HVX_Vector v) {
    const HVX_Vector r = Q6_Vsf_vadd_VsfVsf(v, splat_f32(12582912.0f));
    return Q6_Vw_vsub_VwVw(Q6_V_vand_VV(r, Q6_V_vsplat_R(0x007fffff)), Q6_V_vsplat_R(0x00400000));
}

HTP_INLINE HVX_Vector clamp_w(HVX_Vector l, int32_t lo, int32_t hi) {
    return Q6_Vw_vmin_VwVw(Q6_Vw_vmax_VwVw(l, Q6_V_vsplat_R(lo)), Q6_V_vsplat_R(hi));
}

// n / d lane by lane, each a scalar IEEE division: both rotated down a lane a step, lane 0
// divided; the quotients gathered by valign, lane 0 first (32 pushes fill the vector).
HTP_INLINE HVX_Vector div_lanes(HVX_Vector n, HVX_Vector d) {
    HVX_Vector q = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t l = 0; l < 32; l++) {
        q = Q6_V_valign_VVR(splat_f32(lane0_f32(n) / lane0_f32(d)), q, 4);
        n = Q6_V_vror_VR(n, 4);
        d = Q6_V_vror_VR(d, 4);
    }
    return q;
}

// sqrtf lane by lane (sqrt_f32: correctly rounded, as sqrtf), as div_lanes.
HTP_INLINE HVX_Vector sqrt_lanes(HVX_Vector x) {
    HVX_Vector s = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t l = 0; l < 32; l++) {
        s = Q6_V_valign_VVR(splat_f32(sqrt_f32(lane0_f32(x))), s, 4);
        x = Q6_V_vror_VR(x, 4);
    }
    return s;
}

// The nearest of kvalues_iq4nl to al lane by lane, as ggml's best_index_int8 picks it (below
// the midpoint, as its float differences decide, the lower one): its code, and its value in q.
HTP_INLINE HVX_Vector iq4nl_nearest(HVX_Vector al, HVX_Vector & q) {
    const HVX_Vector kal = sf_key(al);
    // lo / hi: the values either side of al (hi = +inf past the last), l: lo's code.
    HVX_Vector lo = Q6_V_vsplat_R((int32_t) kIq4nlSearch.val[0]);
    HVX_Vector hi = Q6_V_vsplat_R((int32_t) kIq4nlSearch.val[1]);
    HVX_Vector l  = Q6_V_vzero();
    HTP_NO_UNROLL
    for (int32_t k = 1; k < 16; k++) {
        const HVX_VectorPred ge = Q6_Q_vcmp_gt_VwVw(kal, Q6_V_vsplat_R(kIq4nlSearch.key[k]));
        lo                      = Q6_V_vmux_QVV(ge, Q6_V_vsplat_R((int32_t) kIq4nlSearch.val[k]), lo);
        hi                      = Q6_V_vmux_QVV(ge, Q6_V_vsplat_R((int32_t) kIq4nlSearch.val[k + 1]), hi);
        l                       = Q6_V_vmux_QVV(ge, Q6_V_vsplat_R(k), l);
    }
    // x - lo < hi - x keeps lo, else hi (ties to hi).
    const HVX_VectorPred keep = sf_gt(Q6_Vsf_vsub_VsfVsf(hi, al), Q6_Vsf_vsub_VsfVsf(al, lo));
    q                         = Q6_V_vmux_QVV(keep, lo, hi);
    return Q6_V_vmux_QVV(keep, l, Q6_Vw_vadd_VwVw(l, Q6_V_vsplat_R(1)));
}

// The codes of the C casts (int8_t) / (uint8_t) of t for t in (-1, 2^22): floor(t), 0 for
// t < 0. t + 1.5 * 2^23 rounds t to an integer in the low mantissa bits; one less where that
// went up; the max with 0 covers (-1, 0).
HTP_INLINE HVX_Vector trunc_code(HVX_Vector t) {
    const HVX_Vector     magic = splat_f32(12582912.0f);
    const HVX_Vector     r     = Q6_Vsf_vadd_VsfVsf(t, magic);
    const HVX_Vector     n     = Q6_Vw_vsub_VwVw(r, magic);
    const HVX_VectorPred up    = Q6_Q_vcmp_gt_VwVw(Q6_Vsf_vsub_VsfVsf(r, magic), t);  // t >= 0: bits order as floats
    return Q6_Vw_vmax_VwVw(Q6_Vw_vsub_VwVw(n, Q6_V_vand_QR(up, 1)), Q6_V_vzero());
}

// ggml's ternary codes roundf(t) + 1 lane by lane (Q2_0, TQ1_0, TQ2_0: t = x * (1 / max |x|),
// within 1 + 2 ulp of [-1, 1], so roundf is -1 below -0.5, 1 from 0.5, else 0): 0, 1 or 2.
HTP_INLINE HVX_Vector ternary_codes(HVX_Vector t) {
    const HVX_Vector below_half = splat_f32(0.49999997f);  // t >= 0.5: t > the float below 0.5
    const HVX_Vector up         = Q6_V_vand_QR(sf_gt(t, below_half), -1);
    const HVX_Vector down = Q6_V_vand_QR(sf_gt(Q6_V_vxor_VV(t, Q6_V_vsplat_R((int32_t) 0x80000000)), below_half), -1);
    return Q6_Vw_vadd_VwVw(Q6_Vw_vsub_VwVw(Q6_V_vsplat_R(1), up), down);  // 1 + [t >= 0.5] - [t <= -0.5] (masks -1)
}

// A block's 32 codes (low 4 bits) as its 16 quant bytes in bytes 0..15 (byte j: code j |
// code j + 16 << 4).
HTP_INLINE HVX_Vector nibble_bytes(HVX_Vector c) {
    const HVX_Vector f = Q6_V_vsplat_R(0x0f);
    return word_bytes(Q6_V_vor_VV(Q6_V_vand_VV(c, f), Q6_Vw_vasl_VwR(Q6_V_vand_VV(Q6_V_vror_VR(c, 64), f), 4)));
}

}  // namespace htp_ops
