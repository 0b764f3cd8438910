// MUL_MAT_TILED: MUL_MAT over tiled weights on HVX, the token-generation path (layout and
// phases: htp-abi/params/mul-mat.h, docs/mul-mat.md "Tiled HVX path"). Activation rows are
// quantized into VTCM blocks ready for vrmpy; each thread streams its column tiles' weight
// tiles DDR -> VTCM (n_bufs deep) and computes 32 output rows x 1 or 2 activation rows per
// tile step.
#include "mul-mat-tiled-pass.h"
#include "mul-mat-tiled.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;
using namespace htp_ops::mmt;

namespace {

// Activation prep, one row per pipeline step: F32 DDR -> staging slot -> prepared blocks.
struct act_op {
    const htp_op_context *           octx;
    const htp_mul_mat_tiled_params * p;
    uint32_t                         ith;
    dma_queue *                      q;
    mm_act_rows                      c;
    HVX_Vector *                     act;  // prepared row 0 of the pass

    int fetch(uint32_t r, uint32_t, uint32_t slot) {
        const dma_addr_t s =
            octx->src[1].data + (c.src1_off ? c.src1_off[r] : row_offset(p->act.src1, c.i1_0 + r, c.i2, c.i3));
        return dma_queue_push_1d(q, vtcm_slot(octx->ctx, p->split, ith, p->vstage, slot), s, p->act.row_bytes) ? 1 : -1;
    }

    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t, uint32_t slot) {
        htp_trace * tr = &octx->ctx->trace[ith];
        htp_trace_event_start(tr, HTP_TRACE_EVT_QUANT, (uint16_t) r);
        HVX_Vector *       dst = act + r * (p->act_row_pitch / 128);
        const HVX_Vector * src = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vstage, slot));
        if (p->act_order == HTP_MMT_ORDER_NIBBLE) {
            quantize_row<true>(dst, src, p->ne00 / 32);
        } else {
            quantize_row<false>(dst, src, p->ne00 / 32);
        }
        htp_trace_event_stop(tr, HTP_TRACE_EVT_QUANT, (uint16_t) r);
    }

    int store(uint32_t, uint32_t, uint32_t) { return 0; }
};

// Rows of p->qsplit (one row per step, qsplit.n_bufs staging slots, as the host planned).
static int prep_rows(const htp_op_context * octx, const htp_mul_mat_tiled_params * p, uint32_t ith, const mm_act_rows & c,
                     HVX_Vector * act, const htp_split_params & sp, row_range rr) {
    htp_context * ctx = octx->ctx;
    act_op        op  = { octx, p, ith, ctx->dma[ith], c, act };
    return stream_rows(ctx->dma[ith], &ctx->trace[ith], sp, rr, op);
}

// Dot products over the rows of p->split: units u = (column tile, K chunk), K chunk fastest;
// a pipeline step (split.rows_per_chunk units) is one work item: cols_per_chunk column tiles
// of one K chunk (the host makes cols_per_chunk 1 when there are several K chunks).
struct dot_op {
    const htp_op_context *           octx;
    const htp_mul_mat_tiled_params * p;
    uint32_t                         ith;
    dma_queue *                      q;
    mm_act_rows                      c;
    dma_addr_t                       wbase;  // tiled weight plane (i02, i03)
    const HVX_Vector *               act;    // prepared activation row 0 of the pass

    struct item {
        uint32_t ct0, n_ct, kc, kt0, n_kt;
    };

    // Units [u, u + n) of one step.
    item at(uint32_t u, uint32_t n) const {
        item x;
        x.ct0            = htp_fastdiv(u, &p->div_kchunks);
        x.kc             = u - x.ct0 * p->n_kchunks;
        x.n_ct           = n;
        x.kt0            = x.kc * p->k_tiles_per_chunk;
        x.n_kt = p->n_k_tiles - x.kt0 < p->k_tiles_per_chunk ? p->n_k_tiles - x.kt0 : p->k_tiles_per_chunk;
        return x;
    }

