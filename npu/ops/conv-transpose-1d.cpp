// CONV_TRANSPOSE_1D F32 (p0 = 0, d0 = 1, as ggml requires): dst[oc][il * s0 + k] +=
// sum_ic in[ic][il] * w[ic][oc][k], as ggml-cpu's conv_transpose_1d_f32: each position il's
// sum over ic is added to the dst row in il order. A row is one output channel oc. Each thread
// fetches the input once (start: Cin rows of L floats); per row one 2-D descriptor brings the
// kernel slice (Cin rows of K floats, their tails zeroed once so whole vectors can be summed),
// HVX forms for each il the vectors over k of sum_ic w[ic][k] * in[ic][il] (the input value
// splat from a lane) and adds them to the dst row at il * s0 with unaligned loads and stores
// (the row has a vector of slack), and one descriptor writes the OL values back.
// COL2IM_1D runs here too (params/sequence.h): the row's L column pieces are fetched as the
// kernel slice is, widened from F16 / BF16 if so, and added at il * s0 without a product; the
// sums are narrowed back to the columns' type and written from value `crop` on.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct conv_t1d_op : row_op<htp_conv_transpose_1d_params> {
    // Before the row stream (start_op, row-stream.h): the kernel slots' row tails zeroed (the
    // fetches write only K values of a row), and CONV_TRANSPOSE_1D's input fetched into v_in.
    int start() {
        HVX_Vector *     w = vptr(vtcm_at(octx->ctx, p->split, ith, p->vw.offset));
        const HVX_Vector z = Q6_V_vzero();
        for (uint32_t i = 0; i < p->vw.slot_size * p->split.n_bufs / 128; i++) {
            hvx_vmem_store(w + i, z);
        }
        if (p->col2im) {
            return HTP_STATUS_OK;  // no input beside the columns
        }
        htp_trace * tr = &octx->ctx->trace[ith];
        if (!dma_queue_push(q, vtcm_at(octx->ctx, p->split, ith, p->v_in), octx->src[1].data, p->in_pitch, p->in_nb1,
                            p->L * 4, p->Cin)) {
            return HTP_STATUS_DMA_ERROR;
        }
        dma_pop_n(q, tr, 1, (uint16_t) p->Cin);  // info: input rows fetched
        return HTP_STATUS_OK;
    }

    // One row per chunk (the host plans so): its kernel slice (Cin rows) or column pieces (L rows).
    int fetch(uint32_t r, uint32_t, uint32_t slot) {
        const dma_addr_t k  = octx->src[0].data + r * p->w_nb1;
        const uint32_t   es = p->type == HTP_TYPE_F32 ? 4 : 2;
        return dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->vw, slot), k, p->k_pitch, p->w_nb2, p->K * es,
                              p->col2im ? p->L : p->Cin) ? 1 : -1;
    }

    HTP_COMPUTE void compute_conv(const HVX_Vector * w, HVX_Vector * y) {
        const HVX_Vector * in  = vptr(vtcm_at(octx->ctx, p->split, ith, p->v_in));
        const uint32_t     nvk = p->k_pitch / 128;
        const uint32_t     nvi = p->in_pitch / 128;
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

    // COL2IM_1D: column piece il (widened to F32 first unless F32) added at il * s0.
    HTP_COMPUTE void compute_col(const HVX_Vector * w, HVX_Vector * y) {
        HVX_Vector *   wide = vptr(vtcm_at(octx->ctx, p->split, ith, p->v_wide));
        const uint32_t nvk  = p->k_pitch / 128;
        const uint32_t nvf  = p->type == HTP_TYPE_F32 ? nvk : 2 * nvk;  // F32 vectors of a piece
        for (uint32_t il = 0; il < p->L; il++) {
            const HVX_Vector * x = w + il * nvk;
            if (p->type == HTP_TYPE_F16) {
                f16_to_f32_vectors(wide, x, nvk);
                x = wide;
            } else if (p->type == HTP_TYPE_BF16) {
                bf16_to_f32_vectors(wide, x, nvk);
                x = wide;
            }
            uint8_t * yo = (uint8_t *) y + il * p->s0 * 4;
            HTP_NO_UNROLL
            for (uint32_t i = 0; i < nvf; i++) {
                hvx_vmemu_store(yo + i * 128, Q6_Vsf_vadd_VsfVsf(hvx_vmemu_load(yo + i * 128), hvx_vmem_load(&x[i])));
            }
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t, uint32_t slot) {
        const HVX_Vector * w = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vw, slot));
        HVX_Vector *       y = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        for (uint32_t i = 0; i < p->vdst.row_pitch / 128; i++) {
            hvx_vmem_store(&y[i], Q6_V_vzero());
        }
        if (!p->col2im) {
            compute_conv(w, y);
            return;
        }
        compute_col(w, y);
        if (p->type == HTP_TYPE_F16) {  // narrowed whole vector pairs; the store crops
            f32_to_f16_vectors(vptr(vtcm_slot(octx->ctx, p->split, ith, p->vout, slot)), y, p->vdst.row_pitch / 256);
        } else if (p->type == HTP_TYPE_BF16) {
            f32_to_bf16_vectors(vptr(vtcm_slot(octx->ctx, p->split, ith, p->vout, slot)), y, p->vdst.row_pitch / 256);
        }
    }

    int store(uint32_t r, uint32_t, uint32_t slot) {
        const dma_addr_t d  = octx->dst.data + r * p->dst_nb1;
        const uint32_t   es = p->type == HTP_TYPE_F32 ? 4 : 2;
        const dma_addr_t v  = es == 4 ? vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot)
                                      : vtcm_slot(octx->ctx, p->split, ith, p->vout, slot);
        return dma_queue_push_1d(q, d, v + p->crop * es, p->OL * es) ? 1 : -1;
    }
};

}  // namespace

int htp_op_conv_transpose_1d(struct htp_op_context * octx) {
    return run_rows<conv_t1d_op>(octx, octx->params->conv_transpose_1d);
}
