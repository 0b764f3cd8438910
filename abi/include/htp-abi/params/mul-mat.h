// kernel_params of MUL_MAT, MUL_MAT_ID: weights x activations on the HVX (vec-dot) and HMX paths.
// Each struct starts with struct htp_split_params `split`; list every struct of this family
// in HTP_KERNEL_PARAMS_MEMBERS_MUL_MAT so it joins union htp_kernel_params.
//
// MUL_MAT: dst[i0, i1, i2, i3] = sum_k src0[k, i0, i2 / r2, i3 / r3] * src1[k, i1, i2, i3].
// src0 = weights ("W", ne01 rows of ne00), src1 = activations ("A": F32; the flat path also
// takes F16 / BF16, widened to F32 in the staging slot: act.type), dst F32.
//
// Flat HVX path (see docs/mul-mat.md). The kernel walks the activation planes (i2, i3) and,
// inside a plane, chunks of act_rows_per_chunk activation rows. Per chunk:
//   phase 1 (HTP_TRACE_EVT_QUANT): threads split the chunk's activation rows; each row is
//     DMA'd into the thread's staging slots (qsplit: rows_per_chunk 1, n_bufs) and prepared
//     into the shared activation region (Q path: int8 quants, per-lane scales, per-lane sums;
//     FP path: F32 zero-padded);
//   phase 2: threads split the weight rows (split); each streams chunks of rows_per_chunk
//     weight rows with n_bufs buffers (row-stream pipeline), prepares each weight row into its
//     per-thread scratch, dots it with every activation row of the chunk and writes the
//     results, a [act rows x weight rows] block, back with one 2-D DMA.
// A flat weight row is fetched as up to HTP_MM_MAX_FIELDS "fields": field f of every block
// (field_size[f] bytes at field_src[f] inside each block_bytes block) goes to
// field_vtcm[f] + block * field_dst_stride[f] of the row's raw slot, so HVX sees the quants,
// scales, ... as plain arrays.
// Split weight types unpack a packed quant vector into act_planes bit-field planes (2: low and
// high nibble of Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4, Q4_K, Q5_K, Q6_K; 4: the 2-bit fields
// of Q2_K, Q3_K, Q2_0; 8: the bits of Q1_0); the activation row then arrives in the same
// order: chunk c of act_split_elems elements goes to plane c % act_planes, the planes densely
// act_b_offset bytes apart in the staging slot.
#pragma once
#include <stdint.h>

#define HTP_MM_MAX_FIELDS   8
#define HTP_MM_MAX_ACT_ROWS 32  // act_rows_per_chunk limit (results are gathered 32 weight rows x this)

enum htp_mm_path {
    HTP_MM_PATH_HVX_FP = 0,  // F32 / F16 weights: IEEE sf multiply-add against F32 activations
    HTP_MM_PATH_HVX_Q8 = 1,  // quantized weights: int8 vrmpy against Q8-quantized activations
};

// The activations (src1) and results (dst) of a MUL_MAT path: one description shared by
// the flat, tiled and HMX params (the host fills it in one place: mm_act_describe,
// host/ops/mul-mat/mul-mat-paths.h). Plane (i2, i3) of ne12 * ne13 holds ne11 activation
// rows; the weight plane it reads is (i2 / r2, i3 / r3) (MUL_MAT_ID: unused, the weight
// planes are experts).
struct htp_mm_act {
    uint32_t ne11, ne12, n_planes;   // activation rows per plane; ne12; ne12 * ne13
    struct htp_fastdiv div_ne12;     // plane -> (i2, i3)
    struct htp_fastdiv div_r2;       // i02 = i2 / r2 (r2 = ne12 / ne02)
    struct htp_fastdiv div_r3;       // i03 = i3 / r3
    struct htp_rows_strides src1;    // nb11, nb12, nb13
    struct htp_rows_strides dst;     // nb1, nb2, nb3
    uint32_t row_bytes;              // ne10 * elem_bytes: bytes DMA'd per activation row
    // src1's type (enum htp_type): F32, or F16 / BF16 (elem_bytes 2), which the staging DMA
    // writes at half the byte offsets the F32 layout gives each element and the kernel widens
    // in place into that layout (mm_widen_staged, npu/ops/mul-mat/mul-mat-rows.h) before
    // preparing the row. Only the flat path is planned for 16-bit activations today.
    uint32_t type;
    uint32_t elem_bytes;             // bytes per src1 element: 4, or 2 (F16 / BF16)
};

