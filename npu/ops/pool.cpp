// POOL_2D F32 (max or average) without padding, as ggml-cpu's pool_2d: max starts from
// -FLT_MAX, the average divides the window's sum by k0 * k1. The windows of a source row are
// laid out one per VTCM row by a 2-D DMA (row stride s0 elements), so a window is whole
// vectors that HVX reduces; the values are packed 32 per dst vector as they come.
#include "hvx-math.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

constexpr float kNegMax = -3.40282346638528859811704183484516925e+38f;  // -FLT_MAX

struct pool_op : row_op<htp_pool_params> {
    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const dma_addr_t v = vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot);
        for (uint32_t j = 0; j < n; j++) {
            const row_pos    c    = row_coords(p->shape, r + j);
            const dma_addr_t base = octx->src[0].data + row_offset(p->src0, c.i1 * p->s1, c.i2, c.i3);
            for (uint32_t ky = 0; ky < p->k1; ky++) {
                if (!dma_queue_push(q, v + j * p->vsrc.row_pitch + ky * p->ne0 * p->win_pitch, base + ky * p->src0.nb1,
                                    p->win_pitch, p->s0 * 4, p->k0 * 4, p->ne0)) {
                    return -1;
                }
            }
        }
        return (int) (n * p->k1);
    }

    // One dst row: window ox of every ky reduced into lane ox % 32 of y[ox / 32] (the average
    // divided per value, so nothing of the row is kept for a pass after it).
    template <bool kMax> HTP_COMPUTE void compute_row(HVX_Vector * y, const HVX_Vector * w) const {
        const uint32_t   nv    = p->win_pitch / 128;  // vectors per window
        const uint32_t   plane = p->ne0 * nv;         // vectors between ky's windows
        const uint32_t   k1    = p->k1;
        const HVX_Vector init  = kMax ? splat_f32(kNegMax) : Q6_V_vzero();
        // the last window vector's used bytes, as a byte mask (a vector, not a predicate register)
        const HVX_Vector keep  = Q6_V_vand_QR(Q6_Q_vsetq2_R(p->tail_bytes ? (int32_t) p->tail_bytes : 128), -1);
        const HVX_Vector ka    = splat_f32(p->ka);
        const HVX_Vector inv   = splat_f32(p->inv_ka);
        HVX_Vector       acc   = Q6_V_vzero();
        uint32_t         lane  = 0;
        HTP_NO_UNROLL
        for (uint32_t ox = 0; ox < p->ne0; ox++, w += nv) {
            HVX_Vector a = init;
            const HVX_Vector * win = w;
            for (uint32_t ky = 0; ky < k1; ky++, win += plane) {
                for (uint32_t i = 0; i + 1 < nv; i++) {
                    a = kMax ? sf_max(a, win[i]) : Q6_Vsf_vadd_VsfVsf(a, win[i]);
                }
                const HVX_Vector last = Q6_V_vor_VV(Q6_V_vand_VV(win[nv - 1], keep), Q6_V_vand_VV(init, Q6_V_vnot_V(keep)));
                a = kMax ? sf_max(a, last) : Q6_Vsf_vadd_VsfVsf(a, last);
            }
            a = kMax ? reduce_max_sf(a) : div_sf_normal(reduce_sum_sf(a), ka, inv);
            acc = Q6_V_valign_VVR(a, acc, 4);  // the newest value enters at lane 31
            if (++lane == 32) {
                *y++ = acc;
                lane = 0;
            }
        }
        if (lane) {
            *y = Q6_V_vror_VR(acc, (int32_t) (128 - 4 * lane));  // the first value to lane 0
        }
    }

    // One row per chunk (the host plans single-row chunks), so the compute is the row's leaf.
    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t, uint32_t slot) {
        const HVX_Vector * w = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        if (p->is_max) {
            compute_row<true>(y, w);
        } else {
            compute_row<false>(y, w);
        }
    }
};

}  // namespace

int htp_op_pool_2d(struct htp_op_context * octx) {
    return run_rows<pool_op>(octx, octx->params->pool);
}
