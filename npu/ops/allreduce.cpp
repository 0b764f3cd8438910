// ALLREDUCE F32 (params/comm.h): every device of a tensor split's communicator runs this at
// once, as members of one group (npu/src/mdev.h: the barrier before it means every part is in
// DDR). This member's rows of all n_parts parts come into VTCM, are summed in part order, and
// the sum goes back into every part: each row is written by exactly one member, so the parts
// end up equal without any member reading a row another one writes.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct allreduce_op : row_op<htp_allreduce_params> {
    dma_addr_t part_slot(uint32_t slot, uint32_t k) const {
        return vtcm_slot(octx->ctx, p->split, ith, p->vparts, slot) + k * p->part_size;
    }

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        for (uint32_t k = 0; k < p->n_parts; k++) {
            const dma_addr_t s = octx->src[k].data + r * p->row_bytes;
            if (!dma_queue_push(q, part_slot(slot, k), s, p->vparts.row_pitch, p->row_bytes, p->row_bytes, n)) {
                return -1;  // stream_rows flushes what was queued
            }
        }
        return (int) p->n_parts;
    }

    // Row j of part k is at parts + k * part_vecs + j * pitch (vectors); n_parts >= 2.
    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        HVX_Vector *       y0        = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsum, slot));
        const HVX_Vector * parts     = vptr(part_slot(slot, 0));
        const uint32_t     n_vec     = (p->ne0 + 31) / 32;
        const uint32_t     pitch     = p->vparts.row_pitch / 128;
        const uint32_t     part_vecs = p->part_size / 128;
        for (uint32_t j = 0; j < n; j++) {
            HVX_Vector *       y  = y0 + j * (p->vsum.row_pitch / 128);
            const HVX_Vector * x0 = parts + j * pitch;
            const HVX_Vector * x1 = x0 + part_vecs;
            for (uint32_t i = 0; i < n_vec; i++) {
                hvx_vmem_store(&y[i], Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(&x0[i]), hvx_vmem_load(&x1[i])));
            }
            for (uint32_t k = 2; k < p->n_parts; k++) {
                const HVX_Vector * x = x0 + k * part_vecs;
                for (uint32_t i = 0; i < n_vec; i++) {
                    hvx_vmem_store(&y[i], Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(&y[i]), hvx_vmem_load(&x[i])));
                }
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        const dma_addr_t y = vtcm_slot(octx->ctx, p->split, ith, p->vsum, slot);
        for (uint32_t k = 0; k < p->n_parts; k++) {
            const dma_addr_t d = octx->src[k].data + r * p->row_bytes;
            if (!dma_queue_push(q, d, y, p->row_bytes, p->vsum.row_pitch, p->row_bytes, n)) {
                return -1;
            }
        }
        return (int) p->n_parts;
    }
};

}  // namespace

int htp_op_allreduce(struct htp_op_context * octx) {
    const htp_allreduce_params & p = octx->params->allreduce;
    if (p.n_parts < 2 || p.n_parts > octx->n_src) {
        return HTP_STATUS_BAD_PARAMS;
    }
    return run_rows<allreduce_op>(octx, p);
}
