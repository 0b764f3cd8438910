// ROLL (F32): each dst row is a src row (its coordinates shifted back, wrapping) rotated by
// s0 elements. Two DMAs lay the row's pieces out rotated in the src slot; HVX copies the
// chunk into the dst slot, written back by one 2-D DMA (htp_roll_params).
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

// (i - s) mod n for i, s in [0, n): no division.
inline uint32_t wrap_back(uint32_t i, uint32_t s, uint32_t n) {
    return i >= s ? i - s : i + n - s;
}

struct roll_op : row_op<htp_roll_params> {
    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c  = row_coords(p->shape, r);  // a chunk stays in one plane
        const uint32_t   j2 = wrap_back(c.i2, p->s2, p->shape.ne2);
        const uint32_t   j3 = wrap_back(c.i3, p->s3, p->ne3);
        const dma_addr_t v  = vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot);
        const uint32_t   lo = (p->ne0 - p->s0) * 4;  // bytes of src[0 .. ne0 - s0)
        int              k  = 0;
        for (uint32_t j = 0; j < n; j++) {
            const dma_addr_t s  = octx->src[0].data + row_offset(p->src0, wrap_back(c.i1 + j, p->s1, p->shape.ne1), j2, j3);
            const dma_addr_t vj = v + j * p->vsrc.row_pitch;
            if (p->s0 != 0) {
                if (!dma_queue_push_1d(q, vj, s + lo, p->s0 * 4)) {
                    return -1;
                }
                k++;
            }
            if (!dma_queue_push_1d(q, vj + p->s0 * 4, s, lo)) {
                return -1;
            }
            k++;
        }
        return k;
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        copy_vectors(y, x, n * (p->vsrc.row_pitch / 128));
    }
};

}  // namespace

int htp_op_roll(struct htp_op_context * octx) {
    return run_rows<roll_op>(octx, octx->params->roll);
}
