// Host side of NORM and L2_NORM (F32, one row in, one row out).
#include <cstring>

#include "encode-util.h"

using namespace htp_enc;

namespace {

stream_need norm_need(const htp_device_caps & caps, const ggml_tensor * op) {
    return rows_in_out_need(caps, op, align_up((uint32_t) op->src[0]->ne[0] * 4, 128));
}

bool norm_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    if (op->type != GGML_TYPE_F32 || a->type != GGML_TYPE_F32 || !ggml_are_same_shape(a, op) || a->nb[0] != 4 ||
        op->nb[0] != 4 || !fits_u32(a) || !fits_u32(op) || !dma_1d_ok((uint64_t) a->ne[0] * 4)) {
        return false;
    }
    return rows_plan_ok(caps, norm_need(caps, op));
}

void fill(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, uint32_t opcode, uint32_t kind) {
    const ggml_tensor * a = op->src[0];
    htp_norm_params &   p = desc.params.norm;
    desc.opcode           = opcode;
    plan_rows(caps, norm_need(caps, op), p.split);
    const uint32_t pitch = align_up((uint32_t) a->ne[0] * 4, 128);
    p.kind               = kind;
    p.ne0                = (uint32_t) a->ne[0];
    std::memcpy(&p.eps, op->op_params, sizeof(float));
    p.inv_ne0    = 1.0f / (float) p.ne0;
    p.tail_bytes = p.ne0 * 4 % 128;
    rows_in_out(p, a, op, pitch);
}

void norm_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    fill(caps, op, desc, HTP_OP_NORM, HTP_NORM_MEAN_VAR);
}

void l2_norm_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    fill(caps, op, desc, HTP_OP_L2_NORM, HTP_NORM_L2);
}

}  // namespace

extern const htp_op_encoder htp_norm_encoder    = { norm_supports, norm_encode };
extern const htp_op_encoder htp_l2_norm_encoder = { norm_supports, l2_norm_encode };
