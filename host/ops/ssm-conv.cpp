// Host side of SSM_CONV (F32): the Mamba-style depthwise causal convolution of
// ggml_compute_forward_ssm_conv_f32. dst rows are (token, sequence) of d_inner channels.
#include "encode-util.h"

using namespace htp_enc;

namespace {

static uint32_t ch_pitch(const ggml_tensor * op) {
    return align_up((uint32_t) op->ne[0] * 4, 128);
}

static stream_need ssm_conv_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * c      = op->src[1];
    const uint32_t      d_conv = (uint32_t) c->ne[0];
    const uint32_t      pitch  = ch_pitch(op);
    stream_need         need   = {};
    need.total_rows            = (uint32_t) (op->ne[1] * op->ne[2]);
    need.chunk_divides         = (uint32_t) op->ne[1];
    need.bytes_per_row         = 2 * pitch;                // one sx column in, one dst row out
    need.bytes_per_slot        = (d_conv - 1) * pitch;     // the window's extra columns
    need.bytes_fixed           = d_conv * pitch;           // the taps, transposed
    need.desc_per_chunk        = d_conv;                   // d_conv - 1 extra columns + the write-back
    need.desc_per_row          = 1;                        // one gather per sx column
    need.multi_row_ok = dma_field_ok(caps, op->nb[1]) && dma_field_ok(caps, pitch) &&
                        dma_field_ok(caps, (uint64_t) op->ne[0] * 4) && dma_field_ok(caps, (uint64_t) op->ne[1]);
    return need;
}

static bool ssm_conv_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * sx = op->src[0];
    const ggml_tensor * c  = op->src[1];
    if (sx->type != GGML_TYPE_F32 || c->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 ||
        sx->nb[0] != 4 || c->nb[0] != 4 || op->nb[0] != 4 || !fits_u32(sx) || !fits_u32(c) || !fits_u32(op) ||
        ggml_nelements(op) == 0) {
        return false;
    }
    const int64_t d_conv = c->ne[0], d_inner = c->ne[1];
    if (d_conv < 1 || sx->ne[1] != d_inner || op->ne[0] != d_inner || op->ne[1] != sx->ne[0] - d_conv + 1 ||
        op->ne[2] != sx->ne[2] || sx->ne[3] != 1 || op->ne[3] != 1 || c->ne[2] != 1 || c->ne[3] != 1) {
        return false;
    }
    // Gathers: d_inner rows of one element, channel stride apart.
    if (d_inner > 1 && (!dma_field_ok(caps, (uint64_t) d_inner) || !dma_field_ok(caps, sx->nb[1]) ||
                        !dma_field_ok(caps, c->nb[1]))) {
        return false;
    }
    return rows_plan_ok(caps, ssm_conv_need(caps, op));
}

static void ssm_conv_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor *   sx = op->src[0];
    const ggml_tensor *   c  = op->src[1];
    htp_ssm_conv_params & p  = desc.params.ssm_conv;
    desc.opcode              = HTP_OP_SSM_CONV;
    plan_rows(caps, ssm_conv_need(caps, op), p.split);
    p.d_conv  = (uint32_t) c->ne[0];
    p.d_inner = (uint32_t) c->ne[1];
    p.nb_sx1  = (uint32_t) sx->nb[1];
    p.nb_sx2  = (uint32_t) sx->nb[2];
    p.nb_c1   = (uint32_t) c->nb[1];
    p.shape   = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.dst     = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    p.pitch   = ch_pitch(op);
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, p.pitch, p.split.rows_per_chunk + p.d_conv - 1);
    p.vdst       = stream_at(off, p.split, p.pitch, p.split.rows_per_chunk);
    p.vc_offset  = off;
}

}  // namespace

extern const htp_op_encoder htp_ssm_conv_encoder = { ssm_conv_supports, ssm_conv_encode };
