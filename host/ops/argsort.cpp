// Host side of ARGSORT (F32 keys -> I32 indices along dim 0, ascending or descending) and TOP_K
// (the indices of the k largest: a descending sort whose first k indices are written). A TOP_K
// row longer than a thread's VTCM share streams in segments (as CUMSUM and SOFT_MAX do:
// host/ops/reduce.cpp, softmax.cpp), the k best so far kept in VTCM (npu/ops/argsort.cpp); such
// an ARGSORT row is sorted in runs merged through DDR that the device buffer type reserves
// after the dst (htp_op_dst_scratch, host/src/buffer.cpp).
#include <algorithm>

#include "encode-util.h"

using namespace htp_enc;

namespace {

static uint32_t sort_len(const ggml_tensor * op) {
    uint32_t n = 32;
    while (n < (uint64_t) op->src[0]->ne[0]) {
        n <<= 1;
    }
    return n;
}

static stream_need argsort_need(const htp_device_caps & caps, const ggml_tensor * op) {
    return rows_in_out_need(caps, op, sort_len(op) * 4);
}

// A TOP_K row in segments: n_cand (a power of two >= k, >= 32) candidates, keys and indices,
// and a segment's n_work indices (n_work a power of two >= n_cand: the bitonic network) at
// vwork, beside 2 slots of a segment (its values, then its keys) and 2 slots of k indices. Rows
// are the virtual rows (segment, i1, i2 + ne2 i3), so ne3 must be 1 or one stride with ne2.
struct top_k_segs {
    uint32_t n_seg, rows, n_cand, n_work;
};

static bool top_k_seg_need(const htp_device_caps & caps, const ggml_tensor * op, stream_need & need, top_k_segs & ts) {
    const ggml_tensor * a      = op->src[0];
    const bool          merged = a->ne[3] == 1 || (a->nb[3] == a->nb[2] * a->ne[2] && op->nb[3] == op->nb[2] * a->ne[2]);
    if (op->op != GGML_OP_TOP_K || !merged) {
        return false;
    }
    const uint64_t budget = (uint64_t) segment_elems(caps, 0, 1, 128) * 4;  // a thread's share
    const uint32_t dst_p  = align_up((uint32_t) op->ne[0] * 4, 128);
    ts.n_cand             = 32;
    while (ts.n_cand < (uint64_t) op->ne[0]) {
        ts.n_cand <<= 1;
    }
    ts.n_work = 0;
    for (uint32_t w = ts.n_cand; w <= (1u << 20); w <<= 1) {  // the largest that fits
        if (8ull * ts.n_cand + 4ull * w + 2ull * (4ull * w + dst_p) <= budget) {
            ts.n_work = w;
        }
    }
    if (ts.n_work == 0) {
        return false;
    }
    ts.n_seg            = (uint32_t) ((a->ne[0] + ts.n_work - 1) / ts.n_work);
    ts.rows             = (uint32_t) (a->ne[1] * a->ne[2] * a->ne[3]);
    need                = {};
    need.total_rows     = ts.rows * ts.n_seg;
    need.chunk_divides  = 1;
    need.bytes_per_row  = ts.n_work * 4 + dst_p;
    need.bytes_fixed    = 8 * ts.n_cand + 4 * ts.n_work;
    need.desc_per_chunk = 2;
    need.multi_row_ok   = false;
    return (uint64_t) ts.rows * ts.n_seg <= UINT32_MAX &&
           dma_fields_ok(caps, { a->nb[1], a->nb[2], op->nb[1], op->nb[2], (uint64_t) ts.n_work * 4 });
}

// An ARGSORT row in runs (npu/ops/argsort.cpp argsort_runs): n_pad (the power of two >= ne0)
// keys in runs of n_run (the largest power of two whose keys and indices, double-buffered, fit a
// thread's share; at most n_pad / 2), each sorted in VTCM and written to DDR after dst, then
// merged pairwise in blocks of n_blk (n_run / 4, at most 4096: 5 blocks of keys and indices fit
// where the runs' slots were). Rows are the virtual rows (run, i1, i2 + ne2 i3), as TOP_K's.
struct argsort_runs {
    uint32_t n_run, n_pad, n_runs, rows, n_blk;
    uint64_t scratch_off, scratch_bytes;  // from dst's data; the two areas' bytes
};

static bool argsort_run_need(const htp_device_caps & caps, const ggml_tensor * op, stream_need & need, argsort_runs & ar) {
    const ggml_tensor * a      = op->src[0];
    const bool          merged = a->ne[3] == 1 || (a->nb[3] == a->nb[2] * a->ne[2] && op->nb[3] == op->nb[2] * a->ne[2]);
    if (op->op != GGML_OP_ARGSORT || !merged || !ggml_is_contiguous(op)) {
        return false;
    }
    const uint64_t budget = (uint64_t) segment_elems(caps, 0, 1, 128) * 4;  // a thread's share
    ar.n_pad              = sort_len(op);
    ar.n_run              = 0;
    for (uint32_t w = 128; w <= ar.n_pad / 2; w <<= 1) {
        if (16ull * w <= budget) {
            ar.n_run = w;
        }
    }
    if (ar.n_run == 0) {
        return false;
    }
    ar.n_runs           = ar.n_pad / ar.n_run;
    ar.rows             = (uint32_t) (a->ne[1] * a->ne[2] * a->ne[3]);
    ar.n_blk            = std::min(ar.n_run / 4, 4096u);
    ar.scratch_off      = align_up((uint32_t) ggml_nbytes(op), 128);
    ar.scratch_bytes    = 2ull * ar.rows * 8ull * ar.n_pad;
    need                = {};
    need.total_rows     = ar.rows * ar.n_runs;
    need.chunk_divides  = 1;
    need.bytes_per_row  = 8 * ar.n_run;
    need.desc_per_chunk = 3;
    need.multi_row_ok   = false;
    return (uint64_t) ar.rows * ar.n_runs <= UINT32_MAX && ar.scratch_off + ar.scratch_bytes <= UINT32_MAX &&
           dma_1d_ok(4ull * ar.n_run);
}

static bool argsort_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a     = op->src[0];
    const bool          top_k = op->op == GGML_OP_TOP_K;
    const int32_t       order = top_k ? GGML_SORT_ORDER_DESC : op->op_params[0];
    const bool shape_ok = top_k ? op->ne[0] >= 1 && op->ne[0] <= a->ne[0] && op->ne[1] == a->ne[1] &&
                                      op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3]
                                : ggml_are_same_shape(a, op);
    if (a->type != GGML_TYPE_F32 || op->type != GGML_TYPE_I32 || !shape_ok || a->nb[0] != 4 ||
        op->nb[0] != 4 || !fits_u32(a) || !fits_u32(op) || ggml_nelements(a) == 0 || a->ne[0] > (1 << 20) ||
        (order != GGML_SORT_ORDER_ASC && order != GGML_SORT_ORDER_DESC)) {
        return false;
    }
    stream_need seg_need;
    top_k_segs  ts;
    argsort_runs ar;
    return rows_plan_ok(caps, argsort_need(caps, op)) ||
           (top_k_seg_need(caps, op, seg_need, ts) && rows_plan_ok(caps, seg_need)) ||
           (argsort_run_need(caps, op, seg_need, ar) && rows_plan_ok(caps, seg_need));
}

