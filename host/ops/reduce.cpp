// Host side of SUM_ROWS, MEAN and CUMSUM (F32, rows of src0 streamed through VTCM).
#include "encode-util.h"

using namespace htp_enc;

namespace {

static bool is_cumsum(const ggml_tensor * op) {
    return op->op == GGML_OP_CUMSUM;
}

static uint32_t src_pitch(const ggml_tensor * op) {
    return align_up((uint32_t) op->src[0]->ne[0] * 4, 128);
}

static stream_need reduce_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * a     = op->src[0];
    const uint32_t      pitch = src_pitch(op);
    stream_need         need  = {};
    need.total_rows           = (uint32_t) ggml_nrows(a);
    need.chunk_divides        = (uint32_t) a->ne[1];
    need.bytes_per_row        = pitch + (is_cumsum(op) ? pitch : 4);
    need.bytes_per_slot       = is_cumsum(op) ? 0 : 128;  // results packed 32 per vector, rounded up
    need.desc_per_chunk       = 2;
    need.multi_row_ok = dma_field_ok(caps, (uint64_t) a->ne[0] * 4) && dma_field_ok(caps, pitch) &&
                        dma_field_ok(caps, a->nb[1]) && dma_field_ok(caps, op->nb[1]) && dma_field_ok(caps, (uint64_t) a->ne[1]);
    return need;
}

static bool reduce_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    if (a->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || a->nb[0] != 4 || op->nb[0] != 4 || !fits_u32(a) ||
        !fits_u32(op) || ggml_nelements(a) == 0 || !dma_1d_ok((uint64_t) a->ne[0] * 4)) {
        return false;
    }
    if (op->ne[0] != (is_cumsum(op) ? a->ne[0] : 1)) {
        return false;
    }
    for (int d = 1; d < 4; d++) {
        if (op->ne[d] != a->ne[d]) {
            return false;
        }
    }
    return rows_plan_ok(caps, reduce_need(caps, op));
}

static void reduce_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    htp_reduce_params & p = desc.params.reduce;
    switch (op->op) {
        case GGML_OP_MEAN:
            desc.opcode = HTP_OP_MEAN;
            p.kind      = HTP_REDUCE_MEAN;
            break;
        case GGML_OP_CUMSUM:
            desc.opcode = HTP_OP_CUMSUM;
            p.kind      = HTP_REDUCE_CUMSUM;
            break;
        default:
            desc.opcode = HTP_OP_SUM_ROWS;
            p.kind      = HTP_REDUCE_SUM;
            break;
    }
    plan_rows(caps, reduce_need(caps, op), p.split);
    p.ne0        = (uint32_t) a->ne[0];
    p.tail_bytes = p.ne0 * 4 % 128;
    p.scale      = op->op == GGML_OP_MEAN ? 1.0f / (float) a->ne[0] : 1.0f;
    p.shape      = rows_shape((uint32_t) a->ne[1], (uint32_t) a->ne[2]);
    p.src0       = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.dst        = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, src_pitch(op), p.split.rows_per_chunk);
    if (is_cumsum(op)) {
        p.vdst = stream_at(off, p.split, src_pitch(op), p.split.rows_per_chunk);
    } else {
        p.vdst = stream_at(off, p.split, 128, (p.split.rows_per_chunk + 31) / 32);
    }
}

}  // namespace

extern const htp_op_encoder htp_sum_rows_encoder = { reduce_supports, reduce_encode };
extern const htp_op_encoder htp_mean_encoder     = { reduce_supports, reduce_encode };
extern const htp_op_encoder htp_cumsum_encoder   = { reduce_supports, reduce_encode };
