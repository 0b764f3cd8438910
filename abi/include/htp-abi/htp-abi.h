// The host <-> NPU ABI: what crosses the session message queue. Plain C structs with fixed
// widths, so a session could run in another process (or on a real NPU) unchanged.
//
// A message is an htp_msg_header followed by its body:
//   HTP_MSG_OPS:   htp_buf_desc[n_bufs], htp_op_desc[n_ops]   -> htp_batch_response + htp_op_timing[n_ops]
//   HTP_MSG_UNMAP: htp_buf_desc[n_bufs] (fds to drop from the window) -> htp_batch_response
// Buffers are shared DDR (memfd) named by fd; tensors name a buffer by its index in the
// message's buffer table plus a byte offset. The NPU side maps buffers into its window: pinned buffers
// (HTP_BUF_PINNED) stay mapped, the others are delayed mappings it may give up between batches.
#pragma once
#include <stdint.h>

#include "htp-ops.h"
#include "htp-status.h"
#include "htp-trace-format.h"

/* 22: htp_mm_act.type, elem_bytes at its end (so every MUL_MAT params struct's fields after
 *    act moved): the flat MUL_MAT path takes F16 / BF16 activations (widened in staging);
 *    act.row_bytes is ne10 * elem_bytes, mul_mat.act_plane_bytes 4 * ne00 / act_planes;
 *    cpy.dst_shape at the end: CPY walks src and dst rows each in its own shape (both sides
 *    strided, rows of equal length); htp_type HTP_TYPE_I8 (htp-types.h): CPY's byte unit for
 *    quantized rows of an odd byte count; SET_ROWS / CPY quantize into MXFP4, NVFP4, TQ1_0 and
 *    TQ2_0 (htp_quant_row's type);
 *    argsort.n_run, n_pad, n_blk, n_rows, scratch_off at the end: ARGSORT sorts a row longer
 *    than a thread's VTCM share as runs merged through DDR after its dst (the device buffer
 *    type reserves the room: get_alloc_size); argsort.n_work is TOP_K's segment length (its
 *    work buffer holds n_cand candidates and a segment's indices);
 * 21: rope.sect_layout (enum htp_rope_sections; was rope.imrope, whose 1 it keeps): ROPE and
 *    ROPE_BACK take VISION (rope.n_dims is then ne0, the rotated lanes);
 *    htp_type HTP_TYPE_IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M (htp-types.h):
 *    GET_ROWS dequantizes them (one super-block a VTCM vector: a single field, vtcm_step 128);
 *    op code CONV_TRANSPOSE_2D (conv_transpose_1d, on CONV_TRANSPOSE_1D's kernel with a loop over
 *    input rows): conv_transpose_1d gained H, KH, div_s0, shape, dst (was dst_nb1), in_nb_row,
 *    in_nb_img, w_nb_ky, in_rows, vin and round_f16, so its fields after OL moved; op codes
 *    ACC and SET (assemble, which gained acc and vbase at its end);
 *    reduce.n_seg, last_ne0 at the end: CUMSUM streams a row longer than a thread's VTCM share
 *    in segments; soft_max.n_seg, last_ne0 in place of n_vec, tail_bytes: SOFT_MAX does too
 *    (3 passes); SET_ROWS / CPY quantize into Q2_K .. Q6_K, IQ4_XS, Q1_0 and Q2_0
 *    (htp_quant_row's type; their scratch HTP_QUANT_ROW_KQ_SCRATCH, params/core.h);
 *    argsort.n_seg, last_ne0, n_cand, n_work, vwork at the end: TOP_K streams long rows too;
 * 20: htp_counter HTP_CNT_DMA_EXPOSED_DESC, HTP_CNT_DMA_EXPOSED_BYTES, HTP_CNT_HVX_EXPOSED at the
 *    end (what a thread's pipeline cannot overlap: docs/profiling.md "Counters"): htp_op_timing
 *    grew by 24 bytes; htp_type HTP_TYPE_TQ1_0, HTP_TYPE_TQ2_0, HTP_TYPE_NVFP4 (htp-types.h):
 *    GET_ROWS dequantizes them;
 *    op codes CONV_2D_DW, CONV_2D and CONV_3D (conv_2d_dw), CONV_TRANSPOSE_1D and COL2IM_1D
 *    (conv_transpose_1d) and IM2COL_3D (im2col, which gained KD, ID, s2, p2, d2, div_od,
 *    nb_id at its end; no field moved);
 * 19: get_rows.idx_identity (after vdst): CPY of a block-quantized source to F32 runs on the
 *    GET_ROWS kernel with src0's own rows (host/ops/get-rows.cpp dequant_rows_encode);
 *    binary.src1_gather, src1_nb0, src1_f32 (after conv_pitch): a permuted src1, an F32 src1
 *    of BF16 rows; norm.src_gather, src_nb0 (after vmul): NORM / L2_NORM of a transposed source;
 *    lightning.kq (htp_fa_kv_layout) at the end: LIGHTNING_INDEXER takes K of Q8_0, Q4_0,
 *    Q4_1, Q5_0, Q5_1, IQ4_NL (flash_attn takes IQ4_NL K / V, its params unchanged);
 *    ssm_scan.n_snap, n_seqs, v_snap at the end: SSM_SCAN writes K > 1 rollback snapshots;
 *    htp_assemble_src.head and tail after nb0 (circular PAD), so the second source moved;
 *    op code UPSCALE (upscale);
 * 18: htp_counter HTP_CNT_HVX_RUNS (work_queue_run calls) at the end: htp_op_timing grew by 8
 *    bytes; pool takes padded windows and POOL_1D (p0, p1, iw, ih, mid_lo, mid_hi, avg_count
 *    after inv_ka, so the fields after them moved);
 *    set_rows.quant and cpy.quant (htp_quant_row: the VTCM layout of a quantized dst row;
 *    set_rows.q8_scale_offset and q8_dscratch_offset gone): SET_ROWS and CPY write Q4_0, Q4_1,
 *    Q5_0, Q5_1, IQ4_NL (and CPY Q8_0) rows; htp_get_rows_field is htp_block_field;
 *    binary.f16 is binary.half (HTP_TYPE_F16, or HTP_TYPE_BF16: BF16 rows);
 * 17: flash_attn's K and V VTCM fields are two htp_fa_kv_layout (k_vtcm, v_vtcm: was vk,
 *    k_slot, ... kf_pitch and the same for V); lightning's strides are htp_rows_strides q, k,
 *    w, m, d (was q_nb1 ... d_nb3); RMS_NORM's params are htp_norm_params (kind HTP_NORM_RMS,
 *    has_mul and vmul after the NORM fields; htp_rms_norm_params is gone);
 *    htp_counter HTP_CNT_HVX_ST (the stores among HTP_CNT_HVX_LDST): the counters after
 *    HTP_CNT_HVX_LDST moved by one and htp_op_timing grew by 8 bytes;
 *    get_rows takes the K-quant rows Q2_K .. Q6_K and IQ4_XS (HTP_TYPE_IQ4_XS; n_blocks:
 *    super-blocks); scale.bf16;
 * 16: op codes ARGMAX and SUM (reduce: kinds ARGMAX, SUM_ALL); get_rows takes Q4_0, Q4_1,
 *    Q5_0, Q5_1, IQ4_NL, MXFP4 rows: a field list of DMAs (q8_quant_offset gone); op codes ROLL
 *    (roll), PAD_REFLECT_1D (pad_reflect), TIMESTEP_EMBEDDING (timestep); elementwise.vwide and
 *    wide_pitch (BF16 rows of UNARY and GLU);
 * 15: rope.n_offs and rope.sin_sign (ggml_rope_set_offset, ROPE_BACK); op codes DSV4_HC_PRE,
 *    DSV4_HC_POST (kernel_params member hc), DSV4_HC_COMB (hc_comb), ARANGE (fill, fill.step);
 *    set_rows.src_type (F16 sources); op codes POOL_2D (pool), SIN, COS, LEAKY_RELU (elementwise:
 *    kinds SIN .. LEAKY_RELU, with FLOOR, CEIL, ROUND, TRUNC for UNARY);
 * 14: flash_attn.vsinks: the kernel DMAs the sinks into VTCM (it read them from DDR);
 * 13: op codes RWKV_WKV6, RWKV_WKV7, GATED_LINEAR_ATTN (kernel_params member wkv),
 *    LIGHTNING_INDEXER (lightning);
 * 12: HTP_MAX_SRC is 7 (SSM_SCAN's seven sources), so every op descriptor grew by one tensor;
 * 11: htp_op_timing holds the op's start and length in nanoseconds and the level-2 counters
 *    (htp_counter, GGML_HEXAGON_PROFILE=2, HTP_MSG_FLAG_COUNTERS); the host derives cycles
 *    from the arch's clock;
 * 10: mul_mat_tiled.split counts (column tile, K chunk) units, rows_per_chunk of them per
 *    pipeline step (was: column tiles, the kernel making its own steps); mul_mat_hmx.asplit.n_bufs
 *    is the staging slot count the kernel uses;
 * 9: flash_attn.vscores holds HTP_FA_SCORE_VECS vectors (was 2): the score fold tree's state;
 * 8: mul_mat_hmx.rowscale_offset holds a vector per row (was a float), after the column params'
 *    2048-byte block;
 * 7: kernel_params lost fields no kernel read (flash_attn.kv_chunk: split.rows_per_chunk is the
 *    chunk; im2col.K; gdn.n_seqs, neq1, nek1, rq3, rk3; mul_mat_tiled.n_col_tiles,
 *    blocks_per_tile), so the offsets of the fields after them moved, and flash_attn gained
 *    vscores; 6: tensor split (ALLREDUCE);
 * 5: dma_addr_t is 64-bit (the device API's htp_session_info changed, the messages did not: a
 *    stale NPU library beside a new host refuses every message instead of running on a misread
 *    session); 4: window counters in the response; 3: multi-device header fields */
