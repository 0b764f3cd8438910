// UPSCALE (F32): a separable filter (htp_upscale_params). Each dst row's y.taps source rows come
// by DMA (1-D, or 2-D of 4-byte rows for a transposed source) with their splatted weights
// beside them; HVX gathers each tap's 32 sources of a dst vector from a window of two source
// vectors (vlut32 byte permutations and a lane mask from the thread's table, built once in
// start), weights them and sums over the taps of both axes; one 2-D DMA writes a chunk back.
#include "hvx-math.h"
#include "hvx-util.h"
#include "hvx-vmem.h"
#include "htp-abi/htp-upscale.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

// n / sum per lane, 0 where sum is 0 (ggml-cpu keeps the unnormalised 0 then).
HTP_INLINE HVX_Vector normalise(HVX_Vector v, HVX_Vector sum) {
    const HVX_VectorPred zero = Q6_Q_vcmp_eq_VwVw(sum, Q6_V_vzero());
    const HVX_Vector     q    = div_sf(v, Q6_V_vmux_QVV(zero, splat_f32(1.0f), sum));
    return Q6_V_vmux_QVV(zero, Q6_V_vzero(), q);
}

struct upscale_op : row_op<htp_upscale_params> {
    HVX_Vector * table() const { return vptr(vtcm_at(octx->ctx, p->split, ith, p->vtab)); }

