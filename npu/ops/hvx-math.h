// Vectorised sf math on HVX with IEEE sf add / sub / mpy and integer ops only (HVX has no
// divide, sqrt, exp or log): float min / max / compare through an order-preserving integer
// key (no sf vmax needed), reciprocal and division by Newton steps, exp by range reduction
// to 2^n * p(r), log by exponent split and a polynomial, sqrt from a Newton reciprocal
// square root, and the activations built on them. Polynomials are Cephes'. Every kernel
// that needs one of these (softmax, flash attention, unary ops, ...) uses this one copy.
#pragma once
#include "hvx-util.h"

namespace htp_ops {

static inline HVX_Vector splat_i32(uint32_t x) {
    return Q6_V_vsplat_R((int32_t) x);
}

// Signed-integer key with the order of the floats (except NaN): flip the magnitude bits of
// negatives. The map is its own inverse.
static inline HVX_Vector sf_key(HVX_Vector v) {
    return Q6_V_vxor_VV(v, Q6_V_vand_VV(Q6_Vw_vasr_VwR(v, 31), splat_i32(0x7fffffff)));
}

static inline HVX_Vector sf_min(HVX_Vector a, HVX_Vector b) {
    return sf_key(Q6_Vw_vmin_VwVw(sf_key(a), sf_key(b)));
}

static inline HVX_Vector sf_max(HVX_Vector a, HVX_Vector b) {
    return sf_key(Q6_Vw_vmax_VwVw(sf_key(a), sf_key(b)));
}

// Max of the 32 sf lanes, left in every lane (rotate-and-max tree).
static inline HVX_Vector reduce_max_sf(HVX_Vector v) {
    for (int shift = 64; shift >= 4; shift >>= 1) {
        v = sf_max(v, Q6_V_vror_VR(v, shift));
    }
    return v;
}

// a > b as floats (false when either is NaN is NOT guaranteed; callers mask NaN themselves).
static inline HVX_VectorPred sf_gt(HVX_Vector a, HVX_Vector b) {
    return Q6_Q_vcmp_gt_VwVw(sf_key(a), sf_key(b));
}

static inline HVX_Vector sf_abs(HVX_Vector v) {
    return Q6_V_vand_VV(v, splat_i32(0x7fffffff));
}

static inline HVX_VectorPred sf_isnan(HVX_Vector v) {
    return Q6_Q_vcmp_gt_VwVw(sf_abs(v), splat_i32(0x7f800000));
}

// 1/d for normal |d| in [2^-126, 2^126); div_sf scales other d into that range first.
static inline HVX_Vector recip_sf(HVX_Vector d) {
    const HVX_Vector sign = Q6_V_vand_VV(d, splat_i32(0x80000000));
    const HVX_Vector a    = Q6_V_vxor_VV(d, sign);                               // |d|
    HVX_Vector       x    = Q6_Vw_vsub_VwVw(splat_i32(0x7ef311c3), a);           // ~1/|d|, 12% error
    const HVX_Vector two  = splat_f32(2.0f);
    for (int it = 0; it < 3; it++) {  // error 0.12 -> 1.5e-2 -> 2e-4 -> 5e-8
        x = Q6_Vsf_vmpy_VsfVsf(x, Q6_Vsf_vsub_VsfVsf(two, Q6_Vsf_vmpy_VsfVsf(a, x)));
    }
    return Q6_V_vor_VV(x, sign);
}

// n / d to ~1 ulp with IEEE results for zero, infinite, NaN and extreme d.
static inline HVX_Vector div_sf(HVX_Vector n, HVX_Vector d) {
    const HVX_Vector abs_mask = splat_i32(0x7fffffff);
    const HVX_Vector inf      = splat_i32(0x7f800000);
    const HVX_Vector zero     = Q6_V_vzero();
    const HVX_Vector sign_d   = Q6_V_vand_VV(d, splat_i32(0x80000000));
    const HVX_Vector ad       = Q6_V_vand_VV(d, abs_mask);

    // |d| >= 2^126 (1/d subnormal) or 0 < |d| < 2^-126 (1/d overflows the estimate): divide
    // n * s by d * s instead, s = 2^-32 or 2^32 (exact power-of-two scalings).
    const HVX_VectorPred d_big   = Q6_Q_vcmp_gt_VwVw(ad, splat_i32(0x7e7fffff));
    const HVX_VectorPred d_zero  = Q6_Q_vcmp_eq_VwVw(ad, zero);
    const HVX_VectorPred d_small = Q6_Q_and_QQ(Q6_Q_vcmp_gt_VwVw(splat_i32(0x00800000), ad), Q6_Q_not_Q(d_zero));
    const HVX_VectorPred scaled  = Q6_Q_or_QQ(d_big, d_small);
    const HVX_Vector     s       = Q6_V_vmux_QVV(d_big, splat_f32(2.3283064e-10f), splat_f32(4294967296.0f));
    const HVX_Vector     dd      = Q6_V_vmux_QVV(scaled, Q6_Vsf_vmpy_VsfVsf(d, s), d);
    const HVX_Vector     nn      = Q6_V_vmux_QVV(scaled, Q6_Vsf_vmpy_VsfVsf(n, s), n);

    const HVX_Vector x  = recip_sf(dd);
    const HVX_Vector q  = Q6_Vsf_vmpy_VsfVsf(nn, x);
    const HVX_Vector r  = Q6_Vsf_vsub_VsfVsf(nn, Q6_Vsf_vmpy_VsfVsf(dd, q));  // residual nn - dd*q
    const HVX_Vector qc = Q6_Vsf_vadd_VsfVsf(q, Q6_Vsf_vmpy_VsfVsf(r, x));

    // Keep q where the correction cannot help: q = +-0 (keeps the sign), inf or NaN.
    const HVX_Vector     aq     = Q6_V_vand_VV(q, abs_mask);
    const HVX_VectorPred keep_q = Q6_Q_or_QQ(Q6_Q_vcmp_gt_VwVw(aq, splat_i32(0x7f7fffff)), Q6_Q_vcmp_eq_VwVw(aq, zero));
    HVX_Vector           res    = Q6_V_vmux_QVV(keep_q, q, qc);
    // d = +-inf: n * (+-0); d = +-0: n * (+-inf); d = NaN: NaN.
    res = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(ad, inf), Q6_Vsf_vmpy_VsfVsf(n, sign_d), res);
    res = Q6_V_vmux_QVV(d_zero, Q6_Vsf_vmpy_VsfVsf(n, Q6_V_vor_VV(inf, sign_d)), res);
    res = Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VwVw(ad, inf), d, res);
    return res;
}

