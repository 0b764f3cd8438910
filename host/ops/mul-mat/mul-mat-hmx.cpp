// Host side of MUL_MAT's HMX path (tiled weights; mul-mat-paths.h, htp-abi/params/mul-mat.h
// "MUL_MAT_HMX", docs/mul-mat.md): chunk sizes, thread counts and the VTCM layout. The plan
// (mul-mat-hmx.h) also serves MUL_MAT_ID_HMX (mul-mat-id.cpp).
#include "mul-mat-hmx.h"

#include <algorithm>

#include "htp-abi/htp-tile-formats.h"

using namespace htp_enc;

namespace {

constexpr uint32_t kTile  = 2048;  // HTP_HMX_TILE_BYTES / alignment
constexpr uint32_t kOut   = 4096;  // one F32 32 x 32 output tile
constexpr uint32_t kMaxMb = HTP_MMH_MAX_ACT_ROWS / 32;  // activation blocks of 32 rows per chunk (at most)
constexpr uint32_t kActBufs = 2;  // phase-1 staging slots (asplit.n_bufs): one row DMA'd while the previous converts

}  // namespace

bool htp_enc::mmh_plan_hmx(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw,
                           uint32_t n_rows, mmh_plan & pl) {
    const ggml_tensor * w = op->src[0];
    const ggml_tensor * a = op->src[1];
    if (tw.k_cols == 0 || tw.tile_bytes == 0 || a->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 ||
        a->nb[0] != 4 || op->nb[0] != 4) {
        return false;
    }
    if (tw.nb2 > UINT32_MAX || tw.nb3 > UINT32_MAX || !fits_u32(a) || !fits_u32(op)) {
        return false;
    }
    const uint32_t K   = (uint32_t) w->ne[0];
    const uint32_t n64 = (K + 63) / 64;
    const bool     kq  = tw.format == GGML_TYPE_Q2_K || tw.format == GGML_TYPE_Q3_K || tw.format == GGML_TYPE_Q4_K ||
                    tw.format == GGML_TYPE_Q5_K || tw.format == GGML_TYPE_Q6_K;
    pl.kc_tiles = std::min<uint32_t>(tw.n_k_tiles, 32);
    if (kq) {
        pl.kc_tiles = pl.kc_tiles / 8 * 8;  // n_k_tiles is a multiple of 8 for K-quants
        if (pl.kc_tiles == 0) {
            return false;
        }
    }
    if (pl.kc_tiles == 0) {
        return false;
    }
    pl.n_kc          = (tw.n_k_tiles + pl.kc_tiles - 1) / pl.kc_tiles;
    pl.vraw_slot     = align_up(pl.kc_tiles * tw.tile_bytes, kTile);
    if (tw.flat) {
        // The raw slots take a fetch's 32 flat rows; the tiles they repack into get their own
        // buffer. kc_tiles * k_cols is a whole number of flat blocks (K-quants: 8-tile steps).
        const uint32_t bk = (uint32_t) ggml_blck_size(w->type), bsz = (uint32_t) ggml_type_size(w->type);
        if ((pl.kc_tiles * tw.k_cols) % bk != 0 || K % bk != 0 || tw.flat_nb1 > UINT32_MAX ||
            !dma_field_ok(caps, tw.flat_nb1)) {
            return false;
        }
        pl.flat_row_bytes   = K / bk * bsz;
        pl.flat_chunk_bytes = pl.kc_tiles * tw.k_cols / bk * bsz;
        if (!dma_field_ok(caps, pl.flat_chunk_bytes)) {
            return false;
        }
        pl.vtiles_bytes = pl.vraw_slot;
        pl.vraw_slot    = align_up(std::max(pl.kc_tiles * tw.tile_bytes, 32 * pl.flat_chunk_bytes), kTile);
    }
    pl.vw_bytes      = (K / 32) * kTile;
    pl.vstage_slot   = align_up(n64 * 256, kTile);
    pl.vconv_bytes   = align_up(n64 * 128, kTile);
    pl.store_per_row = !dma_field_ok(caps, op->nb[1]);
    if (!dma_1d_ok((uint64_t) pl.kc_tiles * tw.tile_bytes) || !dma_1d_ok((uint64_t) K * 4)) {
        return false;
    }
    const uint32_t n_hvx = std::max(1u, std::min(caps.n_hvx, 8u));
    const uint32_t mb_ne = std::max(1u, std::min((n_rows + 31) / 32, kMaxMb));
    // Most activation blocks first, then threads, then buffers, until VTCM fits.
    for (pl.n_mb = mb_ne; pl.n_mb >= 1; pl.n_mb--) {
        pl.vout_slot = pl.n_mb * kOut;
        pl.act_bytes = pl.n_mb * (K / 32) * kTile;
        for (pl.n_bufs = 3; pl.n_bufs >= 2; pl.n_bufs--) {
            const uint64_t thread = (uint64_t) pl.n_bufs * pl.vraw_slot + pl.vw_bytes + 2ull * pl.vout_slot + 4096 +
                                    (uint64_t) kActBufs * pl.vstage_slot + pl.vconv_bytes + pl.vtiles_bytes;
            // column params (one 2048-byte block), then a row-scale vector per activation row
            const uint64_t shared = (uint64_t) pl.act_bytes + kTile + (uint64_t) pl.n_mb * 32 * 128;
            for (uint32_t t = n_hvx; t >= 1; t--) {
                if (shared + t * thread <= caps.vtcm_size) {
                    pl.n_threads  = std::min<uint32_t>(t, tw.n_col_tiles);
                    pl.a_threads  = std::max(1u, std::min(t, std::min(n_rows, pl.n_mb * 32)));
                    pl.per_thread  = (uint32_t) thread;
                    pl.max_threads = t;
                    return true;
                }
            }
        }
        if (pl.n_mb == 1) {
            break;
        }
    }
    return false;
}

