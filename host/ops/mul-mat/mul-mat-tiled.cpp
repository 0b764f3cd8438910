// Host side of MUL_MAT_TILED: the tiled-weight HVX path (token generation). Plans threads,
// work items (column tiles x K chunks), buffers and the VTCM layout into kernel_params
// (htp-abi/params/mul-mat.h, docs/mul-mat.md "Tiled HVX path"). Hooks declared in
// mul-mat-paths.h; the MUL_MAT encoder calls them for tiled weights. The plan itself
// (mul-mat-tiled.h) also serves MUL_MAT_ID over tiled expert stacks.
#include "mul-mat-tiled.h"

#include <algorithm>

#include "htp-abi/htp-tile-formats.h"

using namespace htp_enc;

namespace {

// Activation column order a format's tile dot expects; false for formats this path lacks.
bool tiled_format(uint32_t f, uint32_t & order) {
    switch (f) {
        case GGML_TYPE_Q8_0:
        case GGML_TYPE_Q6_K:
        case GGML_TYPE_Q3_K:
        case GGML_TYPE_Q2_K:
        case GGML_TYPE_Q2_0:
        case GGML_TYPE_Q1_0: order = HTP_MMT_ORDER_NATURAL; return true;
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_IQ4_NL:
        case GGML_TYPE_Q4_1:
        case GGML_TYPE_Q4_K:
        case GGML_TYPE_Q5_K:
        case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q5_1:
        case GGML_TYPE_MXFP4: order = HTP_MMT_ORDER_NIBBLE; return true;
        default: return false;
    }
}

// Activation rows per plane up to which every dot thread prepares the activations itself
// (no separate prep phase, so no second hand-off to the HVX threads).
constexpr uint32_t kPrivateRows = 2;
// Weight bytes per work item the plan aims for when whole column tiles are small.
constexpr uint32_t kItemBytes   = 32u << 10;

// The Q2_K kernel assumes the VTCM tile pitch 384 (3 vectors).
bool pitch_ok_q2k(uint32_t pitch) {
    return pitch == 384;
}

uint32_t per_thread_bytes(const mmt_plan & pl) {
    return pl.n_bufs * pl.vw_slot + pl.n_bufs * pl.n_act * pl.vout_pitch + pl.vacc_bytes + 2 * pl.stage +
           pl.bias * pl.n_bufs * pl.vout_pitch + (pl.priv ? pl.n_act * pl.act_pitch : 0);
}

}  // namespace