// n / d as div_sf(n, d) gives it, for a d whose every lane is normal with 2^-126 <= |d| <
// 2^126 (none of div_sf's scalings or special cases apply) and x = recip_sf(d) made once:
// with a constant divisor (HARDSIGMOID's 6) the loop keeps 3 vectors, not div_sf's dozen.
static inline HVX_Vector div_sf_normal(HVX_Vector n, HVX_Vector d, HVX_Vector x) {
    const HVX_Vector     q      = Q6_Vsf_vmpy_VsfVsf(n, x);
    const HVX_Vector     r      = Q6_Vsf_vsub_VsfVsf(n, Q6_Vsf_vmpy_VsfVsf(d, q));  // residual n - d*q
    const HVX_Vector     qc     = Q6_Vsf_vadd_VsfVsf(q, Q6_Vsf_vmpy_VsfVsf(r, x));
    const HVX_Vector     aq     = Q6_V_vand_VV(q, splat_i32(0x7fffffff));
    const HVX_VectorPred keep_q = Q6_Q_or_QQ(Q6_Q_vcmp_gt_VwVw(aq, splat_i32(0x7f7fffff)), Q6_Q_vcmp_eq_VwVw(aq, Q6_V_vzero()));
    return Q6_V_vmux_QVV(keep_q, q, qc);
}

// Integer lanes n (|n| < 2^22) as floats: 1.5 * 2^23 + n has n in its low mantissa bits.
static inline HVX_Vector int_to_sf_small(HVX_Vector n) {
    const HVX_Vector t = Q6_Vw_vadd_VwVw(n, splat_i32(0x4b400000));
    return Q6_Vsf_vsub_VsfVsf(t, splat_f32(12582912.0f));
}

