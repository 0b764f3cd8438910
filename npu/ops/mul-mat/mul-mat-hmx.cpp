// MUL_MAT_HMX: tiled weights x F32 activations on the HMX unit (layout and phases:
// htp-abi/params/mul-mat.h, docs/mul-mat.md "HMX path"). Per pass (mul-mat-hmx-pass.h; also
// MUL_MAT_ID_HMX's, mul-mat-id.cpp), activations are converted once into shared FP16 tiles
// (phase 1); every thread then streams the weight tiles of its column tiles through its own
// VTCM slots, dequantizes them into FP16 HMX tiles, multiplies them with all activation
// blocks on HMX and sends the F32 results out (phase 2).
// A flat weight (rt_repack) arrives as flat rows instead and is repacked into tiles in VTCM
// first, on HVX (mul-mat-hmx-repack.h), into the bytes the host's set_tensor repacker writes
// (repack/, htp_repack_col_tile).
#include "dma-tickets.h"
#include "htp/hmx.h"
#include "hvx-util.h"
#include "mul-mat-hmx-pass.h"
#include "mul-mat-hmx-repack.h"
#include "op-table.h"
#include "row-stream.h"
#include "tile-dequant.h"

using namespace htp_ops;

namespace {

// HMX tiles are 32 x 32: FP16 activation / weight tiles have 64-byte rows; an F32 output tile
// (HTP_HMX_OUT_F32) has 128-byte rows (32 output columns of one column tile) and 4096 bytes.
constexpr uint32_t kTileDim      = HTP_HMX_TILE_DIM;
constexpr uint32_t kF16RowBytes  = kTileDim * 2;
constexpr uint32_t kOutRowBytes  = kTileDim * 4;
constexpr uint32_t kOutTileBytes = kTileDim * kOutRowBytes;
constexpr uint32_t kTileVecs     = HTP_HMX_TILE_BYTES / 128;  // HVX vectors per FP16 tile
constexpr uint32_t kMaxRawSlots  = 16;      // check_params bounds split.n_bufs
constexpr uint32_t kMaxStageSlots = 16;     // and asplit.n_bufs

struct hmx_job {
    htp_op_context *               octx;
    const htp_mul_mat_hmx_params * p;
    const mm_act_rows *            c;
    dma_addr_t                     wbase;  // the pass's weight plane
    int                            status[HTP_MAX_HVX_THREADS];
};

static inline uint32_t min_u32(uint32_t a, uint32_t b) {
    return a < b ? a : b;
}

// FP16 tops out at 65504: a row whose |max| reaches 2^15 is scaled by 2^-k (exact, a power of
// two) so that it stays below 2^15, and its results by 2^k after HMX. Returns 2^k (1.0f: the
// row is left as it is). src: n32 F32 vectors (the row's K elements).
inline float fit_row_to_f16(HVX_Vector * src, uint32_t n32) {
    const float    amax = max_abs_sf(src, n32);
    const uint32_t bits = f32_bits(amax);
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
        hvx_vmem_store(&src[v], Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&src[v]), sc));
    }
    return up;
}

