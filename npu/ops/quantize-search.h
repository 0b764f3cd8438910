// ggml's scale searches (ggml/src/ggml-quants.c: make_qkx2_quants, make_qx_quants,
// make_q3_quants) with one
// lane per sub-block: x is n element rows (row i: element i of 32 sub-blocks), so each C loop
// over a sub-block's elements is a loop over rows and every sum is added in the C code's
// order; each float operation is the C code's (npu/ops/quantize-lanes.h). Codes are I32 lanes
// in VTCM rows (L: the best so far, aux: the trial's).
#pragma once
#include "quantize-lanes.h"

namespace htp_ops {

// make_qkx2_quants' arguments besides x: weights av + |x| (Q4_K / Q5_K: av = sqrt(mean x^2);
// Q2_K: av = 0), codes 0 .. nmax, trials iscale = (rmin + rdelta * is + nmax) / (max - min)
// for is = 0 .. nstep, errors |diff| (use_mad) or diff^2.
struct qkx2_params {
    int32_t nmax;
    float   rmin, rdelta;
    int32_t nstep;
};

HTP_INLINE HVX_Vector qk_weight(HVX_Vector x, HVX_Vector av) {
    return Q6_Vsf_vadd_VsfVsf(av, sf_abs(x));
}

// Codes clamp(nearest_int(iscale * (x - mn)), 0, nmax) of n rows into c, and the sums
// sum w l, sum w l l, sum w l x (ggml's sum_l, sum_l2, sum_xl).
HTP_INLINE void qkx2_trial(const HVX_Vector * x, uint32_t n, HVX_Vector av, HVX_Vector mn, HVX_Vector iscale,
                           int32_t nmax, HVX_Vector * c, HVX_Vector & sl, HVX_Vector & sl2, HVX_Vector & sxl) {
    sl = sl2 = sxl = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        const HVX_Vector xi = hvx_vmem_load(&x[i]);
        const HVX_Vector l  = clamp_w(nearest_int_sf(Q6_Vsf_vmpy_VsfVsf(iscale, Q6_Vsf_vsub_VsfVsf(xi, mn))), 0, nmax);
        hvx_vmem_store(&c[i], l);
        const HVX_Vector lf = int_to_sf_small(l);
        const HVX_Vector wl = Q6_Vsf_vmpy_VsfVsf(qk_weight(xi, av), lf);
        sl                  = Q6_Vsf_vadd_VsfVsf(sl, wl);
        sl2                 = Q6_Vsf_vadd_VsfVsf(sl2, Q6_Vsf_vmpy_VsfVsf(wl, lf));
        sxl                 = Q6_Vsf_vadd_VsfVsf(sxl, Q6_Vsf_vmpy_VsfVsf(wl, xi));
    }
}

// sum w * err(scale * l + mn - x): err |d| (MAD) or d * d.
template <bool MAD>
HTP_INLINE HVX_Vector qkx2_error(const HVX_Vector * x, uint32_t n, HVX_Vector av, HVX_Vector scale, HVX_Vector mn,
                                 const HVX_Vector * c) {
    HVX_Vector e = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        const HVX_Vector xi = hvx_vmem_load(&x[i]);
        const HVX_Vector lf = int_to_sf_small(hvx_vmem_load(&c[i]));
        HVX_Vector       d  = Q6_Vsf_vsub_VsfVsf(Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(scale, lf), mn), xi);
        d                   = MAD ? sf_abs(d) : Q6_Vsf_vmpy_VsfVsf(d, d);
        e                   = Q6_Vsf_vadd_VsfVsf(e, Q6_Vsf_vmpy_VsfVsf(qk_weight(xi, av), d));
    }
    return e;
}

// c[i] = where q: a[i], else c[i].
HTP_INLINE void select_rows(HVX_Vector * c, const HVX_Vector * a, uint32_t n, HVX_VectorPred q) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        hvx_vmem_store(&c[i], Q6_V_vmux_QVV(q, hvx_vmem_load(&a[i]), hvx_vmem_load(&c[i])));
    }
}