struct htp_mul_mat_params {
    struct htp_split_params split;   // weight rows (total_rows = ne01) over threads and chunks
    struct htp_split_params qsplit;  // activation rows of one chunk (total_rows = act_rows_per_chunk)
    uint32_t path;                   // enum htp_mm_path
    uint32_t wtype;                  // src0 type (enum htp_type)
    uint32_t ne00;                   // K: elements per row
    uint32_t k_vecs;                 // Q path: 128-element groups per row (K padded to 128);
                                     // FP path: 32-element vectors per row (K padded to 32)
    struct htp_mm_act act;           // activation planes, rows, strides
    struct htp_rows_strides src0;    // nb01, nb02, nb03
    uint32_t act_rows_per_chunk;     // activation rows quantized and reused per weight pass
    // Weight row fetch.
    uint32_t n_blocks;               // blocks per weight row (F32/F16: 1 block = the whole row)
    uint32_t block_bytes;            // bytes per block (F32/F16: the row's bytes)
    uint32_t n_fields;
    uint32_t field_src[HTP_MM_MAX_FIELDS];   // byte offset of the field inside a block
    uint32_t field_size[HTP_MM_MAX_FIELDS];  // bytes of the field per block
    uint32_t field_vtcm[HTP_MM_MAX_FIELDS];  // offset of the field's first block in the row's raw slot
    uint32_t field_dst_stride[HTP_MM_MAX_FIELDS];  // VTCM bytes between blocks of the field
    uint32_t act_split_elems;        // 0: activation row in natural order; else the chunk size above
    uint32_t act_b_offset;           // staging bytes between planes (multiple of 128)
    uint32_t n_lo;                   // split types: vectors per plane (k_vecs = act_planes * n_lo)
    uint32_t act_planes;             // split types: planes (2, 4, 8); else 1
    uint32_t act_plane_bytes;        // 4 * ne00 / act_planes: a plane's staged bytes (as F32)
    uint32_t act_split_chunks;       // split types: chunks per plane, ne00 / (act_planes * act_split_elems)
    // VTCM layout. Per thread (offsets from the thread's base):
    struct htp_vtcm_stream vw;       // raw weight rows: n_bufs slots of rows_per_chunk rows
    struct htp_vtcm_stream vout;     // results: n_bufs slots of act_rows_per_chunk rows of
                                     // rows_per_chunk floats (row_pitch a multiple of 128)
    struct htp_vtcm_stream vstage;   // activation staging: qsplit.n_bufs slots of one row as F32
                                     // (FP path: K padded to 64, so 16-bit rows widen whole vectors)
    uint32_t wprep_offset;           // prepared weight row (Q path: int8 quants, then per-lane
                                     // scales, then per-lane offsets; FP path: F32 row)
    uint32_t wprep_bytes;            // bytes of one prepared part (Q: K padded to 128; FP: 4 * K padded to 32)
    // Shared, from vtcm_base: prepared activation rows (Q path: quants, per-lane scales,
    // per-lane sums, each act_part_bytes; FP path: one F32 row).
    uint32_t act_offset;
    uint32_t act_part_bytes;
    uint32_t act_row_pitch;
    // Fusions (host/ops/mul-mat/mul-mat-fusions.cpp, docs/mul-mat.md "Fusions"). Both 0 for MUL_MAT_ID.
    // has_bias: MUL_MAT+ADD, dst = W x A + bias, bias = src[2] (F32, ne01 contiguous floats per
    //   plane at i2 * bias.nb2 + i3 * bias.nb3; a stride is 0 where the bias broadcasts). Each
    //   weight chunk's bias slice arrives with the chunk's fetch (one more 1-D descriptor) into
    //   vbias (per thread, n_bufs slots of 128 B) and is added to the results before write-back.
    uint32_t has_bias;
    struct htp_rows_strides bias;    // nb1 unused
    struct htp_vtcm_stream vbias;
    // act_ready: the op just before this one in the message prepared the same activation rows
    //   into the same shared region (same src1, same preparation, one chunk only) and nothing
    //   since wrote there: phase 1 is skipped.
    uint32_t act_ready;
};

