// MUL_MAT_HMX: tiled weights x F32 activations on the HMX unit (layout and phases:
// htp-abi/params/mul-mat.h, docs/mul-mat.md "HMX path"). Per pass (mul-mat-hmx-pass.h; also
// MUL_MAT_ID_HMX's, mul-mat-id.cpp), activations are converted once into shared FP16 tiles
// (phase 1); every thread then streams the weight tiles of its column tiles through its own
// VTCM slots, dequantizes them into FP16 HMX tiles, multiplies them with all activation
// blocks on HMX and sends the F32 results out (phase 2).
// A flat weight (rt_repack) arrives as flat rows instead and is repacked into tiles in VTCM
// first, by the same repacker the host uses at set_tensor (repack/, htp_repack_col_tile).
#include "htp/hmx.h"
#include "hvx-util.h"
#include "mul-mat-hmx-pass.h"
#include "repack.h"
#include "row-stream.h"
#include "tile-dequant.h"

using namespace htp_ops;

namespace {

struct hmx_job {
    htp_op_context *               octx;
    const htp_mul_mat_hmx_params * p;
    const mm_act_rows *            c;
    dma_addr_t                     wbase;  // the pass's weight plane
    int                            status[HTP_MAX_HVX_THREADS];
};

// In-order DMA bookkeeping: every push is popped, in push order; waiting for a descriptor
// pops everything queued before it.
struct dma_fifo {
    dma_queue * q;
    htp_trace * tr;
    uint32_t    pushed = 0, popped = 0;

    void wait(uint32_t end, uint16_t info) {
        if (popped >= end) {
            return;
        }
        htp_trace_event_start(tr, HTP_TRACE_EVT_DMA, info);
        while (popped < end) {
            dma_queue_pop(q);
            popped++;
        }
        htp_trace_event_stop(tr, HTP_TRACE_EVT_DMA, info);
    }

    // Room for `n` more descriptors within HTP_DMA_INFLIGHT_MAX.
    void room(uint32_t n, uint16_t info) {
        if (pushed - popped + n > HTP_DMA_INFLIGHT_MAX) {
            wait(pushed + n - HTP_DMA_INFLIGHT_MAX, info);
        }
    }

