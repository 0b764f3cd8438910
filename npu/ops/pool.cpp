// POOL_2D and POOL_1D (k1 = s1 = 1) F32, max or average, with padding, as ggml-cpu's pool_2d /
// pool_1d: max starts from -FLT_MAX and skips the padding; POOL_2D's average divides the window's
// in-range sum by k0 * k1, POOL_1D's by the in-range count (0 for a window all padding). The
// windows of a source row are laid out one per VTCM row: those inside the row by one 2-D DMA (row
// stride s0 elements), each padded one by a 1-D DMA of its in-range part; source rows in the
// padding are not fetched. A window is whole vectors that HVX reduces, out-of-range lanes masked
// to the op's identity; the values are packed 32 per dst vector as they come.
#include "hvx-math.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

constexpr float kNegMax = -3.40282346638528859811704183484516925e+38f;  // -FLT_MAX

struct win_range {
    int32_t lo, hi;  // the window's in-range elements [lo, hi) (empty when hi <= lo)
};

// Bytes [a, b) of a vector as 0xff bytes, a and b clamped to the vector.
static inline HVX_Vector byte_range(int32_t a, int32_t b) {
    a = a < 0 ? 0 : a;
    b = b > 128 ? 128 : b;
    if (b <= a) {
        return Q6_V_vzero();
    }
    const HVX_Vector hi = b == 128 ? Q6_V_vsplat_R(-1) : Q6_V_vand_QR(Q6_Q_vsetq2_R(b), -1);
    const HVX_Vector lo = a == 0 ? Q6_V_vzero() : Q6_V_vand_QR(Q6_Q_vsetq2_R(a), -1);
    return Q6_V_vand_VV(hi, Q6_V_vnot_V(lo));
}

template <bool kMax> static inline HVX_Vector combine(HVX_Vector a, HVX_Vector v) {
    return kMax ? sf_max(a, v) : Q6_Vsf_vadd_VsfVsf(a, v);
}

// v where mask is set, init elsewhere.
static inline HVX_Vector masked(HVX_Vector v, HVX_Vector mask, HVX_Vector init) {
    return Q6_V_vor_VV(Q6_V_vand_VV(v, mask), Q6_V_vand_VV(init, Q6_V_vnot_V(mask)));
}

struct pool_op : row_op<htp_pool_params> {
    win_range window(uint32_t ox) const {
        const int32_t x0 = (int32_t) (ox * p->s0) - (int32_t) p->p0;
        const int32_t k0 = (int32_t) p->k0;
        const int32_t lo = x0 < 0 ? -x0 : 0;
        const int32_t hi = (int32_t) p->iw - x0 < k0 ? (int32_t) p->iw - x0 : k0;
        return { lo < k0 ? lo : k0, hi };
    }

