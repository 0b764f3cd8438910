// ADD / SUB / MUL / DIV on F32 with ggml broadcasting: src1 repeats along dims 1..3
// (i1x = i1 % ne1x) and along dim 0 (nr0 = ne0 / ne10 copies per row).
// DIV: HVX has no divide; 1/d comes from an exponent-flip estimate refined by Newton steps
// x' = x * (2 - d * x), then q = n * x gets one residual correction, giving ~1 ulp.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

// 1/d for normal |d| in [2^-126, 2^126); div_sf scales other d into that range first.
inline HVX_Vector recip_sf(HVX_Vector d) {
    const HVX_Vector sign = Q6_V_vand_VV(d, Q6_V_vsplat_R((int32_t) 0x80000000));
    const HVX_Vector a    = Q6_V_vxor_VV(d, sign);                               // |d|
    HVX_Vector       x    = Q6_Vw_vsub_VwVw(Q6_V_vsplat_R(0x7ef311c3), a);       // ~1/|d|, 12% error
    const HVX_Vector two  = splat_f32(2.0f);
    for (int it = 0; it < 3; it++) {  // error 0.12 -> 1.5e-2 -> 2e-4 -> 5e-8
        x = Q6_Vsf_vmpy_VsfVsf(x, Q6_Vsf_vsub_VsfVsf(two, Q6_Vsf_vmpy_VsfVsf(a, x)));
    }
    return Q6_V_vor_VV(x, sign);
}

inline HVX_Vector div_sf(HVX_Vector n, HVX_Vector d) {
    const HVX_Vector abs_mask = Q6_V_vsplat_R(0x7fffffff);
    const HVX_Vector inf      = Q6_V_vsplat_R(0x7f800000);
    const HVX_Vector zero     = Q6_V_vzero();
    const HVX_Vector sign_d   = Q6_V_vand_VV(d, Q6_V_vsplat_R((int32_t) 0x80000000));
    const HVX_Vector ad       = Q6_V_vand_VV(d, abs_mask);

    // |d| >= 2^126 (1/d subnormal) or 0 < |d| < 2^-126 (1/d overflows the estimate): divide
    // n * s by d * s instead, s = 2^-32 or 2^32 (exact power-of-two scalings).
    const HVX_VectorPred d_big   = Q6_Q_vcmp_gt_VwVw(ad, Q6_V_vsplat_R(0x7e7fffff));
    const HVX_VectorPred d_zero  = Q6_Q_vcmp_eq_VwVw(ad, zero);
    const HVX_VectorPred d_small = Q6_Q_and_QQ(Q6_Q_vcmp_gt_VwVw(Q6_V_vsplat_R(0x00800000), ad), Q6_Q_not_Q(d_zero));
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
    const HVX_VectorPred keep_q = Q6_Q_or_QQ(Q6_Q_vcmp_gt_VwVw(aq, Q6_V_vsplat_R(0x7f7fffff)), Q6_Q_vcmp_eq_VwVw(aq, zero));
    HVX_Vector           res    = Q6_V_vmux_QVV(keep_q, q, qc);
    // d = +-inf: n * (+-0); d = +-0: n * (+-inf); d = NaN: NaN.
    res = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(ad, inf), Q6_Vsf_vmpy_VsfVsf(n, sign_d), res);
    res = Q6_V_vmux_QVV(d_zero, Q6_Vsf_vmpy_VsfVsf(n, Q6_V_vor_VV(inf, sign_d)), res);
    res = Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VwVw(ad, inf), d, res);
    return res;
}

template <int kKind> inline HVX_Vector apply(HVX_Vector a, HVX_Vector b) {
    if (kKind == HTP_BINARY_ADD) {
        return Q6_Vsf_vadd_VsfVsf(a, b);
    } else if (kKind == HTP_BINARY_SUB) {
        return Q6_Vsf_vsub_VsfVsf(a, b);
    } else if (kKind == HTP_BINARY_MUL) {
        return Q6_Vsf_vmpy_VsfVsf(a, b);
    }
    return div_sf(a, b);
}

template <int kKind> void compute_rows(HVX_Vector * dst, uint32_t dst_pitch_vec, const HVX_Vector * s0,
                                       uint32_t s0_pitch_vec, const HVX_Vector * s1, uint32_t s1_step_vec,
                                       uint32_t n_rows, uint32_t n_vec) {
    for (uint32_t j = 0; j < n_rows; j++) {
        const HVX_Vector * a = s0 + j * s0_pitch_vec;
        const HVX_Vector * b = s1 + j * s1_step_vec;
        HVX_Vector *       y = dst + j * dst_pitch_vec;
        for (uint32_t i = 0; i < n_vec; i++) {
            y[i] = apply<kKind>(a[i], b[i]);
        }
    }
}

