// Host side of the F32 / F16 (and for UNARY, GLU: BF16) elementwise family: UNARY, GLU (fused and split operands), ADD_ID,
// CLAMP, SQR, SQRT, LOG, SIN, COS, LEAKY_RELU. All run the one NPU kernel (npu/ops/elementwise.cpp); the kind and
// where each operand's rows come from are decided here.
#include <cmath>
#include <cstring>

#include "encode-util.h"

using namespace htp_enc;

namespace {

// Which kind the node computes, or -1.
int ew_kind(const ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_SQR:    return HTP_EW_SQR;
        case GGML_OP_SQRT:   return HTP_EW_SQRT;
        case GGML_OP_LOG:    return HTP_EW_LOG;
        case GGML_OP_CLAMP:  return HTP_EW_CLAMP;
        case GGML_OP_ADD_ID: return HTP_EW_ADD_ID;
        case GGML_OP_SIN:    return HTP_EW_SIN;
        case GGML_OP_COS:    return HTP_EW_COS;
        case GGML_OP_LEAKY_RELU: return HTP_EW_LEAKY_RELU;
        case GGML_OP_UNARY:
            switch (ggml_get_unary_op(op)) {
                case GGML_UNARY_OP_ABS:         return HTP_EW_ABS;
                case GGML_UNARY_OP_NEG:         return HTP_EW_NEG;
                case GGML_UNARY_OP_EXP:         return HTP_EW_EXP;
                case GGML_UNARY_OP_TANH:        return HTP_EW_TANH;
                case GGML_UNARY_OP_SIGMOID:     return HTP_EW_SIGMOID;
                case GGML_UNARY_OP_SILU:        return HTP_EW_SILU;
                case GGML_UNARY_OP_GELU:        return HTP_EW_GELU;
                case GGML_UNARY_OP_GELU_ERF:    return HTP_EW_GELU_ERF;
                case GGML_UNARY_OP_GELU_QUICK:  return HTP_EW_GELU_QUICK;
                case GGML_UNARY_OP_SOFTPLUS:    return HTP_EW_SOFTPLUS;
                case GGML_UNARY_OP_RELU:        return HTP_EW_RELU;
                case GGML_UNARY_OP_SGN:         return HTP_EW_SGN;
                case GGML_UNARY_OP_STEP:        return HTP_EW_STEP;
                case GGML_UNARY_OP_ELU:         return HTP_EW_ELU;
                case GGML_UNARY_OP_HARDSWISH:   return HTP_EW_HARDSWISH;
                case GGML_UNARY_OP_HARDSIGMOID: return HTP_EW_HARDSIGMOID;
                case GGML_UNARY_OP_EXPM1:       return HTP_EW_EXPM1;
                case GGML_UNARY_OP_XIELU:       return HTP_EW_XIELU;
                case GGML_UNARY_OP_FLOOR:       return HTP_EW_FLOOR;
                case GGML_UNARY_OP_CEIL:        return HTP_EW_CEIL;
                case GGML_UNARY_OP_ROUND:       return HTP_EW_ROUND;
                case GGML_UNARY_OP_TRUNC:       return HTP_EW_TRUNC;
                default:                        return -1;
            }
        case GGML_OP_GLU:
            switch (ggml_get_glu_op(op)) {
                case GGML_GLU_OP_REGLU:         return HTP_EW_REGLU;
                case GGML_GLU_OP_GEGLU:         return HTP_EW_GEGLU;
                case GGML_GLU_OP_GEGLU_ERF:     return HTP_EW_GEGLU_ERF;
                case GGML_GLU_OP_GEGLU_QUICK:   return HTP_EW_GEGLU_QUICK;
                case GGML_GLU_OP_SWIGLU:        return HTP_EW_SWIGLU;
                case GGML_GLU_OP_SWIGLU_OAI:    return HTP_EW_SWIGLU_OAI;
                case GGML_GLU_OP_SWIGLU_CLAMP:  return HTP_EW_SWIGLU_CLAMP;
                default:                        return -1;
            }
        default:                                return -1;
    }
}

int32_t param_i32(const ggml_tensor * op, int i) {
    int32_t v;
    std::memcpy(&v, (const char *) op->op_params + 4 * i, 4);
    return v;
}