    // The ne0 windows of one source row into the plane at v; returns the descriptors pushed, or -1.
    int fetch_windows(dma_addr_t v, dma_addr_t row) {
        int k = 0;
        if (p->mid_hi > p->mid_lo) {
            const dma_addr_t src = row + (p->mid_lo * p->s0 - p->p0) * 4;
            if (!dma_queue_push(q, v + p->mid_lo * p->win_pitch, src, p->win_pitch, p->s0 * 4, p->k0 * 4,
                                p->mid_hi - p->mid_lo)) {
                return -1;
            }
            k++;
        }
        // the windows before mid_lo, then those from mid_hi on
        for (uint32_t ox = p->mid_lo ? 0 : p->mid_hi; ox < p->ne0; ox = ox + 1 == p->mid_lo ? p->mid_hi : ox + 1) {
            const win_range w = window(ox);
            if (w.hi <= w.lo) {
                continue;
            }
            const dma_addr_t src = row + (uint32_t) ((int32_t) (ox * p->s0) - (int32_t) p->p0 + w.lo) * 4;
            if (!dma_queue_push_1d(q, v + ox * p->win_pitch + (uint32_t) w.lo * 4, src, (uint32_t) (w.hi - w.lo) * 4)) {
                return -1;
            }
            k++;
        }
        return k;
    }

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const dma_addr_t v = vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot);
        int              k = 0;
        for (uint32_t j = 0; j < n; j++) {
            const row_pos    c     = row_coords(p->shape, r + j);
            const dma_addr_t plane = octx->src[0].data + row_offset(p->src0, 0, c.i2, c.i3);
            for (uint32_t ky = 0; ky < p->k1; ky++) {
                const int32_t iy = (int32_t) (c.i1 * p->s1 + ky) - (int32_t) p->p1;
                if (iy < 0 || iy >= (int32_t) p->ih) {
                    continue;  // a padding row: compute skips it
                }
                const int kw = fetch_windows(v + j * p->vsrc.row_pitch + ky * p->ne0 * p->win_pitch,
                                             plane + (uint32_t) iy * p->src0.nb1);
                if (kw < 0) {
                    return -1;
                }
                k += kw;
            }
        }
        return k;
    }

    // The packed dst row: value ox goes to lane ox % 32 of y[ox / 32] as it comes.
    struct packer {
        HVX_Vector * y;
        HVX_Vector   acc;
        uint32_t     lane;
    };

    static inline void put(packer & pk, HVX_Vector a) {
        pk.acc = Q6_V_valign_VVR(a, pk.acc, 4);  // the newest value enters at lane 31
        if (++pk.lane == 32) {
            hvx_vmem_store(pk.y++, pk.acc);
            pk.lane = 0;
        }
    }

    // The windows [mid_lo, mid_hi) of the nky fetched window rows from w: whole, only the last
    // vector's unused tail masked to the identity.
    template <bool kMax> HTP_COMPUTE void mid_windows(packer & pkr, const HVX_Vector * w, uint32_t nky) const {
        const uint32_t   nv    = p->win_pitch / 128;  // vectors per window
        const uint32_t   plane = p->ne0 * nv;         // vectors between ky's windows
        const HVX_Vector init  = kMax ? splat_f32(kNegMax) : Q6_V_vzero();
        // the last window vector's used bytes, as a byte mask (a vector, not a predicate register)
        const HVX_Vector keep  = Q6_V_vand_QR(Q6_Q_vsetq2_R(p->tail_bytes ? (int32_t) p->tail_bytes : 128), -1);
        const HVX_Vector ka    = splat_f32(p->ka);
        const HVX_Vector inv   = splat_f32(p->inv_ka);
        packer           pk    = pkr;
        w += p->mid_lo * nv;
        HTP_NO_UNROLL
        for (uint32_t ox = p->mid_lo; ox < p->mid_hi; ox++, w += nv) {
            HVX_Vector         a   = init;
            const HVX_Vector * win = w;
            for (uint32_t ky = 0; ky < nky; ky++, win += plane) {
                for (uint32_t i = 0; i + 1 < nv; i++) {
                    a = combine<kMax>(a, hvx_vmem_load(&win[i]));
                }
                a = combine<kMax>(a, masked(hvx_vmem_load(&win[nv - 1]), keep, init));
            }
            put(pk, kMax ? reduce_max_sf(a) : div_sf_normal(reduce_sum_sf(a), ka, inv));
        }
        pkr = pk;
    }

    // The padded windows [ox0, ox1): every vector masked to the window's in-range lanes. POOL_2D's
    // average divides by k0 * k1, POOL_1D's by the in-range count (0 for a window all padding).
    template <bool kMax>
    HTP_COMPUTE void edge_windows(packer & pkr, const HVX_Vector * w, uint32_t nky, uint32_t ox0, uint32_t ox1) const {
        const uint32_t   nv    = p->win_pitch / 128;
        const uint32_t   plane = p->ne0 * nv;
        const HVX_Vector init  = kMax ? splat_f32(kNegMax) : Q6_V_vzero();
        packer           pk    = pkr;
        HTP_NO_UNROLL
        for (uint32_t ox = ox0; ox < ox1; ox++) {
            const win_range    r   = window(ox);
            const HVX_Vector * win = w + ox * nv;
            HVX_Vector         a   = init;
            for (uint32_t i = 0; i < nv; i++) {
                const HVX_Vector m = byte_range(r.lo * 4 - (int32_t) (128 * i), r.hi * 4 - (int32_t) (128 * i));
                for (uint32_t ky = 0; ky < nky; ky++) {
                    a = combine<kMax>(a, masked(hvx_vmem_load(&win[ky * plane + i]), m, init));
                }
            }
            if (kMax) {
                a = reduce_max_sf(a);
            } else {
                const float d = p->avg_count ? (float) (r.hi > r.lo ? r.hi - r.lo : 1) : p->ka;
                a             = div_sf(reduce_sum_sf(a), splat_f32(d));
            }
            put(pk, a);
        }
        pkr = pk;
    }

    // One dst row: the windows before mid_lo, the middle ones, those from mid_hi on (the average
    // divided per value, so nothing of the row is kept for a pass after it).
    template <bool kMax> void compute_row(HVX_Vector * y, const HVX_Vector * w, uint32_t oy) const {
        const int32_t  y0    = (int32_t) (oy * p->s1) - (int32_t) p->p1;
        const uint32_t ky_lo = y0 < 0 ? (uint32_t) -y0 : 0;
        const int32_t  ky_e  = (int32_t) p->ih - y0 < (int32_t) p->k1 ? (int32_t) p->ih - y0 : (int32_t) p->k1;
        const uint32_t nky   = ky_e > (int32_t) ky_lo ? (uint32_t) ky_e - ky_lo : 0;
        packer         pk    = { y, Q6_V_vzero(), 0 };
        w += ky_lo * p->ne0 * (p->win_pitch / 128);  // the first fetched window row
        if (p->mid_lo) {
            edge_windows<kMax>(pk, w, nky, 0, p->mid_lo);
        }
        mid_windows<kMax>(pk, w, nky);
        if (p->mid_hi < p->ne0) {
            edge_windows<kMax>(pk, w, nky, p->mid_hi, p->ne0);
        }
        if (pk.lane) {
            hvx_vmem_store(pk.y, Q6_V_vror_VR(pk.acc, (int32_t) (128 - 4 * pk.lane)));  // the first value to lane 0
        }
    }

    // One row per chunk (the host plans single-row chunks), so the compute is the row's leaf.
    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t, uint32_t slot) {
        const HVX_Vector * w  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     oy = row_coords(p->shape, r).i1;
        if (p->is_max) {
            compute_row<true>(y, w, oy);
        } else {
            compute_row<false>(y, w, oy);
        }
    }
};

}  // namespace

int htp_op_pool_2d(struct htp_op_context * octx) {
    return run_rows<pool_op>(octx, octx->params->pool);
}