// The segmented TOP_K's params (top_k_seg_need): one segment per chunk, whole rows per thread.
static void top_k_seg_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_argsort_params & p) {
    const ggml_tensor * a = op->src[0];
    stream_need         need;
    top_k_segs          ts;
    top_k_seg_need(caps, op, need, ts);
    plan_rows(caps, need, p.split);
    split_whole_rows(p.split, ts.rows, ts.n_seg);
    p.ne0        = ts.n_work;
    p.n_sort     = ts.n_work;
    p.tail_bytes = 0;
    p.n_seg      = ts.n_seg;
    p.last_ne0   = (uint32_t) a->ne[0] - (ts.n_seg - 1) * ts.n_work;
    p.n_cand     = ts.n_cand;
    p.n_work     = ts.n_work;
    p.shape      = rows_shape(ts.n_seg, (uint32_t) a->ne[1]);
    p.src0       = rows_strides((uint64_t) ts.n_work * 4, a->nb[1], a->nb[2]);
    p.dst        = rows_strides(0, op->nb[1], op->nb[2]);
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, ts.n_work * 4, 1);
    p.vdst       = stream_at(off, p.split, align_up(p.n_out * 4, 128), 1);
    p.vwork      = off;
}

// The long-row ARGSORT's params (argsort_run_need): a run per chunk, whole rows per thread.
static void argsort_runs_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_argsort_params & p) {
    const ggml_tensor * a = op->src[0];
    stream_need         need;
    argsort_runs        ar;
    argsort_run_need(caps, op, need, ar);
    plan_rows(caps, need, p.split);
    split_whole_rows(p.split, ar.rows, ar.n_runs);
    p.ne0         = (uint32_t) a->ne[0];
    p.n_sort      = ar.n_run;
    p.tail_bytes  = 0;
    p.n_run       = ar.n_run;
    p.n_pad       = ar.n_pad;
    p.n_blk       = ar.n_blk;
    p.n_rows      = ar.rows;
    p.scratch_off = (uint32_t) ar.scratch_off;
    p.shape       = rows_shape(ar.n_runs, (uint32_t) a->ne[1]);
    p.src0        = rows_strides((uint64_t) ar.n_run * 4, a->nb[1], a->nb[2]);
    p.dst         = rows_strides(0, op->nb[1], op->nb[2]);
    uint32_t off  = 0;
    p.vsrc        = stream_at(off, p.split, ar.n_run * 4, 1);
    p.vdst        = stream_at(off, p.split, ar.n_run * 4, 1);
}

