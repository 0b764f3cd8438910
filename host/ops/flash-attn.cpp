// Host side of FLASH_ATTN_EXT (docs/flash-attn.md): Q F32; K, V F32 / F16 / BF16 / Q8_0 / Q4_0 /
// Q4_1 / Q5_0 / Q5_1 / IQ4_NL / Q1_0 / Q2_0;
// optional F16 mask (broadcast over heads / sequences), sinks, ALiBi, logit softcap; K/V heads
// broadcast over q heads. Splits the q rows into tiles of one K/V head each, spreads the
// tiles over the HVX threads and lays out each thread's VTCM.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "encode-util.h"
#include "htp-abi/htp-types.h"

using namespace htp_enc;

namespace {

constexpr uint32_t kKvChunk  = 64;  // K/V rows per chunk: one vector of F16 mask per q row
constexpr uint32_t kKvBufs   = 2;   // K/V/mask slots (split.n_bufs): the next chunk loads while one computes
constexpr uint32_t kMaxTile  = 12;  // q rows per tile: keeps the DMA queue within 64 (see fa_plan)

bool kv_quant(ggml_type t) {  // Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL; Q1_0, Q2_0 (blocks of 128, 64)
    return quant_row_type(t) || t == GGML_TYPE_Q1_0 || t == GGML_TYPE_Q2_0;
}

bool kv_type_ok(ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16 || kv_quant(t);
}

uint32_t kv_htp_type(ggml_type t) {
    switch (t) {
        case GGML_TYPE_F32:  return HTP_TYPE_F32;
        case GGML_TYPE_F16:  return HTP_TYPE_F16;
        case GGML_TYPE_BF16: return HTP_TYPE_BF16;
        case GGML_TYPE_Q8_0: return HTP_TYPE_Q8_0;
        case GGML_TYPE_Q4_1: return HTP_TYPE_Q4_1;
        case GGML_TYPE_Q5_0: return HTP_TYPE_Q5_0;
        case GGML_TYPE_Q5_1: return HTP_TYPE_Q5_1;
        case GGML_TYPE_IQ4_NL: return HTP_TYPE_IQ4_NL;
        case GGML_TYPE_Q1_0: return HTP_TYPE_Q1_0;
        case GGML_TYPE_Q2_0: return HTP_TYPE_Q2_0;
        default:             return HTP_TYPE_Q4_0;
    }
}

// VTCM for one K or V stream (htp_fa_kv_layout): raw slot bytes, its row pitch, the quants'
// split offsets, and the F32 row pitch of the converted chunk (0: F32 rows are used in place);
// `at` and `f_at` are placed by plan.
htp_fa_kv_layout kv_plan(ggml_type t, uint32_t d) {
    htp_fa_kv_layout l = {};
    const uint32_t C = kKvChunk;
    if (t == GGML_TYPE_F32) {
        l.pitch = align_up(d * 4, 128);
        l.slot  = C * l.pitch;
    } else if (t == GGML_TYPE_F16 || t == GGML_TYPE_BF16) {
        l.pitch   = align_up(d * 2, 128);
        l.slot    = C * l.pitch;
        l.f_pitch = align_up(d, 64) * 4;  // f16 -> f32 converts 64 lanes at a time
    } else {
        l         = kv_blocks_plan(t, d, C);  // dense rows + split arrays (npu/ops/kv-blocks.h)
        l.f_pitch = d * 4;  // C * f_pitch = B * 128: the dequantizer's 4 / 8-block steps divide B (C = 64)
    }
    return l;
}

// DMA descriptors per K or V chunk: the rows, then (quantized) the d / qs / m / qh splits.
uint32_t kv_descs(ggml_type t) {
    return kv_quant(t) ? kv_blocks_descs(t) : 1;
}

struct fa_plan {
    uint32_t  tile_rows, rows_per_group, tiles_per_group, n_groups, total_tiles;
    uint32_t  n_threads, tiles_per_thread, budget;
    htp_fa_kv_layout k, v;
    uint32_t  q_pitch, acc_pitch, mask_slot;
    uint32_t  vq, vacc, vmask, vscores, vsinks, bytes;
};

bool plan(const htp_device_caps & caps, const ggml_tensor * op, fa_plan & pl) {
    const auto [q, k, v] = op_srcs<3>(op);
    const uint32_t      n_hvx = std::max(1u, std::min(caps.n_hvx, 8u));
    const uint32_t      dk = (uint32_t) k->ne[0], dv = (uint32_t) v->ne[0];
    const uint32_t      rk2 = (uint32_t) (q->ne[2] / k->ne[2]);

    pl.rows_per_group = rk2 * (uint32_t) q->ne[1];
    pl.n_groups       = (uint32_t) k->ne[2] * (uint32_t) q->ne[3];
    // Enough tiles for every thread when the groups are few (decode: one group of rk2 rows).
    const uint32_t want_tpg = (n_hvx + pl.n_groups - 1) / pl.n_groups;
    // In flight at most: the previous tile's write-backs and this tile's Q rows (a descriptor
    // per row each), and kKvBufs chunks of K, V and one mask descriptor per row.
    const uint32_t kv_d     = kv_descs(k->type) + kv_descs(v->type);
    const uint32_t max_tile = std::min(kMaxTile, (HTP_DMA_INFLIGHT_MAX - kKvBufs * kv_d) / (2 + kKvBufs));
    pl.tile_rows = std::min(max_tile, std::max(1u, (pl.rows_per_group + want_tpg - 1) / want_tpg));
    pl.tiles_per_group  = (pl.rows_per_group + pl.tile_rows - 1) / pl.tile_rows;
    pl.total_tiles      = pl.n_groups * pl.tiles_per_group;
    pl.n_threads        = std::min(n_hvx, pl.total_tiles);
    pl.tiles_per_thread = (pl.total_tiles + pl.n_threads - 1) / pl.n_threads;
    pl.n_threads        = (pl.total_tiles + pl.tiles_per_thread - 1) / pl.tiles_per_thread;
    pl.budget           = vtcm_budget(caps);

    pl.k         = kv_plan(k->type, dk);
    pl.v         = kv_plan(v->type, dv);
    pl.q_pitch   = align_up(dk, 64) * 4;
    pl.acc_pitch = align_up(dv * 4, 128);
    pl.mask_slot = pl.tile_rows * 128;
    const uint32_t sinks = op->src[4] ? align_up((uint32_t) q->ne[2] * 4, 128) : 0;
    pl.bytes = place_regions(0, 1, { { &pl.vq, pl.tile_rows * pl.q_pitch }, { &pl.vacc, pl.tile_rows * pl.acc_pitch },
                                     { &pl.vmask, kKvBufs * pl.mask_slot }, { &pl.k.at, kKvBufs * pl.k.slot },
                                     { &pl.v.at, kKvBufs * pl.v.slot }, { &pl.k.f_at, kKvChunk * pl.k.f_pitch },
                                     { &pl.v.f_at, kKvChunk * pl.v.f_pitch }, { &pl.vscores, HTP_FA_SCORE_VECS * 128 },
                                     { &pl.vsinks, sinks } });
    return pl.bytes <= pl.budget;
}

bool fa_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const auto [q, k, v, m, sk] = op_srcs<5>(op);
    if (q->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || !kv_type_ok(k->type) ||
        !kv_type_ok(v->type)) {
        return false;
    }
    if (q->nb[0] != 4 || k->nb[0] != ggml_type_size(k->type) || v->nb[0] != ggml_type_size(v->type) ||
        !ggml_is_contiguous(op) || !fits_u32(q) || !fits_u32(k) || !fits_u32(v) || !fits_u32(op)) {
        return false;
    }
    const int64_t dk = k->ne[0], dv = v->ne[0];
    if (q->ne[0] != dk || dk < 1 || dv < 1 || k->ne[1] < 1 || v->ne[1] != k->ne[1] || k->ne[2] != v->ne[2] ||
        k->ne[3] != v->ne[3] || q->ne[2] % k->ne[2] != 0 || q->ne[3] % k->ne[3] != 0 || op->ne[0] != dv ||
        op->ne[1] != q->ne[2] || op->ne[2] != q->ne[1] || op->ne[3] != q->ne[3]) {
        return false;
    }
    if ((kv_quant(k->type) && dk % ggml_blck_size(k->type) != 0) || (kv_quant(v->type) && dv % ggml_blck_size(v->type) != 0)) {
        return false;
    }
    if (m) {
        if (m->type != GGML_TYPE_F16 || m->nb[0] != 2 || m->ne[0] < k->ne[1] || m->ne[1] < q->ne[1] ||
            m->ne[2] == 0 || m->ne[3] == 0 || q->ne[2] % m->ne[2] != 0 || q->ne[3] % m->ne[3] != 0 || !fits_u32(m)) {
            return false;
        }
    }
    if (sk && (sk->type != GGML_TYPE_F32 || sk->ne[0] < q->ne[2] || !ggml_is_contiguous(sk))) {
        return false;
    }
    // 2-D DMA of a K / V chunk (rows k->nb[1] apart into rows of the VTCM pitch) and the Q8_0
    // split of a chunk's blocks (one row per block).
    fa_plan pl;
    if (!plan(caps, op, pl)) {
        return false;
    }
    if (!dma_field_ok(caps, k->nb[1]) || !dma_field_ok(caps, v->nb[1]) || !dma_field_ok(caps, pl.k.pitch) ||
        !dma_field_ok(caps, pl.v.pitch) || !dma_field_ok(caps, ggml_row_size(k->type, dk)) ||
        !dma_field_ok(caps, ggml_row_size(v->type, dv)) || !dma_field_ok(caps, (uint64_t) kKvChunk * (dk / 32 + 1)) ||
        !dma_field_ok(caps, (uint64_t) kKvChunk * (dv / 32 + 1))) {
        return false;
    }
    return true;
}

