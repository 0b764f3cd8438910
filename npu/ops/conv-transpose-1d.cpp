// CONV_TRANSPOSE_1D F32 (p0 = 0, d0 = 1, as ggml requires): dst[oc][il * s0 + k] +=
// sum_ic in[ic][il] * w[ic][oc][k], as ggml-cpu's conv_transpose_1d_f32: each position il's
// sum over ic is added to the dst row in il order. A row is one output channel oc. Each thread
// fetches the input once (start: Cin rows of L floats); per row one 2-D descriptor brings the
// kernel slice (Cin rows of K floats, their tails zeroed once so whole vectors can be summed),
// HVX forms for each il the vectors over k of sum_ic w[ic][k] * in[ic][il] (the input value
// splat from a lane) and adds them to the dst row at il * s0 with unaligned loads and stores
// (the row has a vector of slack), and one descriptor writes the OL values back.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct conv_t1d_op : row_op<htp_conv_transpose_1d_params> {
    // Before the row stream (start_op, row-stream.h): the kernel slots' row tails zeroed (the
    // fetches write only K floats of a row), and the input fetched into v_in.
    int start() {
        HVX_Vector *     w = vptr(vtcm_at(octx->ctx, p->split, ith, p->vw.offset));
        const HVX_Vector z = Q6_V_vzero();
        for (uint32_t i = 0; i < p->vw.slot_size * p->split.n_bufs / 128; i++) {
            hvx_vmem_store(w + i, z);
        }
        htp_trace * tr = &octx->ctx->trace[ith];
        if (!dma_queue_push(q, vtcm_at(octx->ctx, p->split, ith, p->v_in), octx->src[1].data, p->in_pitch, p->in_nb1,
                            p->L * 4, p->Cin)) {
            return HTP_STATUS_DMA_ERROR;
        }
        dma_pop_n(q, tr, 1, (uint16_t) p->Cin);  // info: input rows fetched
        return HTP_STATUS_OK;
    }

    int fetch(uint32_t r, uint32_t, uint32_t slot) {  // one row per chunk (the host plans so)
        const dma_addr_t k = octx->src[0].data + r * p->w_nb1;
        return dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->vw, slot), k, p->k_pitch, p->w_nb2, p->K * 4,
                              p->Cin) ? 1 : -1;
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t, uint32_t slot) {
        const HVX_Vector * w   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vw, slot));
        const HVX_Vector * in  = vptr(vtcm_at(octx->ctx, p->split, ith, p->v_in));
        const dma_addr_t   ya  = vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot);
        HVX_Vector *       y   = vptr(ya);
        const uint32_t     nvk = p->k_pitch / 128;
        const uint32_t     nvi = p->in_pitch / 128;
        for (uint32_t i = 0; i < p->vdst.row_pitch / 128; i++) {
            hvx_vmem_store(&y[i], Q6_V_vzero());
        }
        for (uint32_t il = 0; il < p->L; il++) {
            uint8_t *          yo   = (uint8_t *) y + il * p->s0 * 4;
            const HVX_Vector * inl  = in + (il >> 5);
            const int32_t      lane = (int32_t) ((il & 31) * 4);
            for (uint32_t i = 0; i < nvk; i++) {
                HVX_Vector acc = Q6_V_vzero();
                HTP_NO_UNROLL
                for (uint32_t ic = 0; ic < p->Cin; ic++) {
                    const HVX_Vector x = Q6_V_vsplat_R(Q6_R_vextract_VR(hvx_vmem_load(&inl[ic * nvi]), lane));
                    acc = Q6_Vsf_vadd_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&w[ic * nvk + i]), x));
                }
                hvx_vmemu_store(yo + i * 128, Q6_Vsf_vadd_VsfVsf(hvx_vmemu_load(yo + i * 128), acc));
            }
        }
    }

    int store(uint32_t r, uint32_t, uint32_t slot) {
        const dma_addr_t d = octx->dst.data + r * p->dst_nb1;
        return dma_queue_push_1d(q, d, vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot), p->OL * 4) ? 1 : -1;
    }
};

}  // namespace

int htp_op_conv_transpose_1d(struct htp_op_context * octx) {
    return run_rows<conv_t1d_op>(octx, octx->params->conv_transpose_1d);
}
