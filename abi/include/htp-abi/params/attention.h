// kernel_params of FLASH_ATTN_EXT (docs/flash-attn.md). Starts with struct htp_split_params
// `split`; listed in HTP_KERNEL_PARAMS_MEMBERS_ATTENTION so it joins union htp_kernel_params.
#pragma once
#include <stdint.h>

// FLASH_ATTN_EXT: dst[:, iq2, iq1, iq3] = softmax_k(s(q, k) + slope * mask) . V, F32.
// s = scale * (q . k), or softcap * tanh(scale * (q . k)) when softcap != 0 (scale here is
// already op scale / softcap, as ggml's CPU divides it). Q F32; K and V F32 / F16 / BF16 /
// Q8_0 / Q4_0 / Q4_1 / Q5_0 / Q5_1.
//
// Work: the q rows that share one K/V head form a group g = ik2 + nek2 * iq3 (ik2 = K/V head,
// iq3 = q volume); inside a group, row j = iq1 * rk2 + hl is q position iq1 of q head
// iq2 = ik2 * rk2 + hl. A tile is tile_rows consecutive rows of one group; split.total_rows
// counts tiles, split.rows_per_thread is tiles per thread, split.rows_per_chunk is K/V rows
// per chunk (at most 64: one vector of F16 mask). Per tile the kernel fetches the tile's Q
// rows, then streams the group's K / V / mask chunks through split.n_bufs slots (the host
// plans 2 and lays out that many; the kernel runs what split says)
// with an online softmax per row (running max M and sum S), and writes the rows out.
struct htp_flash_attn_params {
    struct htp_split_params split;
    uint32_t k_type, v_type;         // HTP_TYPE_F32 / F16 / Q8_0
    uint32_t dk, dv;                 // K and V head sizes (q row = dk, dst row = dv)
    uint32_t n_kv;                   // K / V rows
    uint32_t n_kv_chunks;            // ceil(n_kv / split.rows_per_chunk): K / V chunks of
                                     // split.rows_per_chunk (<= 64) rows through split.n_bufs slots
    uint32_t tile_rows;              // q rows per tile
    uint32_t rows_per_group;         // rk2 * n_q
    uint32_t tiles_per_group;        // ceil(rows_per_group / tile_rows)
    uint32_t rk2;                    // q heads per K/V head
    uint32_t nek2;                   // K/V heads
    struct htp_fastdiv div_tpg;      // tile -> (group, tile in group)
    struct htp_fastdiv div_nek2;     // group -> (ik2, iq3)
    struct htp_fastdiv div_rk2;      // row j -> (iq1, hl)
    struct htp_fastdiv div_rk3;      // ik3 = iq3 / rk3
    float scale;
    float softcap;                   // 0: none
    float max_bias, m0, m1;          // ALiBi (slope 1 when max_bias == 0)
    uint32_t n_head_log2;
    uint32_t has_mask;               // src[3] (F16) present
    uint32_t has_sinks;              // src[4] (F32, one per q head) present
    struct htp_fastdiv mod_mne2;     // mask plane = iq2 % mask ne2
    struct htp_fastdiv mod_mne3;     // mask volume = iq3 % mask ne3
    uint32_t mne2, mne3;
    struct htp_rows_strides q, k, v, mask, dst;   // nb1, nb2, nb3 of each
    uint32_t k_row_bytes, v_row_bytes;            // bytes of one K / V row in DDR
    uint32_t k_blocks, v_blocks;                  // Q8_0 / Q4_0 / Q4_1 / Q5_0 / Q5_1 blocks per row (else 0)
    // VTCM (offsets from the thread's base). Q tile rows and accumulators: tile_rows rows
    // of q_pitch / acc_pitch bytes. Mask: per slot tile_rows rows of 128 bytes. K / V: per
    // slot split.rows_per_chunk rows of k_pitch / v_pitch raw bytes (quantized: a dense copy of the rows
    // plus the scales, mins, high bits and quants split out by VTCM -> VTCM DMA at k_scales,
    // k_mins, k_qh, k_quants in the slot; k_mins / k_qh 0 when the type has none); kf / vf: the chunk as F32 rows of kf_pitch / vf_pitch bytes (F32 K / V use the
    // raw slot directly).
    uint32_t vq, q_pitch;
    uint32_t vacc, acc_pitch;
    uint32_t vmask, mask_slot;
    uint32_t vk, k_slot, k_pitch, k_scales, k_mins, k_qh, k_quants;
    uint32_t vv, v_slot, v_pitch, v_scales, v_mins, v_qh, v_quants;
    uint32_t vkf, kf_pitch;
    uint32_t vvf, vf_pitch;
    uint32_t vscores;                // HTP_FA_SCORE_VECS vectors: the current q row's chunk scores (2)
                                     // between its passes, then the score fold tree's 5 pending
                                     // operands and its 5 masks (npu/ops/hvx-util.h, fold_pair_sf)
    uint32_t vsinks;                 // has_sinks: the q heads' sinks (q ne2 floats, rounded up to
                                     // vectors), fetched by DMA once per thread: a model weight
};
#define HTP_FA_SCORE_VECS 12u

#define HTP_KERNEL_PARAMS_MEMBERS_ATTENTION \
    struct htp_flash_attn_params flash_attn;