// Writes nr0 copies of a src1 row of ne10 floats back to back (unaligned stores; each
// copy's over-written tail is rewritten by the next copy, the last one's lands in padding).
void expand_row(HVX_Vector * out, const HVX_Vector * row, uint32_t ne10, uint32_t nr0) {
    const uint32_t n_vec = (ne10 + 31) / 32;
    uint8_t *      o     = (uint8_t *) out;
    for (uint32_t r = 0; r < nr0; r++) {
        HVX_UVector * u = (HVX_UVector *) (o + r * ne10 * 4);
        for (uint32_t i = 0; i < n_vec; i++) {
            u[i] = row[i];
        }
    }
}

struct binary_op {
    const htp_op_context *    octx;
    const htp_binary_params * p;
    uint32_t                  ith;
    dma_queue *               q;

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c   = row_coords(p->shape, r);
        const dma_addr_t s0  = octx->src[0].data + row_offset(p->src0, c.i1, c.i2, c.i3);
        const uint32_t   i11 = htp_fastmod(c.i1, &p->mod_ne11);
        const uint32_t   i12 = htp_fastmod(c.i2, &p->mod_ne12);
        const uint32_t   i13 = htp_fastmod(c.i3, &p->mod_ne13);
        const dma_addr_t s1  = octx->src[1].data + row_offset(p->src1, i11, i12, i13);
        const uint32_t   n1  = n < p->src1_rows_per_chunk ? n : p->src1_rows_per_chunk;
        const htp_context * ctx = octx->ctx;
        if (!dma_queue_push(q, vtcm_slot(ctx, p->split, ith, p->vsrc0, slot), s0, p->vsrc0.row_pitch, p->src0.nb1,
                            p->ne0 * 4, n)) {
            return -1;
        }
        if (!dma_queue_push(q, vtcm_slot(ctx, p->split, ith, p->vsrc1, slot), s1, p->vsrc1.row_pitch, p->src1.nb1,
                            p->ne10 * 4, n1)) {
            return -1;  // stream_rows flushes what was queued
        }
        return 2;
    }

    void compute(uint32_t, uint32_t n, uint32_t slot) {
        const htp_context * ctx  = octx->ctx;
        HVX_Vector *        y    = vptr(vtcm_slot(ctx, p->split, ith, p->vdst, slot));
        const HVX_Vector *  a    = vptr(vtcm_slot(ctx, p->split, ith, p->vsrc0, slot));
        const HVX_Vector *  b    = vptr(vtcm_slot(ctx, p->split, ith, p->vsrc1, slot));
        const uint32_t      nvec = (p->ne0 + 31) / 32;
        const uint32_t      pd   = p->vdst.row_pitch / 128;
        const uint32_t      p0   = p->vsrc0.row_pitch / 128;
        uint32_t            step = p->src1_vtcm_row_step / 128;
        uint32_t            rows_per_call = n;
        if (p->nr0 > 1) {  // dim-0 broadcast: expand each src1 row, one dst row at a time
            rows_per_call = 1;
        }
        for (uint32_t j = 0; j < n; j += rows_per_call) {
            const HVX_Vector * bj = b + j * step;
            if (p->nr0 > 1) {
                HVX_Vector * e = vptr(vtcm_at(ctx, p->split, ith, p->vbcast));
                expand_row(e, bj, p->ne10, p->nr0);
                bj = e;
            }
            const uint32_t s1step = p->nr0 > 1 ? 0 : step;
            switch (p->kind) {
                case HTP_BINARY_ADD:
                    compute_rows<HTP_BINARY_ADD>(y + j * pd, pd, a + j * p0, p0, bj, s1step, rows_per_call, nvec);
                    break;
                case HTP_BINARY_SUB:
                    compute_rows<HTP_BINARY_SUB>(y + j * pd, pd, a + j * p0, p0, bj, s1step, rows_per_call, nvec);
                    break;
                case HTP_BINARY_MUL:
                    compute_rows<HTP_BINARY_MUL>(y + j * pd, pd, a + j * p0, p0, bj, s1step, rows_per_call, nvec);
                    break;
                default:
                    compute_rows<HTP_BINARY_DIV>(y + j * pd, pd, a + j * p0, p0, bj, s1step, rows_per_call, nvec);
                    break;
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c = row_coords(p->shape, r);
        const dma_addr_t d = octx->dst.data + row_offset(p->dst, c.i1, c.i2, c.i3);
        return dma_queue_push(q, d, vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot), p->dst.nb1, p->vdst.row_pitch,
                              p->ne0 * 4, n) ? 1 : -1;
    }
};

}  // namespace

int htp_op_binary(struct htp_op_context * octx) {
    return run_rows<binary_op>(octx, octx->params->binary);
}