// e^x, ~2 ulp: n = round(x / ln 2) by the 1.5 * 2^23 trick, r = x - n ln 2 in two parts
// (Cody-Waite), e^r by Cephes' degree-6 polynomial, times 2^n built in the exponent bits.
// x is clamped to [-104, 89] (results 0 / subnormal and +inf beyond: -inf gives 0, as
// softmax needs for masked lanes) and NaN stays NaN. The scale 2^n is applied as two halves
// so subnormal and overflowing results round correctly.
static inline HVX_Vector exp_sf(HVX_Vector x) {
    const HVX_Vector xc    = sf_max(sf_min(x, splat_f32(89.0f)), splat_f32(-104.0f));
    const HVX_Vector magic = splat_f32(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
    const HVX_Vector t     = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(xc, splat_f32(1.44269504088896341f)), magic);
    const HVX_Vector n     = Q6_Vw_vsub_VwVw(t, splat_i32(0x4b400000));      // integer lanes
    const HVX_Vector nf    = Q6_Vsf_vsub_VsfVsf(t, magic);
    HVX_Vector       r     = Q6_Vsf_vsub_VsfVsf(xc, Q6_Vsf_vmpy_VsfVsf(nf, splat_f32(0.693359375f)));
    r                      = Q6_Vsf_vsub_VsfVsf(r, Q6_Vsf_vmpy_VsfVsf(nf, splat_f32(-2.12194440e-4f)));

    HVX_Vector p = splat_f32(1.9875691500e-4f);
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, r), splat_f32(1.3981999507e-3f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, r), splat_f32(8.3334519073e-3f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, r), splat_f32(4.1665795894e-2f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, r), splat_f32(1.6666665459e-1f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, r), splat_f32(5.0000001201e-1f));
    p = Q6_Vsf_vmpy_VsfVsf(p, Q6_Vsf_vmpy_VsfVsf(r, r));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vadd_VsfVsf(p, r), splat_f32(1.0f));

    const HVX_Vector n1 = Q6_Vw_vasr_VwR(n, 1);  // n in [-151, 129]: both halves are normal exponents
    const HVX_Vector n2 = Q6_Vw_vsub_VwVw(n, n1);
    const HVX_Vector s1 = Q6_Vw_vasl_VwR(Q6_Vw_vadd_VwVw(n1, splat_i32(127)), 23);
    const HVX_Vector s2 = Q6_Vw_vasl_VwR(Q6_Vw_vadd_VwVw(n2, splat_i32(127)), 23);
    const HVX_Vector y  = Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, s1), s2);
    return Q6_V_vmux_QVV(sf_isnan(x), x, y);
}

// e^x - 1: a Taylor polynomial for |x| < 0.35 (no cancellation near 0), else exp_sf(x) - 1.
static inline HVX_Vector expm1_sf(HVX_Vector x) {
    HVX_Vector p = splat_f32(1.0f / 5040.0f);
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, x), splat_f32(1.0f / 720.0f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, x), splat_f32(1.0f / 120.0f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, x), splat_f32(1.0f / 24.0f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, x), splat_f32(1.0f / 6.0f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, x), splat_f32(0.5f));
    const HVX_Vector small = Q6_Vsf_vadd_VsfVsf(x, Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(x, x), p));
    const HVX_Vector big   = Q6_Vsf_vsub_VsfVsf(exp_sf(x), splat_f32(1.0f));
    const HVX_Vector y     = Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VwVw(splat_i32(0x3eb33333), sf_abs(x)), small, big);
    return Q6_V_vmux_QVV(sf_isnan(x), x, y);
}