// MUL_MAT_TILED: tiled weights (docs/tiled-formats.md), HVX path for few activation rows
// (docs/mul-mat.md, "Tiled HVX path"). The weight is a grid of column tiles ct (32 output
// rows) x K tiles kt. split's rows are units u = ct * n_kchunks + kc (column tile, K chunk;
// K chunk fastest): total_rows = column tiles * n_kchunks, rows_per_thread = a multiple of
// cols_per_chunk column tiles with all their K chunks, rows_per_chunk = cols_per_chunk (1
// when n_kchunks > 1), so that every pipeline step is one work item (below).
// Per pass of up to act_rows_per_pass activation rows of one plane (i2, i3):
//   activation prep (HTP_TRACE_EVT_QUANT): each F32 row DMA'd into a staging slot (vstage,
//     qsplit.n_bufs slots; the private prep also runs qsplit's rows_per_chunk and n_bufs) and
//     quantized per 32-column block into HTP_MMT_ACT_BLK_VECS vectors:
//     8 "slot" vectors (the block's int8 quants, 4 per 32-bit word, splatted over all 32
//     lanes, columns in the order act_order says), then splat(d) (sf), splat(sum of all 32
//     quants) (int), splat(sum of quants of columns 0..15) (int), splat(d * sum) (sf).
//     act_private = 1: every dot thread prepares the pass's rows itself into its own VTCM
//     (act_offset from its thread base; no extra work_queue_run); else qsplit threads prepare
//     them once into the shared region at vtcm_base + act_offset.
//   dots: the thread's work items are (column group of cols_per_chunk column tiles, K chunk
//     of k_tiles_per_chunk tiles), K chunk fastest; an item's tiles are contiguous in DDR and
//     arrive with one DMA (tile_pitch apart in VTCM: tile_bytes rounded up to 128), n_bufs
//     buffers deep (row-stream pipeline). HVX computes 32 output rows x 1 or 2 activation
//     rows at a time (vrmpy over the tile's 4-column groups); partial sums of a column tile
//     over K chunks stay in vacc; after the last K chunk the [act rows x 32*cols] block goes
//     to dst with one 2-D DMA (or one 1-D per act row when out_per_row).
#define HTP_MMT_ACT_BLK_VECS 12
#define HTP_MMT_MAX_ACT_ROWS 64

enum htp_mmt_act_order {
    HTP_MMT_ORDER_NATURAL = 0,  // slot s = columns 4s .. 4s+3
    HTP_MMT_ORDER_NIBBLE  = 1,  // slot s = columns 8(s/2) + s%2 + {0, 2, 4, 6} (4-bit nibble planes)
};

struct htp_mul_mat_tiled_params {
    struct htp_split_params split;   // (column tile, K chunk) units over threads (see above)
    struct htp_split_params qsplit;  // shared activation prep: rows of one pass over threads
    uint32_t wtype;                  // tiled format (enum htp_type)
    uint32_t ne00, ne01;             // K, N (output columns; the last column tile may be partial)
    uint32_t n_k_tiles;
    uint32_t tile_bytes, tile_pitch; // DDR bytes per tile; VTCM bytes per tile (multiple of 128)
    uint32_t k_tiles_per_chunk, n_kchunks;
    struct htp_fastdiv div_kchunks;  // work item -> (column group, K chunk)
    uint32_t cols_per_chunk;         // column tiles per work item (1 when n_kchunks > 1)
    uint32_t act_order;              // enum htp_mmt_act_order
    struct htp_mm_act act;           // activation planes, rows, strides
    uint32_t w_nb2, w_nb3;           // bytes between tiled weight planes (i02, i03)
    uint32_t act_rows_per_pass;
    uint32_t act_private;
    uint32_t out_per_row;            // 1: write-back as one 1-D descriptor per activation row
    // VTCM, per thread (from the thread's base):
    struct htp_vtcm_stream vw;       // n_bufs slots of cols_per_chunk * k_tiles_per_chunk tiles
    struct htp_vtcm_stream vout;     // n_bufs slots of act_rows_per_pass rows of cols_per_chunk * 128 B
    struct htp_vtcm_stream vstage;   // qsplit.n_bufs slots of one F32 activation row
    uint32_t vacc;                   // act_rows_per_pass * 128 B of partial sums (n_kchunks > 1)
    uint32_t act_offset;             // prepared activation rows (private: per thread; else shared)
    uint32_t act_row_pitch;          // bytes per prepared row (K / 32 blocks * 12 * 128)
    // Fusions, as in htp_mul_mat_params: has_bias adds src[2]'s slice for an item's column
    // tiles (fetched with the item's last K chunk into vbias: n_bufs slots of cols_per_chunk *
    // 128 B) before write-back; act_ready skips the activation prep (shared or private: the op
    // before prepared the same rows at the same places, one pass only).
    uint32_t has_bias;
    struct htp_rows_strides bias;    // nb1 unused
    struct htp_vtcm_stream vbias;
    uint32_t act_ready;
};

