// GET_ROWS to F32 from F32 / F16 / BF16 / Q8_0 rows picked by I32 indices (I32 rows: copied). The index is a scalar
// load from DDR (it forms the DMA address). A Q8_0 row is split by two 2-D DMAs into its
// fp16 scales (2 of every 34 bytes) and its quants (32 of every 34), so HVX sees dense arrays.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct get_rows_op {
    const htp_op_context *      octx;
    const htp_get_rows_params * p;
    uint32_t                    ith;
    dma_queue *                 q;

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c = row_coords(p->shape, r);  // (i10, i11, i12); a chunk stays in one plane
        const dma_addr_t v = vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot);
        for (uint32_t j = 0; j < n; j++) {
            const dma_addr_t ia  = octx->src[1].data + row_offset(p->idx, c.i1 + j, c.i2, c.i3);
            const uint32_t   row = (uint32_t) *(const int32_t *) htp_va(ia);
            const dma_addr_t s   = octx->src[0].data + row_offset(p->src0, row, c.i2, c.i3);
            const dma_addr_t vj  = v + j * p->vsrc.row_pitch;
            if (p->src_type == HTP_TYPE_Q8_0) {
                const uint32_t bs = (uint32_t) sizeof(struct htp_block_q8_0);
                if (!dma_queue_push(q, vj, s, 2, bs, 2, p->n_blocks) ||
                    !dma_queue_push(q, vj + p->q8_quant_offset, s + 2, HTP_QK8_0, bs, HTP_QK8_0, p->n_blocks)) {
                    return -1;
                }
            } else if (!dma_queue_push_1d(q, vj, s, p->src_row_bytes)) {
                return -1;
            }
        }
        return (int) (p->src_type == HTP_TYPE_Q8_0 ? 2 * n : n);
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * x = x0 + j * (p->vsrc.row_pitch / 128);
            HVX_Vector *       y = y0 + j * (p->vdst.row_pitch / 128);
            if (p->src_type == HTP_TYPE_F32 || p->src_type == HTP_TYPE_I32) {
                copy_vectors(y, x, (p->ne0 + 31) / 32);
            } else if (p->src_type == HTP_TYPE_F16) {
                f16_to_f32_vectors(y, x, (p->ne0 + 63) / 64);
            } else if (p->src_type == HTP_TYPE_BF16) {
                bf16_to_f32_vectors(y, x, (p->ne0 + 63) / 64);
            } else {
                q8_0_to_f32_vectors(y, x, x + p->q8_quant_offset / 128, p->n_blocks);
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        return store_chunk(octx, p, ith, q, r, n, slot, p->ne0 * 4);
    }
};

}  // namespace

int htp_op_get_rows(struct htp_op_context * octx) {
    return run_rows<get_rows_op>(octx, octx->params->get_rows);
}