// ln x, ~2 ulp: x = 2^e * m with m in [sqrt(1/2), sqrt(2)), ln m by a polynomial in m - 1.
// x < 0 or NaN: NaN; +-0: -inf; +inf: +inf; subnormals are scaled by 2^25 first.
// log_sf's core for a positive normal xs and e = its biased exponent - 126 (minus 25 when
// log_sf scaled a subnormal by 2^25): ln before log_sf's special cases.
static inline HVX_Vector log_sf_core(HVX_Vector xs, HVX_Vector e) {
    HVX_Vector           m   = Q6_V_vor_VV(Q6_V_vand_VV(xs, splat_i32(0x007fffff)), splat_i32(0x3f000000));
    const HVX_VectorPred lo  = Q6_Q_vcmp_gt_VwVw(splat_i32(0x3f3504f3), m);  // m < sqrt(1/2)
    e                        = Q6_V_vmux_QVV(lo, Q6_Vw_vsub_VwVw(e, splat_i32(1)), e);
    m                        = Q6_V_vmux_QVV(lo, Q6_Vsf_vadd_VsfVsf(m, m), m);
    const HVX_Vector f       = Q6_Vsf_vsub_VsfVsf(m, splat_f32(1.0f));
    const HVX_Vector ef      = int_to_sf_small(e);

    const HVX_Vector z = Q6_Vsf_vmpy_VsfVsf(f, f);
    HVX_Vector       p = splat_f32(7.0376836292e-2f);
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, f), splat_f32(-1.1514610310e-1f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, f), splat_f32(1.1676998740e-1f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, f), splat_f32(-1.2420140846e-1f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, f), splat_f32(1.4249322787e-1f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, f), splat_f32(-1.6668057665e-1f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, f), splat_f32(2.0000714765e-1f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, f), splat_f32(-2.4999993993e-1f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, f), splat_f32(3.3333331174e-1f));
    HVX_Vector y = Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, f), z);
    y = Q6_Vsf_vadd_VsfVsf(y, Q6_Vsf_vmpy_VsfVsf(ef, splat_f32(-2.12194440e-4f)));
    y = Q6_Vsf_vsub_VsfVsf(y, Q6_Vsf_vmpy_VsfVsf(z, splat_f32(0.5f)));
    y = Q6_Vsf_vadd_VsfVsf(f, y);
    return Q6_Vsf_vadd_VsfVsf(y, Q6_Vsf_vmpy_VsfVsf(ef, splat_f32(0.693359375f)));
}

static inline HVX_Vector log_sf(HVX_Vector x) {
    const HVX_VectorPred sub = Q6_Q_vcmp_gt_VwVw(splat_i32(0x00800000), x);  // also 0 and negatives
    const HVX_Vector     xs  = Q6_V_vmux_QVV(sub, Q6_Vsf_vmpy_VsfVsf(x, splat_f32(33554432.0f)), x);
    HVX_Vector           e   = Q6_Vw_vsub_VwVw(Q6_Vw_vasr_VwR(xs, 23), splat_i32(126));  // m in [0.5, 1)
    e                        = Q6_V_vmux_QVV(sub, Q6_Vw_vsub_VwVw(e, splat_i32(25)), e);
    HVX_Vector       y  = log_sf_core(xs, e);
    const HVX_Vector ax = sf_abs(x);
    y = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(x, splat_i32(0x7f800000)), x, y);                   // +inf
    y = Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VwVw(Q6_V_vzero(), x), splat_i32(0x7fc00000), y);        // x < 0 (sign set)
    y = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(ax, Q6_V_vzero()), splat_i32(0xff800000), y);       // +-0
    return Q6_V_vmux_QVV(sf_isnan(x), x, y);
}

// log_sf(x) for lanes that are normal, positive and finite, or NaN (SOFTPLUS's 1 + e^x): the
// same result without the subnormal scaling and the 0 / negative / +inf cases, which need
// constants a loop may not have registers for.
static inline HVX_Vector log_sf_normal(HVX_Vector x) {
    const HVX_Vector e = Q6_Vw_vsub_VwVw(Q6_Vw_vasr_VwR(x, 23), splat_i32(126));
    return Q6_V_vmux_QVV(sf_isnan(x), x, log_sf_core(x, e));
}