// MUL_MAT_HMX: tiled weights (desc.src[0] has HTP_TENSOR_TILED and points at plane (0, 0);
// layout: htp-abi/htp-tile-formats.h) x F32 activations on HMX (docs/mul-mat.md, "HMX path").
// The kernel walks activation planes (i2, i3) and chunks of act_rows_per_chunk (a multiple
// of 32) activation rows. Per chunk:
//   phase 1 (asplit threads, HTP_TRACE_EVT_QUANT): each activation row is DMA'd into the
//     thread's staging (asplit.n_bufs slots, one row per step: asplit.rows_per_chunk = 1),
//     converted to FP16 and scattered into the shared FP16
//     activation tiles: tile (mb, kk) at act_offset + (mb * n_k32 + kk) * 2048, element
//     (row % 32, k % 32) at half index (row % 32) * 32 + k % 32. Rows past the chunk's end
//     are never stored, so they are not cleared. A row whose |max| reaches 2^15 (FP16 ends
//     at 65504) is first scaled by 2^-k to below 2^15, and 2^k noted at rowscale_offset.
//   phase 2 (split threads, split.total_rows = n_col_tiles): thread ith owns column tiles
//     [rows_per_thread * ith, ...). For each, the weight tiles arrive in fetches of kc_tiles
//     tiles (one 1-D DMA each, n_bufs slots; the last fetch of a column tile may be shorter),
//     each tile is dequantized by HVX (HTP_TRACE_EVT_DEQUANT) into FP16 HMX weight tiles
//     (vw + kk * 2048, kk = K / 32 index), then under the HMX lock (HTP_TRACE_EVT_HMX_COMP)
//     every 32-row activation block is multiplied (n_k32 tile pairs) and stored as an F32
//     32 x 32 output tile (vout slot, 4096 bytes per block; rows scaled back by their
//     rowscale, HTP_TRACE_EVT_OUTPUT) that leaves by DMA: one 2-D
//     descriptor per block, or one per row when store_per_row (dst nb1 too wide for a field).
// Run-time repacking (rt_repack = 1): desc.src[0] is a FLAT weight (no HTP_TENSOR_TILED; ggml's
// layout, rows w_nb1 apart, planes wnb2 / wnb3 apart). A fetch is then one 2-D DMA of the
// column tile's (up to) 32 flat rows, flat_chunk_bytes each (the last fetch: flat_row_bytes
// minus the others), into the raw slot (rows dense, flat_chunk_bytes apart); rows past ne01
// are zero-filled, the 32 rows are repacked into the fetch's tiles in vtiles_offset (the
// shared host/device repacker, htp_repack_col_tile) and dequantized from there as above.
#define HTP_MMH_MAX_ACT_ROWS 256  // act_rows_per_chunk limit (8 blocks of 32 rows)

struct htp_mul_mat_hmx_params {
    struct htp_split_params split;   // column tiles over threads (rows_per_chunk 1, n_bufs = raw slots)
    struct htp_split_params asplit;  // activation rows of one chunk over threads
    uint32_t wtype;                  // tiled weight format (enum htp_type)
    uint32_t ne00, ne01;             // K, weight rows N
    uint32_t n_k_tiles;              // weight tiles along K per column tile
    uint32_t tile_bytes;
    uint32_t out_per_tile;           // FP16 HMX tiles per weight tile (K_cols / 32)
    uint32_t n_k32;                  // K / 32
    uint32_t kc_tiles;               // weight tiles per fetch (K-quants: a multiple of 8)
    uint32_t n_kc;                   // fetches per column tile
    struct htp_fastdiv div_n_kc;     // fetch f -> (column tile f / n_kc, k chunk f % n_kc)
    struct htp_fastdiv mod_n_bufs;   // fetch f -> raw slot f % split.n_bufs
    uint32_t wnb2, wnb3;             // bytes between tiled weight planes i02, i03
    struct htp_mm_act act;           // activation planes, rows, strides
    uint32_t act_rows_per_chunk;     // multiple of 32
    uint32_t store_per_row;          // 1: output rows leave one 1-D descriptor each
    // Per-thread VTCM (offsets from the thread's base, all multiples of 2048).
    uint32_t vraw_offset, vraw_slot; // n_bufs slots of kc_tiles * tile_bytes
    uint32_t vw_offset;              // n_k32 FP16 weight tiles of the current column tile
    uint32_t vout_offset, vout_slot; // 2 slots of (act_rows_per_chunk / 32) F32 output tiles
    uint32_t vscratch_offset;        // 4096 bytes: FP32 scratch of the dequantizer
    uint32_t vstage_offset, vstage_slot;  // asplit.n_bufs slots: one F32 activation row (padded to 64 elements)
    uint32_t vconv_offset;           // the row converted to FP16 (padded to 64 elements)
    // Shared, from vtcm_base.
    uint32_t act_offset;             // FP16 activation tiles of the chunk
    uint32_t colparam_offset;        // HTP_HMX_COLPARAM_BYTES: scale 1.0 x 32, bias 0 x 32
    uint32_t rowscale_offset;        // act_rows_per_chunk vectors: the power of two each row's
                                     // results are scaled by, in every lane (phase 1 scales a
                                     // row whose |max| reaches 2^15 down to fit FP16; 1.0 for
                                     // most rows)
    // Run-time repacking of a flat weight (0: the weight is tiled).
    uint32_t rt_repack;
    uint32_t w_nb1;                  // bytes between flat weight rows
    uint32_t flat_row_bytes;         // one flat row (K / block_k * block_size)
    uint32_t flat_chunk_bytes;       // one flat row's share of kc_tiles tiles
    uint32_t vtiles_offset;          // per thread: kc_tiles repacked tiles (2048-aligned)
};

