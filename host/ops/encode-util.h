// Shared host-side planning for the row-streaming NPU ops (layout conventions are in
// htp-abi/htp-kernel-params.h): uint32 checks, fastdiv shapes, DMA field widths, and the
// split of rows into threads and chunks with a VTCM layout that fits each thread's share.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "ggml.h"
#include "htp-abi/htp-abi.h"
#include "op-encoders.h"

namespace htp_enc {

static inline uint32_t align_up(uint32_t x, uint32_t a) {
    return (x + a - 1) / a * a;
}

// op's first N sources, for `const auto [q, k, v] = op_srcs<3>(op);`: an encoder's plan,
// supports and encode each name the same sources, in one line instead of N.
template <size_t N> static inline std::array<const ggml_tensor *, N> op_srcs(const ggml_tensor * op) {
    static_assert(N <= GGML_MAX_SRC, "op_srcs: more sources than a ggml node has");
    std::array<const ggml_tensor *, N> s{};
    for (size_t i = 0; i < N; i++) {
        s[i] = op->src[i];
    }
    return s;
}

// Every ne / nb and the byte span fit the 32-bit ABI fields and the session window.
bool fits_u32(const ggml_tensor * t);

htp_rows_shape rows_shape(uint32_t ne1, uint32_t ne2);
htp_rows_strides rows_strides(uint64_t nb1, uint64_t nb2, uint64_t nb3);

// The row fields of the norm family's params (NORM, L2_NORM, GROUP_NORM, RMS_NORM): kind, ne0,
// eps and what the kernel derives from them; no fused MUL (the RMS_NORM+MUL fusion sets it).
static inline void norm_fields(htp_norm_params & p, uint32_t kind, uint32_t ne0, float eps) {
    p.kind       = kind;
    p.ne0        = ne0;
    p.eps        = eps;
    p.inv_ne0    = 1.0f / (float) ne0;
    p.tail_bytes = ne0 * 4 % 128;
    p.has_mul    = 0;
    p.vmul       = 0;
    p.src_gather = 0;
    p.src_nb0    = 4;
}

// A thread's share of VTCM (whole vectors) when every HVX thread (1 to 8) runs.
static inline uint32_t vtcm_budget(const htp_device_caps & caps) {
    const uint32_t n_hvx = caps.n_hvx < 1 ? 1 : (caps.n_hvx > 8 ? 8 : caps.n_hvx);
    return caps.vtcm_size / n_hvx / 128 * 128;
}

// The token block of the (pair, token block) ops: from tb0 (the op's tokens, capped; 0: none)
// halving down to 1, the first whose layout (layout_for(tb), an L with `total` bytes) fits a
// thread's VTCM share, into l; false when none does.
template <class L, class F>
static inline bool fit_token_block(const htp_device_caps & caps, uint32_t tb0, F layout_for, L & l) {
    for (uint32_t tb = tb0; tb >= 1; tb /= 2) {
        l = layout_for(tb);
        if (l.total <= vtcm_budget(caps)) {
            return true;
        }
    }
    return false;
}

// The split of the (pair, token block) kernels (npu/ops/pair-blocks.h: SSM_SCAN,
// GATED_DELTA_NET, RWKV/GLA, LIGHTNING_INDEXER): `units` rows handed out one at a time, as evenly
// as the HVX threads allow, with n_bufs buffers per thread in vtcm bytes.
static inline void split_units(const htp_device_caps & caps, uint32_t units, uint32_t n_bufs, uint32_t vtcm,
                               htp_split_params & split) {
    const uint32_t n_hvx = caps.n_hvx < 1 ? 1 : (caps.n_hvx > 8 ? 8 : caps.n_hvx);
    uint32_t       n_thr = n_hvx < units ? n_hvx : units;
    const uint32_t rpt   = (units + n_thr - 1) / n_thr;
    split.n_threads       = (units + rpt - 1) / rpt;
    split.total_rows      = units;
    split.rows_per_thread = rpt;
    split.rows_per_chunk  = 1;
    split.n_bufs          = n_bufs;
    split.vtcm_per_thread = vtcm;
}

// The (head, sequence) pair ops with a recurrent state (GATED_DELTA_NET, RWKV/GLA): `pairs`
// rows split as split_units does, each thread's VTCM starting with its two state copies
// (v_state[0], v_state[1], state_size bytes each). Returns the offset after them.
// One region of a thread's VTCM layout: *at receives its offset, and it takes `bytes` per slot.
struct vtcm_region {
    uint32_t * at;
    uint32_t   bytes;
};

// Places the regions one after another from off, n_slots slots of each (a block stream's slot s
// at at + s * bytes); returns the offset after the last.
static inline uint32_t place_regions(uint32_t off, uint32_t n_slots, std::initializer_list<vtcm_region> regions) {
    for (const vtcm_region & r : regions) {
        *r.at = off;
        off += n_slots * r.bytes;
    }
    return off;
}

static inline uint32_t split_pairs(const htp_device_caps & caps, uint32_t pairs, uint32_t n_bufs, uint32_t vtcm,
                                   uint32_t state_size, htp_split_params & split, uint32_t (&v_state)[2]) {
    split_units(caps, pairs, n_bufs, vtcm, split);
    v_state[0] = 0;
    v_state[1] = state_size;
    return 2 * state_size;
}

static inline bool dma_field_ok(const htp_device_caps & caps, uint64_t v) {
    return v < (1ull << caps.dma_field_bits);
}

// Every value fits (the row sizes, strides and counts of an op's 2-D descriptors).
static inline bool dma_fields_ok(const htp_device_caps & caps, std::initializer_list<uint64_t> values) {
    for (uint64_t v : values) {
        if (!dma_field_ok(caps, v)) {
            return false;
        }
    }
    return true;
}

// A 1-D descriptor moves at most 16 MiB.
static inline bool dma_1d_ok(uint64_t bytes) {
    return bytes <= (16u << 20);
}

// What one op needs per chunk, for plan_rows.
struct stream_need {
    uint32_t total_rows;
    uint32_t chunk_divides;        // rows_per_chunk must divide this (rows per plane, or less)
    uint32_t bytes_per_row;        // VTCM bytes per row of a chunk, summed over streams
    uint32_t bytes_per_slot;       // VTCM bytes per slot independent of rows (e.g. a broadcast row)
    uint32_t bytes_fixed;          // VTCM bytes per thread outside the slots (scratch)
    uint32_t desc_per_chunk;       // DMA descriptors per chunk independent of rows (fetch + store)
    uint32_t desc_per_row;         // descriptors per row of a chunk (per-row gathers / scatters)
    bool     multi_row_ok;         // 2-D descriptors over several rows fit the DMA fields
};

// Chooses n_threads, rows_per_thread, rows_per_chunk, n_bufs, vtcm_per_thread.
// Returns false when not even one row per chunk with double buffering fits.
bool plan_rows(const htp_device_caps & caps, const stream_need & need, htp_split_params & sp);

// supports_op's question: does plan_rows find a split (the split itself thrown away)?
static inline bool rows_plan_ok(const htp_device_caps & caps, const stream_need & need) {
    htp_split_params sp;
    return plan_rows(caps, need, sp);
}

// Rows longer than a thread's VTCM share (CUMSUM, SOFT_MAX, TOP_K, ARGSORT's runs: npu/ops/reduce.cpp, softmax.cpp, argsort.cpp)
// stream as segments, one per chunk, each row's in order on one thread.
// The elements of a segment: the most, a multiple of `align`, that 4 buffers of
// bytes_per_elem each take beside bytes_fixed in a thread's share (0: none fit).
uint32_t segment_elems(const htp_device_caps & caps, uint32_t bytes_fixed, uint32_t bytes_per_elem, uint32_t align);
// After plan_rows of rows * units chunks of one row each: whole rows (units chunks each) per thread.
void split_whole_rows(htp_split_params & sp, uint32_t rows, uint32_t units);

// Fills stream `st` at *offset (advanced past it): n_bufs slots of rows_per_chunk rows.
// The need of an op that streams F32 rows of src0 through VTCM into rows of dst (one fetch
// and one write-back descriptor per chunk; src and dst slots of `pitch` bytes per row).
stream_need rows_in_out_need(const htp_device_caps & caps, const ggml_tensor * op, uint32_t pitch);

// The split of a MUL_MAT's activation rows for their quantize phase: one row per chunk,
// double-buffered staging, in the same per-thread VTCM share as the dot-product phase.
static inline htp_split_params act_row_split(uint32_t n_act, uint32_t n_threads, uint32_t vtcm_per_thread) {
    htp_split_params s;
    s.n_threads       = n_threads;
    s.total_rows      = n_act;
    s.rows_per_thread = (n_act + n_threads - 1) / n_threads;
    s.rows_per_chunk  = 1;
    s.n_bufs          = 2;
    s.vtcm_per_thread = vtcm_per_thread;
    return s;
}

htp_vtcm_stream stream_at(uint32_t & offset, const htp_split_params & sp, uint32_t row_pitch, uint32_t rows);

// The usual row-stream fields (npu/ops/row-stream.h reads them) of params p whose split is
// planned: op's rows, src0 = a's strides, dst = dst's (op itself, or the last node of a
// fusion), then a vsrc and a vdst stream of `pitch` bytes per row from VTCM offset 0. Returns
// the offset after them.
template <typename P>
uint32_t rows_in_out(P & p, const ggml_tensor * a, const ggml_tensor * op, const ggml_tensor * dst, uint32_t pitch) {
    p.shape      = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.src0       = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.dst        = rows_strides(dst->nb[1], dst->nb[2], dst->nb[3]);
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    p.vdst       = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    return off;
}

template <typename P> uint32_t rows_in_out(P & p, const ggml_tensor * a, const ggml_tensor * op, uint32_t pitch) {
    return rows_in_out(p, a, op, op, pitch);
}

// The quantized row types SET_ROWS and CPY write (htp_quant_row: Q8_0, Q4_0, Q4_1, Q5_0, Q5_1,
// IQ4_NL, blocks of 32).
bool quant_row_type(ggml_type t);

// The K-quants SET_ROWS and CPY write too (Q2_K .. Q6_K, super-blocks of 256), and all
// of the types they write: quant_row_type's or these.
bool kquant_row_type(ggml_type t);
// The FP4 and ternary types they write (MXFP4, NVFP4: npu/ops/quantize-fp4.h; TQ1_0, TQ2_0:
// npu/ops/quantize-ternary.h).
bool fp4_ternary_row_type(ggml_type t);
bool quant_row_dst_type(ggml_type t);

// The VTCM dst row of ne0 (a multiple of the block size) values quantized to t from rows of src_type (F32,
// or F16 / BF16 widened first): q's offsets and DMA fields; returns the row's pitch.
uint32_t quant_row_layout(ggml_type t, ggml_type src_type, uint32_t ne0, htp_quant_row & q);

// A copy of a block-quantized src0 (the types GET_ROWS dequantizes) into an F32 dst of the same
// shape, run by the GET_ROWS kernel on src0's own rows (host/ops/get-rows.cpp: opcode
// HTP_OP_GET_ROWS, get_rows.idx_identity): rows of adjacent whole blocks and adjacent F32 values.
bool dequant_rows_supports(const htp_device_caps & caps, const ggml_tensor * op);
void dequant_rows_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc);

// A slot of `rows` rows of d values (whole blocks) of a quant_row_type t, or of Q1_0 / Q2_0
// (FLASH_ATTN_EXT only), that the kernel reads as F32 (npu/ops/kv-blocks.h: FLASH_ATTN_EXT's K / V chunks, LIGHTNING_INDEXER's K
// chunk): the rows' dense copy (pitch = the row's bytes), the split arrays' offsets in the
// slot and the slot's bytes; at, f_at and f_pitch are left 0 for the op to place.
htp_fa_kv_layout kv_blocks_plan(ggml_type t, uint32_t d, uint32_t rows);

// DMA descriptors of such a slot: the rows' copy and the d / qs (/ m / qh) splits.
uint32_t kv_blocks_descs(ggml_type t);

}  // namespace htp_enc