// sqrt x, ~1 ulp: y ~ 1/sqrt(x) by Newton steps, s = x * y, then one residual correction.
// Large and tiny x are scaled by 2^-24 / 2^24 (result by 2^12 / 2^-12) to stay in range.
static inline HVX_Vector sqrt_sf(HVX_Vector x) {
    const HVX_VectorPred big  = Q6_Q_vcmp_gt_VwVw(x, splat_i32(0x7e800000));  // x > 2^126 (and +inf, +NaN)
    const HVX_VectorPred tiny = Q6_Q_vcmp_gt_VwVw(splat_i32(0x00800000), x);  // x < 2^-126 (and x <= 0)
    HVX_Vector           xs   = Q6_V_vmux_QVV(big, Q6_Vsf_vmpy_VsfVsf(x, splat_f32(5.9604645e-8f)), x);
    xs                        = Q6_V_vmux_QVV(tiny, Q6_Vsf_vmpy_VsfVsf(x, splat_f32(16777216.0f)), xs);
    HVX_Vector       y  = Q6_Vw_vsub_VwVw(splat_i32(0x5f3759df), Q6_Vw_vasr_VwR(xs, 1));
    const HVX_Vector hx = Q6_Vsf_vmpy_VsfVsf(xs, splat_f32(0.5f));
    for (int it = 0; it < 3; it++) {
        y = Q6_Vsf_vmpy_VsfVsf(y, Q6_Vsf_vsub_VsfVsf(splat_f32(1.5f), Q6_Vsf_vmpy_VsfVsf(hx, Q6_Vsf_vmpy_VsfVsf(y, y))));
    }
    HVX_Vector s = Q6_Vsf_vmpy_VsfVsf(xs, y);
    s = Q6_Vsf_vadd_VsfVsf(s, Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vsub_VsfVsf(xs, Q6_Vsf_vmpy_VsfVsf(s, s)),
                                                  Q6_Vsf_vmpy_VsfVsf(y, splat_f32(0.5f))));
    s = Q6_V_vmux_QVV(big, Q6_Vsf_vmpy_VsfVsf(s, splat_f32(4096.0f)), s);
    s = Q6_V_vmux_QVV(tiny, Q6_Vsf_vmpy_VsfVsf(s, splat_f32(2.44140625e-4f)), s);
    s = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(x, splat_i32(0x7f800000)), x, s);                // +inf
    s = Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VwVw(Q6_V_vzero(), x), splat_i32(0x7fc00000), s);     // x < 0
    s = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(sf_abs(x), Q6_V_vzero()), x, s);                 // +-0 (after x < 0: -0)
    return Q6_V_vmux_QVV(sf_isnan(x), x, s);
}

// Scalar sqrt x, correctly rounded (what IEEE sqrtf returns), inline: x's mantissa, shifted
// to an even exponent, gets its integer square root digit by digit, rounded to nearest (a tie
// is impossible). The row loops of NORM / RMS_NORM call it per row: a call to the library's
// sqrtf there made every vector the loop keeps (the zero accumulator, the tail mask) spill
// around it. x = +-0, +inf and NaN come back as they are; x < 0 gives NaN (the norms never
// pass one). test_hvx_math checks it against sqrtf on every mantissa of two exponents and
// every subnormal.
static inline float sqrt_f32(float x) {
    uint32_t ix;
    __builtin_memcpy(&ix, &x, 4);
    if (ix - 1u >= 0x7f7fffffu) {  // +-0, +inf, NaN, negative
        if ((ix & 0x7fffffffu) == 0 || ix == 0x7f800000u || (ix & 0x7fffffffu) > 0x7f800000u) {
            return x + x;  // +-0 and +inf unchanged, NaN quietened
        }
        return __builtin_nanf("");
    }
    int32_t  e = (int32_t) (ix >> 23);
    uint32_t m = ix & 0x7fffffu;
    if (e == 0) {  // subnormal: leading 1 to bit 23
        const int32_t sh = __builtin_clz(m) - 8;
        m <<= sh;
        e = 1 - sh;
    } else {
        m |= 0x800000u;
    }
    const int32_t ex = e - 127;  // x = m * 2^(ex - 23), m in [2^23, 2^24)
    m <<= (ex & 1);              // x = m * 2^(ex - (ex & 1) - 23), an even power of two
    uint64_t v   = (uint64_t) m << 23;
    uint64_t q   = 0;
    uint64_t bit = 1ull << 46;  // highest power of 4 <= v
    HTP_NO_UNROLL
    while (bit != 0) {
        if (v >= q + bit) {
            v -= q + bit;
            q = (q >> 1) + bit;
        } else {
            q >>= 1;
        }
        bit >>= 2;
    }
    q += v > q ? 1 : 0;  // v is now the remainder: sqrt >= q + 1/2 iff remainder > q
    const uint32_t r = ((uint32_t) ((ex - (ex & 1)) / 2 + 127) << 23) + (uint32_t) (q - 0x800000u);  // q = 2^24 carries
    float          y;
    __builtin_memcpy(&y, &r, 4);
    return y;
}

