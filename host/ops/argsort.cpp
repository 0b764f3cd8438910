// Host side of ARGSORT (F32 keys -> I32 indices along dim 0, ascending or descending) and TOP_K
// (the indices of the k largest: a descending sort whose first k indices are written). A TOP_K
// row longer than a thread's VTCM share streams in segments (as CUMSUM and SOFT_MAX do:
// host/ops/reduce.cpp, softmax.cpp), the k best so far kept in VTCM (npu/ops/argsort.cpp).
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

// A TOP_K row in segments: n_cand (a power of two >= k, >= 32) candidates and a segment of
// n_work - n_cand keys sorted together in a work buffer of n_work keys and indices (a power of
// two: the bitonic network), beside 2 segment slots and 2 slots of k indices. Rows are the
// virtual rows (segment, i1, i2 + ne2 i3), so ne3 must be 1 or one stride with ne2.
struct top_k_segs {
    uint32_t seg, n_seg, rows, n_cand, n_work;
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
    for (uint32_t w = 2 * ts.n_cand; w <= (1u << 20); w <<= 1) {  // the largest that fits
        if (8ull * w + 2ull * (4ull * (w - ts.n_cand) + dst_p) <= budget) {
            ts.n_work = w;
        }
    }
    if (ts.n_work == 0) {
        return false;
    }
    ts.seg              = ts.n_work - ts.n_cand;
    ts.n_seg            = (uint32_t) ((a->ne[0] + ts.seg - 1) / ts.seg);
    ts.rows             = (uint32_t) (a->ne[1] * a->ne[2] * a->ne[3]);
    need                = {};
    need.total_rows     = ts.rows * ts.n_seg;
    need.chunk_divides  = 1;
    need.bytes_per_row  = ts.seg * 4 + dst_p;
    need.bytes_fixed    = 8 * ts.n_work;
    need.desc_per_chunk = 2;
    need.multi_row_ok   = false;
    return (uint64_t) ts.rows * ts.n_seg <= UINT32_MAX &&
           dma_fields_ok(caps, { a->nb[1], a->nb[2], op->nb[1], op->nb[2], (uint64_t) ts.seg * 4 });
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
    return rows_plan_ok(caps, argsort_need(caps, op)) ||
           (top_k_seg_need(caps, op, seg_need, ts) && rows_plan_ok(caps, seg_need));
}

// The segmented TOP_K's params (top_k_seg_need): one segment per chunk, whole rows per thread.
static void top_k_seg_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_argsort_params & p) {
    const ggml_tensor * a = op->src[0];
    stream_need         need;
    top_k_segs          ts;
    top_k_seg_need(caps, op, need, ts);
    plan_rows(caps, need, p.split);
    split_whole_rows(p.split, ts.rows, ts.n_seg);
    p.ne0        = ts.seg;
    p.n_sort     = ts.n_work;
    p.tail_bytes = 0;
    p.n_seg      = ts.n_seg;
    p.last_ne0   = (uint32_t) a->ne[0] - (ts.n_seg - 1) * ts.seg;
    p.n_cand     = ts.n_cand;
    p.n_work     = ts.n_work;
    p.shape      = rows_shape(ts.n_seg, (uint32_t) a->ne[1]);
    p.src0       = rows_strides((uint64_t) ts.seg * 4, a->nb[1], a->nb[2]);
    p.dst        = rows_strides(0, op->nb[1], op->nb[2]);
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, ts.seg * 4, 1);
    p.vdst       = stream_at(off, p.split, align_up(p.n_out * 4, 128), 1);
    p.vwork      = off;
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
    if (!rows_plan_ok(caps, argsort_need(caps, op))) {
        top_k_seg_encode(caps, op, p);
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

extern const htp_op_encoder htp_argsort_encoder = { argsort_supports, argsort_encode };