// make_qkx2_quants on n rows of x with weights av + |x| (av at *avp, 0 without): best codes to
// L, scale to out[0], the_min (-min) to out[ms]; aux: n rows of scratch.
template <bool MAD>
static HTP_COMPUTE void compute_qkx2_lanes(const HVX_Vector * x, uint32_t n, const HVX_Vector * avp,
                                           const qkx2_params * pp, HVX_Vector * L, HVX_Vector * aux, HVX_Vector * out,
                                           uint32_t ms) {
    const qkx2_params p  = *pp;
    const HVX_Vector  av = avp ? hvx_vmem_load(avp) : Q6_V_vzero();
    const HVX_Vector x0 = hvx_vmem_load(&x[0]);
    HVX_Vector       mn = x0, mx = x0, sw = qk_weight(x0, av);
    HVX_Vector       sx = Q6_Vsf_vmpy_VsfVsf(sw, x0);
    HTP_NO_UNROLL
    for (uint32_t i = 1; i < n; i++) {
        const HVX_Vector xi = hvx_vmem_load(&x[i]);
        const HVX_Vector w  = qk_weight(xi, av);
        mn                  = Q6_V_vmux_QVV(lt_sf(xi, mn), xi, mn);
        mx                  = Q6_V_vmux_QVV(lt_sf(mx, xi), xi, mx);
        sw                  = Q6_Vsf_vadd_VsfVsf(sw, w);
        sx                  = Q6_Vsf_vadd_VsfVsf(sx, Q6_Vsf_vmpy_VsfVsf(w, xi));
    }
    mn                     = Q6_V_vmux_QVV(gt0_sf(mn), Q6_V_vzero(), mn);
    const HVX_Vector mn0    = mn;
    HVX_Vector       iscale = div_lanes(splat_f32((float) p.nmax), Q6_Vsf_vsub_VsfVsf(mx, mn));
    HVX_Vector       scale  = div_lanes(splat_f32(1.0f), iscale);
    HVX_Vector       sl, sl2, sxl;
    qkx2_trial(x, n, av, mn, iscale, p.nmax, L, sl, sl2, sxl);
    HVX_Vector best = qkx2_error<MAD>(x, n, av, scale, mn, L);
    HTP_NO_UNROLL
    for (int32_t is = 0; is <= p.nstep; is++) {
        const HVX_Vector tc = Q6_Vsf_vadd_VsfVsf(
            Q6_Vsf_vadd_VsfVsf(splat_f32(p.rmin), Q6_Vsf_vmpy_VsfVsf(splat_f32(p.rdelta), splat_f32((float) is))),
            splat_f32((float) p.nmax));
        iscale = div_lanes(tc, Q6_Vsf_vsub_VsfVsf(mx, mn));  // min: the best trial's so far, as in C
        qkx2_trial(x, n, av, mn, iscale, p.nmax, aux, sl, sl2, sxl);
        const HVX_Vector D  = Q6_Vsf_vsub_VsfVsf(Q6_Vsf_vmpy_VsfVsf(sw, sl2), Q6_Vsf_vmpy_VsfVsf(sl, sl));
        HVX_Vector       ts = div_lanes(Q6_Vsf_vsub_VsfVsf(Q6_Vsf_vmpy_VsfVsf(sw, sxl), Q6_Vsf_vmpy_VsfVsf(sx, sl)), D);
        HVX_Vector       tm = div_lanes(Q6_Vsf_vsub_VsfVsf(Q6_Vsf_vmpy_VsfVsf(sl2, sx), Q6_Vsf_vmpy_VsfVsf(sl, sxl)), D);
        const HVX_Vector ts0 = div_lanes(sxl, sl2);  // this_min > 0: this_min = 0, scale sum_xl / sum_l2
        ts                   = Q6_V_vmux_QVV(gt0_sf(tm), ts0, ts);
        tm                   = Q6_V_vmux_QVV(gt0_sf(tm), Q6_V_vzero(), tm);
        const HVX_Vector cur = qkx2_error<MAD>(x, n, av, ts, tm, aux);
        const HVX_Vector better = Q6_V_vand_QR(Q6_Q_and_QQ(gt0_sf(D), lt_sf(cur, best)), -1);
        select_rows(L, aux, n, Q6_Q_vand_VR(better, -1));
        best  = Q6_V_vmux_QVV(Q6_Q_vand_VR(better, -1), cur, best);
        scale = Q6_V_vmux_QVV(Q6_Q_vand_VR(better, -1), ts, scale);
        mn    = Q6_V_vmux_QVV(Q6_Q_vand_VR(better, -1), tm, mn);
    }
    const HVX_VectorPred flat = eq_sf(mx, mn0);  // max == min: all codes 0, scale 0, the min as found
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        hvx_vmem_store(&L[i], Q6_V_vmux_QVV(flat, Q6_V_vzero(), hvx_vmem_load(&L[i])));
    }
    hvx_vmem_store(&out[0], Q6_V_vmux_QVV(flat, Q6_V_vzero(), scale));
    hvx_vmem_store(&out[ms], Q6_V_vxor_VV(Q6_V_vmux_QVV(flat, mn0, mn), Q6_V_vsplat_R((int32_t) 0x80000000)));
}

