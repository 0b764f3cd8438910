// RMS_NORM F32: y = x / sqrt(mean(x^2) + eps) per row. The sum of squares accumulates in 32
// sf lanes; the partial last vector is masked so padding never enters the sum.
// Fused RMS_NORM+MUL (has_mul): y *= w, the norm weight row, fetched with the first chunk.
#include "hvx-math.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct rms_norm_op : row_op<htp_norm_params> {
    bool w_fetched = false;

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        int k = 0;
        if (p->has_mul && !w_fetched) {  // rides with the first chunk: its pop covers both
            if (!dma_queue_push(q, vtcm_at(octx->ctx, p->split, ith, p->vmul), octx->src[1].data, p->ne0 * 4, p->ne0 * 4, p->ne0 * 4, 1)) {
                return -1;
            }
            w_fetched = true;
            k         = 1;
        }
        const int kc = fetch_chunk(octx, p, ith, q, r, n, slot, p->ne0 * 4);
        return kc < 0 ? -1 : kc + k;
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector *   x0     = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *         y0     = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t       n_full = p->ne0 / 32;
        const HVX_VectorPred tail   = Q6_Q_vsetq_R((int32_t) p->tail_bytes);
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * x   = x0 + j * (p->vsrc.row_pitch / 128);
            HVX_Vector *       y   = y0 + j * (p->vdst.row_pitch / 128);
            HVX_Vector         acc = Q6_V_vzero();
            HTP_NO_UNROLL
            for (uint32_t i = 0; i < n_full; i++) {
                const HVX_Vector v = hvx_vmem_load(x + i);
                acc                = Q6_Vsf_vadd_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(v, v));
            }
            if (p->tail_bytes) {
                const HVX_Vector t = Q6_V_vand_QV(tail, hvx_vmem_load(x + n_full));
                acc                = Q6_Vsf_vadd_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(t, t));
            }
            const float      mean  = lane0_f32(reduce_sum_sf(acc)) * p->inv_ne0;
            const HVX_Vector scale = splat_f32(1.0f / sqrt_f32(mean + p->eps));
            const uint32_t   n_vec = n_full + (p->tail_bytes ? 1 : 0);
            if (p->has_mul) {
                const HVX_Vector * w = vptr(vtcm_at(octx->ctx, p->split, ith, p->vmul));
                HTP_NO_UNROLL
                for (uint32_t i = 0; i < n_vec; i++) {
                    hvx_vmem_store(y + i, Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(x + i), scale),
                                                             hvx_vmem_load(w + i)));
                }
            } else {
                HTP_NO_UNROLL
                for (uint32_t i = 0; i < n_vec; i++) {
                    hvx_vmem_store(y + i, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(x + i), scale));
                }
            }
        }
    }
};

}  // namespace

int htp_op_rms_norm(struct htp_op_context * octx) {
    return run_rows<rms_norm_op>(octx, octx->params->norm);
}