bool htp_enc::mmt_plan_tiled(const htp_device_caps & caps, const ggml_tensor * w, const htp_tiled_weight & tw,
                             uint32_t n_rows, uint64_t dst_nb1, bool scatter, bool bias, mmt_plan & pl) {
    pl.bias = bias ? 1 : 0;
    if (!tiled_format(tw.format, pl.order) || tw.format != (uint32_t) w->type || n_rows == 0) {
        return false;
    }
    const uint64_t K = (uint64_t) w->ne[0];
    if (tw.k_cols == 0 || tw.k_cols % 32 || K % tw.k_cols || K / tw.k_cols != tw.n_k_tiles ||
        tw.tile_bytes != htp_tile_size((enum htp_type) tw.format) || tw.n_col_tiles != (w->ne[1] + 31) / 32) {
        return false;
    }
    // Plane offsets and tile offsets are 32-bit device address sums.
    const uint64_t last_plane = (uint64_t) (w->ne[2] - 1) * tw.nb2 + (uint64_t) (w->ne[3] - 1) * tw.nb3;
    if (last_plane + tw.plane_bytes >= (1ull << 32) || tw.nb2 >= (1ull << 32) || tw.nb3 >= (1ull << 32)) {
        return false;
    }
    pl.n_ct      = tw.n_col_tiles;
    pl.n_kt      = tw.n_k_tiles;
    pl.pitch     = align_up(tw.tile_bytes, 128);
    pl.act_pitch = (uint32_t) (K / 32) * HTP_MMT_ACT_BLK_VECS * 128;
    pl.stage     = (uint32_t) K * 4;  // K is a multiple of 32: whole vectors
    if (!dma_1d_ok(pl.stage) || !dma_field_ok(caps, pl.pitch) || !dma_field_ok(caps, tw.tile_bytes)) {
        return false;
    }

    const uint32_t n_hvx = std::max(1u, std::min<uint32_t>(caps.n_hvx, 8u));
    pl.priv              = n_rows <= kPrivateRows;
    pl.n_act             = std::min<uint32_t>(n_rows, HTP_MMT_MAX_ACT_ROWS);
    pl.n_threads         = std::min(n_hvx, pl.n_ct);
    const uint32_t ctpt  = (pl.n_ct + pl.n_threads - 1) / pl.n_threads;
    pl.kpc               = pl.n_kt;
    pl.cpc = std::max(1u, std::min(kItemBytes / (pl.n_kt * pl.pitch), std::max(1u, ctpt / 2)));
    pl.n_bufs = 4;
    // Q2_K tiles need their super-block's other tiles (d / -dmin): K chunks of whole super-blocks.
    const uint32_t step = tw.format == GGML_TYPE_Q2_K ? HTP_TILE_KQ_TILES_PER_SUPERBLOCK : 1;
    if (tw.format == GGML_TYPE_Q2_K && pitch_ok_q2k(pl.pitch) == false) {
        return false;
    }
    for (;;) {
        pl.n_kchunks   = (pl.n_kt + pl.kpc - 1) / pl.kpc;
        if (pl.n_kchunks > 1) {
            pl.cpc = 1;
        }
        pl.out_per_row = scatter || !(dma_field_ok(caps, dst_nb1) && dma_field_ok(caps, pl.n_act) &&
                                      dma_field_ok(caps, pl.cpc * 128));
        pl.vw_slot     = pl.cpc * pl.kpc * pl.pitch;
        pl.vout_pitch  = pl.cpc * 128;
        pl.vacc_bytes  = pl.n_kchunks > 1 ? pl.n_act * 128 : 0;
        pl.act_bytes   = pl.priv ? 0 : pl.n_act * pl.act_pitch;
        const uint32_t descs = 1 + pl.bias + (pl.out_per_row ? pl.n_act : 1);
        const bool     dma_ok = pl.n_bufs * descs <= HTP_DMA_INFLIGHT_MAX && dma_field_ok(caps, pl.cpc * pl.kpc);
        const uint64_t need   = (uint64_t) pl.act_bytes + (uint64_t) pl.n_threads * per_thread_bytes(pl);
        if (dma_ok && need <= caps.vtcm_size) {
            break;
        }
        if (pl.cpc > 1) {
            pl.cpc = (pl.cpc + 1) / 2;
        } else if (pl.priv && pl.n_threads > 1) {  // one shared copy instead of one per thread
            pl.priv = 0;
        } else if (pl.n_act > 8 && !pl.priv) {
            pl.n_act = (pl.n_act + 1) / 2;
        } else if (pl.n_bufs > 2) {
            pl.n_bufs--;
        } else if (pl.n_act > 1 && !pl.priv) {
            pl.n_act = (pl.n_act + 1) / 2;
        } else if (pl.kpc > step) {
            pl.kpc = ((pl.kpc + 1) / 2 + step - 1) / step * step;
        } else {
            return false;
        }
    }
    // Column tiles per thread: a multiple of the work item's column count; no idle threads.
    pl.rpt        = (ctpt + pl.cpc - 1) / pl.cpc * pl.cpc;
    pl.n_threads  = (pl.n_ct + pl.rpt - 1) / pl.rpt;
    pl.q_threads  = std::min(pl.n_threads, pl.n_act);
    pl.per_thread = align_up(per_thread_bytes(pl), 128);
    return true;
}

namespace {

// dst: where the results go (op itself, or the ADD a bias fusion writes); bias: plan for it.
bool plan_tiled(const htp_device_caps & caps, const ggml_tensor * op, const ggml_tensor * dst, bool bias,
                const htp_tiled_weight & tw, mmt_plan & pl) {
    const ggml_tensor * w = op->src[0];
    const ggml_tensor * a = op->src[1];
    if (dst->type != GGML_TYPE_F32 || a->type != GGML_TYPE_F32 || a->nb[0] != 4 || dst->nb[0] != 4 ||
        a->ne[0] != w->ne[0]) {
        return false;
    }
    if (a->ne[2] % w->ne[2] != 0 || a->ne[3] % w->ne[3] != 0 || !fits_u32(a) || !fits_u32(dst)) {
        return false;
    }
    return mmt_plan_tiled(caps, w, tw, (uint32_t) a->ne[1], dst->nb[1], false, bias, pl);
}

}  // namespace