// Each lane's first x of the largest |x| over n rows (ggml's amax / max search: a later equal
// |x| does not replace it), returned; that |x| to amax.
HTP_INLINE HVX_Vector first_max_abs(const HVX_Vector * x, uint32_t n, HVX_Vector & amax) {
    HVX_Vector mx = Q6_V_vzero();
    amax          = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        const HVX_Vector     xi = hvx_vmem_load(&x[i]);
        const HVX_VectorPred g  = lt_sf(amax, sf_abs(xi));
        amax                    = Q6_V_vmux_QVV(g, sf_abs(xi), amax);
        mx                      = Q6_V_vmux_QVV(g, xi, mx);
    }
    return mx;
}

// make_qx_quants' trial (rmse_type 1, no importance weights): codes l = clamp(nearest_int(iscale
// * x), -nmax, nmax - 1) + nmax into c; w = x * x, sum w x l, sum w l l.
HTP_INLINE void qx_trial(const HVX_Vector * x, uint32_t n, HVX_Vector iscale, int32_t nmax, HVX_Vector * c,
                         HVX_Vector & slx, HVX_Vector & sl2) {
    slx = sl2 = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        const HVX_Vector xi = hvx_vmem_load(&x[i]);
        const HVX_Vector l  = clamp_w(nearest_int_sf(Q6_Vsf_vmpy_VsfVsf(iscale, xi)), -nmax, nmax - 1);
        hvx_vmem_store(&c[i], Q6_Vw_vadd_VwVw(l, Q6_V_vsplat_R(nmax)));
        const HVX_Vector lf = int_to_sf_small(l);
        const HVX_Vector w  = Q6_Vsf_vmpy_VsfVsf(xi, xi);
        slx                 = Q6_Vsf_vadd_VsfVsf(slx, Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(w, xi), lf));
        sl2                 = Q6_Vsf_vadd_VsfVsf(sl2, Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(w, lf), lf));
    }
}

// make_qx_quants(n, nmax, x, L, 1, NULL) on n rows: codes (0 .. 2 nmax - 1) to L, the scale to
// *out; aux: n rows of scratch.
static HTP_COMPUTE void compute_qx_lanes(const HVX_Vector * x, uint32_t n, int32_t nmax, HVX_Vector * L,
                                         HVX_Vector * aux, HVX_Vector * out) {
    HVX_Vector       amax;
    const HVX_Vector mx = first_max_abs(x, n, amax);
    HVX_Vector slx, sl2;
    qx_trial(x, n, div_lanes(splat_f32((float) -nmax), mx), nmax, L, slx, sl2);
    HVX_Vector scale = Q6_V_vmux_QVV(eq_sf(sl2, Q6_V_vzero()), Q6_V_vzero(), div_lanes(slx, sl2));
    HVX_Vector best  = Q6_Vsf_vmpy_VsfVsf(scale, slx);
    HTP_NO_UNROLL
    for (int32_t is = -9; is <= 9; is++) {
        if (is == 0) {
            continue;
        }
        const HVX_Vector tc =
            Q6_Vsf_vadd_VsfVsf(splat_f32((float) nmax), Q6_Vsf_vmpy_VsfVsf(splat_f32(0.1f), splat_f32((float) is)));
        qx_trial(x, n, div_lanes(Q6_V_vxor_VV(tc, Q6_V_vsplat_R((int32_t) 0x80000000)), mx), nmax, aux, slx, sl2);
        const HVX_Vector upd = Q6_V_vand_QR(
            Q6_Q_and_QQ(gt0_sf(sl2), lt_sf(Q6_Vsf_vmpy_VsfVsf(best, sl2), Q6_Vsf_vmpy_VsfVsf(slx, slx))), -1);
        select_rows(L, aux, n, Q6_Q_vand_VR(upd, -1));
        const HVX_Vector ns = div_lanes(slx, sl2);
        scale               = Q6_V_vmux_QVV(Q6_Q_vand_VR(upd, -1), ns, scale);
        best                = Q6_V_vmux_QVV(Q6_Q_vand_VR(upd, -1), Q6_Vsf_vmpy_VsfVsf(ns, slx), best);
    }
    const HVX_VectorPred zero = lt_sf(amax, splat_f32(1e-15f));  // GROUP_MAX_EPS: all codes 0, scale 0
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        hvx_vmem_store(&L[i], Q6_V_vmux_QVV(zero, Q6_V_vzero(), hvx_vmem_load(&L[i])));
    }
    hvx_vmem_store(out, Q6_V_vmux_QVV(zero, Q6_V_vzero(), scale));
}

