// Host side of SUM_ROWS, MEAN, CUMSUM, ARGMAX and SUM (F32, rows of src0 streamed through VTCM).
#include "encode-util.h"

using namespace htp_enc;

namespace {

bool is_cumsum(const ggml_tensor * op) {
    return op->op == GGML_OP_CUMSUM;
}

// The rows the kernel walks: ne[0] adjacent elements each, ne[1..3] rows at nb[1..3] (src0's).
// SUM takes no view whose elements are apart (nb[0] != 4): ggml-cpu's sum reads ne[0] adjacent
// floats from each row's start whatever nb[0] is (it asserts nb[0] == 4 in debug builds only),
// so for such a view the CPU's result is no reference (docs/op-support.md).
struct reduce_walk {
    uint32_t ne[4];
    uint64_t nb[4];
};

bool walk_of(const ggml_tensor * op, reduce_walk & w) {
    const ggml_tensor * a = op->src[0];
    for (int d = 0; d < 4; d++) {
        w.ne[d] = (uint32_t) a->ne[d];
        w.nb[d] = a->nb[d];
    }
    return w.nb[0] == 4;
}

uint32_t src_pitch(const reduce_walk & w) {
    return align_up(w.ne[0] * 4, 128);
}

stream_need reduce_need(const htp_device_caps & caps, const ggml_tensor * op, const reduce_walk & w) {
    const uint32_t pitch = src_pitch(w);
    stream_need    need  = {};
    need.total_rows      = w.ne[1] * w.ne[2] * w.ne[3];
    need.chunk_divides   = w.ne[1];
    need.bytes_per_row   = pitch + (is_cumsum(op) ? pitch : 4);
    need.bytes_per_slot  = is_cumsum(op) ? 0 : 128;  // results packed 32 per vector, rounded up
    need.desc_per_chunk  = 2;
    need.multi_row_ok    = dma_field_ok(caps, (uint64_t) w.ne[0] * 4) && dma_field_ok(caps, pitch) &&
                        dma_field_ok(caps, w.nb[1]) && dma_field_ok(caps, op->nb[1]) && dma_field_ok(caps, w.ne[1]);
    return need;
}

// CUMSUM of a row longer than a thread's VTCM share (plan_rows finds no split for one whole
// row): each row streams as n_seg segments of `seg` elements (a multiple of 32, so the kernel's
// carry adds the same vector sums in the same order as for a whole row), as rows of a shape
// whose i1 is the segment, i2 the row's i1 and i3 its i2 + ne2 * i3 (ne2 and ne3 must then be
// one stride: ne3 1 or nb3 = ne2 * nb2, in src0 and dst). One thread walks a row's segments in
// order (npu/ops/reduce.cpp keeps the carry between them).
struct cumsum_segs {
    uint32_t seg, n_seg, rows;
};

bool cumsum_seg_need(const htp_device_caps & caps, const ggml_tensor * op, const reduce_walk & w, stream_need & need,
                     cumsum_segs & cs) {
    cs.seg            = segment_elems(caps, 0, 2 * 4, 32);  // src and dst slots, F32
    const bool merged     = (w.ne[3] == 1 || (w.nb[3] == w.nb[2] * w.ne[2] && op->nb[3] == op->nb[2] * w.ne[2]));
    if (!is_cumsum(op) || cs.seg == 0 || !merged) {
        return false;
    }
    cs.n_seg            = (w.ne[0] + cs.seg - 1) / cs.seg;
    cs.rows             = w.ne[1] * w.ne[2] * w.ne[3];
    need                = {};
    need.total_rows     = cs.rows * cs.n_seg;
    need.chunk_divides  = 1;
    need.bytes_per_row  = 2 * cs.seg * 4;
    need.desc_per_chunk = 2;
    need.multi_row_ok   = false;
    return (uint64_t) cs.rows * cs.n_seg <= UINT32_MAX &&
           dma_fields_ok(caps, { w.nb[1], w.nb[2], op->nb[1], op->nb[2], (uint64_t) cs.seg * 4 });
}

bool reduce_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    const ggml_type     t = op->op == GGML_OP_ARGMAX ? GGML_TYPE_I32 : GGML_TYPE_F32;
    reduce_walk         w;
    if (a->type != GGML_TYPE_F32 || op->type != t || op->nb[0] != 4 || !fits_u32(a) || !fits_u32(op) ||
        ggml_nelements(a) == 0 || !walk_of(op, w) || !dma_1d_ok((uint64_t) w.ne[0] * 4)) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_SUM:  // one value
            break;
        case GGML_OP_ARGMAX:  // a matrix in, one index per row out (ggml_argmax)
            if (a->ne[2] != 1 || a->ne[3] != 1 || op->ne[0] != a->ne[1] || a->ne[0] > INT32_MAX) {
                return false;
            }
            break;
        default:
            if (op->ne[0] != (is_cumsum(op) ? a->ne[0] : 1)) {
                return false;
            }
            for (int d = 1; d < 4; d++) {
                if (op->ne[d] != a->ne[d]) {
                    return false;
                }
            }
            break;
    }
    stream_need seg_need;
    cumsum_segs cs;
    return rows_plan_ok(caps, reduce_need(caps, op, w)) ||
           (cumsum_seg_need(caps, op, w, seg_need, cs) && rows_plan_ok(caps, seg_need));
}