    int fetch(uint32_t u, uint32_t n, uint32_t slot) {
        const item       x = at(u, n);
        const dma_addr_t s = wbase + (x.ct0 * p->n_k_tiles + x.kt0) * p->tile_bytes;
        // n_ct > 1 only when a column tile is one K chunk: the group's tiles are contiguous.
        if (!dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->vw, slot), s, p->tile_pitch, p->tile_bytes,
                            p->tile_bytes, x.n_ct * x.n_kt)) {
            return -1;
        }
        if (!p->has_bias || x.kc + 1 != p->n_kchunks) {
            return 1;
        }
        // MUL_MAT+ADD: the bias of the item's output columns, added after its last K chunk.
        const dma_addr_t b = octx->src[2].data + c.i2 * p->bias.nb2 + c.i3 * p->bias.nb3 + x.ct0 * 128;
        return dma_queue_push_1d(q, vtcm_slot(octx->ctx, p->split, ith, p->vbias, slot), b, out_cols(x) * 4) ? 2 : -1;
    }

    // Output columns of an item (the weight's last column tile may be partial).
    uint32_t out_cols(const item & x) const {
        return p->ne01 - 32 * x.ct0 < 32 * x.n_ct ? p->ne01 - 32 * x.ct0 : 32 * x.n_ct;
    }

    template <class F, int NR>
    void run_tiles(const uint8_t * tiles, uint32_t n_kt, const HVX_Vector * const * a0, HVX_Vector * acc) {
        const HVX_Vector * a[2] = { a0[0], NR > 1 ? a0[1] : a0[0] };
        const uint32_t     step = F::blocks * ABV;
        const uint32_t     tps  = tiles_per_step<F>::value;  // n_kt is a multiple (host)
        for (uint32_t k = 0; k < n_kt; k += tps) {
            dma_queue_progress(q);  // the next chunk's weights are read while this one computes
            F::template dot<NR>((const HVX_Vector *) (tiles + k * p->tile_pitch), a, acc);
            a[0] += step;
            if (NR > 1) {
                a[1] += step;
            }
        }
    }

    template <class F> void compute_fmt(const item & x, uint32_t slot) {
        const uint8_t *  tiles   = (const uint8_t *) htp_va(vtcm_slot(octx->ctx, p->split, ith, p->vw, slot));
        HVX_Vector *     out     = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vout, slot));
        HVX_Vector *     vacc    = vptr(vtcm_at(octx->ctx, p->split, ith, p->vacc));
        const uint32_t   ostep   = p->vout.row_pitch / 128;
        const uint32_t   apitch  = p->act_row_pitch / 128;
        const bool       first   = x.kc == 0;
        const bool       last    = x.kc + 1 == p->n_kchunks;
        const uint32_t   a_off   = x.kt0 / tiles_per_step<F>::value * F::blocks * ABV;
        const HVX_Vector * bias  = p->has_bias ? vptr(vtcm_slot(octx->ctx, p->split, ith, p->vbias, slot)) : nullptr;
        for (uint32_t ci = 0; ci < x.n_ct; ci++) {
            const uint8_t * tc = tiles + ci * x.n_kt * p->tile_pitch;
            for (uint32_t j = 0; j < c.n; j += 2) {
                const uint32_t     nr   = c.n - j < 2 ? c.n - j : 2;
                const HVX_Vector * a[2] = { act + j * apitch + a_off, act + (j + nr - 1) * apitch + a_off };
                HVX_Vector         acc[2];
                for (uint32_t r = 0; r < nr; r++) {
                    acc[r] = first ? Q6_V_vzero() : hvx_vmem_load(&vacc[j + r]);
                }
                if (nr == 2) {
                    run_tiles<F, 2>(tc, x.n_kt, a, acc);
                } else {
                    run_tiles<F, 1>(tc, x.n_kt, a, acc);
                }
                for (uint32_t r = 0; r < nr; r++) {
                    if (last) {
                        hvx_vmem_store(&out[(j + r) * ostep + ci], bias ? Q6_Vsf_vadd_VsfVsf(acc[r], hvx_vmem_load(&bias[ci])) : acc[r]);
                    } else {
                        hvx_vmem_store(&vacc[j + r], acc[r]);
                    }
                }
            }
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t u, uint32_t n, uint32_t slot) {
        const item x = at(u, n);
        switch (p->wtype) {
            case HTP_TYPE_Q8_0: compute_fmt<fmt_q8_0>(x, slot); break;
            case HTP_TYPE_Q4_0: compute_fmt<fmt_q4_0>(x, slot); break;
            case HTP_TYPE_IQ4_NL: compute_fmt<fmt_iq4_nl>(x, slot); break;
            case HTP_TYPE_Q4_1:
            case HTP_TYPE_Q4_K: compute_fmt<fmt_q4_k<false>>(x, slot); break;
            case HTP_TYPE_Q5_K:
            case HTP_TYPE_Q5_1: compute_fmt<fmt_q4_k<true>>(x, slot); break;
            case HTP_TYPE_Q5_0: compute_fmt<fmt_q5_0>(x, slot); break;
            case HTP_TYPE_Q6_K: compute_fmt<fmt_q6_k>(x, slot); break;
            case HTP_TYPE_Q3_K: compute_fmt<fmt_q3_k>(x, slot); break;
            case HTP_TYPE_Q2_K: compute_fmt<fmt_q2_k>(x, slot); break;
            case HTP_TYPE_MXFP4: compute_fmt<fmt_mxfp4>(x, slot); break;
            case HTP_TYPE_Q2_0: compute_fmt<fmt_q2_0>(x, slot); break;
            case HTP_TYPE_Q1_0: compute_fmt<fmt_q1_0>(x, slot); break;
            default: break;  // the host plans only the formats above
        }
    }

    // Output phase: the last K chunk's results (in the out slot) leave for dst.
    int store(uint32_t u, uint32_t n, uint32_t slot) {
        const item x = at(u, n);
        if (x.kc + 1 != p->n_kchunks) {
            return 0;
        }
        htp_trace * tr = &octx->ctx->trace[ith];
        htp_trace_event_start(tr, HTP_TRACE_EVT_OUTPUT, (uint16_t) x.ct0);
        const int k = store_out(x, slot);
        htp_trace_event_stop(tr, HTP_TRACE_EVT_OUTPUT, (uint16_t) x.ct0);
        return k;
    }

    int store_out(const item & x, uint32_t slot) {
        const uint32_t   cols  = out_cols(x);
        const dma_addr_t v     = vtcm_slot(octx->ctx, p->split, ith, p->vout, slot);
        if (c.dst_off) {  // MUL_MAT_ID: every row to its own dst row
            for (uint32_t j = 0; j < c.n; j++) {
                if (!dma_queue_push_1d(q, octx->dst.data + c.dst_off[j] + x.ct0 * 128, v + j * p->vout.row_pitch,
                                       cols * 4)) {
                    return -1;
                }
            }
            return (int) c.n;
        }
        const dma_addr_t d = octx->dst.data + row_offset(p->act.dst, c.i1_0, c.i2, c.i3) + x.ct0 * 128;
        if (!p->out_per_row) {
            return dma_queue_push(q, d, v, p->act.dst.nb1, p->vout.row_pitch, cols * 4, c.n) ? 1 : -1;
        }
        for (uint32_t j = 0; j < c.n; j++) {
            if (!dma_queue_push_1d(q, d + j * p->act.dst.nb1, v + j * p->vout.row_pitch, cols * 4)) {
                return -1;
            }
        }
        return (int) c.n;
    }
};

