// CONV_2D_DW (depthwise), CONV_2D and CONV_3D: F32 image, F32 / F16 kernel -> F32, as
// ggml-cpu's conv_2d_dw (WHCN and CWHN layouts), conv_2d and conv_3d (any image and dst
// strides; CONV_3D adds a depth tap kz per input channel, params/sequence.h): the host passes
// every element stride. Per chunk (rows oy of one dst channel c and image n): HVX zeroes the
// plane slot when padding exists, DMA gathers for each dst row and tap (ic, ky, kx) the image
// elements x = ox * s0 + kx * d0 - p0 of row y = oy * s1 + ky * d1 - p1 of input channel ic
// (CONV_2D_DW: c itself) that lie inside the image into the tap's plane (one strided
// descriptor: ox in the range conv_out_bounds gives), and the channel's IC * KH * KW weights
// into the weight slot. HVX widens F16 weights, then sums plane * weight tap after tap (ic, ky,
// kx order from 0: ggml-cpu's for CONV_2D_DW; a padded tap adds 0) into the dst slot, which one
// descriptor per chunk (WHCN) or per row (CWHN, a strided scatter) writes back. Many small
// descriptors: dma-tickets.h.
// CONV_2D is direct, not IM2COL then dot products as ggml-cpu's conv_2d: the planes are
// IM2COL's columns transposed (ox along a vector), so one kernel serves both ops and a dst row
// is its own dot products against splat weights, with no [OW, IC * KH * KW] matrix in DDR; the
// planes are gathered again per output channel (ggml's ggml_conv_2d, IM2COL + MUL_MAT, is the
// path for wide layers, and runs on HTP0 too). ggml-cpu rounds CONV_2D's image to F16 with an
// F16 kernel; this kernel keeps it F32 (within test-backend-ops' 5e-4 for the op).
#include "conv-bounds.h"
#include "dma-tickets.h"
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct conv_dw_thread {
    const htp_op_context *        octx;
    const htp_conv_2d_dw_params * p;
    uint32_t                      ith;
    dma_tickets                   t;
    int32_t                       ox_lo[HTP_CONV_MAX_KW];  // the dst x each kx reads inside the image
    int32_t                       ox_hi[HTP_CONV_MAX_KW];

    void init_bounds() {
        for (uint32_t kx = 0; kx < p->KW; kx++) {
            const out_bounds b = conv_out_bounds((int32_t) kx * p->d0 - p->p0, (int32_t) p->IW, (int32_t) p->OW,
                                                 p->s0, &p->div_s0);
            ox_lo[kx] = b.lo;
            ox_hi[kx] = b.hi;
        }
    }

    // The taps (ic, kz, ky, kx) of the row (oy, oz) of image `img` (channel 0's first element)
    // into `planes`.
    uint32_t gather_row(dma_addr_t planes, dma_addr_t img, int32_t oy, int32_t oz, uint32_t last) {
        for (uint32_t ic = 0; ic < p->IC; ic++) {
            for (uint32_t kz = 0; kz < p->KD; kz++) {
                const int32_t iz = oz * p->s2 + (int32_t) kz * p->d2 - p->p2;
                if (iz < 0 || iz >= (int32_t) p->ID) {
                    continue;  // a padding plane: its planes stay zero
                }
                const dma_addr_t z = img + ic * p->ic_nb + (uint32_t) iz * p->z_nb;
                last = gather_taps(planes + (ic * p->KD + kz) * p->KH * p->KW * p->plane_pitch, z, oy, last);
            }
        }
        return last;
    }

    // The taps (ky, kx) of row oy of one input channel (and depth) plane z into planes.
    uint32_t gather_taps(dma_addr_t planes, dma_addr_t z, int32_t oy, uint32_t last) {
        const uint32_t sst = (uint32_t) p->s0 * p->src_nb0;
        for (uint32_t ky = 0; ky < p->KH; ky++) {
            const int32_t iy = oy * p->s1 + (int32_t) ky * p->d1 - p->p1;
            if (iy < 0 || iy >= (int32_t) p->IH) {
                continue;  // a padding row: its planes stay zero
            }
            const dma_addr_t row = z + (uint32_t) iy * p->src.nb1;
            for (uint32_t kx = 0; kx < p->KW; kx++) {
                const int32_t lo = ox_lo[kx], hi = ox_hi[kx];
                if (lo >= hi) {
                    continue;
                }
                const uint32_t   ix  = (uint32_t) (lo * p->s0 + (int32_t) kx * p->d0 - p->p0);
                const dma_addr_t dst = planes + (ky * p->KW + kx) * p->plane_pitch + (uint32_t) lo * 4;
                if (sst == 4) {  // consecutive elements: one 1-D copy
                    last = t.push(dst, row + ix * 4, 0, 0, (uint32_t) (hi - lo) * 4, 1);
                } else {
                    last = t.push(dst, row + ix * p->src_nb0, 4, sst, 4, (uint32_t) (hi - lo));
                }
            }
        }
        return last;
    }

    // The dst channel's IC * KD * KH * KW weights, tap (ic, kz, ky, kx) at w + its index * es.
    uint32_t gather_weights(dma_addr_t w, dma_addr_t k, uint32_t last) {
        const uint32_t es = p->w_type == HTP_TYPE_F16 ? 2 : 4;
        if (p->w_packed) {
            return t.push(w, k, 0, 0, p->IC * p->KD * p->KH * p->KW * es, 1);
        }
        for (uint32_t ky = 0; ky < p->KH; ky++) {  // CONV_2D_DW's CWHN kernel (IC = KD = 1)
            last = t.push(w + ky * p->KW * es, k + ky * p->w_nb1, es, p->w_nb0, es, p->KW);
        }
        return last;
    }

    // Zero the planes (padding only), then queue the gathers of rows [r, r + n) and the weights.
    uint32_t gather(uint32_t r, uint32_t n, uint32_t slot) {
        const dma_addr_t pl = vtcm_slot(octx->ctx, p->split, ith, p->vplanes, slot);
        if (p->zero_planes) {
            HVX_Vector *     v = vptr(pl);
            const HVX_Vector z = Q6_V_vzero();
            for (uint32_t i = 0; i < n * (p->vplanes.row_pitch / 128); i++) {
                hvx_vmem_store(v + i, z);
            }
        }
        const row_pos  c   = row_coords(p->shape, r);
        const uint32_t img = p->is_3d ? htp_fastdiv(c.i3, &p->div_oc) : c.i3;
        const uint32_t ch  = p->is_3d ? c.i3 - img * p->div_oc.d : c.i2;  // dst channel
        const int32_t  oz  = p->is_3d ? (int32_t) c.i2 : 0;
        const dma_addr_t base = octx->src[1].data + ch * p->img_c_nb + img * p->img_nb;
        uint32_t last = gather_weights(vtcm_slot(octx->ctx, p->split, ith, p->vw, slot),
                                       octx->src[0].data + ch * p->w_nb3, t.pushed);
        for (uint32_t j = 0; j < n; j++) {
            last = gather_row(pl + j * p->vplanes.row_pitch, base, (int32_t) (c.i1 + j), oz, last);
        }
        return last;
    }

    HTP_COMPUTE void compute_chunk(uint32_t n, uint32_t slot) {
        const dma_addr_t   w  = vtcm_slot(octx->ctx, p->split, ith, p->vw, slot);
        const HVX_Vector * pl = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vplanes, slot));
        HVX_Vector *       d  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const HVX_Vector * wf = vptr(w);
        if (p->w_type == HTP_TYPE_F16) {  // the raw halves -> F32 after them (w_pitch / 256 vectors in)
            f16_to_f32_vectors(vptr(w + p->w_pitch), vptr(w), p->w_pitch / 256);
            wf = vptr(w + p->w_pitch);
        }
        const uint32_t nv   = p->plane_pitch / 128;
        const uint32_t taps = p->IC * p->KD * p->KW * p->KH;
        for (uint32_t j = 0; j < n; j++) {
            HVX_Vector *       y  = d + j * nv;
            const HVX_Vector * pj = pl + j * taps * nv;
            for (uint32_t i = 0; i < nv; i++) {
                hvx_vmem_store(&y[i], Q6_V_vzero());
            }
            for (uint32_t k = 0; k < taps; k++) {
                const HVX_Vector wk = Q6_V_vsplat_R(Q6_R_vextract_VR(hvx_vmem_load(&wf[k >> 5]), (int32_t) ((k & 31) * 4)));
                const HVX_Vector * x = pj + k * nv;
                HTP_NO_UNROLL
                for (uint32_t i = 0; i < nv; i++) {
                    hvx_vmem_store(&y[i], Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(&y[i]),
                                                            Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&x[i]), wk)));
                }
            }
        }
    }

    uint32_t store(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c = row_coords(p->shape, r);
        const dma_addr_t d = octx->dst.data + row_offset(p->dst, c.i1, c.i2, c.i3);
        const dma_addr_t v = vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot);
        if (p->dst_nb0 == 4) {
            return t.push(d, v, p->dst.nb1, p->plane_pitch, p->OW * 4, n);
        }
        uint32_t last = t.pushed;
        for (uint32_t j = 0; j < n; j++) {  // CWHN: a row's values are dst_nb0 apart
            last = t.push(d + j * p->dst.nb1, v + j * p->plane_pitch, p->dst_nb0, 4, 4, p->OW);
        }
        return last;
    }

    int run(row_range rr) {
        init_bounds();
        return ticket_stream(*this, p->split, rr);
    }
};

}  // namespace

int htp_op_conv_2d_dw(struct htp_op_context * octx) {
    return run_ticket_threads<conv_dw_thread>(octx, &octx->params->conv_2d_dw);
}