    bool push(dma_addr_t dst, dma_addr_t src, uint32_t dst_stride, uint32_t src_stride, uint32_t w, uint32_t h) {
        if (!dma_queue_push(q, dst, src, dst_stride, src_stride, w, h)) {
            return false;
        }
        pushed++;
        return true;
    }
};

// FP16 tops out at 65504: a row whose |max| reaches 2^15 is scaled by 2^-k (exact, a power of
// two) so that it stays below 2^15, and its results by 2^k after HMX. Returns 2^k (1.0f: the
// row is left as it is). src: n32 F32 vectors (the row's K elements).
inline float fit_row_to_f16(HVX_Vector * src, uint32_t n32) {
    const float amax = max_abs_sf(src, n32);
    uint32_t    bits;
    __builtin_memcpy(&bits, &amax, 4);
    // |max| < 2^(E - 126) for biased exponent E; k = E - 141 brings it below 2^15.
    const int32_t k = (int32_t) ((bits >> 23) & 0xff) - 141;
    if (k <= 0) {
        return 1.0f;
    }
    const uint32_t down_bits = (uint32_t) (127 - k) << 23, up_bits = (uint32_t) (127 + k) << 23;  // k <= 114: normal
    float          down, up;
    __builtin_memcpy(&down, &down_bits, 4);
    __builtin_memcpy(&up, &up_bits, 4);
    const HVX_Vector sc = splat_f32(down);
    for (uint32_t v = 0; v < n32; v++) {
        src[v] = Q6_Vsf_vmpy_VsfVsf(src[v], sc);
    }
    return up;
}

// Phase 1: activation rows -> FP16 tiles.
void act_worker(unsigned int, unsigned int ith, void * data) {
    hmx_job *                      job  = (hmx_job *) data;
    const htp_mul_mat_hmx_params * p    = job->p;
    htp_context *                  ctx  = job->octx->ctx;
    htp_split_params               sp   = p->asplit;
    sp.total_rows                       = job->c->n;
    const row_range                rr   = thread_rows(sp, ith);
    dma_fifo                       fifo = { ctx->dma[ith], &ctx->trace[ith] };
    if (ith == 0) {
        float * cp = (float *) htp_va(ctx->vtcm_base + p->colparam_offset);
        for (int i = 0; i < 32; i++) {
            cp[i]      = 1.0f;
            cp[32 + i] = 0.0f;
        }
    }
    if (rr.begin >= rr.end) {
        return;
    }
    const uint32_t n64     = (p->ne00 + 63) / 64;
    uint32_t       ends[2] = { 0, 0 };
    const mm_act_rows & c = *job->c;
    auto fetch = [&](uint32_t r) -> bool {
        const dma_addr_t s = job->octx->src[1].data +
                             (c.src1_off ? c.src1_off[r] : row_offset(p->src1, c.i1_0 + r, c.i2, c.i3));
        const dma_addr_t v = vtcm_at(ctx, p->split, ith, p->vstage_offset + (r & 1) * p->vstage_slot);
        if (!fifo.push(v, s, p->act_row_bytes, p->act_row_bytes, p->act_row_bytes, 1)) {
            return false;
        }
        ends[r & 1] = fifo.pushed;
        return true;
    };
    for (uint32_t r = rr.begin; r < rr.end && r < rr.begin + 2; r++) {
        if (!fetch(r)) {
            job->status[ith] = HTP_STATUS_DMA_ERROR;
            return;
        }
    }
    HVX_Vector * conv  = vptr(vtcm_at(ctx, p->split, ith, p->vconv_offset));
    uint8_t *    act   = (uint8_t *) htp_va(ctx->vtcm_base + p->act_offset);
    float *      rowsc = (float *) htp_va(ctx->vtcm_base + p->rowscale_offset);
    for (uint32_t r = rr.begin; r < rr.end; r++) {
        fifo.wait(ends[r & 1], (uint16_t) r);
        htp_trace_event_start(fifo.tr, HTP_TRACE_EVT_QUANT, (uint16_t) r);
        HVX_Vector * src = vptr(vtcm_at(ctx, p->split, ith, p->vstage_offset + (r & 1) * p->vstage_slot));
        rowsc[r]         = fit_row_to_f16(src, p->n_k32);
        f32_to_f16_vectors(conv, src, n64);
        uint8_t *       dst = act + (r / 32) * p->n_k32 * HTP_HMX_TILE_BYTES + (r % 32) * 64;
        const uint8_t * c   = (const uint8_t *) conv;
        for (uint32_t kk = 0; kk < p->n_k32; kk++) {
            __builtin_memcpy(dst + kk * HTP_HMX_TILE_BYTES, c + kk * 64, 64);
        }
        htp_trace_event_stop(fifo.tr, HTP_TRACE_EVT_QUANT, (uint16_t) r);
        if (r + 2 < rr.end && !fetch(r + 2)) {
            job->status[ith] = HTP_STATUS_DMA_ERROR;
            fifo.wait(fifo.pushed, 0);
            return;
        }
    }
    fifo.wait(fifo.pushed, 0);
}

// Phase 2: column tiles of weights, dequantized and multiplied on HMX.
void w_worker(unsigned int, unsigned int ith, void * data) {
    hmx_job *                      job = (hmx_job *) data;
    const htp_mul_mat_hmx_params * p   = job->p;
    htp_context *                  ctx = job->octx->ctx;
    const row_range                rr  = thread_rows(p->split, ith);
    if (rr.begin >= rr.end) {
        return;
    }
    dma_fifo              fifo  = { ctx->dma[ith], &ctx->trace[ith] };
    const mm_act_rows & c     = *job->c;
    const dma_addr_t      wbase = job->wbase;
    const uint32_t        n_ct  = rr.end - rr.begin;
    const uint32_t        U     = n_ct * p->n_kc;
    const uint32_t        nb    = p->split.n_bufs;
    const uint32_t        n_mb  = (c.n + 31) / 32;
    uint32_t         fetch_end[16];
    uint32_t         store_end[2] = { 0, 0 };
    int              st           = HTP_STATUS_OK;

    // rt-repack: one flat row's bytes of fetch kc, and the rows of column tile ct.
    auto flat_bytes = [&](uint32_t kc) -> uint32_t {
        return kc + 1 < p->n_kc ? p->flat_chunk_bytes : p->flat_row_bytes - kc * p->flat_chunk_bytes;
    };
    auto ct_rows = [&](uint32_t ct) -> uint32_t { return p->ne01 - ct * 32 < 32 ? p->ne01 - ct * 32 : 32; };

    auto fetch = [&](uint32_t u) -> bool {
        const uint32_t ct = rr.begin + u / p->n_kc, kc = u % p->n_kc;
        const uint32_t t0 = kc * p->kc_tiles;
        const uint32_t nt = p->n_k_tiles - t0 < p->kc_tiles ? p->n_k_tiles - t0 : p->kc_tiles;
        const dma_addr_t v = vtcm_at(ctx, p->split, ith, p->vraw_offset + (u % nb) * p->vraw_slot);
        fifo.room(1, (uint16_t) u);
        if (p->rt_repack) {
            const uint32_t   fb = flat_bytes(kc);
            const dma_addr_t s  = wbase + ct * 32 * p->w_nb1 + kc * p->flat_chunk_bytes;
            if (!fifo.push(v, s, fb, p->w_nb1, fb, ct_rows(ct))) {
                return false;
            }
        } else {
            const dma_addr_t s = wbase + (ct * p->n_k_tiles + t0) * p->tile_bytes;
            if (!fifo.push(v, s, nt * p->tile_bytes, nt * p->tile_bytes, nt * p->tile_bytes, 1)) {
                return false;
            }
        }
        fetch_end[u % nb] = fifo.pushed;
        return true;
    };

    for (uint32_t u = 0; u < U && u < nb; u++) {
        if (!fetch(u)) {
            st = HTP_STATUS_DMA_ERROR;
            break;
        }
    }
    HVX_Vector *     w       = vptr(vtcm_at(ctx, p->split, ith, p->vw_offset));
    float *          scratch = (float *) htp_va(vtcm_at(ctx, p->split, ith, p->vscratch_offset));
    const dma_addr_t act     = ctx->vtcm_base + p->act_offset;
    const dma_addr_t cparams = ctx->vtcm_base + p->colparam_offset;
    const dma_addr_t w_dev   = vtcm_at(ctx, p->split, ith, p->vw_offset);
    const float *    rowsc   = (const float *) htp_va(ctx->vtcm_base + p->rowscale_offset);
    for (uint32_t u = 0; u < U && st == HTP_STATUS_OK; u++) {
        const uint32_t ctl = u / p->n_kc, ct = rr.begin + ctl, kc = u % p->n_kc;
        const uint32_t t0  = kc * p->kc_tiles;
        const uint32_t nt  = p->n_k_tiles - t0 < p->kc_tiles ? p->n_k_tiles - t0 : p->kc_tiles;
        fifo.wait(fetch_end[u % nb], (uint16_t) u);
        const uint8_t * raw = (const uint8_t *) htp_va(vtcm_at(ctx, p->split, ith, p->vraw_offset + (u % nb) * p->vraw_slot));
        htp_trace_event_start(fifo.tr, HTP_TRACE_EVT_DEQUANT, (uint16_t) ct);
        if (p->rt_repack) {
            // rt-repack (inside DEQUANT): flat rows -> this fetch's tiles; rows past the matrix
            // get the tiling of zero rows.
            const uint32_t fb = flat_bytes(kc), rows = ct_rows(ct);
            uint8_t *      flat = (uint8_t *) raw;
            if (rows < 32) {
                __builtin_memset(flat + rows * fb, 0, (32 - rows) * fb);
            }
            uint8_t * tiles = (uint8_t *) htp_va(vtcm_at(ctx, p->split, ith, p->vtiles_offset));
            if (!htp_repack_col_tile((enum htp_type) p->wtype, tiles, flat, fb, nt)) {
                htp_trace_event_stop(fifo.tr, HTP_TRACE_EVT_DEQUANT, (uint16_t) ct);
                st = HTP_STATUS_BAD_PARAMS;
                break;
            }
            raw = tiles;
        }
        for (uint32_t t = 0; t < nt; t++) {
            const uint8_t * tile = raw + t * p->tile_bytes;
            // Q2_K: the super-block's first tile is in this slot (kc_tiles is a multiple of 8).
            const uint8_t * sb = raw + (t & ~7u) * p->tile_bytes;
            tile_dequant_f16(p->wtype, tile, sb, w + (t0 + t) * p->out_per_tile * 16, scratch);
        }
        htp_trace_event_stop(fifo.tr, HTP_TRACE_EVT_DEQUANT, (uint16_t) ct);
        if (u + nb < U && !fetch(u + nb)) {
            st = HTP_STATUS_DMA_ERROR;
            break;
        }
        if (kc + 1 < p->n_kc) {
            continue;
        }
        // The column tile's weights are ready: its output slot must have left.
        const uint32_t os = ctl & 1;
        fifo.wait(store_end[os], 0xffff);
        const dma_addr_t out = vtcm_at(ctx, p->split, ith, p->vout_offset + os * p->vout_slot);
        htp_trace_event_start(fifo.tr, HTP_TRACE_EVT_HMX_COMP, (uint16_t) ct);
        int hs = htp_hmx_acquire(ctx->info->hmx);
        for (uint32_t mb = 0; mb < n_mb && hs == HTP_STATUS_OK; mb++) {
            hs = htp_hmx_clear(ctx->info->hmx);
            if (hs == HTP_STATUS_OK) {
                hs = htp_hmx_mma(ctx->info->hmx, act + mb * p->n_k32 * HTP_HMX_TILE_BYTES, w_dev, p->n_k32);
            }
            if (hs == HTP_STATUS_OK) {
                hs = htp_hmx_store(ctx->info->hmx, out + mb * 4096, cparams, HTP_HMX_OUT_F32);
            }
        }
        const int rs = htp_hmx_release(ctx->info->hmx);
        htp_trace_event_stop(fifo.tr, HTP_TRACE_EVT_HMX_COMP, (uint16_t) ct);
        if (hs != HTP_STATUS_OK || rs != HTP_STATUS_OK) {
            st = hs != HTP_STATUS_OK ? hs : rs;
            break;
        }
        // Output: rows i1_0 + [0, n) of dst (or row j at dst_off[j]), columns [32 ct, 32 ct + cols).
        const uint32_t   cols = p->ne01 - ct * 32 < 32 ? p->ne01 - ct * 32 : 32;
        const dma_addr_t d0   = job->octx->dst.data + ct * 128;
        const dma_addr_t d    = d0 + (c.dst_off ? 0 : row_offset(p->dst, c.i1_0, c.i2, c.i3));
        htp_trace_event_start(fifo.tr, HTP_TRACE_EVT_OUTPUT, (uint16_t) ct);
        HVX_Vector * out_rows = vptr(out);  // F32 row r of block mb: vector mb * 32 + r
        for (uint32_t r = 0; r < c.n; r++) {  // undo fit_row_to_f16
            if (rowsc[r] != 1.0f) {
                out_rows[r] = Q6_Vsf_vmpy_VsfVsf(out_rows[r], splat_f32(rowsc[r]));
            }
        }
        for (uint32_t mb = 0; mb < n_mb && st == HTP_STATUS_OK; mb++) {
            const uint32_t rows = c.n - mb * 32 < 32 ? c.n - mb * 32 : 32;
            if (c.dst_off) {  // scattered rows: one descriptor each
                for (uint32_t r = 0; r < rows && st == HTP_STATUS_OK; r++) {
                    fifo.room(1, 0xffff);
                    if (!fifo.push(d0 + c.dst_off[mb * 32 + r], out + mb * 4096 + r * 128, cols * 4, cols * 4, cols * 4, 1)) {
                        st = HTP_STATUS_DMA_ERROR;
                    }
                }
                continue;
            }
            if (!p->store_per_row) {
                fifo.room(1, 0xffff);
                if (!fifo.push(d + mb * 32 * p->dst.nb1, out + mb * 4096, p->dst.nb1, 128, cols * 4, rows)) {
                    st = HTP_STATUS_DMA_ERROR;
                }
                continue;
            }
            for (uint32_t r = 0; r < rows && st == HTP_STATUS_OK; r++) {
                fifo.room(1, 0xffff);
                if (!fifo.push(d + (mb * 32 + r) * p->dst.nb1, out + mb * 4096 + r * 128, cols * 4, cols * 4, cols * 4, 1)) {
                    st = HTP_STATUS_DMA_ERROR;
                }
            }
        }
        htp_trace_event_stop(fifo.tr, HTP_TRACE_EVT_OUTPUT, (uint16_t) ct);
        store_end[os] = fifo.pushed;
    }
    fifo.wait(fifo.pushed, 0xffff);
    if (st != HTP_STATUS_OK) {
        job->status[ith] = st;
    }
}

}  // namespace

