// FILL (dst = c, F32 / F16), TRI (F32: keep a triangle of each matrix, zero the rest) and
// DIAG (F32: a row vector becomes a diagonal matrix). TRI and DIAG keep, in dst row i1, the
// columns [lo, hi) derived from i1 (host-made bounds) and zero the others with predicated
// muxes; DIAG's fetch places src element i1 at column i1 of row i1 with one 2-D descriptor.
// ARANGE writes start + step * i from the lane indices (ggml-cpu's order: the product, then the sum).
#include "hvx-math.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

// Bytes [0, n) of a vector, n clamped to [0, 128].
static inline HVX_VectorPred first_bytes(int32_t n) {
    if (n >= 128) {
        return Q6_Q_vsetq2_R(128);
    }
    return Q6_Q_vsetq_R(n < 0 ? 0 : n);
}

// ARANGE: n_vec vectors of consecutive elements from element i0 (rows are whole vectors: the
// host makes ne0 a multiple of 32 or the one row; the lanes past it are not written back).
// Indices stay below 2^22 (the host checks), where int_to_sf_small is exact.
HTP_COMPUTE void compute_arange(HVX_Vector * y, uint32_t i0, uint32_t n_vec, float start, float step) {
    const HVX_Vector vstart = splat_f32(start);
    const HVX_Vector vstep  = splat_f32(step);
    HVX_Vector       idx    = Q6_Vw_vadd_VwVw(lane_index(), Q6_V_vsplat_R((int32_t) i0));
    const HVX_Vector n32    = Q6_V_vsplat_R(32);
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n_vec; i++) {
        hvx_vmem_store(&y[i], Q6_Vsf_vadd_VsfVsf(vstart, Q6_Vsf_vmpy_VsfVsf(vstep, int_to_sf_small(idx))));
        idx  = Q6_Vw_vadd_VwVw(idx, n32);
    }
}

struct fill_op : row_op<htp_fill_params> {
    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        if (p->kind == HTP_FILL_CONST || p->kind == HTP_FILL_ARANGE) {
            return 0;
        }
        const row_pos    c = row_coords(p->shape, r);
        const dma_addr_t v = vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot);
        if (p->kind == HTP_FILL_DIAG) {  // src0[i1] -> row j, column i1 (steps pitch + 4 in VTCM)
            const dma_addr_t s = octx->src[0].data + c.i2 * p->src0.nb2 + c.i3 * p->src0.nb3 + c.i1 * 4;
            return dma_queue_push(q, v + c.i1 * 4, s, p->vsrc.row_pitch + 4, 4, 4, n) ? 1 : -1;
        }
        const dma_addr_t s = octx->src[0].data + row_offset(p->src0, c.i1, c.i2, c.i3);
        return dma_queue_push(q, v, s, p->vsrc.row_pitch, p->src0.nb1, p->ne0 * 4, n) ? 1 : -1;
    }

    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t n, uint32_t slot) {
        HVX_Vector *   y0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t n_vec = p->vdst.row_pitch / 128;
        if (p->kind == HTP_FILL_CONST) {
            int32_t bits;
            __builtin_memcpy(&bits, &p->value, 4);  // F16: the host put the half in both halves
            const HVX_Vector v = Q6_V_vsplat_R(bits);
            for (uint32_t i = 0; i < n * n_vec; i++) {
                hvx_vmem_store(&y0[i], v);
            }
            return;
        }
        if (p->kind == HTP_FILL_ARANGE) {
            compute_arange(y0, r * p->ne0, n * n_vec, p->value, p->step);
            return;
        }
        const row_pos      c    = row_coords(p->shape, r);
        const HVX_Vector * x0   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        const HVX_Vector   zero = Q6_V_vzero();
        for (uint32_t j = 0; j < n; j++) {
            const int32_t      i1 = (int32_t) (c.i1 + j);
            const int32_t      lo = p->keep_lo + (p->rel_lo ? i1 : 0);
            const int32_t      hi = p->keep_hi + (p->rel_hi ? i1 : 0);
            const HVX_Vector * x  = x0 + j * (p->vsrc.row_pitch / 128);
            HVX_Vector *       y  = y0 + j * n_vec;
            for (uint32_t i = 0; i < n_vec; i++) {
                const int32_t        base = (int32_t) i * 32;
                const HVX_VectorPred keep = Q6_Q_and_QQ(first_bytes((hi - base) * 4), Q6_Q_not_Q(first_bytes((lo - base) * 4)));
                hvx_vmem_store(&y[i], Q6_V_vmux_QVV(keep, hvx_vmem_load(&x[i]), zero));
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        return store_chunk(octx, p, ith, q, r, n, slot, p->ne0 * p->esize);
    }
};

}  // namespace

int htp_op_fill(struct htp_op_context * octx) {
    return run_rows<fill_op>(octx, octx->params->fill);
}
