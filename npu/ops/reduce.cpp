// SUM_ROWS / MEAN (F32 -> one value per row), ARGMAX (F32 -> the I32 index of each row's
// first largest element), CUMSUM (F32 prefix sums along dim 0; a row longer than a thread's
// VTCM share streams in segments, the sum carried between them) and SUM (F32 -> one value).
// Rows stream through VTCM; sums accumulate in 32 sf lanes with the partial last vector
// masked. Per-row results of SUM_ROWS / MEAN / ARGMAX are shifted into vectors (32 rows each)
// so the dst slot is written with whole-vector stores, and one 2-D descriptor writes a chunk
// back. SUM runs on one thread (the host plans one; on a device group member 0 runs it:
// DEV0 in the op list): its rows add into `acc`, written to dst after the last row.
#include "hvx-math.h"
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct reduce_op : row_op<htp_reduce_params> {
    HVX_Vector acc = Q6_V_vzero();  // SUM: lane sums of the rows so far

    // Lane sums of the row (the partial last vector masked), added to a.
    HVX_Vector row_lanes(const HVX_Vector * x, HVX_Vector a) const {
        const uint32_t n_full = p->ne0 / 32;
        for (uint32_t i = 0; i < n_full; i++) {
            a = Q6_Vsf_vadd_VsfVsf(a, hvx_vmem_load(&x[i]));
        }
        if (p->tail_bytes) {
            a = Q6_Vsf_vadd_VsfVsf(a, Q6_V_vand_QV(Q6_Q_vsetq_R((int32_t) p->tail_bytes), hvx_vmem_load(&x[n_full])));
        }
        return a;
    }

    // Sum of the row's ne0 elements, in every lane.
    HVX_Vector row_sum(const HVX_Vector * x) const { return reduce_sum_sf(row_lanes(x, Q6_V_vzero())); }

    // Index of the row's first largest element (ggml_compute_forward_argmax keeps the first of
    // equal maxima), in every lane. Floats compare as their integer keys (sf_key, hvx-math.h);
    // lanes past ne0 in the last vector take INT32_MIN, below every key. `lane_idx`: word
    // lanes 0, 1, ..., 31.
    HVX_Vector row_argmax(const HVX_Vector * x, HVX_Vector lane_idx) const {
        const uint32_t       n_vec = (p->ne0 + 31) / 32;
        const HVX_Vector     low   = Q6_V_vsplat_R(INT32_MIN);
        const HVX_VectorPred tail  = Q6_Q_vsetq_R((int32_t) p->tail_bytes);
        HVX_Vector           m     = low;
        for (uint32_t i = 0; i < n_vec; i++) {
            HVX_Vector k = sf_key(hvx_vmem_load(&x[i]));
            if (i == n_vec - 1 && p->tail_bytes) {
                k = Q6_V_vmux_QVV(tail, k, low);
            }
            m = Q6_Vw_vmax_VwVw(m, k);
        }
        for (int shift = 64; shift >= 4; shift >>= 1) {
            m = Q6_Vw_vmax_VwVw(m, Q6_V_vror_VR(m, shift));
        }
        // the first lane whose key is the largest
        const HVX_Vector none = Q6_V_vsplat_R(0x7fffffff);
        const HVX_Vector step = Q6_V_vsplat_R(32);
        HVX_Vector       best = none;
        HVX_Vector       idx  = lane_idx;
        for (uint32_t i = 0; i < n_vec; i++) {
            HVX_Vector k = sf_key(hvx_vmem_load(&x[i]));
            if (i == n_vec - 1 && p->tail_bytes) {
                k = Q6_V_vmux_QVV(tail, k, low);
            }
            best = Q6_Vw_vmin_VwVw(best, Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(k, m), idx, none));
            idx  = Q6_Vw_vadd_VwVw(idx, step);
        }
        for (int shift = 64; shift >= 4; shift >>= 1) {
            best = Q6_Vw_vmin_VwVw(best, Q6_V_vror_VR(best, shift));
        }
        return best;
    }

    // Prefix sums of ne elements of x into y, starting from `carry` (the sum of the row before
    // them, in every lane); returns the carry after them.
    HVX_Vector cumsum_row(const HVX_Vector * x, HVX_Vector * y, uint32_t ne, HVX_Vector carry) const {
        const uint32_t   n_vec = (ne + 31) / 32;
        const uint32_t   tail  = ne * 4 % 128;
        const HVX_Vector zero  = Q6_V_vzero();
        for (uint32_t i = 0; i < n_vec; i++) {
            HVX_Vector v = hvx_vmem_load(&x[i]);
            if (i == n_vec - 1 && tail) {
                v = Q6_V_vand_QV(Q6_Q_vsetq_R((int32_t) tail), v);
            }
            HVX_Vector s = v;  // in-vector inclusive scan: add the vector shifted up by 1, 2, 4, 8, 16 lanes
            for (int32_t k = 4; k < 128; k <<= 1) {
                s = Q6_Vsf_vadd_VsfVsf(s, Q6_V_vlalign_VVR(s, zero, k));
            }
            hvx_vmem_store(&y[i], Q6_Vsf_vadd_VsfVsf(s, carry));
            carry = Q6_Vsf_vadd_VsfVsf(carry, reduce_sum_sf(v));
        }
        return carry;
    }

    // The elements of (virtual) row r: a row's, or with n_seg > 1 its segment's (the segment
    // is the row's i1: host/ops/reduce.cpp cumsum_seg_encode).
    uint32_t seg_index(uint32_t r) const { return p->n_seg > 1 ? row_coords(p->shape, r).i1 : 0; }

    uint32_t row_elems(uint32_t r) const { return seg_index(r) == p->n_seg - 1 ? p->last_ne0 : p->ne0; }

    int fetch(uint32_t r, uint32_t n, uint32_t slot) { return fetch_chunk(octx, p, ith, q, r, n, slot, row_elems(r) * 4); }

    // CUMSUM: n_seg 1: each row from 0; else one segment (n 1), from the carry of the row's
    // segments before it (acc), restarting at segment 0.
    HTP_INLINE void cumsum_chunk(uint32_t r, uint32_t n, const HVX_Vector * x0, HVX_Vector * y0) {
        if (p->n_seg > 1) {
            const uint32_t seg = seg_index(r);
            acc = cumsum_row(x0, y0, seg == p->n_seg - 1 ? p->last_ne0 : p->ne0, seg ? acc : Q6_V_vzero());
            return;
        }
        for (uint32_t j = 0; j < n; j++) {
            cumsum_row(x0 + j * (p->vsrc.row_pitch / 128), y0 + j * (p->vdst.row_pitch / 128), p->ne0, Q6_V_vzero());
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     xs = p->vsrc.row_pitch / 128;
        if (p->kind == HTP_REDUCE_CUMSUM) {
            cumsum_chunk(r, n, x0, y0);
            return;
        }
        if (p->kind == HTP_REDUCE_SUM_ALL) {
            HVX_Vector a = acc;
            for (uint32_t j = 0; j < n; j++) {
                a = row_lanes(x0 + j * xs, a);
            }
            acc   = a;
            hvx_vmem_store(y0, reduce_sum_sf(a));  // written back after the last row only (store)
            return;
        }
        if (p->kind == HTP_REDUCE_ARGMAX) {
            const HVX_Vector lane_idx = lane_index();
            for (uint32_t g = 0; g * 32 < n; g++) {
                const uint32_t k   = n - g * 32 < 32 ? n - g * 32 : 32;
                HVX_Vector     res = Q6_V_vzero();
                for (uint32_t j = 0; j < k; j++) {
                    res = Q6_V_valign_VVR(row_argmax(x0 + (g * 32 + j) * xs, lane_idx), res, 4);
                }
                hvx_vmem_store(&y0[g], Q6_V_vror_VR(res, (int32_t) (128 - 4 * k)));
            }
            return;
        }
        const HVX_Vector scale = splat_f32(p->scale);
        for (uint32_t g = 0; g * 32 < n; g++) {
            const uint32_t k   = n - g * 32 < 32 ? n - g * 32 : 32;
            HVX_Vector     res = Q6_V_vzero();
            for (uint32_t j = 0; j < k; j++) {  // row j's result enters at lane 31, older ones move down
                HVX_Vector s = row_sum(x0 + (g * 32 + j) * xs);
                if (p->kind == HTP_REDUCE_MEAN) {
                    s = Q6_Vsf_vmpy_VsfVsf(s, scale);
                }
                res = Q6_V_valign_VVR(s, res, 4);
            }
            hvx_vmem_store(&y0[g], Q6_V_vror_VR(res, (int32_t) (128 - 4 * k)));  // row g * 32 at lane 0
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c   = row_coords(p->shape, r);
        const dma_addr_t d   = octx->dst.data + row_offset(p->dst, c.i1, c.i2, c.i3);
        const dma_addr_t src = vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot);
        if (p->kind == HTP_REDUCE_CUMSUM) {
            return dma_queue_push(q, d, src, p->dst.nb1, p->vdst.row_pitch, row_elems(r) * 4, n) ? 1 : -1;
        }
        if (p->kind == HTP_REDUCE_SUM_ALL) {  // dst is one element: written once, after the last row
            return r + n < p->split.total_rows ? 0 : (dma_queue_push_1d(q, octx->dst.data, src, 4) ? 1 : -1);
        }
        return dma_queue_push(q, d, src, p->dst.nb1, 4, 4, n) ? 1 : -1;
    }
};

}  // namespace

int htp_op_reduce(struct htp_op_context * octx) {
    const htp_reduce_params & p = octx->params->reduce;
    // a member of a device group takes whole rows: all n_seg segments of each (one chunk each)
    return run_rows_of<reduce_op>(octx, p, device_rows_by(octx->ctx, p.split, p.n_seg > 1 ? p.n_seg : p.split.rows_per_chunk));
}