// Phase 1: activation rows -> FP16 tiles.
void act_worker(unsigned int, unsigned int ith, void * data) {
    hmx_job *                      job = (hmx_job *) data;
    const htp_mul_mat_hmx_params * p   = job->p;
    htp_context *                  ctx = job->octx->ctx;
    htp_split_params               sp  = p->asplit;
    sp.total_rows                      = job->c->n;
    const row_range rr                 = thread_rows(all_rows(sp), ith);
    dma_tickets     dma;
    dma.init(ctx->dma[ith], &ctx->trace[ith]);
    if (ith == 0) {  // column params: 32 scales of 1, 32 biases of 0 (two vectors, no scalar VTCM stores)
        static_assert(kTileDim * sizeof(float) == sizeof(HVX_Vector), "a column param row is one vector");
        HVX_Vector * cp = vptr(ctx->vtcm_base + p->colparam_offset);
        hvx_vmem_store(&cp[0], splat_f32(1.0f));
        hvx_vmem_store(&cp[1], Q6_V_vzero());
    }
    if (rr.begin >= rr.end) {
        return;
    }
    // One row per step (asplit.rows_per_chunk 1, check_params) through asplit.n_bufs staging
    // slots: row rr.begin + i in slot i % n_bufs.
    const uint32_t      n64    = (p->ne00 + 63) / 64;
    const uint32_t      nb     = sp.n_bufs;
    uint32_t            ends[kMaxStageSlots];
    const mm_act_rows & c      = *job->c;
    auto fetch = [&](uint32_t r, uint32_t slot) -> bool {
        const dma_addr_t s = job->octx->src[1].data +
                             (c.src1_off ? c.src1_off[r] : row_offset(p->act.src1, c.i1_0 + r, c.i2, c.i3));
        const dma_addr_t v = vtcm_at(ctx, p->split, ith, p->vstage_offset + slot * p->vstage_slot);
        ends[slot]         = dma.push(v, s, p->act.row_bytes, p->act.row_bytes, p->act.row_bytes, 1);
        return !dma.failed;
    };
    for (uint32_t i = 0; i < nb && rr.begin + i < rr.end; i++) {
        if (!fetch(rr.begin + i, i)) {
            job->status[ith] = HTP_STATUS_DMA_ERROR;
            return;
        }
    }
    const dma_addr_t conv_addr = vtcm_at(ctx, p->split, ith, p->vconv_offset);
    HVX_Vector *     conv      = vptr(conv_addr);
    HVX_Vector *     rowsc     = vptr(ctx->vtcm_base + p->rowscale_offset);  // row r's 2^k in every lane
    uint32_t         slot      = 0;
    uint32_t         scattered = 0;  // ticket of the last row's scatter out of conv
    for (uint32_t r = rr.begin; r < rr.end; r++) {
        dma.wait(ends[slot], (uint16_t) r);
        dma.wait(scattered, (uint16_t) r);  // conv is free again
        htp_trace_event_start(dma.tr, HTP_TRACE_EVT_QUANT, (uint16_t) r);
        HVX_Vector * src = vptr(vtcm_at(ctx, p->split, ith, p->vstage_offset + slot * p->vstage_slot));
        hvx_vmem_store(&rowsc[r], splat_f32(fit_row_to_f16(src, p->n_k32)));
        f32_to_f16_vectors(conv, src, n64);
        htp_trace_event_stop(dma.tr, HTP_TRACE_EVT_QUANT, (uint16_t) r);
        // Row r is row r % 32 of the tiles of block r / 32; its K / 32 pieces of 64 bytes go one
        // per tile. A VTCM -> VTCM 2-D descriptor scatters them: half of a tile's vector belongs
        // to a row another thread may be writing, which no vector store could leave alone.
        const dma_addr_t dst = ctx->vtcm_base + p->act_offset + (r / kTileDim) * p->n_k32 * HTP_HMX_TILE_BYTES +
                               (r % kTileDim) * kF16RowBytes;
        scattered = dma.push(dst, conv_addr, HTP_HMX_TILE_BYTES, kF16RowBytes, kF16RowBytes, p->n_k32);
        if (dma.failed) {
            job->status[ith] = HTP_STATUS_DMA_ERROR;
            dma.drain((uint16_t) r);
            return;
        }
        if (r + nb < rr.end && !fetch(r + nb, slot)) {
            job->status[ith] = HTP_STATUS_DMA_ERROR;
            dma.drain((uint16_t) r);
            return;
        }
        if (++slot == nb) {
            slot = 0;
        }
    }
    // The last block's rows past c.n are padding: HMX multiplies them too and nothing stores
    // their results, but stale VTCM there is arbitrary FP16 (NaNs, infinities, wide exponent
    // spreads), which the vHTP's exact HMX model handles on slow paths. The thread with the
    // last rows scatters zero rows into them, as it does its own rows.
    const uint32_t padded = (c.n + kTileDim - 1) / kTileDim * kTileDim;
    if (rr.end == c.n && c.n < padded) {
        dma.wait(scattered, (uint16_t) c.n);  // conv is free again
        for (uint32_t v = 0; v < n64; v++) {
            conv[v] = Q6_V_vzero();
        }
        for (uint32_t r = c.n; r < padded && !dma.failed; r++) {
            const dma_addr_t dst = ctx->vtcm_base + p->act_offset + (r / kTileDim) * p->n_k32 * HTP_HMX_TILE_BYTES +
                                   (r % kTileDim) * kF16RowBytes;
            dma.push(dst, conv_addr, HTP_HMX_TILE_BYTES, kF16RowBytes, kF16RowBytes, p->n_k32);
        }
        if (dma.failed) {
            job->status[ith] = HTP_STATUS_DMA_ERROR;
        }
    }
    dma.drain((uint16_t) (rr.end - 1));  // info: activation row, as the waits above
}

