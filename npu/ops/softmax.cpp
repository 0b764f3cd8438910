// SOFT_MAX F32 with scale, an optional F32 / F16 mask (ALiBi slope per head), optional
// sinks. Per row: w = x * scale + slope * mask into the dst slot, max over the row (padding
// lanes masked to -inf), e = exp(w - max) with padding masked to 0 in the sum, then y = e / sum.
// A row longer than a thread's VTCM share (n_seg > 1) streams three times in segments of ne0
// elements, each pass recomputing w: the max, the lane sums of e (carried from segment to
// segment, so the sum adds in the whole-row order), then y written back.
#include "hvx-math.h"
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct soft_max_op : row_op<htp_soft_max_params> {
    // The ALiBi slope of the head of the last chunk (powf once per head, not once per chunk).
    uint32_t       slope_head  = UINT32_MAX;
    float          slope_value = 1.0f;
    // The heads' sinks, by DMA into this thread's VTCM scratch (hvx-util.h).
    vtcm_f32_table sinks;
    // A segmented row's running max, lane sums and 1 / sum (n_seg > 1).
    float      seg_max = 0.0f;
    HVX_Vector seg_acc = Q6_V_vzero();
    float      seg_inv = 1.0f;

    // Before the row stream starts (start_op, row-stream.h): the sinks. Returns an htp_status.
    int start() {
        return sinks.load(q, vtcm_at(octx->ctx, p->split, ith, p->vsinks), octx->src[2].data, p->sinks_bytes)
                   ? HTP_STATUS_OK
                   : HTP_STATUS_DMA_ERROR;
    }

    float sink(uint32_t h) { return sinks.get(h); }

    dma_addr_t mask_row(uint32_t i1, uint32_t i2, uint32_t i3) const {
        return octx->src[1].data + i1 * p->mask.nb1 + (i2 - htp_fastdiv(i2, &p->mod_ne12) * p->ne12) * p->mask.nb2 +
               (i3 - htp_fastdiv(i3, &p->mod_ne13) * p->ne13) * p->mask.nb3;
    }

    // A segment of a row (n_seg > 1): shape's i1 is pass * n_seg + seg, i2 the row's i1 and i3
    // its i2 (ne03 is 1: host/ops/softmax.cpp).
    struct seg_pos {
        uint32_t i1, i2, pass, seg, ne;
    };

    seg_pos seg_of(uint32_t r) const {
        const row_pos c = row_coords(p->shape, r);
        seg_pos       s;
        s.i1   = c.i2;
        s.i2   = c.i3;
        s.pass = c.i1 >= 2 * p->n_seg ? 2 : (c.i1 >= p->n_seg ? 1 : 0);
        s.seg  = c.i1 - s.pass * p->n_seg;
        s.ne   = s.seg == p->n_seg - 1 ? p->last_ne0 : p->ne0;
        return s;
    }

    uint32_t mask_es() const { return p->mask_type == HTP_TYPE_F16 ? 2 : 4; }

    int fetch_seg(uint32_t r, uint32_t slot) {
        const seg_pos    s = seg_of(r);
        const dma_addr_t x = octx->src[0].data + row_offset(p->src0, s.i1, s.i2, 0) + s.seg * p->ne0 * 4;
        if (!dma_queue_push_1d(q, vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot), x, s.ne * 4)) {
            return -1;
        }
        if (!p->has_mask) {
            return 1;
        }
        const dma_addr_t m = mask_row(s.i1, s.i2, 0) + s.seg * p->ne0 * mask_es();
        return dma_queue_push_1d(q, vtcm_slot(octx->ctx, p->split, ith, p->vmask, slot), m, s.ne * mask_es()) ? 2 : -1;
    }

    // Only the third pass writes.
    int store(uint32_t r, uint32_t n, uint32_t slot) {
        if (p->n_seg == 1) {
            return row_op<htp_soft_max_params>::store(r, n, slot);
        }
        const seg_pos s = seg_of(r);
        if (s.pass != 2) {
            return 0;
        }
        const dma_addr_t d = octx->dst.data + row_offset(p->dst, s.i1, s.i2, 0) + s.seg * p->ne0 * 4;
        return dma_queue_push_1d(q, d, vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot), s.ne * 4) ? 1 : -1;
    }

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        if (p->n_seg > 1) {
            return fetch_seg(r, slot);
        }
        const row_pos    c = row_coords(p->shape, r);
        const dma_addr_t s = octx->src[0].data + row_offset(p->src0, c.i1, c.i2, c.i3);
        if (!dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot), s, p->vsrc.row_pitch, p->src0.nb1,
                            p->ne0 * 4, n)) {
            return -1;
        }
        if (!p->has_mask) {
            return 1;
        }
        return dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->vmask, slot), mask_row(c.i1, c.i2, c.i3),
                              p->vmask.row_pitch, p->mask.nb1, p->mask_row_bytes, n) ? 2 : -1;
    }

    float slope(uint32_t h) {
        if (p->max_bias <= 0.0f) {
            return 1.0f;
        }
        if (h != slope_head) {
            slope_head  = h;
            slope_value = h < p->n_head_log2 ? __builtin_powf(p->m0, (float) (h + 1)) :
                                               __builtin_powf(p->m1, (float) (2 * (h - p->n_head_log2) + 1));
        }
        return slope_value;
    }

    // The row loop calls one out-of-line function per pass and expf for a sink, so it keeps
    // only scalars across calls; each pass makes its vector constants itself (per row, not
    // per vector), where no call can make them spill.
    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t n, uint32_t slot) {
        if (p->n_seg > 1) {
            compute_seg(r, slot);
            return;
        }
        const row_pos c   = row_coords(p->shape, r);
        const float   slp = slope(c.i2);
        if (octx->src[2].data != 0) {
            compute_rows<true>(n, slot, slp, sink(c.i2));
        } else {
            compute_rows<false>(n, slot, slp, 0.0f);
        }
    }

    // One segment of one of the three passes (seg_of): the max, the sums, the scaled values.
    HTP_COMPUTE void compute_seg(uint32_t r, uint32_t slot) {
        const seg_pos s   = seg_of(r);
        const bool    snk = octx->src[2].data != 0;
        const float   mx  = compute_row_max(slot, 0, s.ne, slope(s.i2));
        if (s.pass == 0) {
            if (s.seg == 0) {
                seg_max = snk ? sink(s.i2) : -__builtin_inff();
            }
            seg_max = mx > seg_max ? mx : seg_max;
            return;
        }
        const HVX_Vector a = exp_lanes(dst_row(slot, 0), s.ne, seg_max, s.pass == 1 && s.seg == 0 ? Q6_V_vzero() : seg_acc);
        if (s.pass == 2) {
            compute_row_scale(dst_row(slot, 0), s.ne, seg_inv);
            return;
        }
        seg_acc = a;
        if (s.seg == p->n_seg - 1) {
            float sum = lane0_f32(reduce_sum_sf(a));
            if (snk) {
                sum += __builtin_expf(sink(s.i2) - seg_max);
            }
            seg_inv = (float) (1.0 / (double) sum);
        }
    }

    // kSink: the row's max starts from the sink value sk and e^(sk - max) joins the sum.
    template <bool kSink> HTP_COMPUTE void compute_rows(uint32_t n, uint32_t slot, float slp, float sk) {
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < n; j++) {
            float max = compute_row_max(slot, j, p->ne0, slp);
            if (kSink && sk > max) {
                max = sk;
            }
            float sum = compute_row_exp(dst_row(slot, j), p->ne0, max);
            if (kSink) {
                sum += __builtin_expf(sk - max);
            }
            compute_row_scale(dst_row(slot, j), p->ne0, (float) (1.0 / (double) sum));
        }
    }

    // Row j of a stream's slot (the passes find their rows themselves: fewer values for the
    // row loop to keep across its calls).
    const HVX_Vector * row(const htp_vtcm_stream & st, uint32_t slot, uint32_t j) const {
        return vptr(vtcm_slot(octx->ctx, p->split, ith, st, slot) + j * st.row_pitch);
    }

    HVX_Vector * dst_row(uint32_t slot, uint32_t j) const {
        return vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot) + j * p->vdst.row_pitch);
    }

    // w = x * scale (+ slope * mask) into y for ne elements, padding lanes -inf; returns their max.
    HTP_COMPUTE float compute_row_max(uint32_t slot, uint32_t j, uint32_t ne, float slp) const {
        const HVX_Vector * x      = row(p->vsrc, slot, j);
        HVX_Vector *       y      = dst_row(slot, j);
        const HVX_Vector vscale = splat_f32(p->scale);
        const HVX_Vector ninf   = Q6_V_vsplat_R((int32_t) 0xff800000);
        const uint32_t   nv     = (ne + 31) / 32;
        const uint32_t   tail   = ne * 4 % 128;
        if (p->has_mask) {
            const HVX_Vector * m      = row(p->vmask, slot, j);
            const HVX_Vector   vslope = splat_f32(slp);
            if (p->mask_type == HTP_TYPE_F16) {
                HVX_Vector * mf = vptr(vtcm_at(octx->ctx, p->split, ith, p->vmask_f32));
                f16_to_f32_vectors(mf, m, (ne + 63) / 64);
                m = mf;
            }
            HTP_NO_UNROLL
            for (uint32_t i = 0; i < nv; i++) {
                hvx_vmem_store(y + i, Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(x + i), vscale),
                                                         Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(m + i), vslope)));
            }
        } else {
            HTP_NO_UNROLL
            for (uint32_t i = 0; i < nv; i++) {
                hvx_vmem_store(y + i, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(x + i), vscale));
            }
        }
        if (tail) {  // padding lanes never win the max and add 0 to the sum
            hvx_vmem_store(y + nv - 1, Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) tail), hvx_vmem_load(y + nv - 1), ninf));
        }
        HVX_Vector mx = ninf;
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < nv; i++) {
            mx = sf_max(mx, hvx_vmem_load(y + i));
        }
        return lane0_f32(reduce_max_sf(mx));
    }

    // y = e^(y - max) for ne elements; returns their sum (no vector crosses the call: the row
    // loop would keep one across its calls, on the stack).
    HTP_COMPUTE float compute_row_exp(HVX_Vector * y, uint32_t ne, float max) const {
        return lane0_f32(reduce_sum_sf(exp_lanes(y, ne, max, Q6_V_vzero())));
    }

    // y = e^(y - max) for ne elements; returns acc plus their lane sums.
    HTP_INLINE HVX_Vector exp_lanes(HVX_Vector * y, uint32_t ne, float max, HVX_Vector acc) const {
        const HVX_Vector vmax = splat_f32(max);
        const uint32_t   nv   = (ne + 31) / 32;
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < nv; i++) {
            const HVX_Vector e = exp_sf(Q6_Vsf_vsub_VsfVsf(hvx_vmem_load(y + i), vmax));
            hvx_vmem_store(y + i, e);
            acc = Q6_Vsf_vadd_VsfVsf(acc, e);
        }
        return acc;
    }

    HTP_COMPUTE void compute_row_scale(HVX_Vector * y, uint32_t ne, float inv) const {
        const HVX_Vector vinv = splat_f32(inv);
        const uint32_t   nv   = (ne + 31) / 32;
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < nv; i++) {
            hvx_vmem_store(y + i, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(y + i), vinv));
        }
    }
};

}  // namespace

int htp_op_soft_max(struct htp_op_context * octx) {
    const htp_soft_max_params & p = octx->params->soft_max;
    // a member of a device group takes whole rows: all 3 * n_seg segments of each (one chunk each)
    return run_rows_of<soft_max_op>(octx, p, device_rows_by(octx->ctx, p.split, p.n_seg > 1 ? 3 * p.n_seg : p.split.rows_per_chunk));
}