#define HTP_ABI_VERSION   22u
#define HTP_MSG_MAGIC     0x47534d48u /* "HMSG" */
#define HTP_RESP_MAGIC    0x50535248u /* "HRSP" */
#define HTP_MAX_SRC       7  /* SSM_SCAN: s, x, dt, A, B, C, ids (GATED_DELTA_NET: 6) */
#define HTP_NO_BUF        0xffffffffu
#define HTP_MAX_BATCH_OPS 1024u

enum htp_msg_kind {
    HTP_MSG_OPS = 1,    // run a batch of ops
    HTP_MSG_UNMAP = 2,  // unmap buffers (the host is freeing them)
};

enum htp_buf_flags {
    HTP_BUF_PINNED = 1u << 0,  // keep mapped between batches (KV cache, compute buffers)
};

struct htp_buf_desc {
    int32_t  fd;     // shared DDR buffer (memfd) fd, valid in the session's process
    uint32_t flags;  // enum htp_buf_flags
    uint64_t size;   // bytes to map
};

enum htp_tensor_flags {
    HTP_TENSOR_TILED = 1u << 0,  // weight data is repacked into the tiled layout
};

struct htp_tensor_desc {
    uint32_t buf;     // index in the message's buffer table; HTP_NO_BUF for an absent src
    uint32_t type;    // ggml_type value
    uint64_t offset;  // byte offset of the tensor data in the buffer
    uint32_t ne[4];   // elements per dim
    uint32_t nb[4];   // bytes per step in each dim
    uint32_t flags;   // enum htp_tensor_flags
    uint32_t reserved;
};