// MUL_MAT_ID: dst[:, i, t] = W[:, :, ids[i, t]] x A[:, i % ne11, t] (ggml_mul_mat_id). The
// kernel reads the ids (scalar loads, as GET_ROWS does), and per used expert e gathers the
// (i, t) pairs routed to it into chunks of activation rows, streams only expert e's weights
// and scatters each activation row's results with its own descriptor (dst row (i, t)).
// src1 / dst strides of the path's params (mm.act): nb1 = per used slot i, nb2 = per token t. An id
// outside [0, n_as) fails the op with HTP_STATUS_BAD_PARAMS.
//   MUL_MAT_ID:       flat weights, flat HVX path; mm.src0.nb2 = expert stride; chunks of
//                     mm.act_rows_per_chunk rows.
//   MUL_MAT_ID_TILED: a tiled expert stack (desc.src[0] has HTP_TENSOR_TILED, expert e's
//                     tiles at e * mm.w_nb2), tiled HVX path (MUL_MAT_TILED's phases);
//                     chunks of mm.act_rows_per_pass rows, results always per row
//                     (mm.out_per_row = 1); the plane fields of mm are unused.
//   MUL_MAT_ID_HMX:   a tiled expert stack as above, HMX path (MUL_MAT_HMX's phases): expert
//                     e's tiles at e * mm.wnb2; chunks of mm.act_rows_per_chunk rows (a
//                     multiple of 32, <= HTP_MMH_MAX_ACT_ROWS) converted into the FP16
//                     activation tiles as gathered; each result row leaves with its own 1-D
//                     descriptor; mm.rt_repack = 0 and the plane fields of mm are unused.
#define HTP_MM_ID_MAX_EXPERTS 4096  // n_as limit (the kernel keeps a bitmap of used experts)

struct htp_mm_id_routing {
    uint32_t n_as;                   // experts (src0 ne02)
    uint32_t n_ids;                  // ids ne0: experts used per token
    uint32_t n_tokens;               // ids ne1 == src1 ne2
    uint32_t ids_nb1;                // bytes between tokens' id lists (ids nb0 = 4)
    struct htp_fastdiv div_ne11;     // i11 = i % ne11 (ne11 = 1: every slot reads the same row)
};

struct htp_mul_mat_id_params {
    struct htp_mul_mat_params mm;    // starts with split; planned with scatter (see above)
    struct htp_mm_id_routing  route;
};

struct htp_mul_mat_id_tiled_params {
    struct htp_mul_mat_tiled_params mm;  // starts with split
    struct htp_mm_id_routing        route;
};

struct htp_mul_mat_id_hmx_params {
    struct htp_mul_mat_hmx_params mm;  // starts with split
    struct htp_mm_id_routing      route;
};

#define HTP_KERNEL_PARAMS_MEMBERS_MUL_MAT                \
    struct htp_mul_mat_params          mul_mat;          \
    struct htp_mul_mat_tiled_params    mul_mat_tiled;    \
    struct htp_mul_mat_hmx_params      mul_mat_hmx;      \
    struct htp_mul_mat_id_params       mul_mat_id;       \
    struct htp_mul_mat_id_tiled_params mul_mat_id_tiled; \
    struct htp_mul_mat_id_hmx_params   mul_mat_id_hmx;