int mmh::run_pass(htp_op_context * octx, const htp_mul_mat_hmx_params & p, const mm_act_rows & c, dma_addr_t wbase) {
    if (c.n == 0 || c.n > p.act_rows_per_chunk) {
        return HTP_STATUS_BAD_PARAMS;
    }
    hmx_job job;
    job.octx  = octx;
    job.p     = &p;
    job.c     = &c;
    job.wbase = wbase;
    for (uint32_t i = 0; i < HTP_MAX_HVX_THREADS; i++) {
        job.status[i] = HTP_STATUS_OK;
    }
    work_queue_run(octx->ctx->work_queue, act_worker, &job, p.asplit.n_threads);
    for (uint32_t t = 0; t < HTP_MAX_HVX_THREADS; t++) {
        if (job.status[t] != HTP_STATUS_OK) {
            return job.status[t];
        }
    }
    work_queue_run(octx->ctx->work_queue, w_worker, &job, p.split.n_threads);
    for (uint32_t t = 0; t < HTP_MAX_HVX_THREADS; t++) {
        if (job.status[t] != HTP_STATUS_OK) {
            return job.status[t];
        }
    }
    return HTP_STATUS_OK;
}

// A weight (tiled, or flat for rt-repack: never both) and HMX parameters the kernel can run.
int mmh::check_params(const htp_op_context * octx, const htp_mul_mat_hmx_params & p) {
    const bool tiled = (octx->src[0].flags & HTP_TENSOR_TILED) != 0;
    if (tiled == (p.rt_repack != 0) || !octx->ctx->info->hmx || p.split.n_bufs > 16 || p.split.n_bufs < 2) {
        return HTP_STATUS_BAD_PARAMS;
    }
    return HTP_STATUS_OK;
}