// make_q3_quants' refinement pass (do_rmse): each code in turn moved to nearest_int(x *
// sl2 / slx) of the sums without it, kept where the fit improves (the sums updated at once).
HTP_INLINE void q3_refine(const HVX_Vector * x, uint32_t n, int32_t nmax, HVX_Vector * L, HVX_Vector & sumlx,
                          HVX_Vector & suml2) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        const HVX_Vector xi  = hvx_vmem_load(&x[i]);
        const HVX_Vector li  = hvx_vmem_load(&L[i]);
        const HVX_Vector lf  = int_to_sf_small(li);
        const HVX_Vector w   = Q6_Vsf_vmpy_VsfVsf(xi, xi);
        const HVX_Vector wx  = Q6_Vsf_vmpy_VsfVsf(w, xi);
        const HVX_Vector slx = Q6_Vsf_vsub_VsfVsf(sumlx, Q6_Vsf_vmpy_VsfVsf(wx, lf));
        const HVX_Vector sl2 = Q6_Vsf_vsub_VsfVsf(suml2, Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(w, lf), lf));
        const HVX_Vector nl  = clamp_w(nearest_int_sf(div_lanes(Q6_Vsf_vmpy_VsfVsf(xi, sl2), slx)), -nmax, nmax - 1);
        const HVX_Vector nf  = int_to_sf_small(nl);
        const HVX_Vector s1  = Q6_Vsf_vadd_VsfVsf(slx, Q6_Vsf_vmpy_VsfVsf(wx, nf));
        const HVX_Vector s2  = Q6_Vsf_vadd_VsfVsf(sl2, Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(w, nf), nf));
        const HVX_Vector lhs = Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(s1, s1), suml2);
        const HVX_Vector rhs = Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(sumlx, sumlx), s2);
        HVX_VectorPred   upd = Q6_Q_and_QQ(gt0_sf(slx), Q6_Q_not_Q(Q6_Q_vcmp_eq_VwVw(nl, li)));
        upd                  = Q6_Q_and_QQ(upd, Q6_Q_and_QQ(gt0_sf(s2), lt_sf(rhs, lhs)));
        hvx_vmem_store(&L[i], Q6_V_vmux_QVV(upd, nl, li));
        sumlx = Q6_V_vmux_QVV(upd, s1, sumlx);
        suml2 = Q6_V_vmux_QVV(upd, s2, suml2);
    }
}

