// IM2COL (1-D and 2-D) and IM2COL_3D: F32 image -> F32 / F16 columns. Per chunk (consecutive
// ow of one (oh, od, image)): HVX zeroes an F32 staging slot, DMA descriptors gather the image elements
// straight from DDR into their columns (what padding covers stays zero), HVX copies or
// converts the staging rows into the dst slot, one 2-D descriptor writes the rows back.
// Gathers are many small descriptors, so this op queues them with dma-tickets.h; n_bufs
// staging and dst slots let chunk c + n_bufs gather while chunk c computes.
#include "conv-bounds.h"
#include "dma-tickets.h"
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct im2col_thread {
    const htp_op_context *    octx;
    const htp_im2col_params * p;
    uint32_t                  ith;
    dma_tickets               t;
    int32_t                   ow_lo[HTP_IM2COL_MAX_KW];  // valid ow for each kw: [ow_lo, ow_hi)
    int32_t                   ow_hi[HTP_IM2COL_MAX_KW];

    void init_bounds() {  // iw = ow * s0 + kw * d0 - p0 in [0, IW)
        for (uint32_t kw = 0; kw < p->KW; kw++) {
            const out_bounds b = conv_out_bounds((int32_t) kw * p->d0 - p->p0, (int32_t) p->IW,
                                                 (int32_t) p->shape.ne1, p->s0, &p->div_s0);
            ow_lo[kw] = b.lo;
            ow_hi[kw] = b.hi;
        }
    }

    // The gathers of depth kd (kd = 0: 1-D / 2-D) of rows ow0 .. ow1 - 1 into staging st, from
    // the depth plane at `plane` (its first element); returns the last ticket.
    uint32_t gather_depth(dma_addr_t st, dma_addr_t plane, int32_t oh, int32_t ow0, int32_t ow1, uint32_t kd,
                          uint32_t last) {
        const uint32_t P    = p->vstage.row_pitch;
        const uint32_t taps = p->KD * p->KH * p->KW;  // columns per input channel
        for (uint32_t kh = 0; kh < p->KH; kh++) {
            const int32_t ih = oh * p->s1 + (int32_t) kh * p->d1 - p->p1;
            if (ih < 0 || ih >= (int32_t) p->IH) {
                continue;
            }
            const dma_addr_t row = plane + (uint32_t) ih * p->nb_ih;
            for (uint32_t kw = 0; kw < p->KW; kw++) {
                const int32_t  off = (int32_t) kw * p->d0 - p->p0;
                const uint32_t tap = (kd * p->KH + kh) * p->KW + kw;  // column of input channel 0
                if (p->mode == HTP_IM2COL_GATHER_IC) {  // all channels of one (ow, kd, kh, kw) per descriptor
                    for (int32_t ow = ow0; ow < ow1; ow++) {
                        if (ow < ow_lo[kw] || ow >= ow_hi[kw]) {
                            continue;
                        }
                        const uint32_t iw = (uint32_t) (ow * p->s0 + off);
                        last = t.push(st + (uint32_t) (ow - ow0) * P + tap * 4, row + iw * 4, taps * 4, p->nb_ic, 4,
                                      p->IC);
                    }
                    continue;
                }
                const int32_t a = ow_lo[kw] > ow0 ? ow_lo[kw] : ow0;  // all ow of one column per descriptor
                const int32_t b = ow_hi[kw] < ow1 ? ow_hi[kw] : ow1;
                if (a >= b) {
                    continue;
                }
                const uint32_t iw = (uint32_t) (a * p->s0 + off);
                for (uint32_t ic = 0; ic < p->IC; ic++) {
                    last = t.push(st + (uint32_t) (a - ow0) * P + (ic * taps + tap) * 4, row + ic * p->nb_ic + iw * 4,
                                  P, (uint32_t) p->s0 * 4, 4, (uint32_t) (b - a));
                }
            }
        }
        return last;
    }

    // Zero the staging slot, then queue the gathers of rows [r, r + n); returns the last ticket.
    uint32_t gather(uint32_t r, uint32_t n, uint32_t slot) {
        const uint32_t   P   = p->vstage.row_pitch;
        const dma_addr_t st  = vtcm_slot(octx->ctx, p->split, ith, p->vstage, slot);
        HVX_Vector *     sv  = vptr(st);
        const HVX_Vector z   = Q6_V_vzero();
        for (uint32_t i = 0; i < n * (P / 128); i++) {
            hvx_vmem_store(sv + i, z);
        }
        const row_pos    c    = row_coords(p->shape, r);
        const int32_t    oh   = (int32_t) (p->is_2d ? c.i2 : 0);
        const uint32_t   i3   = p->is_2d ? c.i3 : c.i2;      // image * OD + od
        const uint32_t   img  = htp_fastdiv(i3, &p->div_od);
        const int32_t    od   = (int32_t) (i3 - img * p->div_od.d);
        const dma_addr_t base = octx->src[1].data + img * p->nb_img;
        uint32_t         last = t.pushed;
        for (uint32_t kd = 0; kd < p->KD; kd++) {
            const int32_t id = od * p->s2 + (int32_t) kd * p->d2 - p->p2;
            if (id < 0 || id >= (int32_t) p->ID) {
                continue;
            }
            last = gather_depth(st, base + (uint32_t) id * p->nb_id, oh, (int32_t) c.i1, (int32_t) (c.i1 + n), kd, last);
        }
        return last;
    }

    HTP_COMPUTE void compute_chunk(uint32_t n, uint32_t slot) {
        const HVX_Vector * s  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vstage, slot));
        HVX_Vector *       d  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     sv = p->vstage.row_pitch / 128;
        if (p->dst_type == HTP_TYPE_F16) {
            for (uint32_t j = 0; j < n; j++) {
                f32_to_f16_vectors(d + j * (sv / 2), s + j * sv, sv / 2);
            }
        } else {
            copy_vectors(d, s, n * sv);
        }
    }

    uint32_t store(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c = row_coords(p->shape, r);
        const dma_addr_t d = octx->dst.data + row_offset(p->dst, c.i1, c.i2, c.i3);
        return t.push(d, vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot), p->dst.nb1, p->vdst.row_pitch,
                      p->dst_row_bytes, n);
    }

    int run(row_range rr) {
        init_bounds();
        return ticket_stream(*this, p->split, rr);
    }
};

}  // namespace

int htp_op_im2col(struct htp_op_context * octx) {
    return run_ticket_threads<im2col_thread>(octx, &octx->params->im2col);
}