// Phase 2 on one thread: its column tiles (32 weight rows = 32 output columns each) of the
// pass's weight plane. A column tile's weight tiles arrive in n_kc fetches of kc_tiles tiles
// through n_bufs raw slots; each fetch is dequantized (after rt-repack, for a flat weight)
// into the column tile's FP16 weight tiles; after its last fetch HMX multiplies every 32-row
// activation block with them into one of 2 output slots, and the F32 results leave by DMA
// while the next column tile's weights come in.
struct weight_worker {
    hmx_job *                      job;
    const htp_mul_mat_hmx_params * p;
    htp_context *                  ctx;
    uint32_t                       ith;
    row_range                      col_tiles;     // this thread's column tiles
    uint32_t                       n_fetches;     // col tiles x n_kc, in order (column tile, k chunk)
    uint32_t                       n_act_blocks;  // 32-row activation blocks of the pass
    dma_tickets                    dma;
    uint32_t                       fetch_ticket[kMaxRawSlots];  // per raw slot: its last fetch
    uint32_t                       store_ticket[2];             // per output slot: its last store

    // Fetch f: column tile `ct`, k chunk `kc`, weight tiles [t0, t0 + n_tiles) along K.
    struct fetch_pos {
        uint32_t ct, kc, t0, n_tiles;
    };

    fetch_pos pos(uint32_t f) const {
        const uint32_t ct = htp_fastdiv(f, &p->div_n_kc), kc = f - ct * p->n_kc, t0 = kc * p->kc_tiles;
        return { col_tiles.begin + ct, kc, t0, min_u32(p->n_k_tiles - t0, p->kc_tiles) };
    }

    uint32_t raw_index(uint32_t f) const { return htp_fastmod(f, &p->mod_n_bufs); }  // f % n_bufs

    dma_addr_t raw_slot(uint32_t f) const {
        return vtcm_at(ctx, p->split, ith, p->vraw_offset + raw_index(f) * p->vraw_slot);
    }

    dma_addr_t out_slot(uint32_t os) const { return vtcm_at(ctx, p->split, ith, p->vout_offset + os * p->vout_slot); }

    // Weight rows of column tile ct (= its output columns): 32 but in the last.
    uint32_t col_tile_rows(uint32_t ct) const { return min_u32(p->ne01 - ct * kTileDim, kTileDim); }

    // rt-repack: the bytes of one flat row that k chunk kc covers (the last takes the rest).
    uint32_t flat_bytes(uint32_t kc) const {
        return kc + 1 < p->n_kc ? p->flat_chunk_bytes : p->flat_row_bytes - kc * p->flat_chunk_bytes;
    }

    bool push(dma_addr_t dst, dma_addr_t src, uint32_t dst_stride, uint32_t src_stride, uint32_t row_size,
              uint32_t nrows, uint16_t info, uint32_t * ticket = nullptr) {
        dma.room(1, info);
        const uint32_t t = dma.push(dst, src, dst_stride, src_stride, row_size, nrows);
        if (ticket) {
            *ticket = t;
        }
        return !dma.failed;
    }

