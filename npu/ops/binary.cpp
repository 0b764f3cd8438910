// ADD / SUB / MUL / DIV on F32, F16 or BF16 with ggml broadcasting: src1 repeats along dims
// 1..3 (i1x = i1 % ne1x) and along dim 0 (nr0 = ne0 / ne10 copies per row). F16 / BF16 rows are
// widened to F32 per row, computed like F32 rows and narrowed back with F32's rounding to the
// type (as ggml's CPU does); an F32 src1 of BF16 rows (src1_f32) is used as it comes. A
// permuted src1 (src1_gather: its elements not adjacent) is gathered by a 2-D DMA of one
// element per DMA row, as CPY's src_gather. A long row of
// same-shape contiguous tensors comes flat (rows of one 128-byte line: host/ops/binary.cpp).
// DIV: HVX has no divide; 1/d comes from an exponent-flip estimate refined by Newton steps
// x' = x * (2 - d * x), then q = n * x gets one residual correction, giving ~1 ulp
// (div_sf in hvx-math.h).
#include "hvx-math.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

template <int kKind> inline HVX_Vector apply(HVX_Vector a, HVX_Vector b) {
    if (kKind == HTP_BINARY_ADD) {
        return Q6_Vsf_vadd_VsfVsf(a, b);
    } else if (kKind == HTP_BINARY_SUB) {
        return Q6_Vsf_vsub_VsfVsf(a, b);
    } else if (kKind == HTP_BINARY_MUL) {
        return Q6_Vsf_vmpy_VsfVsf(a, b);
    }
    return div_sf(a, b);
}

// n_rows rows of n_vec vectors: y = a op b, src1 rows s1_step_vec vectors apart (0: one row
// serves all). The F32 rows without dim-0 broadcast run here in one call per chunk.
template <int kKind>
HTP_COMPUTE void compute_binary_rows(HVX_Vector * dst, uint32_t dst_pitch_vec, const HVX_Vector * s0,
                                     uint32_t s0_pitch_vec, const HVX_Vector * s1, uint32_t s1_step_vec,
                                     uint32_t n_rows, uint32_t n_vec) {
    for (uint32_t j = 0; j < n_rows; j++) {
        for (uint32_t i = 0; i < n_vec; i++) {
            hvx_vmem_store(dst + i, apply<kKind>(hvx_vmem_load(s0 + i), hvx_vmem_load(s1 + i)));
        }
        dst += dst_pitch_vec;
        s0 += s0_pitch_vec;
        s1 += s1_step_vec;
    }
}

// BF16 results: n rows computed in F32 in the dst slot (pitch pd vectors, whole pairs: the
// host's dst_pitch), narrowed in place after the chunk's rows (vector i is written after
// vectors 2i and 2i + 1 are read); kept out of compute_rows' row loop, whose registers the
// rounding's constants would not fit.
HTP_COMPUTE void compute_bf16_narrow_rows(HVX_Vector * y, uint32_t pd, uint32_t n, uint32_t n_out) {
    HTP_NO_UNROLL
    for (uint32_t j = 0; j < n; j++) {
        f32_to_bf16_vectors(y + j * pd, y + j * pd, n_out);
    }
}

// Writes nr0 copies of a src1 row of ne10 floats back to back (unaligned stores; each
// copy's over-written tail is rewritten by the next copy, the last one's lands in padding).
inline void expand_row(HVX_Vector * out, const HVX_Vector * row, uint32_t ne10, uint32_t nr0) {
    const uint32_t n_vec = (ne10 + 31) / 32;
    uint8_t *      o     = (uint8_t *) out;
    HTP_NO_UNROLL
    for (uint32_t r = 0; r < nr0; r++) {
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < n_vec; i++) {
            hvx_vmemu_store(o + 128 * i, hvx_vmem_load(row + i));
        }
        o += ne10 * 4;
    }
}