float param_f32(const ggml_tensor * op, int i) {
    float v;
    std::memcpy(&v, (const char *) op->op_params + 4 * i, 4);
    return v;
}

// BF16 rows: UNARY and GLU (the ops whose ggml-cpu kernels take BF16).
bool is_bf16(const ggml_tensor * op) {
    return op->type == GGML_TYPE_BF16 && (op->op == GGML_OP_GLU || op->op == GGML_OP_UNARY);
}

// F32 rows, or F16 rows when the whole op is F16 (not ADD_ID), or BF16 (is_bf16).
bool float_rows(const ggml_tensor * t, const ggml_tensor * op) {
    const bool f16 = (op->type == GGML_TYPE_F16 && op->op != GGML_OP_ADD_ID) || is_bf16(op);
    return (t->type == GGML_TYPE_F32 || f16) && t->type == op->type && t->nb[0] == (size_t) ggml_type_size(t->type) &&
           fits_u32(t);
}

uint32_t elem_size(const ggml_tensor * op) {
    return op->type == GGML_TYPE_F16 || op->type == GGML_TYPE_BF16 ? 2 : 4;
}

// BF16: bytes of one fp32 row of the wide scratch (whole 64-element groups, as the widening writes).
uint32_t wide_pitch(const ggml_tensor * op) {
    return align_up((uint32_t) op->ne[0] * 4, 256);
}

bool same_rows(const ggml_tensor * a, const ggml_tensor * b) {
    return a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

bool shapes_ok(const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    const ggml_tensor * b = op->src[1];
    if (!float_rows(op, op) || !float_rows(a, op) || !dma_1d_ok((uint64_t) op->ne[0] * elem_size(op))) {
        return false;
    }
    if (op->op == GGML_OP_GLU) {
        if (b) {
            return float_rows(b, op) && ggml_are_same_shape(a, op) && ggml_are_same_shape(b, op);
        }
        return a->ne[0] / 2 == op->ne[0] && same_rows(a, op);  // odd ne0: the last element is unused
    }
    if (op->op == GGML_OP_ADD_ID) {
        const ggml_tensor * ids = op->src[2];
        return float_rows(b, op) && ids->type == GGML_TYPE_I32 && fits_u32(ids) && ggml_are_same_shape(a, op) &&
               b->ne[0] == a->ne[0] && ids->ne[0] == a->ne[1] && ids->ne[1] == a->ne[2] && a->ne[3] == 1;
    }
    return ggml_are_same_shape(a, op);
}

bool has_src1(const ggml_tensor * op) {
    return op->op == GGML_OP_GLU || op->op == GGML_OP_ADD_ID;
}

stream_need ew_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * a     = op->src[0];
    const ggml_tensor * b     = op->src[1] ? op->src[1] : a;
    const uint32_t      pitch = align_up((uint32_t) op->ne[0] * elem_size(op), 128);
    const bool          two   = has_src1(op);
    const bool          add_id = op->op == GGML_OP_ADD_ID;
    stream_need         need  = {};
    need.total_rows           = (uint32_t) ggml_nrows(op);
    need.chunk_divides        = (uint32_t) op->ne[1];
    need.bytes_per_row        = (two ? 3 : 2) * pitch + (is_bf16(op) ? 3 * wide_pitch(op) : 0);
    need.bytes_fixed          = op->type == GGML_TYPE_F16 ? 3 * align_up((uint32_t) op->ne[0] * 4, 256) : 0;
    need.desc_per_chunk       = add_id || !two ? 2 : 3;
    need.desc_per_row         = add_id ? 1 : 0;
    need.multi_row_ok = dma_field_ok(caps, (uint64_t) op->ne[0] * elem_size(op)) && dma_field_ok(caps, pitch) &&
                        dma_field_ok(caps, a->nb[1]) && dma_field_ok(caps, b->nb[1]) &&
                        dma_field_ok(caps, op->nb[1]) && dma_field_ok(caps, (uint64_t) op->ne[1]);
    return need;
}

bool ew_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    if (ew_kind(op) < 0 || !shapes_ok(op)) {
        return false;
    }
    return rows_plan_ok(caps, ew_need(caps, op));
}

