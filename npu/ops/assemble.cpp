// CONCAT / REPEAT / PAD / SET / ACC: each dst row is assembled in VTCM by DMA from the source rows that
// cover it (2-D descriptors over runs of consecutive source rows; REPEAT's copies along dim 0
// come from one descriptor with a zero source stride; circular PAD's wrapped edges are two more,
// the row's tail before it and its head after it; a source whose elements are apart, as
// ggml_transpose(x) in the convolution-state CONCAT of mamba / lfm2 / qwen3next, in one-element
// DMA rows), then HVX copies it into the dst slot (or zeroes it when no source covers the row)
// and DMA writes the chunk back. SET is src0 whole, then src1's box over it (the queue is FIFO,
// so src1's pieces land last); ACC fetches src0's rows into a slot of their own (vbase) and
// HVX adds src1's box row (zero outside the box) to those its box covers.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

// Source coordinate of dst coordinate i along dim d (0 = dim 1), or -1 when s does not cover it.
static inline int32_t src_coord(const htp_assemble_src & s, uint32_t d, uint32_t i) {
    if (i < s.lo[d] || i >= s.hi[d]) {
        return -1;
    }
    return (int32_t) htp_fastmod(i - s.off[d], &s.mod[d]);
}

// A piece of a source row along dim 0: n elements from source element sx, written at dst
// element x.
struct piece {
    uint32_t x, sx, n;
};

struct assemble_op {
    const htp_op_context *      octx;
    const htp_assemble_params * p;
    uint32_t                    ith;
    dma_queue *                 q;

    bool covered_by(uint32_t k, uint32_t i1, uint32_t i2, uint32_t i3) const {
        const htp_assemble_src & s = p->src[k];
        return i1 >= s.lo[0] && i1 < s.hi[0] && i2 >= s.lo[1] && i2 < s.hi[1] && i3 >= s.lo[2] && i3 < s.hi[2];
    }

