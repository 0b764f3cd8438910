// kernel_params of FLASH_ATTN_EXT (docs/flash-attn.md) and LIGHTNING_INDEXER. Starts with struct htp_split_params
// `split`; listed in HTP_KERNEL_PARAMS_MEMBERS_ATTENTION so it joins union htp_kernel_params.
#pragma once
#include <stdint.h>

// FLASH_ATTN_EXT: dst[:, iq2, iq1, iq3] = softmax_k(s(q, k) + slope * mask) . V, F32.
// s = scale * (q . k), or softcap * tanh(scale * (q . k)) when softcap != 0 (scale here is
// already op scale / softcap, as ggml's CPU divides it). Q F32; K and V F32 / F16 / BF16 /
// Q8_0 / Q4_0 / Q4_1 / Q5_0 / Q5_1 / IQ4_NL.
//
// Work: the q rows that share one K/V head form a group g = ik2 + nek2 * iq3 (ik2 = K/V head,
// iq3 = q volume); inside a group, row j = iq1 * rk2 + hl is q position iq1 of q head
// iq2 = ik2 * rk2 + hl. A tile is tile_rows consecutive rows of one group; split.total_rows
// counts tiles, split.rows_per_thread is tiles per thread, split.rows_per_chunk is K/V rows
// per chunk (at most 64: one vector of F16 mask). Per tile the kernel fetches the tile's Q
// rows, then streams the group's K / V / mask chunks through split.n_bufs slots (the host
// plans 2 and lays out that many; the kernel runs what split says)
// with an online softmax per row (running max M and sum S), and writes the rows out.
// FLASH_ATTN_EXT: one K or V stream's VTCM, filled once on the host for both. split.n_bufs
// slots of `slot` bytes from `at`, each split.rows_per_chunk rows of `pitch` raw bytes
// (quantized: a dense copy of the rows plus the scales, mins, high bits and quants split out by
// VTCM -> VTCM DMA at those offsets in the slot; mins / qh 0 when the type has none); the chunk
// as F32 rows of f_pitch bytes at f_at (F32 K / V use the raw slot directly).
struct htp_fa_kv_layout {
    uint32_t at, slot, pitch, scales, mins, qh, quants;
    uint32_t f_at, f_pitch;
};

struct htp_flash_attn_params {
    struct htp_split_params split;
    uint32_t k_type, v_type;         // HTP_TYPE_F32 / F16 / BF16 / Q8_0 / Q4_0 / Q4_1 / Q5_0 / Q5_1 / IQ4_NL / Q1_0 / Q2_0
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
    uint32_t k_blocks, v_blocks;                  // quantized (Q8_0 ... IQ4_NL) blocks per row (else 0)
    // VTCM (offsets from the thread's base). Q tile rows and accumulators: tile_rows rows
    // of q_pitch / acc_pitch bytes. Mask: per slot tile_rows rows of 128 bytes. K / V:
    // htp_fa_kv_layout.
    uint32_t vq, q_pitch;
    uint32_t vacc, acc_pitch;
    uint32_t vmask, mask_slot;
    struct htp_fa_kv_layout k_vtcm, v_vtcm;
    uint32_t vscores;                // HTP_FA_SCORE_VECS vectors: the current q row's chunk scores (2)
                                     // between its passes, then the score fold tree's 5 pending
                                     // operands and its 5 masks (npu/ops/hvx-util.h, fold_pair_sf)
    uint32_t vsinks;                 // has_sinks: the q heads' sinks (q ne2 floats, rounded up to
                                     // vectors), fetched by DMA once per thread: a model weight
};
#define HTP_FA_SCORE_VECS 12u

// LIGHTNING_INDEXER (DeepSeek sparse attention's indexer), F32 q / weights, F32 / F16 / BF16 /
// blocks-of-32 quantized k, F16 mask: dst[ik, t, s] = sum_h max(q[:, h, t, s] . k[:, 0, ik, s], 0) * w[h, t, s]
//                      + mask[ik, t, s % nm].
// A "row" is one (stream s, kv chunk c) pair, r = c + n_chunks * s; its K chunk (kv_chunk keys,
// a multiple of 64) is gathered transposed into VTCM at the pair's first token block (row e =
// element e of the chunk's keys; F16 through a staging area, converted by HVX), so that a head's
// scores of 32 keys are a vector sum over e of q[e] splat times row e. Tokens come in blocks of
// tok_block: q (per token one descriptor of nh rows), w and mask rows (one descriptor each),
// two slots; the scores go out per block.
struct htp_lightning_params {
    struct htp_split_params split;
    uint32_t k_type;                 // HTP_TYPE_F32 / F16 / BF16 / Q8_0 / Q4_0 / Q4_1 / Q5_0 / Q5_1 / IQ4_NL
    uint32_t hsk, nh, n_kv, n_tok;   // head size, heads, keys, tokens per stream
    uint32_t kv_chunk;               // keys per pair (multiple of 64)
    struct htp_fastdiv div_chunks;   // pair -> (c = pair % n_chunks, s = pair / n_chunks)
    uint32_t n_chunks;
    struct htp_fastdiv mod_nm;       // mask stream: s % nm
    struct htp_rows_strides q, k, w, m, d;  // nb1, nb2, nb3 of each; the kernel reads q's
                                            // (head, token, stream), k's nb2 (key) and nb3, the
                                            // others' nb1 (token) and nb3 (stream)
    uint32_t tok_block, n_blocks;    // tokens per block (per slot), ceil(n_tok / tok_block)
    uint32_t k_pitch;                // kv_chunk * 4: a row of the F32 K chunk
    uint32_t k16_pitch;              // align(kv_chunk * 2, 128): a row of the F16 / BF16 staging
    uint32_t q_pitch;                // align(hsk * 4, 128): a q row (one head of a token)
    uint32_t w_pitch;                // align(nh * 4, 128)
    uint32_t m_pitch;                // align(kv_chunk * 2, 128)
    // VTCM offsets in the thread's region; slot s of a per-block stream at off + s * size.
    uint32_t v_k[2], v_k16[2];       // K chunk (F32) and its F16 / BF16 / quantized staging, per pair parity
    uint32_t v_q, v_w, v_m, v_out;
    uint32_t q_size, w_size, m_size, out_size;
    // Quantized K: the staged chunk (at v_k16[parity]) is kv_chunk dense key rows of pitch
    // bytes, split by VTCM -> VTCM DMA into the arrays at scales, mins, qh, quants of the
    // staging (npu/ops/kv-blocks.h); f_at: 32 keys dequantized as F32 rows of f_pitch (hsk * 4)
    // bytes, which HVX transposes into the K chunk. All zero for F32 / F16 / BF16 K (at, slot
    // unused).
    struct htp_fa_kv_layout kq;
};

#define HTP_KERNEL_PARAMS_MEMBERS_ATTENTION  \
    struct htp_flash_attn_params flash_attn; \
    struct htp_lightning_params  lightning;
