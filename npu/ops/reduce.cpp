// SUM_ROWS / MEAN (F32 -> one value per row) and CUMSUM (F32 prefix sums along dim 0).
// Rows stream through VTCM; sums accumulate in 32 sf lanes with the partial last vector
// masked. Per-row results of SUM_ROWS / MEAN are shifted into vectors (32 rows each) so the
// dst slot is written with whole-vector stores, and one 2-D descriptor writes a chunk back.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct reduce_op {
    const htp_op_context *    octx;
    const htp_reduce_params * p;
    uint32_t                  ith;
    dma_queue *               q;

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        return fetch_chunk(octx, p, ith, q, r, n, slot, p->ne0 * 4);
    }

    // Sum of the row's ne0 elements, in every lane.
    HVX_Vector row_sum(const HVX_Vector * x) const {
        const uint32_t n_full = p->ne0 / 32;
        HVX_Vector     acc    = Q6_V_vzero();
        for (uint32_t i = 0; i < n_full; i++) {
            acc = Q6_Vsf_vadd_VsfVsf(acc, x[i]);
        }
        if (p->tail_bytes) {
            acc = Q6_Vsf_vadd_VsfVsf(acc, Q6_V_vand_QV(Q6_Q_vsetq_R((int32_t) p->tail_bytes), x[n_full]));
        }
        return reduce_sum_sf(acc);
    }

    void cumsum_row(const HVX_Vector * x, HVX_Vector * y) const {
        const uint32_t   n_vec = (p->ne0 + 31) / 32;
        const HVX_Vector zero  = Q6_V_vzero();
        HVX_Vector       carry = zero;
        for (uint32_t i = 0; i < n_vec; i++) {
            HVX_Vector v = x[i];
            if (i == n_vec - 1 && p->tail_bytes) {
                v = Q6_V_vand_QV(Q6_Q_vsetq_R((int32_t) p->tail_bytes), v);
            }
            HVX_Vector s = v;  // in-vector inclusive scan: add the vector shifted up by 1, 2, 4, 8, 16 lanes
            for (int32_t k = 4; k < 128; k <<= 1) {
                s = Q6_Vsf_vadd_VsfVsf(s, Q6_V_vlalign_VVR(s, zero, k));
            }
            y[i]  = Q6_Vsf_vadd_VsfVsf(s, carry);
            carry = Q6_Vsf_vadd_VsfVsf(carry, reduce_sum_sf(v));
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     xs = p->vsrc.row_pitch / 128;
        if (p->kind == HTP_REDUCE_CUMSUM) {
            for (uint32_t j = 0; j < n; j++) {
                cumsum_row(x0 + j * xs, y0 + j * (p->vdst.row_pitch / 128));
            }
            return;
        }
        const HVX_Vector scale = splat_f32(p->scale);
        for (uint32_t g = 0; g * 32 < n; g++) {
            const uint32_t k   = n - g * 32 < 32 ? n - g * 32 : 32;
            HVX_Vector     res = Q6_V_vzero();
            for (uint32_t j = 0; j < k; j++) {  // row j's result enters at lane 31, older ones move down
                HVX_Vector s = row_sum(x0 + (g * 32 + j) * xs);
                if (p->kind == HTP_REDUCE_MEAN) {
                    s = Q6_Vsf_vmpy_VsfVsf(s, scale);
                }
                res = Q6_V_valign_VVR(s, res, 4);
            }
            y0[g] = Q6_V_vror_VR(res, (int32_t) (128 - 4 * k));  // row g * 32 at lane 0
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c   = row_coords(p->shape, r);
        const dma_addr_t d   = octx->dst.data + row_offset(p->dst, c.i1, c.i2, c.i3);
        const dma_addr_t src = vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot);
        if (p->kind == HTP_REDUCE_CUMSUM) {
            return dma_queue_push(q, d, src, p->dst.nb1, p->vdst.row_pitch, p->ne0 * 4, n) ? 1 : -1;
        }
        return dma_queue_push(q, d, src, p->dst.nb1, 4, 4, n) ? 1 : -1;
    }
};

}  // namespace

int htp_op_sum_rows(struct htp_op_context * octx) {
    return run_rows<reduce_op>(octx, octx->params->reduce);
}

int htp_op_mean(struct htp_op_context * octx) {
    return run_rows<reduce_op>(octx, octx->params->reduce);
}

int htp_op_cumsum(struct htp_op_context * octx) {
    return run_rows<reduce_op>(octx, octx->params->reduce);
}
