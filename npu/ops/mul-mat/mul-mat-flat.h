// MUL_MAT flat HVX path, the pieces MUL_MAT (mul-mat.cpp) and MUL_MAT_ID (mul-mat-id.cpp)
// share (layout and phases: htp-abi/params/mul-mat.h, docs/mul-mat.md). Activations are
// prepared once per chunk into shared VTCM (phase 1), then every thread streams its weight
// rows through its own VTCM buffers and dots each prepared weight row with all prepared
// activation rows (phase 2).
#pragma once
#include "hvx-util.h"
#include "mul-mat-dequant.h"
#include "mul-mat-prep.h"
#include "op-table.h"
#include "mul-mat-rows.h"
#include "row-stream.h"

namespace htp_ops {

static inline HVX_Vector * mm_act_part(const htp_context * ctx, const htp_mul_mat_params * p, uint32_t j, uint32_t part) {
    return vptr(ctx->vtcm_base + p->act_offset + j * p->act_row_pitch + part * p->act_part_bytes);
}

// Phase 1: one activation row per pipeline step, DDR -> staging (F16 / BF16 widened there to
// F32) -> prepared (shared VTCM).
struct mm_act_prep_op {
    const htp_op_context *      octx;
    const htp_mul_mat_params *  p;
    uint32_t                    ith;
    dma_queue *                 q;
    mm_act_rows                 c;

    int fetch(uint32_t r, uint32_t, uint32_t slot) {
        const dma_addr_t s = octx->src[1].data +
                             (c.src1_off ? c.src1_off[r] : row_offset(p->act.src1, c.i1_0 + r, c.i2, c.i3));
        const dma_addr_t v = vtcm_slot(octx->ctx, p->split, ith, p->vstage, slot);
        if (p->act_split_elems == 0) {
            return dma_queue_push_1d(q, v, s, p->act.row_bytes) ? 1 : -1;
        }
        // Chunk c of act_split_elems elements -> plane c % act_planes, act_b_offset bytes apart
        // (16-bit activations: at half those offsets, mm_widen_staged).
        const uint32_t np = p->act_planes;
        const uint32_t cb = p->act_split_elems * p->act.elem_bytes;
        const uint32_t bo = p->act_b_offset / 4 * p->act.elem_bytes;
        const uint32_t nc = p->act_split_chunks;
        for (uint32_t k = 0; k < np; k++) {
            if (!dma_queue_push(q, v + k * bo, s + k * cb, cb, np * cb, cb, nc)) {
                return -1;
            }
        }
        return (int) np;
    }

    // Zeroes staging bytes [from, to) (from a multiple of 4): what the DMA did not write.
    static void zero_bytes(HVX_Vector * v, uint32_t from, uint32_t to) {
        if (from % 128) {
            hvx_vmem_store(v + from / 128,
                           Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (from % 128)), hvx_vmem_load(v + from / 128), Q6_V_vzero()));
            from          = (from / 128 + 1) * 128;
        }
        for (; from < to; from += 128) {
            hvx_vmem_store(v + from / 128, Q6_V_vzero());
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t, uint32_t slot) {
        htp_trace *  tr  = &octx->ctx->trace[ith];
        HVX_Vector * src = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vstage, slot));
        htp_trace_event_start(tr, HTP_TRACE_EVT_QUANT, (uint16_t) r);
        // The staged F32 layout: Q path 4 k_vecs vectors, FP path k_vecs rounded up to even.
        mm_widen_staged(src, p->act, p->path == HTP_MM_PATH_HVX_Q8 ? 2 * p->k_vecs : (p->k_vecs + 1) / 2);
        if (p->path == HTP_MM_PATH_HVX_Q8) {
            const uint32_t end = 4 * p->k_vecs * 128;
            if (p->act_split_elems == 0) {
                zero_bytes(src, p->act_plane_bytes, end);
            } else {
                for (uint32_t k = 0; k < p->act_planes; k++) {
                    zero_bytes(src, k * p->act_b_offset + p->act_plane_bytes, (k + 1) * p->act_b_offset);
                }
            }
            mm_quantize_act_row(mm_act_part(octx->ctx, p, r, 0), mm_act_part(octx->ctx, p, r, 1), mm_act_part(octx->ctx, p, r, 2),
                                src, p->k_vecs);
        } else {
            mm_copy_f32_row(mm_act_part(octx->ctx, p, r, 0), src, p->k_vecs, p->ne00 % 32);
        }
        htp_trace_event_stop(tr, HTP_TRACE_EVT_QUANT, (uint16_t) r);
    }

    int store(uint32_t, uint32_t, uint32_t) { return 0; }
};

