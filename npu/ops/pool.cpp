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

struct pool_op {
    const htp_op_context *  octx;
    const htp_pool_params * p;
    uint32_t                ith;
    dma_queue *             q;

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

    // One dst row: window ox of every ky reduced into lane ox % 32 of y[ox / 32].
    template <bool kMax> inline void pool_row(HVX_Vector * y, const HVX_Vector * w) const {
        const uint32_t       nv    = p->win_pitch / 128;        // vectors per window
        const uint32_t       plane = p->ne0 * nv;               // vectors between ky's windows
        const HVX_Vector     init  = kMax ? splat_f32(kNegMax) : Q6_V_vzero();
        const HVX_VectorPred tail  = Q6_Q_vsetq2_R(p->tail_bytes ? (int32_t) p->tail_bytes : 128);
        HVX_Vector * const   y0    = y;
        HVX_Vector           acc   = Q6_V_vzero();
        uint32_t             lane  = 0;
        HTP_NO_UNROLL
        for (uint32_t ox = 0; ox < p->ne0; ox++) {
            HVX_Vector a = init;
            for (uint32_t ky = 0; ky < p->k1; ky++) {
                const HVX_Vector * win = w + ky * plane + ox * nv;
                for (uint32_t i = 0; i + 1 < nv; i++) {
                    a = kMax ? sf_max(a, win[i]) : Q6_Vsf_vadd_VsfVsf(a, win[i]);
                }
                const HVX_Vector last = Q6_V_vmux_QVV(tail, win[nv - 1], init);
                a = kMax ? sf_max(a, last) : Q6_Vsf_vadd_VsfVsf(a, last);
            }
            a   = kMax ? reduce_max_sf(a) : reduce_sum_sf(a);
            acc = Q6_V_valign_VVR(a, acc, 4);  // the newest value enters at lane 31
            if (++lane == 32) {
                *y++ = acc;
                lane = 0;
            }
        }
        if (lane) {
            *y = Q6_V_vror_VR(acc, (int32_t) (128 - 4 * lane));  // the first value to lane 0
        }
        if (!kMax) {
            const uint32_t   n_out = (p->ne0 + 31) / 32;
            const HVX_Vector ka    = splat_f32(p->ka);
            const HVX_Vector inv   = splat_f32(p->inv_ka);
            for (uint32_t i = 0; i < n_out; i++) {
                y0[i] = div_sf_normal(y0[i], ka, inv);
            }
        }
    }

    // The chunk's rows (a leaf: the row loop makes no call).
    template <bool kMax>
    HTP_COMPUTE void compute_rows(HVX_Vector * y, const HVX_Vector * w, uint32_t n, uint32_t py, uint32_t pw) const {
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < n; j++, y += py, w += pw) {
            pool_row<kMax>(y, w);
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * w  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     pw = p->vsrc.row_pitch / 128;
        const uint32_t     py = p->vdst.row_pitch / 128;
        if (p->is_max) {
            compute_rows<true>(y, w, n, py, pw);
        } else {
            compute_rows<false>(y, w, n, py, pw);
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        return store_chunk(octx, p, ith, q, r, n, slot, p->ne0 * 4);
    }
};

}  // namespace

int htp_op_pool_2d(struct htp_op_context * octx) {
    return run_rows<pool_op>(octx, octx->params->pool);
}