// 1 / (1 + e^-x); e^-x is capped at e^87 so the divisor d stays in [1, 2^126), where
// div_sf_normal applies. Divided, not recip_sf(d) alone: recip_sf(1) is 0.99999994, so where
// 1 + e^-x rounds to 1 (x > 17) x * sigmoid_sf(x) was a step below x, and SWIGLU's / GEGLU_QUICK's
// x * g (exact for BF16 x and g, often a tie between two BF16 values) rounded to the other
// BF16 value than ggml-cpu's x / (1 + expf(-x)) * g in ~0.4% of the elements.
static inline HVX_Vector sigmoid_sf(HVX_Vector x) {
    const HVX_Vector nx  = Q6_V_vxor_VV(x, splat_i32(0x80000000));
    const HVX_Vector e   = exp_sf(sf_min(nx, splat_f32(87.0f)));
    const HVX_Vector one = splat_f32(1.0f);
    const HVX_Vector d   = Q6_Vsf_vadd_VsfVsf(e, one);
    return div_sf_normal(one, d, recip_sf(d));
}

// tanh x: an odd polynomial for |x| < 0.625, else 1 - 2 / (e^(2|x|) + 1) via t = e^-2|x|.
// In two halves for loops that cannot hold both halves' constants at once: tanh_sf_exp(x) is
// t, tanh_sf_finish(x, t) the rest; tanh_sf is the two in a row.
static inline HVX_Vector tanh_sf_exp(HVX_Vector x) {
    return exp_sf(Q6_Vsf_vmpy_VsfVsf(sf_abs(x), splat_f32(-2.0f)));
}

static inline HVX_Vector tanh_sf_finish(HVX_Vector x, HVX_Vector t) {
    const HVX_Vector sign = Q6_V_vand_VV(x, splat_i32(0x80000000));
    const HVX_Vector ax   = sf_abs(x);
    const HVX_Vector one  = splat_f32(1.0f);
    const HVX_Vector big  = Q6_Vsf_vsub_VsfVsf(  // 1 - 2t / (1 + t): exactly 1 once t underflows
        one, Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vadd_VsfVsf(t, t), recip_sf(Q6_Vsf_vadd_VsfVsf(one, t))));

    const HVX_Vector z = Q6_Vsf_vmpy_VsfVsf(ax, ax);
    HVX_Vector       p = splat_f32(-5.70498872745e-3f);
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, z), splat_f32(2.06390887954e-2f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, z), splat_f32(-5.37397155531e-2f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, z), splat_f32(1.33314422036e-1f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, z), splat_f32(-3.33332819422e-1f));
    const HVX_Vector small = Q6_Vsf_vadd_VsfVsf(ax, Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(ax, z), p));

    const HVX_Vector y = Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VwVw(splat_i32(0x3f200000), ax), small, big);  // |x| < 0.625
    return Q6_V_vmux_QVV(sf_isnan(x), x, Q6_V_vor_VV(y, sign));
}

static inline HVX_Vector tanh_sf(HVX_Vector x) {
    return tanh_sf_finish(x, tanh_sf_exp(x));
}

// erf x (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7, < 5e-7 with sf rounding):
// 1 - (a1 t + ... + a5 t^5) e^(-x^2), t = 1 / (1 + 0.3275911 |x|), sign of x. In two halves
// as tanh: erf_sf_exp(x) is e^(-x^2) (|x| capped at 10), erf_sf_finish(x, e) the rest.
static inline HVX_Vector erf_sf_exp(HVX_Vector x) {
    const HVX_Vector ax = sf_min(sf_abs(x), splat_f32(10.0f));
    return exp_sf(Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(ax, ax), splat_f32(-1.0f)));
}