struct htp_op_desc {
    uint32_t opcode;  // enum htp_opcode
    uint32_t n_src;   // number of src descriptors in use (unused ones have buf == HTP_NO_BUF)
    uint32_t flags;
    uint32_t reserved;
    struct htp_tensor_desc dst;
    struct htp_tensor_desc src[HTP_MAX_SRC];
    union htp_kernel_params params;
};

enum htp_msg_flags {
    HTP_MSG_FLAG_PROFILE = 1u << 0,  // fill per-op timings
    HTP_MSG_FLAG_TRACE = 1u << 1,    // record trace events into the trace buffer
    // Stage only (GGML_HEXAGON_OPSTAGE=1): map the buffers and check every op's descriptors as
    // usual, but run no kernel; destinations keep whatever they held. Measures the framework.
    HTP_MSG_FLAG_STAGE = 1u << 2,
    // Level-2 counters (GGML_HEXAGON_PROFILE=2): the session counts what every op executes
    // (htp_counter) into its htp_op_timing. Without it the counters stay 0 and cost nothing.
    HTP_MSG_FLAG_COUNTERS = 1u << 3,
};

struct htp_msg_header {
    uint32_t magic;        // HTP_MSG_MAGIC
    uint32_t abi_version;  // HTP_ABI_VERSION
    uint32_t kind;         // enum htp_msg_kind
    uint32_t flags;        // enum htp_msg_flags
    uint32_t n_bufs;
    uint32_t n_ops;
    uint64_t seq;          // echoed in the response
    uint32_t trace_buf;    // buffer-table index of the trace buffer, HTP_NO_BUF if none
    uint32_t reserved;
    uint64_t trace_offset; // where the htp_trace_buffer_header starts in that buffer
    // Multi-device (a device group, GGML_HEXAGON_DEVICES=HTP0[0-1]): every member session gets
    // the same batch and runs each op on its own slice, with barriers on the group's fence slots.
    uint32_t mdev_idx;                 // this session's index in the group (0 when alone)
    uint32_t mdev_count;               // sessions in the group (1: single device, no barriers)
    struct htp_fastdiv mdev_count_div; // fastdiv constants of mdev_count
    uint32_t fence_buf;                // buffer-table index of the fence slots, HTP_NO_BUF when alone
    uint32_t fence_seq;                // the batch's barriers use fence_seq + 1, + 2, ... (wraps)
    uint64_t fence_offset;             // where slot 0 starts in that buffer (128-byte aligned)
};

// A device group's fences: one HTP_FENCE_SLOT_SIZE-byte line per member (so no two members
// share a cache line), the member's last barrier sequence number and its status.
#define HTP_FENCE_SLOT_SIZE 128u
#define HTP_MDEV_MAX        16u
struct htp_fence_slot {
    uint32_t seq;     // sequence number of the last barrier this member reached
    int32_t  status;  // HTP_STATUS_OK, or the error that stopped the member
};