// make_q3_quants(n, nmax, x, L, true) on n rows: codes (0 .. 2 nmax - 1; 0 in an all-zero
// sub-block) to L, the scale to *out. Its five refinement passes stop early when nothing
// changed: a pass after such one changes nothing either, so every lane runs all five.
static HTP_COMPUTE void compute_q3_lanes(const HVX_Vector * x, uint32_t n, int32_t nmax, HVX_Vector * L,
                                         HVX_Vector * out) {
    HVX_Vector       amax;
    const HVX_Vector mx = first_max_abs(x, n, amax);
    const HVX_Vector iscale = div_lanes(splat_f32((float) -nmax), mx);
    HVX_Vector       sumlx = Q6_V_vzero(), suml2 = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        const HVX_Vector xi = hvx_vmem_load(&x[i]);
        const HVX_Vector l  = clamp_w(nearest_int_sf(Q6_Vsf_vmpy_VsfVsf(iscale, xi)), -nmax, nmax - 1);
        hvx_vmem_store(&L[i], l);
        const HVX_Vector lf = int_to_sf_small(l);
        const HVX_Vector w  = Q6_Vsf_vmpy_VsfVsf(xi, xi);
        sumlx               = Q6_Vsf_vadd_VsfVsf(sumlx, Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(w, xi), lf));
        suml2               = Q6_Vsf_vadd_VsfVsf(suml2, Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(w, lf), lf));
    }
    HTP_NO_UNROLL
    for (uint32_t itry = 0; itry < 5; itry++) {
        q3_refine(x, n, nmax, L, sumlx, suml2);
    }
    const HVX_VectorPred zero = lt_sf(amax, splat_f32(1e-15f));  // GROUP_MAX_EPS: codes 0, scale 0
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        const HVX_Vector c = Q6_Vw_vadd_VwVw(hvx_vmem_load(&L[i]), Q6_V_vsplat_R(nmax));
        hvx_vmem_store(&L[i], Q6_V_vmux_QVV(zero, Q6_V_vzero(), c));
    }
    const HVX_Vector scale = Q6_V_vmux_QVV(gt0_sf(suml2), div_lanes(sumlx, suml2), Q6_V_vzero());
    hvx_vmem_store(out, Q6_V_vmux_QVV(zero, Q6_V_vzero(), scale));
}

// quantize_row_iq4_nl_impl's trial (no importance weights: w = x * x): codes the nearest of
// kvalues_iq4nl to id * x, sum w q x, sum w q q.
HTP_INLINE void iq4_trial(const HVX_Vector * x, uint32_t n, HVX_Vector id, HVX_Vector & sqx, HVX_Vector & sq2) {
    sqx = sq2 = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n; i++) {
        const HVX_Vector xi = hvx_vmem_load(&x[i]);
        HVX_Vector       q;
        iq4nl_nearest(Q6_Vsf_vmpy_VsfVsf(id, xi), q);
        const HVX_Vector wq = Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(xi, xi), q);
        sqx                 = Q6_Vsf_vadd_VsfVsf(sqx, Q6_Vsf_vmpy_VsfVsf(wq, xi));
        sq2                 = Q6_Vsf_vadd_VsfVsf(sq2, Q6_Vsf_vmpy_VsfVsf(wq, q));
    }
}

// quantize_row_iq4_nl_impl's sub-block scale (ntry 7, IQ4_XS) on n rows: d = -max / -127,
// refined over id = (itry - 127) / max, itry = -7 .. 7; 0 where |x| < 1e-15. To *out.
static HTP_COMPUTE void compute_iq4_lanes(const HVX_Vector * x, uint32_t n, HVX_Vector * out) {
    HVX_Vector       amax;
    const HVX_Vector mx = first_max_abs(x, n, amax);
    const HVX_Vector d0 = div_lanes(Q6_V_vxor_VV(mx, Q6_V_vsplat_R((int32_t) 0x80000000)), splat_f32(-127.0f));
    HVX_Vector       sqx, sq2;
    iq4_trial(x, n, div_lanes(splat_f32(1.0f), d0), sqx, sq2);
    HVX_Vector d    = Q6_V_vmux_QVV(gt0_sf(sq2), div_lanes(sqx, sq2), Q6_V_vzero());
    HVX_Vector best = Q6_Vsf_vmpy_VsfVsf(d, sqx);
    HTP_NO_UNROLL
    for (int32_t itry = -7; itry <= 7; itry++) {
        iq4_trial(x, n, div_lanes(splat_f32((float) (itry - 127)), mx), sqx, sq2);
        const HVX_Vector upd = Q6_V_vand_QR(
            Q6_Q_and_QQ(gt0_sf(sq2), lt_sf(Q6_Vsf_vmpy_VsfVsf(best, sq2), Q6_Vsf_vmpy_VsfVsf(sqx, sqx))), -1);
        const HVX_Vector nd = div_lanes(sqx, sq2);
        d                   = Q6_V_vmux_QVV(Q6_Q_vand_VR(upd, -1), nd, d);
        best                = Q6_V_vmux_QVV(Q6_Q_vand_VR(upd, -1), Q6_Vsf_vmpy_VsfVsf(nd, sqx), best);
    }
    hvx_vmem_store(out, Q6_V_vmux_QVV(lt_sf(amax, splat_f32(1e-15f)), Q6_V_vzero(), d));
}

}  // namespace htp_ops