// Phase 2: chunks of weight rows; results [act row j][weight row i] into the out slot.
struct mm_dot_op {
    const htp_op_context *     octx;
    const htp_mul_mat_params * p;
    uint32_t                   ith;
    dma_queue *                q;
    mm_act_rows                c;
    uint32_t                   i02, i03;

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const dma_addr_t v = vtcm_slot(octx->ctx, p->split, ith, p->vw, slot);
        for (uint32_t i = 0; i < n; i++) {
            const dma_addr_t s  = octx->src[0].data + row_offset(p->src0, r + i, i02, i03);
            const dma_addr_t vi = v + i * p->vw.row_pitch;
            for (uint32_t f = 0; f < p->n_fields; f++) {
                if (!dma_queue_push(q, vi + p->field_vtcm[f], s + p->field_src[f], p->field_dst_stride[f], p->block_bytes,
                                    p->field_size[f], p->n_blocks)) {
                    return -1;
                }
            }
        }
        if (p->has_bias) {  // the chunk's bias slice (MUL_MAT+ADD)
            const dma_addr_t b = octx->src[2].data + c.i2 * p->bias.nb2 + c.i3 * p->bias.nb3 + r * 4;
            if (!dma_queue_push_1d(q, vtcm_slot(octx->ctx, p->split, ith, p->vbias, slot), b, n * 4)) {
                return -1;
            }
            return (int) (n * p->n_fields + 1);
        }
        return (int) (n * p->n_fields);
    }

    // Weight row i of the slot -> prepared scratch (wq / ws / wo, or F32 row).
    void prep_weight(const uint8_t * raw, HVX_Vector * w) {
        const uint32_t parts = p->wprep_bytes / 128;
        // Field f of the raw row, as vectors.
        auto F = [&](uint32_t f) { return (const HVX_Vector *) (raw + p->field_vtcm[f]); };
        switch (p->wtype) {
            case HTP_TYPE_Q8_0:
                mm_prep_q8_0(w, w + parts, w + 2 * parts, (const HVX_Vector *) (raw + p->field_vtcm[1]),
                             (const HVX_Vector *) (raw + p->field_vtcm[0]), p->n_blocks, p->k_vecs);
                break;
            case HTP_TYPE_Q4_0:
                mm_prep_q4_0(w, w + parts, w + 2 * parts, (const HVX_Vector *) (raw + p->field_vtcm[1]),
                             (const HVX_Vector *) (raw + p->field_vtcm[0]), p->n_blocks, p->n_lo);
                break;
            case HTP_TYPE_Q5_0:
                mm_prep_q5_0(w, w + parts, w + 2 * parts, (const HVX_Vector *) (raw + p->field_vtcm[2]),
                             (const HVX_Vector *) (raw + p->field_vtcm[1]), (const HVX_Vector *) (raw + p->field_vtcm[0]),
                             p->n_blocks, p->n_lo);
                break;
            case HTP_TYPE_Q4_K:
                mm_prep_q4_k(w, w + parts, w + 2 * parts, (const HVX_Vector *) (raw + p->field_vtcm[1]),
                             (const HVX_Vector *) (raw + p->field_vtcm[0]), p->n_blocks);
                break;
            case HTP_TYPE_Q6_K:
                mm_prep_q6_k(w, w + parts, w + 2 * parts, (const HVX_Vector *) (raw + p->field_vtcm[0]),
                             (const HVX_Vector *) (raw + p->field_vtcm[1]), (const HVX_Vector *) (raw + p->field_vtcm[5]),
                             (const HVX_Vector *) (raw + p->field_vtcm[6]), p->n_blocks);
                break;
            case HTP_TYPE_Q4_1:
                mm_prep_q4_0(w, w + parts, w + 2 * parts, F(2), F(0), p->n_blocks, p->n_lo, F(1));
                break;
            case HTP_TYPE_Q5_1:
                mm_prep_q5_0(w, w + parts, w + 2 * parts, F(3), F(2), F(0), p->n_blocks, p->n_lo, F(1));
                break;
            case HTP_TYPE_Q5_K:
                mm_prep_q4_k(w, w + parts, w + 2 * parts, F(5), F(0), p->n_blocks, F(1));
                break;
            case HTP_TYPE_Q2_K:
                mm_prep_q2_k(w, w + parts, w + 2 * parts, F(1), F(0), F(2), p->n_blocks, p->n_lo);
                break;
            case HTP_TYPE_Q3_K:
                mm_prep_q3_k(w, w + parts, w + 2 * parts, F(2), F(0), raw + p->field_vtcm[3], F(4), p->n_blocks, p->n_lo);
                break;
            case HTP_TYPE_IQ4_NL:  // the 16-byte-block family: one instance per kind (mul-mat-prep.h)
                mm_prep_b16<MM_B16_IQ4_NL>(w, w + parts, w + 2 * parts, F(1), F(0), p->n_blocks, p->n_lo);
                break;
            case HTP_TYPE_MXFP4:
                mm_prep_b16<MM_B16_MXFP4>(w, w + parts, w + 2 * parts, F(1), F(0), p->n_blocks, p->n_lo);
                break;
            case HTP_TYPE_IQ4_XS:
                mm_prep_b16<MM_B16_IQ4_XS>(w, w + parts, w + 2 * parts, F(1), F(0), p->n_blocks, p->n_lo);
                break;
            case HTP_TYPE_Q1_0:
                mm_prep_b16<MM_B16_Q1_0>(w, w + parts, w + 2 * parts, F(1), F(0), p->n_blocks, p->n_lo);
                break;
            case HTP_TYPE_Q2_0:
                mm_prep_b16<MM_B16_Q2_0>(w, w + parts, w + 2 * parts, F(1), F(0), p->n_blocks, p->n_lo);
                break;
            case HTP_TYPE_NVFP4: case HTP_TYPE_TQ1_0: case HTP_TYPE_TQ2_0: case HTP_TYPE_IQ2_XXS:
            case HTP_TYPE_IQ2_XS: case HTP_TYPE_IQ2_S: case HTP_TYPE_IQ3_XXS: case HTP_TYPE_IQ3_S:
            case HTP_TYPE_IQ1_S: case HTP_TYPE_IQ1_M:
                mm_prep_dequant(p->wtype, w, F(0), F(1), p->n_blocks);
                break;
            case HTP_TYPE_BF16:
                bf16_to_f32_vectors(w, (const HVX_Vector *) raw, (p->ne00 + 63) / 64);
                if (p->ne00 % 32) {
                    hvx_vmem_store(w + p->k_vecs - 1, Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (4 * (p->ne00 % 32))),
                                                                    hvx_vmem_load(w + p->k_vecs - 1), Q6_V_vzero()));
                }
                break;
            case HTP_TYPE_F16: {
                f16_to_f32_vectors(w, (const HVX_Vector *) raw, (p->ne00 + 63) / 64);
                if (p->ne00 % 32) {
                    hvx_vmem_store(w + p->k_vecs - 1, Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (4 * (p->ne00 % 32))),
                                                                    hvx_vmem_load(w + p->k_vecs - 1), Q6_V_vzero()));
                }
                break;
            }
            default:  // F32
                mm_copy_f32_row(w, (const HVX_Vector *) raw, p->k_vecs, p->ne00 % 32);
                break;
        }
    }

    // Dot of the prepared weight row w with prepared activation row j, in every lane.
    HVX_Vector dot_q(const HVX_Vector * w, uint32_t j) const {
        const uint32_t     parts = p->wprep_bytes / 128;
        const HVX_Vector * aq    = mm_act_part(octx->ctx, p, j, 0);
        const HVX_Vector * as    = mm_act_part(octx->ctx, p, j, 1);
        const HVX_Vector * ax    = mm_act_part(octx->ctx, p, j, 2);
        HVX_Vector         acc   = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t g = 0; g < p->k_vecs; g++) {
            const HVX_Vector f = Q6_Vsf_vmpy_VsfVsf(
                mm_int_to_sf(Q6_Vw_vrmpy_VbVb(hvx_vmem_load(w + g), hvx_vmem_load(aq + g))), hvx_vmem_load(as + g));
            acc = Q6_Vsf_vadd_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(f, hvx_vmem_load(w + parts + g)));
            acc = Q6_Vsf_vsub_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(w + 2 * parts + g), hvx_vmem_load(ax + g)));
        }
        return reduce_sum_sf(acc);
    }

    HVX_Vector dot_fp(const HVX_Vector * w, uint32_t j) const {
        const HVX_Vector * a   = mm_act_part(octx->ctx, p, j, 0);
        HVX_Vector         acc = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t v = 0; v < p->k_vecs; v++) {
            acc = Q6_Vsf_vadd_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(w + v), hvx_vmem_load(a + v)));
        }
        return reduce_sum_sf(acc);
    }

    // Weight row i of the chunk: prepared into w, dotted with every activation row; result j
    // goes into lane i of out row j (a mux into the VTCM vector: no stack copy, no scalar
    // store). Its own function, so that the chunk's row loop keeps no vector live across the
    // calls (prep_weight, the trace) and this one's loops make none.
    HTP_COMPUTE void compute_weight_row(const uint8_t * raw_i, HVX_Vector * w, HVX_Vector * out, uint32_t i, uint32_t row) {
        htp_trace * tr = &octx->ctx->trace[ith];
        htp_trace_event_start(tr, HTP_TRACE_EVT_DEQUANT, (uint16_t) row);
        prep_weight(raw_i, w);
        htp_trace_event_stop(tr, HTP_TRACE_EVT_DEQUANT, (uint16_t) row);
        const uint32_t       step = p->vout.row_pitch / 128;
        const HVX_VectorPred lane = Q6_Q_and_QQ(Q6_Q_vsetq2_R((int32_t) (4 * i + 4)),
                                                Q6_Q_not_Q(Q6_Q_vsetq_R((int32_t) (4 * i))));
        HVX_Vector *         o    = out;
        if (p->path == HTP_MM_PATH_HVX_Q8) {
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < c.n; j++, o += step) {
                hvx_vmem_store(o, Q6_V_vmux_QVV(lane, dot_q(w, j), hvx_vmem_load(o)));
            }
        } else {
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < c.n; j++, o += step) {
                hvx_vmem_store(o, Q6_V_vmux_QVV(lane, dot_fp(w, j), hvx_vmem_load(o)));
            }
        }
    }

    // Results [act row j][weight row i] collect in the out slot, lane i of row j's vector
    // (lanes past n keep stale bytes the store never sends).
    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t n, uint32_t slot) {
        const uint8_t * raw = (const uint8_t *) htp_va(vtcm_slot(octx->ctx, p->split, ith, p->vw, slot));
        HVX_Vector *    w   = vptr(vtcm_at(octx->ctx, p->split, ith, p->wprep_offset));
        HVX_Vector *    out = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vout, slot));
        for (uint32_t i = 0; i < n; i++) {
            compute_weight_row(raw + i * p->vw.row_pitch, w, out, i, r + i);
        }
        if (p->has_bias) {  // MUL_MAT+ADD: the chunk's bias slice on every result row
            const HVX_Vector b    = hvx_vmem_load(vptr(vtcm_slot(octx->ctx, p->split, ith, p->vbias, slot)));
            const uint32_t   step = p->vout.row_pitch / 128;
            HVX_Vector *     o    = out;
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < c.n; j++, o += step) {
                hvx_vmem_store(o, Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(o), b));
            }
        }
    }

    // Output phase (HTP_TRACE_EVT_OUTPUT, info: the chunk's first weight row): the results
    // leave for dst.
    int store(uint32_t r, uint32_t n, uint32_t slot) {
        htp_trace * tr = &octx->ctx->trace[ith];
        htp_trace_event_start(tr, HTP_TRACE_EVT_OUTPUT, (uint16_t) r);
        const int k = store_out(r, n, slot);
        htp_trace_event_stop(tr, HTP_TRACE_EVT_OUTPUT, (uint16_t) r);
        return k;
    }

    int store_out(uint32_t r, uint32_t n, uint32_t slot) {
        if (c.dst_off) {
            const dma_addr_t v = vtcm_slot(octx->ctx, p->split, ith, p->vout, slot);
            for (uint32_t j = 0; j < c.n; j++) {
                if (!dma_queue_push_1d(q, octx->dst.data + c.dst_off[j] + r * 4, v + j * p->vout.row_pitch, n * 4)) {
                    return -1;
                }
            }
            return (int) c.n;
        }
        const dma_addr_t d = octx->dst.data + row_offset(p->act.dst, c.i1_0, c.i2, c.i3) + r * 4;
        return dma_queue_push(q, d, vtcm_slot(octx->ctx, p->split, ith, p->vout, slot), p->act.dst.nb1, p->vout.row_pitch,
                              n * 4, c.n) ? 1 : -1;
    }
};

