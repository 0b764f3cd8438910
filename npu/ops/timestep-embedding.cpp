// TIMESTEP_EMBEDDING (F32): dst row i = cos(t_i f_j) for j < half, then sin(t_i f_j), with
// f_j = exp(c j) (ggml-cpu: expf(-logf(max_period) * j / half)); a trailing 0 when dim is
// odd. A chunk's timesteps come by one DMA; the frequencies are made per row with HVX
// (exp_sf), the cosines and sines (sincos_sf, hvx-math.h) go to rows of their own, written
// by one 2-D DMA each (htp_timestep_params).
#include "hvx-math.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct timestep_op : row_op<htp_timestep_params> {
    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const dma_addr_t s = octx->src[0].data + r * p->src_nb0;
        return dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot), s, 4, p->src_nb0, 4, n) ? 1 : -1;
    }

    // Row j of the chunk: t in every lane; vector k of the cos row and of the sin row (the sin
    // row's lanes at and past `half` zero: its last element is dst's trailing 0 for odd dims).
    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * t0   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       cos0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vcos, slot));
        HVX_Vector *       sin0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsin, slot));
        const uint32_t     nv   = p->vsin.row_pitch / 128;  // sin row vectors: ceil((half + 1) / 32)
        const HVX_Vector   c    = splat_f32(p->c);
        const HVX_Vector   lane = lane_index();
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector t  = Q6_V_vsplat_R(Q6_R_vextract_VR(hvx_vmem_load(&t0[j / 32]), (int32_t) (4 * (j % 32))));
            HVX_Vector *     yc = cos0 + j * (p->vcos.row_pitch / 128);
            HVX_Vector *     ys = sin0 + j * (p->vsin.row_pitch / 128);
            HTP_NO_UNROLL
            for (uint32_t k = 0; k < nv; k++) {
                const HVX_Vector jj  = Q6_Vw_vadd_VwVw(lane, Q6_V_vsplat_R((int32_t) (32 * k)));
                const HVX_Vector arg = Q6_Vsf_vmpy_VsfVsf(t, exp_sf(Q6_Vsf_vmpy_VsfVsf(int_to_sf_small(jj), c)));
                const HVX_VectorPred live = Q6_Q_vcmp_gt_VwVw(Q6_V_vsplat_R((int32_t) p->half), jj);
                hvx_vmem_store(&ys[k], Q6_V_vmux_QVV(live, sincos_sf<false>(arg), Q6_V_vzero()));
                if (32 * k < p->half) {
                    hvx_vmem_store(&yc[k], sincos_sf<true>(arg));
                }
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        const dma_addr_t d = octx->dst.data + r * p->dst_nb1;
        if (!dma_queue_push(q, d, vtcm_slot(octx->ctx, p->split, ith, p->vcos, slot), p->dst_nb1, p->vcos.row_pitch,
                            p->half * 4, n) ||
            !dma_queue_push(q, d + p->half * 4, vtcm_slot(octx->ctx, p->split, ith, p->vsin, slot), p->dst_nb1,
                            p->vsin.row_pitch, p->sin_elems * 4, n)) {
            return -1;
        }
        return 2;
    }
};

}  // namespace

int htp_op_timestep_embedding(struct htp_op_context * octx) {
    return run_rows<timestep_op>(octx, octx->params->timestep);
}
