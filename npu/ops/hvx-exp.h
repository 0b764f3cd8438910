// Vectorised exp for sf lanes with IEEE sf add / mpy and integer ops only (HVX has no exp):
// n = round(x / ln 2) by the 1.5 * 2^23 trick, r = x - n ln 2 in two parts (Cody-Waite),
// exp(r) by Cephes' degree-6 polynomial (about 1 ulp on [-ln2 / 2, ln2 / 2]), times 2^n
// built in the exponent bits. Inputs below -87.33 (and -inf) give 0; above 88 saturate to
// exp(88). Also a float max through an order-preserving integer key (no sf vmax needed).
#pragma once
#include "hvx-util.h"

namespace htp_ops {

// Signed-integer key with the order of the floats (NaN aside); the map is its own inverse.
static inline HVX_Vector hvx_sf_order_key(HVX_Vector v) {
    return Q6_V_vxor_VV(v, Q6_V_vand_VV(Q6_Vw_vasr_VwR(v, 31), Q6_V_vsplat_R(0x7fffffff)));
}

static inline HVX_Vector hvx_max_sf(HVX_Vector a, HVX_Vector b) {
    return hvx_sf_order_key(Q6_Vw_vmax_VwVw(hvx_sf_order_key(a), hvx_sf_order_key(b)));
}

// Max of the 32 sf lanes, left in every lane.
static inline HVX_Vector hvx_reduce_max_sf(HVX_Vector v) {
    for (int shift = 64; shift >= 4; shift >>= 1) {
        v = hvx_max_sf(v, Q6_V_vror_VR(v, shift));
    }
    return v;
}

static inline HVX_Vector hvx_exp_sf(HVX_Vector x) {
    const HVX_Vector lo    = splat_f32(-87.33f);
    const HVX_Vector magic = splat_f32(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
    const HVX_VectorPred underflow = Q6_Q_vcmp_gt_VwVw(hvx_sf_order_key(lo), hvx_sf_order_key(x));
    x = hvx_sf_order_key(Q6_Vw_vmin_VwVw(hvx_sf_order_key(x), hvx_sf_order_key(splat_f32(88.0f))));
    x = hvx_max_sf(x, lo);

    const HVX_Vector t  = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(x, splat_f32(1.44269504088896341f)), magic);
    const HVX_Vector nf = Q6_Vsf_vsub_VsfVsf(t, magic);
    const HVX_Vector n  = Q6_Vw_vsub_VwVw(t, magic);  // integer n (bits of t minus bits of magic)
    HVX_Vector       r  = Q6_Vsf_vsub_VsfVsf(x, Q6_Vsf_vmpy_VsfVsf(nf, splat_f32(0.693359375f)));
    r                   = Q6_Vsf_vsub_VsfVsf(r, Q6_Vsf_vmpy_VsfVsf(nf, splat_f32(-2.12194440e-4f)));

    HVX_Vector p = splat_f32(1.9875691500e-4f);
    p            = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, r), splat_f32(1.3981999507e-3f));
    p            = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, r), splat_f32(8.3334519073e-3f));
    p            = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, r), splat_f32(4.1665795894e-2f));
    p            = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, r), splat_f32(1.6666665459e-1f));
    p            = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, r), splat_f32(5.0000001201e-1f));
    const HVX_Vector r2 = Q6_Vsf_vmpy_VsfVsf(r, r);
    HVX_Vector       y  = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, r2), r), splat_f32(1.0f));

    const HVX_Vector pow2n = Q6_Vw_vasl_VwR(Q6_Vw_vadd_VwVw(n, Q6_V_vsplat_R(127)), 23);  // n in [-126, 127]
    y                      = Q6_Vsf_vmpy_VsfVsf(y, pow2n);
    return Q6_V_vmux_QVV(underflow, Q6_V_vzero(), y);
}

}  // namespace htp_ops
