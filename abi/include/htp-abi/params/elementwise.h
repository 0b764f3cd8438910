// kernel_params of UNARY (SILU, GELU, ...), GLU variants, ADD_ID, CLAMP, SQR, SQRT, LOG, SIN, COS,
// LEAKY_RELU.
// Each struct starts with struct htp_split_params `split`; list every struct of this family
// in HTP_KERNEL_PARAMS_MEMBERS_ELEMENTWISE so it joins union htp_kernel_params.
#pragma once
#include <stdint.h>

// What the elementwise kernel computes per lane (x = src0 lane, g = src1 / gate lane).
enum htp_ew_kind {
    HTP_EW_ABS = 0,
    HTP_EW_NEG,
    HTP_EW_SQR,
    HTP_EW_SQRT,
    HTP_EW_LOG,
    HTP_EW_EXP,
    HTP_EW_TANH,
    HTP_EW_SIGMOID,
    HTP_EW_SILU,
    HTP_EW_GELU,        // tanh approximation, ggml's cut-offs at +-10
    HTP_EW_GELU_ERF,
    HTP_EW_GELU_QUICK,  // x * sigmoid(1.702 x)
    HTP_EW_SOFTPLUS,    // x > 20 ? x : log(1 + exp(x))
    HTP_EW_RELU,
    HTP_EW_CLAMP,       // min(max(x, p0), p1)
    HTP_EW_REGLU,       // GLU forms: act(x) * g
    HTP_EW_GEGLU,
    HTP_EW_GEGLU_ERF,
    HTP_EW_GEGLU_QUICK,
    HTP_EW_SWIGLU,
    HTP_EW_SWIGLU_OAI,  // x' = min(x, p1), g' = clamp(g, -p1, p1): x' * sigmoid(p0 x') * (g' + 1)
    HTP_EW_SWIGLU_CLAMP,  // silu(min(x, p1)) * clamp(g, -p1, p1)
    HTP_EW_SGN,
    HTP_EW_STEP,
    HTP_EW_ELU,         // x > 0 ? x : expm1(x)
    HTP_EW_HARDSWISH,
    HTP_EW_HARDSIGMOID,
    HTP_EW_EXPM1,
    HTP_EW_ADD_ID,      // x + src1 row ids[i1, i2]
    HTP_EW_XIELU,       // x > 0 ? p1 x x + p2 x : (expm1(min(x, p3)) - x) p0 + p2 x (ggml's op params 1..4)
    HTP_EW_SIN,         // Cephes' sinf / cosf reduction and polynomials (|x| < 8192)
    HTP_EW_COS,
    HTP_EW_FLOOR,
    HTP_EW_CEIL,
    HTP_EW_ROUND,       // half away from zero (roundf)
    HTP_EW_TRUNC,
    HTP_EW_LEAKY_RELU,  // max(x, 0) + p0 min(x, 0)
    HTP_EW_KIND_COUNT,  // last: the kernel's table has one entry per kind
};

// F32 / F16 elementwise ops (ADD_ID: F32 only; UNARY and GLU also BF16), one dst row of ne0 elements per row. src0 (and for two-operand kinds
// src1) rows come from the same (i1, i2, i3) coordinates as the dst row, plus a byte offset
// (the halves of a fused GLU input). ADD_ID takes the src1 row from ids[i1, i2] instead.
struct htp_elementwise_params {
    struct htp_split_params split;
    uint32_t kind;                   // enum htp_ew_kind
    uint32_t type;                   // HTP_TYPE_F32 / F16 / BF16 of every operand and dst
    uint32_t ne0;                    // elements per dst row
    uint32_t row_bytes;              // bytes of one dst row (ne0 * element size)
    uint32_t f16_scratch;            // F16: offset of 3 fp32 rows (x, g, y) of 2 * ceil(ne0 / 64) vectors
    uint32_t has_src1;               // 1: a second operand stream (GLU gate, ADD_ID bias rows)
    uint32_t src1_is_src0;           // 1: the second operand is the other half of src[0] (fused GLU)
    uint32_t src0_off, src1_off;     // bytes added to each operand's row address
    float p0, p1;                    // CLAMP: min, max; SWIGLU_OAI: alpha, limit; SWIGLU_CLAMP: -, limit; LEAKY_RELU: slope
    float p2, p3;                    // XIELU: p0..p3 = alpha_n, alpha_p, beta, eps
    float p4;                        // XIELU: expm1(eps) (min(x, eps) is eps for eps < x <= 0)
    struct htp_rows_shape shape;     // dst rows
    struct htp_rows_strides src0, src1, dst;  // ADD_ID: src1.nb1 = bytes between bias rows
    struct htp_rows_strides ids;     // ADD_ID: ids strides nb0 (i1), nb1 (i2), unused
    struct htp_vtcm_stream vsrc0, vsrc1, vdst;
    // BF16: a chunk's rows widened to fp32, per row x, g, y of wide_pitch bytes each (row_pitch
    // 3 * wide_pitch), computed as F32 rows there and narrowed back (unused otherwise)
    struct htp_vtcm_stream vwide;
    uint32_t wide_pitch;
};

#define HTP_KERNEL_PARAMS_MEMBERS_ELEMENTWISE struct htp_elementwise_params elementwise;
