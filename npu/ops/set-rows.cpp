// SET_ROWS F32 -> F32 / F16: source rows stream in as chunks; each converted row is written
// back by its own 1-D DMA to the row its I32 / I64 index names (the KV-cache update).
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct set_rows_op {
    const htp_op_context *      octx;
    const htp_set_rows_params * p;
    uint32_t                    ith;
    dma_queue *                 q;

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c = row_coords(p->shape, r);
        const dma_addr_t s = octx->src[0].data + row_offset(p->src0, c.i1, c.i2, c.i3);
        return dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot), s, p->vsrc.row_pitch, p->src0.nb1,
                              p->ne0 * 4, n) ? 1 : -1;
    }

    void compute(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * x = x0 + j * (p->vsrc.row_pitch / 128);
            HVX_Vector *       y = y0 + j * (p->vdst.row_pitch / 128);
            if (p->dst_type == HTP_TYPE_F16) {
                f32_to_f16_vectors(y, x, (p->ne0 + 63) / 64);
            } else {
                copy_vectors(y, x, (p->ne0 + 31) / 32);
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c   = row_coords(p->shape, r);  // (i01, i02, i03)
        const uint32_t   i11 = htp_fastmod(c.i2, &p->mod_ne11);
        const uint32_t   i12 = htp_fastmod(c.i3, &p->mod_ne12);
        const dma_addr_t v   = vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot);
        for (uint32_t j = 0; j < n; j++) {
            const dma_addr_t ia  = octx->src[1].data + row_offset(p->idx, c.i1 + j, i11, i12);
            const uint32_t   row = p->idx_i64 ? (uint32_t) *(const int64_t *) htp_va(ia)
                                              : (uint32_t) *(const int32_t *) htp_va(ia);
            const dma_addr_t d   = octx->dst.data + row_offset(p->dst, row, c.i2, c.i3);
            if (!dma_queue_push_1d(q, d, v + j * p->vdst.row_pitch, p->dst_row_bytes)) {
                return -1;
            }
        }
        return (int) n;
    }
};

}  // namespace

int htp_op_set_rows(struct htp_op_context * octx) {
    return run_rows<set_rows_op>(octx, octx->params->set_rows);
}