struct mmt_job {
    htp_op_context *                 octx;
    const htp_mul_mat_tiled_params * p;
    mm_act_rows                      c;
    dma_addr_t                       wbase;
    int                              status[HTP_MAX_HVX_THREADS];
};

void prep_worker(unsigned int, unsigned int ith, void * data) {
    mmt_job *        job = (mmt_job *) data;
    htp_split_params sp  = job->p->qsplit;
    sp.total_rows        = job->c.n;  // the last pass may be shorter
    HVX_Vector * act     = vptr(job->octx->ctx->vtcm_base + job->p->act_offset);
    const int    st      = prep_rows(job->octx, job->p, ith, job->c, act, sp, thread_rows(all_rows(sp), ith));
    if (st != HTP_STATUS_OK) {
        job->status[ith] = st;
    }
}

void dot_worker(unsigned int, unsigned int ith, void * data) {
    mmt_job *                        job = (mmt_job *) data;
    const htp_mul_mat_tiled_params * p   = job->p;
    htp_context *                    ctx = job->octx->ctx;
    // A member of a device group takes whole column groups with all their K chunks (partial
    // sums stay in one thread's vacc): its share is a multiple of cols_per_chunk * n_kchunks
    // units (one of the two is 1).
    const row_range units = thread_rows(device_rows_by(ctx, p->split, p->cols_per_chunk * p->n_kchunks), ith);
    if (units.begin >= units.end) {
        return;
    }
    const HVX_Vector * act;
    if (p->act_private) {
        HVX_Vector * own = vptr(vtcm_at(ctx, p->split, ith, p->act_offset));
        const int    st  = p->act_ready ? HTP_STATUS_OK :
                                          prep_rows(job->octx, p, ith, job->c, own, p->qsplit, row_range{ 0, job->c.n });
        if (st != HTP_STATUS_OK) {
            job->status[ith] = st;
            return;
        }
        act = own;
    } else {
        act = vptr(ctx->vtcm_base + p->act_offset);
    }
    dot_op    op = { job->octx, p, ith, ctx->dma[ith], job->c, job->wbase, act };
    const int st = stream_rows(ctx->dma[ith], &ctx->trace[ith], p->split, units, op);
    if (st != HTP_STATUS_OK) {
        job->status[ith] = st;
    }
}

}  // namespace

int htp_ops::mmt::run_pass(htp_op_context * octx, const htp_mul_mat_tiled_params & p, const mm_act_rows & c,
                           dma_addr_t wbase) {
    mmt_job job;
    job.octx  = octx;
    job.p     = &p;
    job.c     = c;
    job.wbase = wbase;
    for (uint32_t i = 0; i < HTP_MAX_HVX_THREADS; i++) {
        job.status[i] = HTP_STATUS_OK;
    }
    if (!p.act_private && !p.act_ready) {
        work_queue_run(octx->ctx->work_queue, prep_worker, &job, p.qsplit.n_threads);
    }
    work_queue_run(octx->ctx->work_queue, dot_worker, &job, p.split.n_threads);
    for (uint32_t t = 0; t < HTP_MAX_HVX_THREADS; t++) {
        if (job.status[t] != HTP_STATUS_OK) {
            return job.status[t];
        }
    }
    return HTP_STATUS_OK;
}

int htp_op_mul_mat_tiled(struct htp_op_context * octx) {
    const htp_mul_mat_tiled_params & p = octx->params->mul_mat_tiled;
    return mm_for_each_chunk(p.act, p.act_rows_per_pass, [&](const mm_act_rows & c, uint32_t i02, uint32_t i03) {
        return run_pass(octx, p, c, octx->src[0].data + i02 * p.w_nb2 + i03 * p.w_nb3);
    });
}
