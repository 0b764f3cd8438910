// NORM and L2_NORM F32, one row in, one row out (the partial last vector is masked so
// padding never enters a sum).
//   NORM:    y = (x - mean) / sqrt(mean((x - mean)^2) + eps)
//   L2_NORM: y = x / max(sqrt(sum(x^2)), eps)
// A transposed source (src_gather: its elements src_nb0 bytes apart) comes a row a chunk by a
// 2-D DMA of one element per DMA row, as CPY's src_gather.
#include "hvx-math.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct norm_op : row_op<htp_norm_params> {
    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        if (!p->src_gather) {
            return fetch_chunk(octx, p, ith, q, r, n, slot, p->ne0 * 4);
        }
        const row_pos    c = row_coords(p->shape, r);
        const dma_addr_t s = octx->src[0].data + row_offset(p->src0, c.i1, c.i2, c.i3);
        return dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot), s, 4, p->src_nb0, 4, p->ne0)
                   ? 1 : -1;  // n == 1
    }

    // Sum over the row of f(x[i]) with padding lanes zeroed first.
    static HVX_Vector masked(const HVX_Vector * x, uint32_t i, uint32_t n_full, HVX_VectorPred tail) {
        const HVX_Vector v = hvx_vmem_load(x + i);
        return i < n_full ? v : Q6_V_vand_QV(tail, v);
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        if (p->kind == HTP_NORM_L2) {  // one row loop per kind: neither keeps the other's values
            compute_rows<true>(x0, y0, n);
        } else {
            compute_rows<false>(x0, y0, n);
        }
    }

    template <bool L2> HTP_COMPUTE void compute_rows(const HVX_Vector * x, HVX_Vector * y, uint32_t n) {
        const uint32_t       n_full  = p->ne0 / 32;
        const uint32_t       n_vec   = n_full + (p->tail_bytes ? 1 : 0);
        const HVX_VectorPred tail    = Q6_Q_vsetq_R((int32_t) p->tail_bytes);
        const uint32_t       px      = p->vsrc.row_pitch / 128;
        const uint32_t       py      = p->vdst.row_pitch / 128;
        const float          eps     = p->eps;
        const float          inv_ne0 = p->inv_ne0;
        for (uint32_t j = 0; j < n; j++) {
            if constexpr (L2) {
                row_l2(x, y, n_vec, n_full, tail, eps);
            } else {
                row_norm(x, y, n_vec, n_full, tail, eps, inv_ne0);
            }
            x += px;
            y += py;
        }
    }

    // y = x / max(sqrt(sum(x^2)), eps)
    static HTP_INLINE void row_l2(const HVX_Vector * x, HVX_Vector * y, uint32_t n_vec, uint32_t n_full,
                                  HVX_VectorPred tail, float eps) {
        HVX_Vector acc = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < n_vec; i++) {
            const HVX_Vector t = masked(x, i, n_full, tail);
            acc                = Q6_Vsf_vadd_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(t, t));
        }
        const float      s     = sqrt_f32(lane0_f32(reduce_sum_sf(acc)));
        const HVX_Vector scale = splat_f32(1.0f / (s > eps ? s : eps));  // fmaxf(s, eps) (a NaN s gives eps), no call
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < n_vec; i++) {
            hvx_vmem_store(y + i, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(x + i), scale));
        }
    }

    // y = (x - mean) / sqrt(mean((x - mean)^2) + eps)
    static HTP_INLINE void row_norm(const HVX_Vector * x, HVX_Vector * y, uint32_t n_vec, uint32_t n_full,
                                    HVX_VectorPred tail, float eps, float inv_ne0) {
        HVX_Vector acc = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < n_vec; i++) {
            acc = Q6_Vsf_vadd_VsfVsf(acc, masked(x, i, n_full, tail));
        }
        const HVX_Vector mean = splat_f32(lane0_f32(reduce_sum_sf(acc)) * inv_ne0);
        HVX_Vector       acc2 = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < n_vec; i++) {
            const HVX_Vector d = Q6_Vsf_vsub_VsfVsf(hvx_vmem_load(x + i), mean);
            hvx_vmem_store(y + i, d);
            const HVX_Vector t = i < n_full ? d : Q6_V_vand_QV(tail, d);
            acc2               = Q6_Vsf_vadd_VsfVsf(acc2, Q6_Vsf_vmpy_VsfVsf(t, t));
        }
        const float      var   = lane0_f32(reduce_sum_sf(acc2)) * inv_ne0;
        const HVX_Vector scale = splat_f32(1.0f / sqrt_f32(var + eps));
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < n_vec; i++) {
            hvx_vmem_store(y + i, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(y + i), scale));
        }
    }
};

}  // namespace

int htp_op_norm(struct htp_op_context * octx) {
    return run_rows<norm_op>(octx, octx->params->norm);
}