    // Queues fetch f into its raw slot: the column tile's flat rows (rt-repack, one 2-D
    // descriptor) or its tiles of the k chunk (contiguous in a tiled weight).
    bool fetch(uint32_t f) {
        const fetch_pos  x      = pos(f);
        const dma_addr_t v      = raw_slot(f);
        uint32_t *       ticket = &fetch_ticket[raw_index(f)];
        if (p->rt_repack) {
            const uint32_t   fb = flat_bytes(x.kc);
            const dma_addr_t s  = job->wbase + x.ct * kTileDim * p->w_nb1 + x.kc * p->flat_chunk_bytes;
            return push(v, s, fb, p->w_nb1, fb, col_tile_rows(x.ct), (uint16_t) f, ticket);
        }
        const uint32_t   bytes = x.n_tiles * p->tile_bytes;
        const dma_addr_t s     = job->wbase + (x.ct * p->n_k_tiles + x.t0) * p->tile_bytes;
        return push(v, s, bytes, bytes, bytes, 1, (uint16_t) f, ticket);
    }

    // rt-repack: the fetch's flat rows (fb bytes each, rows of the matrix; the others get the
    // tiling of zero rows) -> its n_tiles tiles, on HVX (mul-mat-hmx-repack.h: vector loads and
    // stores only, the bytes the shared scalar repacker htp_repack_col_tile writes).
    HTP_COMPUTE int compute_repack(uint8_t * flat, uint8_t * tiles, uint32_t fb, uint32_t rows, uint32_t n_tiles) {
        if (rows < kTileDim) {
            mmr::zero_bytes(flat + rows * fb, (kTileDim - rows) * fb);
        }
        return mmr::repack_col_tile(p->wtype, tiles, flat, fb, n_tiles) ? HTP_STATUS_OK : HTP_STATUS_BAD_PARAMS;
    }

    // Fetch f (arrived) -> FP16 weight tiles [t0 * out_per_tile, ...) of its column tile.
    HTP_COMPUTE int compute_dequant(uint32_t f) {
        const fetch_pos x   = pos(f);
        const uint8_t * raw = (const uint8_t *) htp_va(raw_slot(f));
        HVX_Vector *    w   = vptr(vtcm_at(ctx, p->split, ith, p->vw_offset));
        float *         scratch = (float *) htp_va(vtcm_at(ctx, p->split, ith, p->vscratch_offset));
        if (p->rt_repack) {
            uint8_t * tiles = (uint8_t *) htp_va(vtcm_at(ctx, p->split, ith, p->vtiles_offset));
            const int st    = compute_repack((uint8_t *) raw, tiles, flat_bytes(x.kc), col_tile_rows(x.ct), x.n_tiles);
            if (st != HTP_STATUS_OK) {
                return st;
            }
            raw = tiles;
        }
        for (uint32_t t = 0; t < x.n_tiles; t++) {
            const uint8_t * tile = raw + t * p->tile_bytes;
            // Q2_K: the super-block's first tile is in this slot (kc_tiles is a multiple of 8).
            const uint8_t * sb = raw + (t & ~7u) * p->tile_bytes;
            tile_dequant_f16(p->wtype, tile, sb, w + (x.t0 + t) * p->out_per_tile * kTileVecs, scratch);
        }
        return HTP_STATUS_OK;
    }