// The segmented CUMSUM's params (cumsum_seg_need): plan_rows' split of the segments, made whole
// rows per thread.
void cumsum_seg_encode(const htp_device_caps & caps, const ggml_tensor * op, const reduce_walk & w,
                       htp_reduce_params & p) {
    stream_need need;
    cumsum_segs cs;
    cumsum_seg_need(caps, op, w, need, cs);
    plan_rows(caps, need, p.split);
    split_whole_rows(p.split, cs.rows, cs.n_seg);
    p.ne0                   = cs.seg;
    p.tail_bytes            = 0;
    p.n_seg                 = cs.n_seg;
    p.last_ne0              = w.ne[0] - (cs.n_seg - 1) * cs.seg;
    p.shape                 = rows_shape(cs.n_seg, w.ne[1]);
    p.src0                  = rows_strides((uint64_t) cs.seg * 4, w.nb[1], w.nb[2]);
    p.dst                   = rows_strides((uint64_t) cs.seg * 4, op->nb[1], op->nb[2]);
    uint32_t off            = 0;
    p.vsrc                  = stream_at(off, p.split, cs.seg * 4, 1);
    p.vdst                  = stream_at(off, p.split, cs.seg * 4, 1);
}

void reduce_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    htp_reduce_params & p = desc.params.reduce;
    reduce_walk         w;
    walk_of(op, w);
    // Each ggml op's NPU opcode and kind (SUM_ROWS: the first row, also the default).
    static const struct {
        ggml_op  op;
        uint32_t opcode, kind;
    } kOps[] = { { GGML_OP_SUM_ROWS, HTP_OP_SUM_ROWS, HTP_REDUCE_SUM },  { GGML_OP_MEAN, HTP_OP_MEAN, HTP_REDUCE_MEAN },
                 { GGML_OP_CUMSUM, HTP_OP_CUMSUM, HTP_REDUCE_CUMSUM }, { GGML_OP_ARGMAX, HTP_OP_ARGMAX, HTP_REDUCE_ARGMAX },
                 { GGML_OP_SUM, HTP_OP_SUM, HTP_REDUCE_SUM_ALL } };
    desc.opcode = kOps[0].opcode;
    p.kind      = kOps[0].kind;
    for (const auto & k : kOps) {
        if (k.op == op->op) {
            desc.opcode = k.opcode;
            p.kind      = k.kind;
        }
    }
    p.n_seg    = 1;
    p.last_ne0 = w.ne[0];
    p.scale    = op->op == GGML_OP_MEAN ? 1.0f / (float) w.ne[0] : 1.0f;
    if (is_cumsum(op) && !rows_plan_ok(caps, reduce_need(caps, op, w))) {
        cumsum_seg_encode(caps, op, w, p);
        return;
    }
    plan_rows(caps, reduce_need(caps, op, w), p.split);
    if (op->op == GGML_OP_SUM) {  // one accumulator: one thread walks every row
        p.split.n_threads       = 1;
        p.split.rows_per_thread = p.split.total_rows;
    }
    p.ne0        = w.ne[0];
    p.tail_bytes = p.ne0 * 4 % 128;
    p.shape      = rows_shape(w.ne[1], w.ne[2]);
    p.src0       = rows_strides(w.nb[1], w.nb[2], w.nb[3]);
    if (op->op == GGML_OP_ARGMAX) {  // row i1's index at dst element i1
        p.dst = rows_strides(op->nb[0], op->nb[1], op->nb[1]);
    } else {
        p.dst = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    }
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, src_pitch(w), p.split.rows_per_chunk);
    if (is_cumsum(op)) {
        p.vdst = stream_at(off, p.split, src_pitch(w), p.split.rows_per_chunk);
    } else {
        p.vdst = stream_at(off, p.split, 128, (p.split.rows_per_chunk + 31) / 32);
    }
}

}  // namespace

extern const htp_op_encoder htp_reduce_encoder = { reduce_supports, reduce_encode };