void ew_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor *      a = op->src[0];
    const ggml_tensor *      b = op->src[1];
    htp_elementwise_params & p = desc.params.elementwise;
    switch (op->op) {
        case GGML_OP_UNARY:  desc.opcode = HTP_OP_UNARY; break;
        case GGML_OP_GLU:    desc.opcode = HTP_OP_GLU; break;
        case GGML_OP_ADD_ID: desc.opcode = HTP_OP_ADD_ID; break;
        case GGML_OP_CLAMP:  desc.opcode = HTP_OP_CLAMP; break;
        case GGML_OP_SQR:    desc.opcode = HTP_OP_SQR; break;
        case GGML_OP_SQRT:   desc.opcode = HTP_OP_SQRT; break;
        case GGML_OP_SIN:    desc.opcode = HTP_OP_SIN; break;
        case GGML_OP_COS:    desc.opcode = HTP_OP_COS; break;
        case GGML_OP_LEAKY_RELU: desc.opcode = HTP_OP_LEAKY_RELU; break;
        default:             desc.opcode = HTP_OP_LOG; break;
    }
    plan_rows(caps, ew_need(caps, op), p.split);
    const uint32_t pitch = align_up((uint32_t) op->ne[0] * elem_size(op), 128);
    p.kind               = (uint32_t) ew_kind(op);
    p.type               = (uint32_t) op->type;  // ggml_type values are the ABI's htp_type values
    p.ne0                = (uint32_t) op->ne[0];
    p.row_bytes          = p.ne0 * elem_size(op);
    p.has_src1           = has_src1(op) ? 1 : 0;
    p.src1_is_src0       = op->op == GGML_OP_GLU && !b ? 1 : 0;
    p.src0_off           = 0;
    p.src1_off           = 0;
    if (p.src1_is_src0) {  // fused GLU: x and g are the two halves of a src0 row
        const bool swapped = param_i32(op, 1) != 0;
        p.src0_off         = swapped ? p.row_bytes : 0;
        p.src1_off         = swapped ? 0 : p.row_bytes;
    }
    p.p0 = 0.0f;
    p.p1 = 0.0f;
    p.p2 = 0.0f;
    p.p3 = 0.0f;
    p.p4 = 0.0f;
    if (p.kind == HTP_EW_XIELU) {  // ggml_xielu stores alpha_n, alpha_p, beta, eps at 1..4
        p.p0 = param_f32(op, 1);
        p.p1 = param_f32(op, 2);
        p.p2 = param_f32(op, 3);
        p.p3 = param_f32(op, 4);
        p.p4 = expm1f(p.p3);
    } else if (op->op == GGML_OP_CLAMP || op->op == GGML_OP_LEAKY_RELU) {  // LEAKY_RELU: the slope at 0
        p.p0 = param_f32(op, 0);
        p.p1 = param_f32(op, 1);
    } else if (p.kind == HTP_EW_SWIGLU_OAI || p.kind == HTP_EW_SWIGLU_CLAMP) {
        p.p0 = param_f32(op, 2);  // alpha
        p.p1 = param_f32(op, 3);  // limit
    }
    p.shape = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.src0  = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    const ggml_tensor * s1 = b ? b : a;
    p.src1  = rows_strides(s1->nb[1], s1->nb[2], s1->nb[3]);
    p.dst   = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    p.ids   = {};
    if (op->op == GGML_OP_ADD_ID) {
        p.ids = rows_strides(op->src[2]->nb[0], op->src[2]->nb[1], 0);
    }
    uint32_t off = 0;
    p.vsrc0      = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    p.vsrc1      = {};
    if (p.has_src1) {
        p.vsrc1 = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    }
    p.vdst        = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    p.vwide      = {};
    p.wide_pitch = 0;
    if (is_bf16(op)) {
        p.wide_pitch = wide_pitch(op);
        p.vwide      = stream_at(off, p.split, 3 * p.wide_pitch, p.split.rows_per_chunk);
    }
    p.f16_scratch = off;  // F16 only: 3 fp32 rows, bytes_fixed in ew_need
}

}  // namespace

extern const htp_op_encoder htp_elementwise_encoder = { ew_supports, ew_encode };
