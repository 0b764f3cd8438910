// ADD / SUB / MUL / DIV on F32 or F16 with ggml broadcasting: src1 repeats along dims 1..3
// (i1x = i1 % ne1x) and along dim 0 (nr0 = ne0 / ne10 copies per row). F16 rows are widened
// to F32 per row, computed like F32 rows and narrowed back (as ggml's CPU does).
// DIV: HVX has no divide; 1/d comes from an exponent-flip estimate refined by Newton steps
// x' = x * (2 - d * x), then q = n * x gets one residual correction, giving ~1 ulp
// (div_sf in hvx-math.h).
#include "hvx-math.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

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
        const uint32_t      es  = p->f16 ? 2 : 4;
        if (!dma_queue_push(q, vtcm_slot(ctx, p->split, ith, p->vsrc0, slot), s0, p->vsrc0.row_pitch, p->src0.nb1,
                            p->ne0 * es, n)) {
            return -1;
        }
        if (!dma_queue_push(q, vtcm_slot(ctx, p->split, ith, p->vsrc1, slot), s1, p->vsrc1.row_pitch, p->src1.nb1,
                            p->ne10 * es, n1)) {
            return -1;  // stream_rows flushes what was queued
        }
        return 2;
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const htp_context * ctx  = octx->ctx;
        HVX_Vector *        y    = vptr(vtcm_slot(ctx, p->split, ith, p->vdst, slot));
        const HVX_Vector *  a    = vptr(vtcm_slot(ctx, p->split, ith, p->vsrc0, slot));
        const HVX_Vector *  b    = vptr(vtcm_slot(ctx, p->split, ith, p->vsrc1, slot));
        const uint32_t      nvec = (p->ne0 + 31) / 32;
        const uint32_t      pd   = p->vdst.row_pitch / 128;
        const uint32_t      p0   = p->vsrc0.row_pitch / 128;
        uint32_t            step = p->src1_vtcm_row_step / 128;
        uint32_t            rows_per_call = n;
        if (p->nr0 > 1 || p->f16) {  // dim-0 broadcast or F16: one dst row at a time
            rows_per_call = 1;
        }
        HVX_Vector * conv = p->f16 ? vptr(vtcm_at(ctx, p->split, ith, p->vconv)) : nullptr;
        const uint32_t cv = p->conv_pitch / 128;
        for (uint32_t j = 0; j < n; j += rows_per_call) {
            const HVX_Vector * bj = b + j * step;
            HVX_Vector *       yj = y + j * pd;
            const HVX_Vector * aj = a + j * p0;
            if (p->f16) {  // widen a and b into scratch rows 0 and 1, compute into row 2
                f16_to_f32_vectors(conv, aj, (p->ne0 + 63) / 64);
                f16_to_f32_vectors(conv + cv, bj, (p->ne10 + 63) / 64);
                aj = conv;
                bj = conv + cv;
                yj = conv + 2 * cv;
            }
            if (p->nr0 > 1) {
                HVX_Vector * e = vptr(vtcm_at(ctx, p->split, ith, p->vbcast));
                expand_row(e, bj, p->ne10, p->nr0);
                bj = e;
            }
            const uint32_t s1step = p->nr0 > 1 ? 0 : step;
            switch (p->kind) {
                case HTP_BINARY_ADD:
                    compute_rows<HTP_BINARY_ADD>(yj, pd, aj, p0, bj, s1step, rows_per_call, nvec);
                    break;
                case HTP_BINARY_SUB:
                    compute_rows<HTP_BINARY_SUB>(yj, pd, aj, p0, bj, s1step, rows_per_call, nvec);
                    break;
                case HTP_BINARY_MUL:
                    compute_rows<HTP_BINARY_MUL>(yj, pd, aj, p0, bj, s1step, rows_per_call, nvec);
                    break;
                default:
                    compute_rows<HTP_BINARY_DIV>(yj, pd, aj, p0, bj, s1step, rows_per_call, nvec);
                    break;
            }
            if (p->f16) {
                f32_to_f16_vectors(y + j * pd, yj, (p->ne0 + 63) / 64);
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        return store_chunk(octx, p, ith, q, r, n, slot, p->ne0 * (p->f16 ? 2 : 4));
    }
};

}  // namespace

int htp_op_binary(struct htp_op_context * octx) {
    return run_rows<binary_op>(octx, octx->params->binary);
}
