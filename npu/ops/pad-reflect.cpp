// PAD_REFLECT_1D (F32): per row, HVX writes the reversed row (rev[i] = src[ne0 - 1 - i]) and
// a copy of the row into the dst slot; three 2-D DMAs per chunk write dst's left part (a range
// of rev), the row and the right part (another range of rev) (htp_pad_reflect_params).
#include "hvx-util.h"
#include "hvx-vmem.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

// Byte l <- byte 4 (31 - l / 4) + l % 4: the 32 words of a vector in reverse order.
constexpr byte_perm make_word_reverse() {
    byte_perm t{};
    for (int l = 0; l < 128; l++) {
        t.v[l] = vlut32_perm_index(4 * (31 - l / 4) + l % 4);
    }
    return t;
}

constexpr byte_perm kWordReverse = make_word_reverse();

struct pad_reflect_op : row_op<htp_pad_reflect_params> {
    // rev from the reversed vectors: reversing vector n_vec - 1 - k gives rev shifted by the
    // pad lanes of the last vector, so rev vector k joins two of them (valign).
    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const HVX_Vector   idx = hvx_vmem_load((const HVX_Vector *) kWordReverse.v);
        const uint32_t     nv  = p->n_vec;
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * x    = x0 + j * (p->vsrc.row_pitch / 128);
            HVX_Vector *       y    = y0 + j * (p->vdst.row_pitch / 128);
            HVX_Vector         prev = permute_bytes(hvx_vmem_load(&x[nv - 1]), idx);
            HTP_NO_UNROLL
            for (uint32_t k = 0; k < nv; k++) {
                const HVX_Vector next = k + 1 < nv ? permute_bytes(hvx_vmem_load(&x[nv - 2 - k]), idx) : Q6_V_vzero();
                hvx_vmem_store(&y[k], Q6_V_valign_VVR(next, prev, (int32_t) p->pad_bytes));
                prev = next;
            }
            copy_vectors(y + p->copy_off / 128, x, nv);
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c     = row_coords(p->shape, r);
        const dma_addr_t d     = octx->dst.data + row_offset(p->dst, c.i1, c.i2, c.i3);
        const dma_addr_t v     = vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot);
        const uint32_t   pitch = p->vdst.row_pitch;
        int              k     = 0;
        if (p->p0) {
            if (!dma_queue_push(q, d, v + (p->ne0 - 1 - p->p0) * 4, p->dst.nb1, pitch, p->p0 * 4, n)) {
                return -1;
            }
            k++;
        }
        if (!dma_queue_push(q, d + p->p0 * 4, v + p->copy_off, p->dst.nb1, pitch, p->ne0 * 4, n)) {
            return -1;
        }
        k++;
        if (p->p1) {
            if (!dma_queue_push(q, d + (p->p0 + p->ne0) * 4, v + 4, p->dst.nb1, pitch, p->p1 * 4, n)) {
                return -1;
            }
            k++;
        }
        return k;
    }
};

}  // namespace

int htp_op_pad_reflect_1d(struct htp_op_context * octx) {
    return run_rows<pad_reflect_op>(octx, octx->params->pad_reflect);
}