void fa_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const auto [q, k, v, m] = op_srcs<4>(op);
    htp_flash_attn_params & p = desc.params.flash_attn;
    desc.opcode               = HTP_OP_FLASH_ATTN_EXT;
    fa_plan pl;
    plan(caps, op, pl);

    p.split.n_threads       = pl.n_threads;
    p.split.total_rows      = pl.total_tiles;
    p.split.rows_per_thread = pl.tiles_per_thread;
    p.split.rows_per_chunk  = kKvChunk;
    p.split.n_bufs          = kKvBufs;
    p.split.vtcm_per_thread = pl.budget;

    float prm[3];
    std::memcpy(prm, op->op_params, sizeof(prm));
    float scale = prm[0];
    const float max_bias = prm[1], softcap = prm[2];
    if (softcap != 0.0f) {
        scale /= softcap;
    }
    const uint32_t n_head      = (uint32_t) q->ne[2];
    const uint32_t n_head_log2 = 1u << (uint32_t) floor(log2(n_head));
    const uint32_t rk2         = (uint32_t) (q->ne[2] / k->ne[2]);

    p.k_type          = kv_htp_type(k->type);
    p.v_type          = kv_htp_type(v->type);
    p.dk              = (uint32_t) k->ne[0];
    p.dv              = (uint32_t) v->ne[0];
    p.n_kv            = (uint32_t) k->ne[1];
    p.n_kv_chunks     = (p.n_kv + kKvChunk - 1) / kKvChunk;
    p.tile_rows       = pl.tile_rows;
    p.rows_per_group  = pl.rows_per_group;
    p.tiles_per_group = pl.tiles_per_group;
    p.rk2             = rk2;
    p.nek2            = (uint32_t) k->ne[2];
    p.div_tpg         = htp_fastdiv_init(pl.tiles_per_group);
    p.div_nek2        = htp_fastdiv_init(p.nek2);
    p.div_rk2         = htp_fastdiv_init(rk2);
    p.div_rk3         = htp_fastdiv_init((uint32_t) (q->ne[3] / k->ne[3]));
    p.scale           = scale;
    p.softcap         = softcap;
    p.max_bias        = max_bias;
    p.m0              = powf(2.0f, -(max_bias) / n_head_log2);
    p.m1              = powf(2.0f, -(max_bias / 2.0f) / n_head_log2);
    p.n_head_log2     = n_head_log2;
    p.has_mask        = m != nullptr;
    p.has_sinks       = op->src[4] != nullptr;
    p.mne2            = m ? (uint32_t) m->ne[2] : 1;
    p.mne3            = m ? (uint32_t) m->ne[3] : 1;
    p.mod_mne2        = htp_fastdiv_init(p.mne2);
    p.mod_mne3        = htp_fastdiv_init(p.mne3);
    p.q               = rows_strides(q->nb[1], q->nb[2], q->nb[3]);
    p.k               = rows_strides(k->nb[1], k->nb[2], k->nb[3]);
    p.v               = rows_strides(v->nb[1], v->nb[2], v->nb[3]);
    p.mask            = m ? rows_strides(m->nb[1], m->nb[2], m->nb[3]) : rows_strides(0, 0, 0);
    p.dst             = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    p.k_row_bytes     = (uint32_t) ggml_row_size(k->type, k->ne[0]);
    p.v_row_bytes     = (uint32_t) ggml_row_size(v->type, v->ne[0]);
    p.k_blocks        = kv_quant(k->type) ? p.dk / (uint32_t) ggml_blck_size(k->type) : 0;
    p.v_blocks        = kv_quant(v->type) ? p.dv / (uint32_t) ggml_blck_size(v->type) : 0;

    p.vq        = pl.vq;
    p.q_pitch   = pl.q_pitch;
    p.vacc      = pl.vacc;
    p.acc_pitch = pl.acc_pitch;
    p.vmask     = pl.vmask;
    p.mask_slot = pl.mask_slot;
    p.k_vtcm    = pl.k;
    p.v_vtcm    = pl.v;
    p.vscores   = pl.vscores;
    p.vsinks    = pl.vsinks;
}

}  // namespace

extern const htp_op_encoder htp_flash_attn_ext_encoder = { fa_supports, fa_encode };