struct mm_job {
    htp_op_context *           octx;
    const htp_mul_mat_params * p;
    mm_act_rows                c;
    uint32_t                   i02, i03;
    int                        status[HTP_MAX_HVX_THREADS];
};

static inline void mm_job_init(mm_job & job, htp_op_context * octx, const htp_mul_mat_params * p) {
    job.octx       = octx;
    job.p          = p;
    job.c.src1_off = nullptr;
    job.c.dst_off  = nullptr;
    for (uint32_t i = 0; i < HTP_MAX_HVX_THREADS; i++) {
        job.status[i] = HTP_STATUS_OK;
    }
}

static void mm_act_prep_worker(unsigned int, unsigned int ith, void * data) {
    mm_job *         job = (mm_job *) data;
    htp_context *    ctx = job->octx->ctx;
    mm_act_prep_op   op  = { job->octx, job->p, ith, ctx->dma[ith], job->c };
    // This chunk may be the plane's last, shorter one: its rows end at c.n.
    htp_split_params sp = job->p->qsplit;
    sp.total_rows       = job->c.n;
    const int st        = stream_rows(ctx->dma[ith], &ctx->trace[ith], sp, thread_rows(all_rows(sp), ith), op);
    if (st != HTP_STATUS_OK) {
        job->status[ith] = st;
    }
}