static inline HVX_Vector erf_sf_finish(HVX_Vector x, HVX_Vector e) {
    const HVX_Vector sign = Q6_V_vand_VV(x, splat_i32(0x80000000));
    const HVX_Vector ax   = sf_min(sf_abs(x), splat_f32(10.0f));
    const HVX_Vector t    = recip_sf(Q6_Vsf_vadd_VsfVsf(splat_f32(1.0f), Q6_Vsf_vmpy_VsfVsf(ax, splat_f32(0.3275911f))));
    HVX_Vector       p    = splat_f32(1.061405429f);
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, t), splat_f32(-1.453152027f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, t), splat_f32(1.421413741f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, t), splat_f32(-0.284496736f));
    p = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(p, t), splat_f32(0.254829592f));
    p = Q6_Vsf_vmpy_VsfVsf(p, t);
    const HVX_Vector y = Q6_Vsf_vsub_VsfVsf(splat_f32(1.0f), Q6_Vsf_vmpy_VsfVsf(p, e));
    return Q6_V_vmux_QVV(sf_isnan(x), x, Q6_V_vor_VV(y, sign));
}

static inline HVX_Vector erf_sf(HVX_Vector x) {
    return erf_sf_finish(x, erf_sf_exp(x));
}

// sin / cos as Cephes' sinf / cosf: j = 2 round(|x| 2 / pi) (the even octant), r = |x| - j pi / 4
// in three parts, then the sine or cosine polynomial of r by the octant, and the sign.
template <bool kCos> static inline HVX_Vector sincos_sf(HVX_Vector x) {
    const HVX_Vector a     = sf_abs(x);
    const HVX_Vector magic = splat_f32(12582912.0f);
    const HVX_Vector nt    = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(a, splat_f32(0.63661977236758134308f)), magic);
    const HVX_Vector n     = Q6_Vw_vsub_VwVw(nt, magic);                      // round(|x| 2 / pi), integer
    const HVX_Vector y     = Q6_Vsf_vadd_VsfVsf(int_to_sf_small(n), int_to_sf_small(n));  // j = 2n
    HVX_Vector       r     = Q6_Vsf_vsub_VsfVsf(a, Q6_Vsf_vmpy_VsfVsf(y, splat_f32(0.78515625f)));
    r                      = Q6_Vsf_vsub_VsfVsf(r, Q6_Vsf_vmpy_VsfVsf(y, splat_f32(2.4187564849853515625e-4f)));
    r                      = Q6_Vsf_vsub_VsfVsf(r, Q6_Vsf_vmpy_VsfVsf(y, splat_f32(3.77489497744594108e-8f)));
    const HVX_Vector z     = Q6_Vsf_vmpy_VsfVsf(r, r);
    HVX_Vector       ps    = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(splat_f32(-1.9515295891e-4f), z), splat_f32(8.3321608736e-3f));
    ps                     = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(ps, z), splat_f32(-1.6666654611e-1f));
    ps                     = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(ps, z), r), r);
    HVX_Vector       pc    = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(splat_f32(2.443315711809948e-5f), z), splat_f32(-1.388731625493765e-3f));
    pc                     = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(pc, z), splat_f32(4.166664568298827e-2f));
    pc = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vsub_VsfVsf(Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(pc, z), z), Q6_Vsf_vmpy_VsfVsf(z, splat_f32(0.5f))),
                            splat_f32(1.0f));
    // octant j = 2n: n odd swaps the polynomials; the sign flips for sin when n & 2, for cos
    // when (n ^ (n >> 1)) & 1, and for sin of a negative x.
    const HVX_VectorPred swap = Q6_Q_vcmp_eq_VwVw(Q6_V_vand_VV(n, splat_i32(1)), splat_i32(1));
    HVX_Vector           flip;
    if (kCos) {
        flip = Q6_V_vand_VV(Q6_V_vxor_VV(n, Q6_Vw_vasr_VwR(n, 1)), splat_i32(1));
    } else {
        flip = Q6_V_vxor_VV(Q6_V_vand_VV(Q6_Vw_vasr_VwR(n, 1), splat_i32(1)), Q6_Vuw_vlsr_VuwR(x, 31));
    }
    const HVX_Vector v = kCos ? Q6_V_vmux_QVV(swap, ps, pc) : Q6_V_vmux_QVV(swap, pc, ps);
    return Q6_V_vxor_VV(v, Q6_Vw_vasl_VwR(flip, 31));
}

}  // namespace htp_ops