void htp_enc::mmh_fill_hmx(const mmh_plan & pl, const ggml_tensor * op, const htp_tiled_weight & tw,
                           htp_mul_mat_hmx_params & p) {
    const ggml_tensor * w = op->src[0];
    const ggml_tensor * a = op->src[1];

    const uint32_t act_rows = pl.n_mb * 32;
    p.split.n_threads       = pl.n_threads;
    p.split.total_rows      = tw.n_col_tiles;
    p.split.rows_per_thread = (tw.n_col_tiles + pl.n_threads - 1) / pl.n_threads;
    p.split.rows_per_chunk  = 1;
    p.split.n_bufs          = pl.n_bufs;
    p.split.vtcm_per_thread = pl.per_thread;
    p.asplit                = p.split;
    p.asplit.n_threads      = pl.a_threads;
    p.asplit.total_rows     = act_rows;
    p.asplit.rows_per_thread = (act_rows + pl.a_threads - 1) / pl.a_threads;
    p.asplit.n_bufs         = kActBufs;  // staging slots of phase 1 (vstage)

    p.wtype        = tw.format;
    p.ne00         = (uint32_t) w->ne[0];
    p.ne01         = (uint32_t) w->ne[1];
    p.n_k_tiles    = tw.n_k_tiles;
    p.tile_bytes   = tw.tile_bytes;
    p.out_per_tile = tw.k_cols / 32;
    p.n_k32        = (uint32_t) w->ne[0] / 32;
    p.kc_tiles     = pl.kc_tiles;
    p.n_kc         = pl.n_kc;
    p.div_n_kc     = htp_fastdiv_init(pl.n_kc);
    p.mod_n_bufs   = htp_fastdiv_init(pl.n_bufs);
    p.wnb2         = (uint32_t) tw.nb2;
    p.wnb3         = (uint32_t) tw.nb3;
    p.act          = mm_act_describe(w, a, op);
    p.act_rows_per_chunk = act_rows;
    p.store_per_row      = pl.store_per_row ? 1 : 0;

    uint32_t off      = 0;
    p.vraw_offset     = off;
    p.vraw_slot       = pl.vraw_slot;
    off += pl.n_bufs * pl.vraw_slot;
    p.vw_offset = off;
    off += pl.vw_bytes;
    p.vout_offset = off;
    p.vout_slot   = pl.vout_slot;
    off += 2 * pl.vout_slot;
    p.vscratch_offset = off;
    off += 4096;
    p.vstage_offset = off;
    p.vstage_slot   = pl.vstage_slot;
    off += p.asplit.n_bufs * pl.vstage_slot;
    p.vconv_offset = off;
    off += pl.vconv_bytes;
    p.vtiles_offset = off;  // rt-repack only (vtiles_bytes 0 otherwise)
    // Shared region after every thread's (HMX operands stay 2048-aligned: all sizes are).
    p.act_offset      = pl.max_threads * pl.per_thread;
    p.colparam_offset = p.act_offset + pl.act_bytes;
    // Row scales after the column params' 2048-byte block: one vector per row (2^k in every
    // lane), so the kernel writes and reads them without scalar VTCM accesses.
    p.rowscale_offset = p.colparam_offset + kTile;

    p.rt_repack        = tw.flat ? 1 : 0;
    p.w_nb1            = tw.flat ? (uint32_t) tw.flat_nb1 : 0;
    p.flat_row_bytes   = pl.flat_row_bytes;
    p.flat_chunk_bytes = pl.flat_chunk_bytes;
}

bool mm_hmx_plan(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw) {
    mmh_plan pl;
    return mmh_plan_hmx(caps, op, tw, (uint32_t) std::min<int64_t>(op->src[1]->ne[1], HTP_MMH_MAX_ACT_ROWS), pl);
}

void mm_hmx_encode(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw,
                   htp_op_desc & desc) {
    mmh_plan pl;
    mmh_plan_hmx(caps, op, tw, (uint32_t) std::min<int64_t>(op->src[1]->ne[1], HTP_MMH_MAX_ACT_ROWS), pl);
    desc.opcode = HTP_OP_MUL_MAT_HMX;
    mmh_fill_hmx(pl, op, tw, desc.params.mul_mat_hmx);
}