static void mm_dot_worker(unsigned int, unsigned int ith, void * data) {
    mm_job *      job = (mm_job *) data;
    htp_context * ctx = job->octx->ctx;
    mm_dot_op     op  = { job->octx, job->p, ith, ctx->dma[ith], job->c, job->i02, job->i03 };
    const int     st  = stream_rows(ctx->dma[ith], &ctx->trace[ith], job->p->split, thread_rows(device_rows(ctx, job->p->split), ith), op);
    if (st != HTP_STATUS_OK) {
        job->status[ith] = st;
    }
}

// Both phases for the chunk in job.c against weights (i02, i03); the first failure, if any.
// Phase 1 is skipped when the op before prepared the same rows (act_ready, set by the host only
// for single-chunk MUL_MATs).
static inline int mm_run_chunk(mm_job & job) {
    if (!job.p->act_ready) {
        work_queue_run(job.octx->ctx->work_queue, mm_act_prep_worker, &job, job.p->qsplit.n_threads);
    }
    work_queue_run(job.octx->ctx->work_queue, mm_dot_worker, &job, job.p->split.n_threads);
    for (uint32_t t = 0; t < HTP_MAX_HVX_THREADS; t++) {
        if (job.status[t] != HTP_STATUS_OK) {
            return job.status[t];
        }
    }
    return HTP_STATUS_OK;
}

}  // namespace htp_ops