    // Every activation block x the column tile's FP16 weight tiles -> F32 output tiles at out
    // (in VTCM, as every HMX operand). Each call forms its addresses from the VTCM base and the
    // params' 32-bit offsets: 64-bit addresses kept live across the calls would not fit
    // Hexagon's callee-saved registers (they spilled in the loop).
    HTP_COMPUTE int compute_hmx(dma_addr_t out) {
        htp_hmx *      hmx = ctx->info->hmx;
        const uint32_t o   = (uint32_t) (out - ctx->vtcm_base);  // VTCM offset of the output tiles
        int            hs  = htp_hmx_acquire(hmx);
        for (uint32_t mb = 0; mb < n_act_blocks && hs == HTP_STATUS_OK; mb++) {
            hs = htp_hmx_clear(hmx);
            if (hs == HTP_STATUS_OK) {
                hs = htp_hmx_mma(hmx, ctx->vtcm_base + (p->act_offset + mb * p->n_k32 * HTP_HMX_TILE_BYTES),
                                 vtcm_at(ctx, p->split, ith, p->vw_offset), p->n_k32);
            }
            if (hs == HTP_STATUS_OK) {
                hs = htp_hmx_store(hmx, ctx->vtcm_base + (o + mb * kOutTileBytes), ctx->vtcm_base + p->colparam_offset,
                                   HTP_HMX_OUT_F32);
            }
        }
        const int rs = htp_hmx_release(hmx);
        return hs != HTP_STATUS_OK ? hs : rs;
    }

    // Undoes fit_row_to_f16 on the output rows (F32 row r of block mb: vector mb * 32 + r).
    void unscale_rows(dma_addr_t out) const {
        const mm_act_rows & c        = *job->c;
        const HVX_Vector *  rowsc    = vptr(ctx->vtcm_base + p->rowscale_offset);
        HVX_Vector *        out_rows = vptr(out);
        const HVX_Vector    one      = splat_f32(1.0f);
        for (uint32_t r = 0; r < c.n; r++) {  // rows left unscaled (2^0) keep their bits
            const HVX_Vector     sc   = hvx_vmem_load(&rowsc[r]);
            const HVX_Vector     o    = hvx_vmem_load(&out_rows[r]);
            const HVX_VectorPred keep = Q6_Q_vcmp_eq_VwVw(sc, one);
            hvx_vmem_store(&out_rows[r], Q6_V_vmux_QVV(keep, o, Q6_Vsf_vmpy_VsfVsf(o, sc)));
        }
    }

    // Output tiles at out -> dst rows i1_0 + [0, n) (or row j at dst_off[j]), columns
    // [32 ct, 32 ct + cols): one 2-D descriptor per block, or one per row (scattered rows,
    // store_per_row).
    int store(uint32_t ct, dma_addr_t out) {
        const mm_act_rows & c    = *job->c;
        const uint32_t      cols = col_tile_rows(ct);
        const dma_addr_t    d0   = job->octx->dst.data + ct * kOutRowBytes;
        const dma_addr_t    d    = d0 + (c.dst_off ? 0 : row_offset(p->act.dst, c.i1_0, c.i2, c.i3));
        for (uint32_t mb = 0; mb < n_act_blocks; mb++) {
            const uint32_t   rows = min_u32(c.n - mb * kTileDim, kTileDim);
            const dma_addr_t o    = out + mb * kOutTileBytes;
            if (!c.dst_off && !p->store_per_row) {
                if (!push(d + mb * kTileDim * p->act.dst.nb1, o, p->act.dst.nb1, kOutRowBytes, cols * 4, rows, (uint16_t) ct)) {
                    return HTP_STATUS_DMA_ERROR;
                }
                continue;
            }
            for (uint32_t r = 0; r < rows; r++) {
                const uint32_t   j   = mb * kTileDim + r;
                const dma_addr_t dst = c.dst_off ? d0 + c.dst_off[j] : d + j * p->act.dst.nb1;
                if (!push(dst, o + r * kOutRowBytes, cols * 4, cols * 4, cols * 4, 1, (uint16_t) ct)) {
                    return HTP_STATUS_DMA_ERROR;
                }
            }
        }
        return HTP_STATUS_OK;
    }