// What one op executed, counted by the vHTP (which sees every emulated instruction) when the
// message has HTP_MSG_FLAG_COUNTERS; docs/profiling.md says how upstream's PMU events map here.
enum htp_counter {
    HTP_CNT_HVX_ALU = 0,     // HVX arithmetic, logic, shift, compare and conversion instructions
    HTP_CNT_HVX_MPY,         // HVX multiplies (vmpy, vmpyi, vrmpy, float vmpy)
    HTP_CNT_HVX_PERMUTE,     // HVX permutes: shuffle, deal, rotate, align, pack, unpack, combine
    HTP_CNT_HVX_LDST,        // HVX vector loads and stores made through npu/ops/hvx-vmem.h (a
                             // plain dereference elsewhere, which the vHTP cannot see)
    HTP_CNT_HVX_ST,          // of HTP_CNT_HVX_LDST, the stores (a packet has a load and a store slot)
    HTP_CNT_HVX_OTHER,       // HVX lookups (vlut), splats, extracts, predicate ops
    HTP_CNT_HMX_TILES,       // HMX 32x32 tile multiply-accumulates (n_k of every htp_hmx_mma)
    HTP_CNT_HMX_STORES,      // HMX accumulator stores (one output tile each)
    HTP_CNT_DMA_DESC,        // DMA descriptors pushed
    HTP_CNT_DMA_IN_BYTES,    // DMA bytes written into VTCM (DDR -> VTCM, VTCM -> VTCM)
    HTP_CNT_DMA_OUT_BYTES,   // DMA bytes written outside VTCM (VTCM -> DDR, DDR -> DDR)
    HTP_CNT_DMA_WAIT_NS,     // nanoseconds threads spent in dma_queue_pop / dma_queue_flush
    HTP_CNT_FENCE_WAIT_NS,   // nanoseconds spent at device-group barriers
    HTP_CNT_VTCM_HWM,        // highest VTCM byte offset (+1) a DMA descriptor touched (a maximum)
    HTP_CNT_L2_OPS,          // L2 clean / invalidate calls (a line each for the Q6_dc*a forms)
    HTP_CNT_L2_BYTES,        // bytes those calls named (flush-all: HTP_DCACHE_FLUSH_ALL_BYTES)
    HTP_CNT_HVX_PACKETS,     // reserved (0): packets need the real core's bundling
    HTP_CNT_HVX_RUNS,        // work_queue_run calls: each starts the op's HVX threads and joins them
    HTP_CNT_DMA_EXPOSED_DESC,   // DMA descriptors popped with no HVX / HMX work of their thread
                                // between their push and their pop (nothing overlapped them)
    HTP_CNT_DMA_EXPOSED_BYTES,  // those descriptors' bytes
    HTP_CNT_HVX_EXPOSED,        // HVX instructions a dispatch's thread ran with no inbound DMA
                                // (into VTCM) pending in its queue (nothing to overlap them)
    HTP_CNT_COUNT
};

struct htp_op_timing {
    uint64_t start_ns;   // when the op started, on the session's clock (nanoseconds)
    uint64_t nsecs;      // how long it ran (nanoseconds of the session's clock)
    uint32_t n_threads;  // HVX threads the op used
    uint32_t reserved;
    uint64_t counters[HTP_CNT_COUNT];  // enum htp_counter; 0 without HTP_MSG_FLAG_COUNTERS
};

struct htp_batch_response {
    uint32_t magic;      // HTP_RESP_MAGIC
    int32_t  status;     // enum htp_status of the first failure, HTP_STATUS_OK if none
    uint32_t failed_op;  // index of the failing op (valid when status != OK)
    uint32_t n_ops;      // op timings that follow
    uint64_t seq;        // from the message
    uint64_t cycles;     // nanoseconds of the session's clock for the whole message
    // What the session window cost during the message (the sliding window of delayed weight
    // mappings): buffers mapped and unmapped to make room, bytes newly mapped, and the bytes
    // the session holds mapped when it answers.
    uint32_t n_maps;
    uint32_t n_unmaps;
    uint64_t bytes_mapped;
    uint64_t window_mapped;
};

static inline uint64_t htp_msg_size(uint32_t n_bufs, uint32_t n_ops) {
    return sizeof(struct htp_msg_header) + (uint64_t) n_bufs * sizeof(struct htp_buf_desc) +
           (uint64_t) n_ops * sizeof(struct htp_op_desc);
}

static inline uint64_t htp_response_size(uint32_t n_ops) {
    return sizeof(struct htp_batch_response) + (uint64_t) n_ops * sizeof(struct htp_op_timing);
}
