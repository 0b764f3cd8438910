// Host side of ROLL and PAD_REFLECT_1D (F32 rows, re-ordered by DMA and HVX: npu/ops/roll.cpp,
// npu/ops/pad-reflect.cpp).
#include "encode-util.h"

using namespace htp_enc;

namespace {

// ggml's shift (|s| < n) as the shift in [0, n) that moves elements the same way.
uint32_t shift_of(int32_t s, int64_t n) {
    return (uint32_t) (s < 0 ? s + n : s);
}

stream_need roll_need(const htp_device_caps & caps, const ggml_tensor * op) {
    stream_need need  = rows_in_out_need(caps, op, align_up((uint32_t) op->ne[0] * 4, 128));
    need.desc_per_chunk = 1;  // the write-back; the fetch is two descriptors a row
    need.desc_per_row   = 2;
    return need;
}

bool roll_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    if (a->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || !ggml_are_same_shape(a, op) || a->nb[0] != 4 ||
        op->nb[0] != 4 || !fits_u32(a) || !fits_u32(op) || !dma_1d_ok((uint64_t) a->ne[0] * 4)) {
        return false;
    }
    for (int d = 0; d < 4; d++) {
        const int32_t s = op->op_params[d];
        if (s <= -a->ne[d] || s >= a->ne[d]) {
            return false;  // ggml_roll asserts |s| < ne
        }
    }
    htp_split_params sp;
    return plan_rows(caps, roll_need(caps, op), sp);
}

void roll_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    htp_roll_params &   p = desc.params.roll;
    desc.opcode           = HTP_OP_ROLL;
    plan_rows(caps, roll_need(caps, op), p.split);
    p.ne0        = (uint32_t) a->ne[0];
    p.s0         = shift_of(op->op_params[0], a->ne[0]);
    p.s1         = shift_of(op->op_params[1], a->ne[1]);
    p.s2         = shift_of(op->op_params[2], a->ne[2]);
    p.s3         = shift_of(op->op_params[3], a->ne[3]);
    p.ne3        = (uint32_t) a->ne[3];
    p.shape      = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.src0       = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.dst        = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off = 0;
    const uint32_t pitch = align_up(p.ne0 * 4, 128);
    p.vsrc       = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    p.vdst       = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
}

// PAD_REFLECT_1D: op_params p0, p1 (each < ne0, ggml_pad_reflect_1d asserts it).
uint32_t reflect_src_pitch(const ggml_tensor * op) {
    return align_up((uint32_t) op->src[0]->ne[0] * 4, 128);
}

stream_need pad_reflect_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * a     = op->src[0];
    const uint32_t      pitch = reflect_src_pitch(op);
    stream_need         need  = {};
    need.total_rows           = (uint32_t) ggml_nrows(a);
    need.chunk_divides        = (uint32_t) a->ne[1];
    need.bytes_per_row        = 3 * pitch;  // the src row; rev and the row's copy in the dst slot
    need.desc_per_chunk       = 4;
    need.multi_row_ok         = dma_fields_ok(caps, { (uint64_t) op->ne[0] * 4, 2 * (uint64_t) pitch, a->nb[1], op->nb[1],
                                                      (uint64_t) a->ne[1] });
    return need;
}

bool pad_reflect_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a  = op->src[0];
    const int32_t       p0 = op->op_params[0], p1 = op->op_params[1];
    if (a->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || a->nb[0] != 4 || op->nb[0] != 4 || !fits_u32(a) ||
        !fits_u32(op) || p0 < 0 || p1 < 0 || p0 >= a->ne[0] || p1 >= a->ne[0] ||
        op->ne[0] != a->ne[0] + p0 + p1 || !dma_1d_ok((uint64_t) op->ne[0] * 4)) {
        return false;
    }
    for (int d = 1; d < 4; d++) {
        if (op->ne[d] != a->ne[d]) {
            return false;
        }
    }
    htp_split_params sp;
    return plan_rows(caps, pad_reflect_need(caps, op), sp);
}

void pad_reflect_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc,
                        const htp_encode_context &) {
    const ggml_tensor *      a = op->src[0];
    htp_pad_reflect_params & p = desc.params.pad_reflect;
    desc.opcode                = HTP_OP_PAD_REFLECT_1D;
    plan_rows(caps, pad_reflect_need(caps, op), p.split);
    const uint32_t pitch = reflect_src_pitch(op);
    p.ne0                = (uint32_t) a->ne[0];
    p.p0                 = (uint32_t) op->op_params[0];
    p.p1                 = (uint32_t) op->op_params[1];
    p.n_vec              = (p.ne0 + 31) / 32;
    p.pad_bytes          = 4 * (32 * p.n_vec - p.ne0);
    p.copy_off           = pitch;
    p.shape              = rows_shape((uint32_t) a->ne[1], (uint32_t) a->ne[2]);
    p.src0               = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.dst                = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off         = 0;
    p.vsrc               = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    p.vdst               = stream_at(off, p.split, 2 * pitch, p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_roll_encoder           = { roll_supports, roll_encode };
extern const htp_op_encoder htp_pad_reflect_1d_encoder = { pad_reflect_supports, pad_reflect_encode };
