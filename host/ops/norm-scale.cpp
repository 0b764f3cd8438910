// Host side of RMS_NORM and SCALE (F32, one row in, one row out).
#include <cstring>

#include "encode-util.h"

using namespace htp_enc;

static bool rowwise_f32_ok(const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    return op->type == GGML_TYPE_F32 && a->type == GGML_TYPE_F32 && ggml_are_same_shape(a, op) && a->nb[0] == 4 &&
           op->nb[0] == 4 && fits_u32(a) && fits_u32(op) && dma_1d_ok((uint64_t) a->ne[0] * 4);
}

static stream_need rowwise_need(const htp_device_caps & caps, const ggml_tensor * op) {
    return rows_in_out_need(caps, op, align_up((uint32_t) op->src[0]->ne[0] * 4, 128));
}

static bool rowwise_supports(const htp_device_caps & caps, const ggml_tensor * op) {
    htp_split_params sp;
    return rowwise_f32_ok(op) && plan_rows(caps, rowwise_need(caps, op), sp);
}

// Common fields; returns the row pitch.
template <class P> static void rowwise_fill(const htp_device_caps & caps, const ggml_tensor * op, P & p) {
    const ggml_tensor * a = op->src[0];
    plan_rows(caps, rowwise_need(caps, op), p.split);
    const uint32_t pitch = align_up((uint32_t) a->ne[0] * 4, 128);
    p.ne0                = (uint32_t) a->ne[0];
    p.shape              = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.src0               = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.dst                = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off         = 0;
    p.vsrc               = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    p.vdst               = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
}

static void rms_norm_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc) {
    htp_rms_norm_params & p = desc.params.rms_norm;
    desc.opcode             = HTP_OP_RMS_NORM;
    rowwise_fill(caps, op, p);
    std::memcpy(&p.eps, op->op_params, sizeof(float));
    p.inv_ne0    = 1.0f / (float) p.ne0;
    p.tail_bytes = p.ne0 * 4 % 128;
}

static void scale_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc) {
    htp_scale_params & p = desc.params.scale;
    desc.opcode          = HTP_OP_SCALE;
    rowwise_fill(caps, op, p);
    float sb[2];
    std::memcpy(sb, op->op_params, sizeof(sb));
    p.scale    = sb[0];
    p.bias     = sb[1];
    p.has_bias = sb[1] != 0.0f;
}

extern const htp_op_encoder htp_rms_norm_encoder = { rowwise_supports, rms_norm_encode };
extern const htp_op_encoder htp_scale_encoder    = { rowwise_supports, scale_encode };