    bool covered(uint32_t i1, uint32_t i2, uint32_t i3) const {
        for (uint32_t k = 0; k < p->n_src; k++) {
            if (covered_by(k, i1, i2, i3)) {
                return true;
            }
        }
        return false;
    }

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c      = row_coords(p->shape, r);  // a chunk stays inside one (i2, i3) plane
        const uint32_t   pitch  = p->vsrc.row_pitch;
        int              pushed = 0;
        for (uint32_t k = 0; k < p->n_src; k++) {
            const dma_addr_t vslot = vtcm_slot(octx->ctx, p->split, ith, p->acc && k == 0 ? p->vbase : p->vsrc, slot);
            const htp_assemble_src & s  = p->src[k];
            const int32_t            s2 = src_coord(s, 1, c.i2);
            const int32_t            s3 = src_coord(s, 2, c.i3);
            if (s2 < 0 || s3 < 0) {
                continue;
            }
            const uint32_t   row_bytes = s.len * p->esize;
            const dma_addr_t plane     = octx->src[k].data + (uint32_t) s2 * s.nb.nb2 + (uint32_t) s3 * s.nb.nb3;
            for (uint32_t j = 0; j < n;) {
                const int32_t s1 = src_coord(s, 0, c.i1 + j);
                if (s1 < 0) {
                    j++;
                    continue;
                }
                // A run of dst rows whose source rows are consecutive.
                uint32_t m = 1;
                while (j + m < n && c.i1 + j + m < s.hi[0] && (uint32_t) s1 + m < s.mod[0].d) {
                    m++;
                }
                const dma_addr_t src = plane + (uint32_t) s1 * s.nb.nb1;
                const dma_addr_t dst = vslot + j * pitch;
                // Dim-0 pieces: the row at x0; circular PAD's last head elements before it and
                // first tail elements after it.
                const piece pcs[3] = {
                    { s.x0, 0, s.len },
                    { s.x0 - s.head, s.len - s.head, s.head },
                    { s.x0 + s.len, 0, s.tail },
                };
                if (s.nb0 != p->esize) {
                    // Elements apart (a transposed view): one-element DMA rows, by source column
                    // (columns of every piece) when that is no more descriptors than by dst row
                    // (a descriptor per row and piece), as the host counted.
                    const uint32_t n_pieces = 1 + (s.head ? 1 : 0) + (s.tail ? 1 : 0);
                    const bool     by_col   = s.head + s.len + s.tail <= n_pieces * m;
                    for (uint32_t k2 = 0; k2 < 3; k2++) {
                        const piece & pc = pcs[k2];
                        if (pc.n == 0) {
                            continue;
                        }
                        const dma_addr_t d0 = dst + pc.x * p->esize;
                        const dma_addr_t s0 = src + pc.sx * s.nb0;
                        const uint32_t   n_desc = by_col ? pc.n : m;
                        for (uint32_t t = 0; t < n_desc; t++) {
                            const bool ok =
                                by_col ? dma_queue_push(q, d0 + t * p->esize, s0 + t * s.nb0, pitch, s.nb.nb1, p->esize, m)
                                       : dma_queue_push(q, d0 + t * pitch, s0 + t * s.nb.nb1, p->esize, s.nb0, p->esize, pc.n);
                            if (!ok) {
                                return -1;
                            }
                            pushed++;
                        }
                    }
                } else if (s.rep == 1) {
                    for (uint32_t k2 = 0; k2 < 3; k2++) {
                        const piece & pc = pcs[k2];
                        if (pc.n == 0) {
                            continue;
                        }
                        if (!dma_queue_push(q, dst + pc.x * p->esize, src + pc.sx * p->esize,
                                            pitch, s.nb.nb1, pc.n * p->esize, m)) {
                            return -1;
                        }
                        pushed++;
                    }
                } else {
                    for (uint32_t t = 0; t < m; t++) {  // rep back-to-back copies of one row
                        if (!dma_queue_push(q, dst + s.x0 * p->esize + t * pitch, src + t * s.nb.nb1, row_bytes, 0, row_bytes,
                                            s.rep)) {
                            return -1;
                        }
                        pushed++;
                    }
                }
                j += m;
            }
        }
        return pushed;
    }

    // ACC (F32): a row src1's box covers is src0's row plus the box row, the others src0's.
    HTP_COMPUTE void compute_acc(row_pos c, uint32_t n, uint32_t slot) {
        const HVX_Vector * b0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vbase, slot));
        const HVX_Vector * x0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     n_vec = p->vdst.row_pitch / 128;
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * b = b0 + j * n_vec;
            HVX_Vector *       y = y0 + j * n_vec;
            if (!covered_by(1, c.i1 + j, c.i2, c.i3)) {
                copy_vectors(y, b, n_vec);
                continue;
            }
            const HVX_Vector * x = x0 + j * n_vec;
            HTP_NO_UNROLL
            for (uint32_t i = 0; i < n_vec; i++) {
                hvx_vmem_store(&y[i], Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(&b[i]), hvx_vmem_load(&x[i])));
            }
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos      c     = row_coords(p->shape, r);
        const HVX_Vector * x0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     n_vec = p->vdst.row_pitch / 128;
        const HVX_Vector   zero  = Q6_V_vzero();
        if (p->acc) {
            compute_acc(c, n, slot);
            return;
        }
        for (uint32_t j = 0; j < n; j++) {
            HVX_Vector * y = y0 + j * n_vec;
            if (covered(c.i1 + j, c.i2, c.i3)) {
                copy_vectors(y, x0 + j * (p->vsrc.row_pitch / 128), n_vec);
            } else {
                for (uint32_t i = 0; i < n_vec; i++) {
                    hvx_vmem_store(y + i, zero);
                }
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        return store_chunk(octx, p, ith, q, r, n, slot, p->ne0 * p->esize);
    }
};

// Zeroes the dim-0 padding once (DMA never writes those bytes), then streams the rows.
static int assemble_thread(htp_op_context * octx, uint32_t ith) {
    htp_context *               ctx = octx->ctx;
    const htp_assemble_params * p   = &octx->params->assemble;
    if (p->zero_init) {
        const uint16_t info = (uint16_t) p->split.n_bufs;  // setup, before chunk 0: the slots zeroed
        htp_trace_event_start(&ctx->trace[ith], HTP_TRACE_EVT_HVX_COMP, info);
        HVX_Vector *     v     = vptr(vtcm_slot(ctx, p->split, ith, p->vsrc, 0));
        const uint32_t   n_vec = p->vsrc.slot_size * p->split.n_bufs / 128;
        const HVX_Vector zero  = Q6_V_vzero();
        for (uint32_t i = 0; i < n_vec; i++) {
            hvx_vmem_store(v + i, zero);
        }
        htp_trace_event_stop(&ctx->trace[ith], HTP_TRACE_EVT_HVX_COMP, info);
    }
    assemble_op op = { octx, p, ith, ctx->dma[ith] };
    return stream_rows(ctx->dma[ith], &ctx->trace[ith], p->split, thread_rows(device_rows(ctx, p->split), ith), op);
}

static int run_assemble(htp_op_context * octx) {
    return run_threads(octx->ctx, octx->params->assemble.split.n_threads,
                       [octx](uint32_t ith) { return assemble_thread(octx, ith); });
}

}  // namespace

int htp_op_assemble(struct htp_op_context * octx) {
    return run_assemble(octx);
}