    // The tap table (see htp_upscale_params) and zeroed src slots (DMA writes only the rows'
    // elements; the window may read the vector after them).
    int start() {
        htp_trace *    tr   = &octx->ctx->trace[ith];
        const uint16_t info = (uint16_t) p->n_dvec;
        htp_trace_event_start(tr, HTP_TRACE_EVT_HVX_COMP, info);
        HVX_Vector *     s     = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, 0));
        const uint32_t   n_vec = p->vsrc.slot_size * p->split.n_bufs / 128;
        const HVX_Vector zero  = Q6_V_vzero();
        for (uint32_t i = 0; i < n_vec; i++) {
            hvx_vmem_store(s + i, zero);
        }
        alignas(128) uint8_t  perm[128];
        alignas(128) uint32_t mask[32];
        alignas(128) float    wts[32];
        const uint32_t        t0  = p->x.taps;
        HVX_Vector *          tab = table();
        for (uint32_t k = 0; k < p->n_dvec; k++) {
            HVX_Vector *   tk   = tab + k * 3 * t0;
            const uint32_t base = htp_upscale_first(&p->x, p->mode, 32 * k) / 32;
            for (uint32_t t = 0; t < t0; t++) {
                for (uint32_t l = 0; l < 32; l++) {
                    const uint32_t i  = 32 * k + l < p->ne0 ? 32 * k + l : p->ne0 - 1;
                    const uint32_t li = htp_upscale_tap(&p->x, p->mode, i, t, &wts[l]) - 32 * base;  // < 64: windows_ok
                    mask[l]           = li >= 32 ? 0xffffffffu : 0;
                    for (uint32_t b = 0; b < 4; b++) {
                        perm[4 * l + b] = vlut32_perm_index((int) (4 * (li % 32) + b));
                    }
                }
                hvx_vmem_store(tk + 3 * t, hvx_vmem_load((const HVX_Vector *) perm));
                hvx_vmem_store(tk + 3 * t + 1, hvx_vmem_load((const HVX_Vector *) mask));
                hvx_vmem_store(tk + 3 * t + 2, hvx_vmem_load((const HVX_Vector *) wts));
            }
            if (p->mode == HTP_UPSCALE_BILINEAR_AA) {  // weights over the window sum to 1
                HVX_Vector sum = Q6_V_vzero();
                for (uint32_t t = 0; t < t0; t++) {
                    sum = Q6_Vsf_vadd_VsfVsf(sum, hvx_vmem_load(tk + 3 * t + 2));
                }
                for (uint32_t t = 0; t < t0; t++) {
                    hvx_vmem_store(tk + 3 * t + 2, normalise(hvx_vmem_load(tk + 3 * t + 2), sum));
                }
            }
        }
        htp_trace_event_stop(tr, HTP_TRACE_EVT_HVX_COMP, info);
        return HTP_STATUS_OK;
    }

    // Per dst row: its y.taps source rows (nearest along dims 2 and 3), then their weights.
    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c      = row_coords(p->shape, r);  // a chunk stays in one plane
        float            w;
        const uint32_t   i02    = htp_upscale_tap(&p->z2, HTP_UPSCALE_NEAREST, c.i2, 0, &w);
        const uint32_t   i03    = htp_upscale_tap(&p->z3, HTP_UPSCALE_NEAREST, c.i3, 0, &w);
        const dma_addr_t plane  = octx->src[0].data + i02 * p->src0.nb2 + i03 * p->src0.nb3;
        const dma_addr_t v      = vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot);
        const uint32_t   t1     = p->y.taps;
        const uint32_t   ne00   = p->x.n_src;
        int              pushed = 0;
        for (uint32_t j = 0; j < n; j++) {
            const dma_addr_t vj = v + j * p->vsrc.row_pitch;
            float            wy[HTP_UPSCALE_MAX_TAPS];
            HVX_Vector       sum = Q6_V_vzero();
            for (uint32_t t = 0; t < t1; t++) {
                const uint32_t   sy  = htp_upscale_tap(&p->y, p->mode, c.i1 + j, t, &wy[t]);
                const dma_addr_t src = plane + sy * p->src0.nb1;
                const dma_addr_t dst = vj + t * p->src_pitch;
                const bool ok = p->src_nb0 == 4 ? dma_queue_push_1d(q, dst, src, ne00 * 4)
                                                : dma_queue_push(q, dst, src, 4, p->src_nb0, 4, ne00);
                if (!ok) {
                    return -1;
                }
                pushed++;
                sum = Q6_Vsf_vadd_VsfVsf(sum, splat_f32(wy[t]));
            }
            HVX_Vector * wv = vptr(vj + t1 * p->src_pitch);
            for (uint32_t t = 0; t < t1; t++) {
                const HVX_Vector wt = splat_f32(wy[t]);
                hvx_vmem_store(wv + t, p->mode == HTP_UPSCALE_BILINEAR_AA ? normalise(wt, sum) : wt);
            }
        }
        return pushed;
    }

    // dst vector k = sum over source rows r and taps t of gather_t(row r) * wx_t * wy_r.
    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const HVX_Vector * tab = table();
        const uint32_t     t0 = p->x.taps, t1 = p->y.taps;
        const uint32_t     spv = p->src_pitch / 128, rpv = p->vsrc.row_pitch / 128, dpv = p->vdst.row_pitch / 128;
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * rows = x0 + j * rpv;
            const HVX_Vector * wy   = rows + t1 * spv;
            HVX_Vector *       y    = y0 + j * dpv;
            for (uint32_t k = 0; k < p->n_dvec; k++) {
                const HVX_Vector * tk   = tab + k * 3 * t0;
                const HVX_Vector * win  = rows + htp_upscale_first(&p->x, p->mode, 32 * k) / 32;  // as start() did
                HVX_Vector         acc  = Q6_V_vzero();
                for (uint32_t t = 0; t < t0; t++) {
                    const HVX_Vector perm = hvx_vmem_load(tk + 3 * t);
                    const HVX_Vector mask = hvx_vmem_load(tk + 3 * t + 1);
                    const HVX_Vector wx   = hvx_vmem_load(tk + 3 * t + 2);
                    HTP_NO_UNROLL
                    for (uint32_t r = 0; r < t1; r++) {
                        const HVX_Vector * s  = win + r * spv;
                        const HVX_Vector   g0 = permute_bytes(hvx_vmem_load(s), perm);
                        const HVX_Vector   g1 = permute_bytes(hvx_vmem_load(s + 1), perm);
                        const HVX_Vector   g  = Q6_V_vxor_VV(g0, Q6_V_vand_VV(Q6_V_vxor_VV(g0, g1), mask));
                        const HVX_Vector   w  = Q6_Vsf_vmpy_VsfVsf(wx, hvx_vmem_load(wy + r));
                        acc                   = Q6_Vsf_vadd_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(g, w));
                    }
                }
                hvx_vmem_store(y + k, acc);
            }
        }
    }
};

}  // namespace

int htp_op_upscale(struct htp_op_context * octx) {
    return run_rows<upscale_op>(octx, octx->params->upscale);
}
