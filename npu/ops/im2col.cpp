// IM2COL (1-D and 2-D): F32 image -> F32 / F16 columns. Per chunk (consecutive ow of one
// (oh, image)): HVX zeroes an F32 staging slot, DMA descriptors gather the image elements
// straight from DDR into their columns (what padding covers stays zero), HVX copies or
// converts the staging rows into the dst slot, one 2-D descriptor writes the rows back.
// Gathers are many small descriptors, so this op queues them with dma-tickets.h; n_bufs
// staging and dst slots let chunk c + n_bufs gather while chunk c computes.
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

    void init_bounds() {
        const int32_t OW = (int32_t) p->shape.ne1;
        for (uint32_t kw = 0; kw < p->KW; kw++) {
            // iw = ow * s0 + off in [0, IW)
            const int32_t off = (int32_t) kw * p->d0 - p->p0;
            // Both numerators are in [0, 2^30) (the host bounds them): fastdiv by s0.
            int32_t       lo  = off >= 0 ? 0 : (int32_t) htp_fastdiv((uint32_t) (-off + p->s0 - 1), &p->div_s0);
            const int32_t top = (int32_t) p->IW - 1 - off;
            int32_t       hi  = top < 0 ? 0 : (int32_t) htp_fastdiv((uint32_t) top, &p->div_s0) + 1;
            if (hi > OW) {
                hi = OW;
            }
            if (lo > hi) {
                lo = hi;
            }
            ow_lo[kw] = lo;
            ow_hi[kw] = hi;
        }
    }

    // Zero the staging slot, then queue the gathers of rows [r, r + n); returns the last ticket.
    uint32_t gather(uint32_t r, uint32_t n, uint32_t slot) {
        const uint32_t P     = p->vstage.row_pitch;
        const dma_addr_t st  = vtcm_slot(octx->ctx, p->split, ith, p->vstage, slot);
        HVX_Vector *   sv    = vptr(st);
        const HVX_Vector z   = Q6_V_vzero();
        for (uint32_t i = 0; i < n * (P / 128); i++) {
            hvx_vmem_store(sv + i, z);
        }
        const row_pos    c    = row_coords(p->shape, r);
        const int32_t    oh   = (int32_t) (p->is_2d ? c.i2 : 0);
        const uint32_t   img  = p->is_2d ? c.i3 : c.i2;
        const dma_addr_t base = octx->src[1].data + img * p->nb_img;
        const int32_t    ow0  = (int32_t) c.i1;
        const int32_t    ow1  = ow0 + (int32_t) n;
        uint32_t         last = t.pushed;
        for (uint32_t kh = 0; kh < p->KH; kh++) {
            const int32_t ih = oh * p->s1 + (int32_t) kh * p->d1 - p->p1;
            if (ih < 0 || ih >= (int32_t) p->IH) {
                continue;
            }
            const dma_addr_t row = base + (uint32_t) ih * p->nb_ih;
            for (uint32_t kw = 0; kw < p->KW; kw++) {
                const int32_t off = (int32_t) kw * p->d0 - p->p0;
                if (p->mode == HTP_IM2COL_GATHER_IC) {  // all channels of one (ow, kh, kw) per descriptor
                    for (int32_t ow = ow0; ow < ow1; ow++) {
                        if (ow < ow_lo[kw] || ow >= ow_hi[kw]) {
                            continue;
                        }
                        const uint32_t iw = (uint32_t) (ow * p->s0 + off);
                        last = t.push(st + (uint32_t) (ow - ow0) * P + (kh * p->KW + kw) * 4, row + iw * 4,
                                      p->KH * p->KW * 4, p->nb_ic, 4, p->IC);
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
                    const uint32_t col = (ic * p->KH + kh) * p->KW + kw;
                    last = t.push(st + (uint32_t) (a - ow0) * P + col * 4, row + ic * p->nb_ic + iw * 4, P,
                                  (uint32_t) p->s0 * 4, 4, (uint32_t) (b - a));
                }
            }
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
        const uint32_t rpc = p->split.rows_per_chunk;
        const uint32_t nb  = p->split.n_bufs;
        uint32_t       gathered[16];
        uint32_t       stored[16];
        for (uint32_t i = 0; i < 16; i++) {
            gathered[i] = 0;
            stored[i]   = 0;
        }
        init_bounds();
        uint32_t next_r = rr.begin;
        for (uint32_t s = 0; s < nb && next_r < rr.end; s++) {  // prologue
            const uint32_t n = rr.end - next_r < rpc ? rr.end - next_r : rpc;
            gathered[s]      = gather(next_r, n, s);
            next_r += n;
        }
        uint32_t slot = 0, chunk = 0;
        for (uint32_t r = rr.begin; r < rr.end; chunk++) {
            const uint32_t n    = rr.end - r < rpc ? rr.end - r : rpc;
            const uint16_t info = (uint16_t) chunk;
            t.wait(gathered[slot], info);
            t.wait(stored[slot], info);  // dst slot free again (chunk - n_bufs written)
            htp_trace_event_start(&octx->ctx->trace[ith], HTP_TRACE_EVT_HVX_COMP, info);
            compute_chunk(n, slot);
            htp_trace_event_stop(&octx->ctx->trace[ith], HTP_TRACE_EVT_HVX_COMP, info);
            stored[slot] = store(r, n, slot);
            if (next_r < rr.end) {  // the staging slot just consumed takes chunk + n_bufs
                const uint32_t nn = rr.end - next_r < rpc ? rr.end - next_r : rpc;
                gathered[slot]    = gather(next_r, nn, slot);
                next_r += nn;
            }
            r += n;
            if (++slot == nb) {
                slot = 0;
            }
        }
        t.drain((uint16_t) (chunk - 1));  // the last chunks' stores
        return t.failed ? HTP_STATUS_DMA_ERROR : HTP_STATUS_OK;
    }
};

}  // namespace

int htp_op_im2col(struct htp_op_context * octx) {
    return run_ticket_threads<im2col_thread>(octx, &octx->params->im2col);
}
