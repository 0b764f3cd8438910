// SSM_CONV F32: dst[ch, t, s] = sum_k sx[t + k, ch, s] * c[k, ch]. Vectors run over channels:
// the taps c and, per chunk, the sx columns t0 .. t0 + n + d_conv - 2 are gathered transposed
// into VTCM rows over channels (one 2-D DMA descriptor of d_inner one-element rows each);
// HVX then forms each dst row as d_conv multiply-adds in ggml's order (k = 0 first).
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct ssm_conv_op : row_op<htp_ssm_conv_params> {
    // Before the row stream (start_op, row-stream.h): the taps, transposed (row k holds
    // c[k, :]).
    int start() {
        const dma_addr_t vc = vtcm_at(octx->ctx, p->split, ith, p->vc_offset);
        htp_trace *      tr = &octx->ctx->trace[ith];
        uint32_t         n  = 0;
        for (uint32_t k = 0; k < p->d_conv; k++) {
            if (!dma_queue_push(q, vc + k * p->pitch, octx->src[1].data + k * 4, 4, p->nb_c1, 4, p->d_inner)) {
                dma_pop_n(q, tr, n, (uint16_t) n);
                return HTP_STATUS_DMA_ERROR;
            }
            n++;
        }
        dma_pop_n(q, tr, n, (uint16_t) n);  // info: tap rows gathered (d_conv)
        return HTP_STATUS_OK;
    }

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c    = row_coords(p->shape, r);
        const dma_addr_t v    = vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot);
        const dma_addr_t s    = octx->src[0].data + c.i2 * p->nb_sx2 + c.i1 * 4;
        const uint32_t   cols = n + p->d_conv - 1;
        for (uint32_t m = 0; m < cols; m++) {
            if (!dma_queue_push(q, v + m * p->pitch, s + m * 4, 4, p->nb_sx1, 4, p->d_inner)) {
                return -1;
            }
        }
        return (int) cols;
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        const HVX_Vector * cv = vptr(vtcm_at(octx->ctx, p->split, ith, p->vc_offset));
        HVX_Vector *       y0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     nv = p->pitch / 128;
        const uint32_t     dc = p->d_conv;
        for (uint32_t j = 0; j < n; j++) {
            for (uint32_t i = 0; i < nv; i++) {
                const HVX_Vector * xk  = x0 + i;
                const HVX_Vector * ck  = cv + i;
                HVX_Vector         acc = Q6_V_vzero();
                HTP_NO_UNROLL  // d_conv is small (4)
                for (uint32_t k = 0; k < dc; k++) {
                    acc = Q6_Vsf_vadd_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(xk), hvx_vmem_load(ck)));
                    xk += nv;
                    ck += nv;
                }
                hvx_vmem_store(&y0[i], acc);
            }
            x0 += nv;
            y0 += nv;
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        return store_chunk(octx, p, ith, q, r, n, slot, p->d_inner * 4);
    }
};

}  // namespace

int htp_op_ssm_conv(struct htp_op_context * octx) {
    return run_rows<ssm_conv_op>(octx, octx->params->ssm_conv);
}