bool mm_tiled_hvx_plan(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw) {
    mmt_plan pl;
    return plan_tiled(caps, op, op, false, tw, pl);
}

void mm_tiled_hvx_encode(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw,
                         htp_op_desc & desc) {
    mmt_plan pl;
    plan_tiled(caps, op, op, false, tw, pl);
    desc.opcode = HTP_OP_MUL_MAT_TILED;
    mmt_fill_tiled(pl, op->src[0], tw, op->src[1], op, desc.params.mul_mat_tiled);
}

bool mm_tiled_hvx_encode_bias(const htp_device_caps & caps, const ggml_tensor * op, const ggml_tensor * dst,
                              const htp_tiled_weight & tw, htp_op_desc & desc) {
    mmt_plan pl;
    if (!plan_tiled(caps, op, dst, true, tw, pl)) {
        return false;
    }
    desc.opcode = HTP_OP_MUL_MAT_TILED;
    mmt_fill_tiled(pl, op->src[0], tw, op->src[1], dst, desc.params.mul_mat_tiled);
    return true;
}

void htp_enc::mmt_fill_tiled(const mmt_plan & pl, const ggml_tensor * w, const htp_tiled_weight & tw,
                             const ggml_tensor * a, const ggml_tensor * op, htp_mul_mat_tiled_params & p) {
    // The dot phase's rows are (column tile, K chunk) units, K chunk fastest; a pipeline step
    // is one work item: cols_per_chunk column tiles of one K chunk (cpc is 1 when n_kchunks > 1).
    p.split.n_threads        = pl.n_threads;
    p.split.total_rows       = pl.n_ct * pl.n_kchunks;
    p.split.rows_per_thread  = pl.rpt * pl.n_kchunks;
    p.split.rows_per_chunk   = pl.cpc;
    p.split.n_bufs           = pl.n_bufs;
    p.split.vtcm_per_thread  = pl.per_thread;
    p.qsplit = act_row_split(pl.n_act, pl.q_threads, pl.per_thread);

    p.wtype             = tw.format;
    p.ne00              = (uint32_t) w->ne[0];
    p.ne01              = (uint32_t) w->ne[1];
    p.n_k_tiles         = pl.n_kt;
    p.tile_bytes        = tw.tile_bytes;
    p.tile_pitch        = pl.pitch;
    p.k_tiles_per_chunk = pl.kpc;
    p.n_kchunks         = pl.n_kchunks;
    p.div_kchunks       = htp_fastdiv_init(pl.n_kchunks);
    p.cols_per_chunk    = pl.cpc;
    p.act_order         = pl.order;
    p.act               = mm_act_describe(w, a, op);
    p.w_nb2             = (uint32_t) tw.nb2;
    p.w_nb3             = (uint32_t) tw.nb3;
    p.act_rows_per_pass = pl.n_act;
    p.act_private       = pl.priv;
    p.out_per_row       = pl.out_per_row;

    uint32_t off = 0;
    p.vw         = stream_at(off, p.split, pl.vw_slot, 1);
    p.vout       = stream_at(off, p.split, pl.vout_pitch, pl.n_act);
    p.vstage     = stream_at(off, p.qsplit, pl.stage, 1);  // qsplit.n_bufs staging slots
    p.vacc               = off;
    off += pl.vacc_bytes;
    // No fusion: the MUL_MAT+ADD fuser sets has_bias and the strides, htp_mm_act_reuse act_ready.
    p.has_bias  = 0;
    p.bias      = {};
    p.vbias     = {};
    p.act_ready = 0;
    if (pl.bias) {
        p.vbias = stream_at(off, p.split, pl.vout_pitch, 1);
    }
    p.act_offset    = pl.priv ? off : pl.n_threads * pl.per_thread;
    p.act_row_pitch = pl.act_pitch;
}
