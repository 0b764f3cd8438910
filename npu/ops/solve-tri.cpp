// SOLVE_TRI F32 (lower triangular A, left side): per batch, A and B arrive in VTCM by DMA;
// X is solved row by row with vectors over the k right-hand-side columns:
//   X[i] = (B[i] - sum_{t < i} A[i][t] * X[t]) * (1 / A[i][i])
// summing t upwards as ggml's CPU does. The coefficients A[i][t] come from a stack copy of
// row i (HVX stores, scalar reads off the stack, never scalar VTCM reads).
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct solve_tri_op : row_op<htp_solve_tri_params> {
    int fetch(uint32_t r, uint32_t, uint32_t slot) {
        const row_pos    c  = row_coords(p->shape, r);
        const dma_addr_t sa = octx->src[0].data + c.i1 * p->a.nb2 + c.i2 * p->a.nb3;
        const dma_addr_t sb = octx->src[1].data + c.i1 * p->b.nb2 + c.i2 * p->b.nb3;
        if (!dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->va, slot), sa, p->va.row_pitch, p->a.nb1,
                            p->n * 4, p->n)) {
            return -1;
        }
        return dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->vb, slot), sb, p->vb.row_pitch, p->b.nb1,
                              p->k * 4, p->n) ? 2 : -1;
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t, uint32_t slot) {
        const HVX_Vector * A   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->va, slot));
        const HVX_Vector * B   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vb, slot));
        HVX_Vector *       X   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vx, slot));
        const uint32_t     nva = p->va.row_pitch / 128;
        const uint32_t     nvk = p->vb.row_pitch / 128;
        const uint32_t     n   = p->n;
        // A[i][t] comes from its vector of row i by vextract (the lane index is 4 t mod 128),
        // not from a stack copy of the row.
        for (uint32_t i = 0; i < n; i++) {
            const HVX_Vector * arow = A + i * nva;
            const HVX_Vector   inv  = splat_f32(1.0f / lane_f32(hvx_vmem_load(&arow[i / 32]), i));
            for (uint32_t v = 0; v < nvk; v++) {
                const HVX_Vector * xt  = X + v;
                HVX_Vector         sum = Q6_V_vzero();
                HTP_NO_UNROLL
                for (uint32_t t = 0; t < i; t++) {
                    const HVX_Vector a = Q6_V_vsplat_R(Q6_R_vextract_VR(hvx_vmem_load(&arow[t / 32]), (int32_t) (4 * t)));
                    sum                = Q6_Vsf_vadd_VsfVsf(sum, Q6_Vsf_vmpy_VsfVsf(a, hvx_vmem_load(xt)));
                    xt += nvk;
                }
                hvx_vmem_store(&X[i * nvk + v], Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vsub_VsfVsf(hvx_vmem_load(&B[i * nvk + v]), sum), inv));
            }
        }
    }

    int store(uint32_t r, uint32_t, uint32_t slot) {
        const row_pos    c = row_coords(p->shape, r);
        const dma_addr_t d = octx->dst.data + c.i1 * p->x.nb2 + c.i2 * p->x.nb3;
        return dma_queue_push(q, d, vtcm_slot(octx->ctx, p->split, ith, p->vx, slot), p->x.nb1, p->vx.row_pitch,
                              p->k * 4, p->n) ? 1 : -1;
    }
};

}  // namespace

int htp_op_solve_tri(struct htp_op_context * octx) {
    return run_rows<solve_tri_op>(octx, octx->params->solve_tri);
}