static void argsort_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor *  a = op->src[0];
    htp_argsort_params & p = desc.params.argsort;
    const bool           top_k = op->op == GGML_OP_TOP_K;
    desc.opcode            = top_k ? HTP_OP_TOP_K : HTP_OP_ARGSORT;
    p.n_out      = (uint32_t) op->ne[0];
    p.descending = top_k || op->op_params[0] == GGML_SORT_ORDER_DESC ? 1 : 0;
    p.n_seg      = 1;
    p.last_ne0   = (uint32_t) a->ne[0];
    p.n_cand     = 0;
    p.n_work     = 0;
    p.vwork      = 0;
    p.n_run       = 0;
    p.n_pad       = 0;
    p.n_blk       = 0;
    p.n_rows      = 0;
    p.scratch_off = 0;
    if (!rows_plan_ok(caps, argsort_need(caps, op))) {
        if (top_k) {
            top_k_seg_encode(caps, op, p);
        } else {
            argsort_runs_encode(caps, op, p);
        }
        return;
    }
    plan_rows(caps, argsort_need(caps, op), p.split);
    p.ne0        = (uint32_t) a->ne[0];
    p.n_sort     = sort_len(op);
    p.tail_bytes = p.ne0 * 4 % 128;
    p.shape      = rows_shape((uint32_t) a->ne[1], (uint32_t) a->ne[2]);
    p.src0       = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.dst        = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, p.n_sort * 4, p.split.rows_per_chunk);
    p.vdst       = stream_at(off, p.split, p.n_sort * 4, p.split.rows_per_chunk);
}

}  // namespace

uint64_t htp_op_dst_scratch(const htp_device_caps & caps, const ggml_tensor * op) {
    stream_need  need;
    argsort_runs ar;
    if (op->op != GGML_OP_ARGSORT || op->src[0] == nullptr || op->src[0]->type != GGML_TYPE_F32 ||
        rows_plan_ok(caps, argsort_need(caps, op)) || !argsort_run_need(caps, op, need, ar)) {
        return 0;
    }
    return ar.scratch_off + ar.scratch_bytes - ggml_nbytes(op);
}

extern const htp_op_encoder htp_argsort_encoder = { argsort_supports, argsort_encode };