    // Column tile ct has all its FP16 weights: multiply and send the results out through
    // output slot os, once that slot's previous stores have left.
    int finish_col_tile(uint32_t ct, uint32_t os) {
        dma.wait(store_ticket[os], (uint16_t) ct);  // column tile ct - 2's stores
        const dma_addr_t out = out_slot(os);
        htp_trace_event_start(dma.tr, HTP_TRACE_EVT_HMX_COMP, (uint16_t) ct);
        const int hs = compute_hmx(out);
        htp_trace_event_stop(dma.tr, HTP_TRACE_EVT_HMX_COMP, (uint16_t) ct);
        if (hs != HTP_STATUS_OK) {
            return hs;
        }
        htp_trace_event_start(dma.tr, HTP_TRACE_EVT_OUTPUT, (uint16_t) ct);
        unscale_rows(out);
        const int st = store(ct, out);
        htp_trace_event_stop(dma.tr, HTP_TRACE_EVT_OUTPUT, (uint16_t) ct);
        store_ticket[os] = dma.pushed;
        return st;
    }

    // Prologue: fill the raw slots; loop: wait, dequantize, refill the slot, finish column
    // tiles; epilogue: drain.
    int run() {
        const uint32_t nb = p->split.n_bufs;
        int            st = HTP_STATUS_OK;
        for (uint32_t f = 0; f < n_fetches && f < nb; f++) {
            if (!fetch(f)) {
                st = HTP_STATUS_DMA_ERROR;
                break;
            }
        }
        for (uint32_t f = 0; f < n_fetches && st == HTP_STATUS_OK; f++) {
            const fetch_pos x = pos(f);
            dma.wait(fetch_ticket[raw_index(f)], (uint16_t) f);
            htp_trace_event_start(dma.tr, HTP_TRACE_EVT_DEQUANT, (uint16_t) x.ct);
            st = compute_dequant(f);
            htp_trace_event_stop(dma.tr, HTP_TRACE_EVT_DEQUANT, (uint16_t) x.ct);
            if (st != HTP_STATUS_OK) {
                break;
            }
            if (f + nb < n_fetches && !fetch(f + nb)) {
                st = HTP_STATUS_DMA_ERROR;
                break;
            }
            if (x.kc + 1 == p->n_kc) {
                st = finish_col_tile(x.ct, (x.ct - col_tiles.begin) & 1);
            }
        }
        dma.drain((uint16_t) (col_tiles.end - 1));  // the last column tiles' stores
        return st;
    }
};

void weight_worker_entry(unsigned int, unsigned int ith, void * data) {
    hmx_job *       job = (hmx_job *) data;
    const row_range rr  = thread_rows(device_rows(job->octx->ctx, job->p->split), ith);
    if (rr.begin >= rr.end) {
        return;
    }
    weight_worker w;
    w.job             = job;
    w.p               = job->p;
    w.ctx             = job->octx->ctx;
    w.ith             = ith;
    w.col_tiles       = rr;
    w.n_fetches       = (rr.end - rr.begin) * w.p->n_kc;
    w.n_act_blocks    = (job->c->n + kTileDim - 1) / kTileDim;
    w.store_ticket[0] = 0;
    w.store_ticket[1] = 0;
    w.dma.init(w.ctx->dma[ith], &w.ctx->trace[ith]);
    const int st = w.run();
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
    work_queue_run(octx->ctx->work_queue, weight_worker_entry, &job, p.split.n_threads);
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
    // One column tile / one activation row per step (rows_per_chunk 1 in both splits).
    if (tiled == (p.rt_repack != 0) || !octx->ctx->info->hmx || p.split.n_bufs > kMaxRawSlots || p.split.n_bufs < 2 ||
        p.asplit.n_bufs > kMaxStageSlots || p.asplit.n_bufs < 1 || p.split.rows_per_chunk != 1 ||
        p.asplit.rows_per_chunk != 1) {
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
    return mm_for_each_chunk(p.act, p.act_rows_per_chunk, [&](const mm_act_rows & c, uint32_t i02, uint32_t i03) {
        return mmh::run_pass(octx, p, c, octx->src[0].data + i02 * p.wnb2 + i03 * p.wnb3);
    });
}