struct binary_op : row_op<htp_binary_params> {
    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c   = row_coords(p->shape, r);
        const dma_addr_t s0  = octx->src[0].data + row_offset(p->src0, c.i1, c.i2, c.i3);
        const uint32_t   i11 = htp_fastmod(c.i1, &p->mod_ne11);
        const uint32_t   i12 = htp_fastmod(c.i2, &p->mod_ne12);
        const uint32_t   i13 = htp_fastmod(c.i3, &p->mod_ne13);
        const dma_addr_t s1  = octx->src[1].data + row_offset(p->src1, i11, i12, i13);
        const uint32_t   n1  = n < p->src1_rows_per_chunk ? n : p->src1_rows_per_chunk;
        const htp_context * ctx = octx->ctx;
        const uint32_t      es  = p->half ? 2 : 4;
        const uint32_t      es1 = p->src1_f32 ? 4 : es;
        const dma_addr_t    v1  = vtcm_slot(ctx, p->split, ith, p->vsrc1, slot);
        if (!dma_queue_push(q, vtcm_slot(ctx, p->split, ith, p->vsrc0, slot), s0, p->vsrc0.row_pitch, p->src0.nb1,
                            p->ne0 * es, n)) {
            return -1;
        }
        const bool ok = p->src1_gather ? dma_queue_push(q, v1, s1, es1, p->src1_nb0, es1, p->ne10)  // n1 == 1
                                       : dma_queue_push(q, v1, s1, p->vsrc1.row_pitch, p->src1.nb1, p->ne10 * es1, n1);
        return ok ? 2 : -1;  // stream_rows flushes what was queued
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const htp_context * ctx  = octx->ctx;
        HVX_Vector *        y    = vptr(vtcm_slot(ctx, p->split, ith, p->vdst, slot));
        const HVX_Vector *  a    = vptr(vtcm_slot(ctx, p->split, ith, p->vsrc0, slot));
        const HVX_Vector *  b    = vptr(vtcm_slot(ctx, p->split, ith, p->vsrc1, slot));
        if (p->nr0 > 1 || p->half) {  // dim-0 broadcast or F16 / BF16: one dst row at a time
            switch (p->kind) {
                case HTP_BINARY_ADD: compute_rows_each<HTP_BINARY_ADD>(y, a, b, n); break;
                case HTP_BINARY_SUB: compute_rows_each<HTP_BINARY_SUB>(y, a, b, n); break;
                case HTP_BINARY_MUL: compute_rows_each<HTP_BINARY_MUL>(y, a, b, n); break;
                default:             compute_rows_each<HTP_BINARY_DIV>(y, a, b, n); break;
            }
            return;
        }
        const uint32_t nvec = (p->ne0 + 31) / 32;
        const uint32_t pd   = p->vdst.row_pitch / 128;
        const uint32_t p0   = p->vsrc0.row_pitch / 128;
        const uint32_t step = p->src1_vtcm_row_step / 128;
        switch (p->kind) {
            case HTP_BINARY_ADD: compute_binary_rows<HTP_BINARY_ADD>(y, pd, a, p0, b, step, n, nvec); break;
            case HTP_BINARY_SUB: compute_binary_rows<HTP_BINARY_SUB>(y, pd, a, p0, b, step, n, nvec); break;
            case HTP_BINARY_MUL: compute_binary_rows<HTP_BINARY_MUL>(y, pd, a, p0, b, step, n, nvec); break;
            default:             compute_binary_rows<HTP_BINARY_DIV>(y, pd, a, p0, b, step, n, nvec); break;
        }
    }

    template <int kKind> void compute_rows_each(HVX_Vector * y, const HVX_Vector * a, const HVX_Vector * b,
                                                uint32_t n) {
        if (p->half == HTP_TYPE_F16) {
            if (p->nr0 > 1) {
                compute_rows<kKind, HTP_TYPE_F16, true>(y, a, b, n);
            } else {
                compute_rows<kKind, HTP_TYPE_F16, false>(y, a, b, n);
            }
        } else if (p->half == HTP_TYPE_BF16 && p->src1_f32) {
            if (p->nr0 > 1) {
                compute_rows<kKind, HTP_TYPE_BF16, true, true>(y, a, b, n);
            } else {
                compute_rows<kKind, HTP_TYPE_BF16, false, true>(y, a, b, n);
            }
        } else if (p->half == HTP_TYPE_BF16) {
            if (p->nr0 > 1) {
                compute_rows<kKind, HTP_TYPE_BF16, true>(y, a, b, n);
            } else {
                compute_rows<kKind, HTP_TYPE_BF16, false>(y, a, b, n);
            }
        } else {
            compute_rows<kKind, HTP_TYPE_F32, true>(y, a, b, n);
        }
    }

    // One dst row at a time (the variants the flat compute_binary_rows does not take). kType F16
    // / BF16: a and b widened into scratch rows 0 and 1 (vconv), computed into row 2, narrowed
    // into the dst slot. kBcast (dim-0 broadcast): the (widened) src1 row expanded nr0 times
    // (vbcast). kB32 (BF16 rows only): src1 is F32, read from its slot as it is.
    template <int kKind, uint32_t kType, bool kBcast, bool kB32 = false>
    HTP_COMPUTE void compute_rows(HVX_Vector * y, const HVX_Vector * a, const HVX_Vector * b, uint32_t n) {
        constexpr bool kF16 = kType != HTP_TYPE_F32;
        constexpr bool kBF  = kType == HTP_TYPE_BF16;
        const uint32_t nvec  = (p->ne0 + 31) / 32;
        const uint32_t nh0   = (p->ne0 + 63) / 64;
        const uint32_t nh1   = kBcast ? (p->ne10 + 63) / 64 : nh0;  // ne10 == ne0 without dim-0 broadcast
        const uint32_t pd    = p->vdst.row_pitch / 128;
        const uint32_t p0    = p->vsrc0.row_pitch / 128;
        const uint32_t bstep = p->src1_vtcm_row_step / 128;
        const uint32_t cv    = p->conv_pitch / 128;
        HVX_Vector *   ca    = kF16 ? vptr(vtcm_at(octx->ctx, p->split, ith, p->vconv)) : nullptr;
        HVX_Vector *   cb    = kF16 ? ca + cv : nullptr;
        HVX_Vector *   cy    = kF16 ? cb + cv : nullptr;
        HVX_Vector *   e     = kBcast ? vptr(vtcm_at(octx->ctx, p->split, ith, p->vbcast)) : nullptr;
        HVX_Vector *   y0    = y;
        const uint32_t n0    = n;
        for (; n > 0; n--) {  // (a count down: one register less, no spill in the F16 broadcast loop)
            const HVX_Vector * ra = a;
            const HVX_Vector * rb = b;
            HVX_Vector *       ry = y;
            if (kBF) {  // the result stays in the dst slot as F32 (narrowed after the loop)
                bf16_to_f32_vectors(ca, a, nh0);
                if (!kB32) {
                    bf16_to_f32_vectors(cb, b, nh1);
                    rb = cb;
                }
                ra = ca;
            } else if (kF16) {
                f16_to_f32_vectors(ca, a, nh0);
                f16_to_f32_vectors(cb, b, nh1);
                ra = ca;
                rb = cb;
                ry = cy;
            }
            if (kBcast) {
                expand_row(e, rb, p->ne10, p->nr0);
                rb = e;
            }
            for (uint32_t i = 0; i < nvec; i++) {
                hvx_vmem_store(ry + i, apply<kKind>(hvx_vmem_load(ra + i), hvx_vmem_load(rb + i)));
            }
            if (kF16 && !kBF) {
                f32_to_f16_vectors(y, cy, nh0);
            }
            y += pd;
            a += p0;
            b += bstep;
        }
        if (kBF) {
            compute_bf16_narrow_rows(y0, pd, n0, nh0);
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        return store_chunk(octx, p, ith, q, r, n, slot, p->ne0 * (p->half ? 2 : 4));
    }
};

}  // namespace

int htp_op_binary(struct htp_op_context * octx) {
    const htp_binary_params & p   = octx->params->binary;
    htp_context *             ctx = octx->ctx;
    if (ctx->mdev.count > 1 && p.ne0 != octx->dst.ne[0]) {
        // A flat op (host/ops/binary.cpp: one long row, its elements as rows of one 128-byte
        // line): a device group splits it by elements in whole lines, the spec's element
        // partition; member 0 alone when dst is not contiguous and line-aligned, or has fewer
        // lines than the group has members.
        const mdev_range r    = mdev_partition_elements(octx->dst, p.half ? 2 : 4, &ctx->mdev);
        op_rows          rows = { r.start / p.ne0, r.count / p.ne0, 0 };
        const uint32_t   rpc  = p.split.rows_per_chunk;
        const uint32_t   per  = (rows.nrows + p.split.n_threads - 1) / p.split.n_threads;
        rows.rows_per_thread  = (per + rpc - 1) / rpc * rpc;
        return run_rows_of<binary_op>(octx, p, rows);
    }
    return run_rows<binary_op>(octx, p);
}