int htp_op_mul_mat_hmx(struct htp_op_context * octx) {
    const htp_mul_mat_hmx_params & p  = octx->params->mul_mat_hmx;
    const int                      ok = mmh::check_params(octx, p);
    if (ok != HTP_STATUS_OK) {
        return ok;
    }
    mm_act_rows c = { 0, 0, 0, 0, nullptr, nullptr };
    for (uint32_t plane = 0; plane < p.n_planes; plane++) {
        c.i3                   = htp_fastdiv(plane, &p.div_ne12);
        c.i2                   = plane - c.i3 * p.ne12;
        const uint32_t   i02   = htp_fastdiv(c.i2, &p.div_r2);
        const uint32_t   i03   = htp_fastdiv(c.i3, &p.div_r3);
        const dma_addr_t wbase = octx->src[0].data + i02 * p.wnb2 + i03 * p.wnb3;
        for (uint32_t i1 = 0; i1 < p.ne11; i1 += p.act_rows_per_chunk) {
            c.i1_0       = i1;
            c.n          = p.ne11 - i1 < p.act_rows_per_chunk ? p.ne11 - i1 : p.act_rows_per_chunk;
            const int st = mmh::run_pass(octx, p, c, wbase);
            if (st != HTP_STATUS_OK) {
                return st;
            }
        }
    }
    return HTP_STATUS_OK;
}
