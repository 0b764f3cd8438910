// CPY / CONT / DUP between F32 and F16, and BF16 / I32 to the same type (copied as bytes). Rows of a strided source are gathered element by
// element with a 2-D DMA (row size = element size, src stride = nb0); a strided destination
// is scattered the same way. HVX converts between the two VTCM buffers.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

inline uint32_t type_size(uint32_t t) {
    return t == HTP_TYPE_F16 || t == HTP_TYPE_BF16 ? 2 : 4;
}

struct cpy_op {
    const htp_op_context * octx;
    const htp_cpy_params * p;
    uint32_t               ith;
    dma_queue *            q;

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c  = row_coords(p->shape, r);
        const dma_addr_t s  = octx->src[0].data + row_offset(p->src, c.i1, c.i2, c.i3);
        const dma_addr_t v  = vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot);
        const uint32_t   es = type_size(p->src_type);
        const bool       ok = p->src_gather ? dma_queue_push(q, v, s, es, p->src_nb0, es, p->ne0)  // n == 1
                                            : dma_queue_push(q, v, s, p->vsrc.row_pitch, p->src.nb1, p->ne0 * es, n);
        return ok ? 1 : -1;
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * x = x0 + j * (p->vsrc.row_pitch / 128);
            HVX_Vector *       y = y0 + j * (p->vdst.row_pitch / 128);
            if (p->src_type == p->dst_type) {
                copy_vectors(y, x, (p->ne0 * type_size(p->src_type) + 127) / 128);
            } else if (p->src_type == HTP_TYPE_F32) {
                f32_to_f16_vectors(y, x, (p->ne0 + 63) / 64);
            } else {
                f16_to_f32_vectors(y, x, (p->ne0 + 63) / 64);
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c  = row_coords(p->shape, r);
        const dma_addr_t d  = octx->dst.data + row_offset(p->dst, c.i1, c.i2, c.i3);
        const dma_addr_t v  = vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot);
        const uint32_t   es = type_size(p->dst_type);
        const bool       ok = p->dst_scatter ? dma_queue_push(q, d, v, p->dst_nb0, es, es, p->ne0)  // n == 1
                                             : dma_queue_push(q, d, v, p->dst.nb1, p->vdst.row_pitch, p->ne0 * es, n);
        return ok ? 1 : -1;
    }
};

}  // namespace

int htp_op_cpy(struct htp_op_context * octx) {
    return run_rows<cpy_op>(octx, octx->params->cpy);
}
