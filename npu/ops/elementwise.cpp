// F32 / F16 (UNARY and GLU also BF16) elementwise ops: UNARY (ABS ... SOFTPLUS, XIELU, FLOOR, CEIL, ROUND, TRUNC), GLU (act(x) * g,
// fused or split operands), ADD_ID, CLAMP, SQR, SQRT, LOG, SIN, COS, LEAKY_RELU. One row stream per operand through VTCM; the activation is
// a per-kind template so the inner loop has no branch. F16 rows are widened to fp32 in a
// VTCM scratch, computed there and narrowed back into the dst slot. Transcendentals are in hvx-math.h.
#include "hvx-math.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

// Constants of the activations (ggml-cpu's values).
constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f;
constexpr float kGeluCoefA   = 0.044715f;
constexpr float kSqrt2Inv    = 0.70710678118654752440084436210484f;
constexpr float kGeluQuick   = 1.702f;

// GELU, tanh form, with ggml's cut-offs: x <= -10 -> 0, x >= 10 -> x. The activations with a
// transcendental inside one (GELU, GELU_ERF, SOFTPLUS, HARDSIGMOID) also come in two halves,
// *_a and *_b(x, a): the first ends with the exp (or divide), the second does the rest (see
// ew_two_pass below); gelu_sf(x) is gelu_b(x, gelu_a(x)), the same operations either way.
inline HVX_Vector gelu_inner(HVX_Vector x) {
    const HVX_Vector x2 = Q6_Vsf_vmpy_VsfVsf(x, x);
    return Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(x, splat_f32(kSqrt2OverPi)),
                              Q6_Vsf_vadd_VsfVsf(splat_f32(1.0f), Q6_Vsf_vmpy_VsfVsf(x2, splat_f32(kGeluCoefA))));
}

inline HVX_Vector gelu_a(HVX_Vector x) {
    return tanh_sf_exp(gelu_inner(x));
}

inline HVX_Vector gelu_b(HVX_Vector x, HVX_Vector a) {
    const HVX_Vector hx = Q6_Vsf_vmpy_VsfVsf(x, splat_f32(0.5f));
    HVX_Vector       y  = Q6_Vsf_vmpy_VsfVsf(hx, Q6_Vsf_vadd_VsfVsf(splat_f32(1.0f), tanh_sf_finish(gelu_inner(x), a)));
    y = Q6_V_vmux_QVV(sf_gt(x, splat_f32(9.99999905e0f)), x, y);                 // x >= 10
    y = Q6_V_vmux_QVV(sf_gt(splat_f32(-9.99999905e0f), x), Q6_V_vzero(), y);    // x <= -10
    return y;
}

inline HVX_Vector gelu_sf(HVX_Vector x) {
    return gelu_b(x, gelu_a(x));
}

inline HVX_Vector gelu_erf_a(HVX_Vector x) {
    return erf_sf_exp(Q6_Vsf_vmpy_VsfVsf(x, splat_f32(kSqrt2Inv)));
}

inline HVX_Vector gelu_erf_b(HVX_Vector x, HVX_Vector a) {
    const HVX_Vector hx = Q6_Vsf_vmpy_VsfVsf(x, splat_f32(0.5f));
    return Q6_Vsf_vmpy_VsfVsf(hx, Q6_Vsf_vadd_VsfVsf(splat_f32(1.0f), erf_sf_finish(Q6_Vsf_vmpy_VsfVsf(x, splat_f32(kSqrt2Inv)), a)));
}

inline HVX_Vector gelu_erf_sf(HVX_Vector x) {
    return gelu_erf_b(x, gelu_erf_a(x));
}

inline HVX_Vector gelu_quick_sf(HVX_Vector x) {
    return Q6_Vsf_vmpy_VsfVsf(x, sigmoid_sf(Q6_Vsf_vmpy_VsfVsf(x, splat_f32(kGeluQuick))));
}

inline HVX_Vector silu_sf(HVX_Vector x) {
    return Q6_Vsf_vmpy_VsfVsf(x, sigmoid_sf(x));
}

inline HVX_Vector relu_sf(HVX_Vector x) {
    return Q6_V_vmux_QVV(sf_gt(x, Q6_V_vzero()), x, Q6_V_vzero());
}

// x > 20 ? x : log(1 + e^x)
inline HVX_Vector softplus_c(HVX_Vector x, HVX_Vector y) {
    return Q6_V_vmux_QVV(sf_gt(x, splat_f32(20.0f)), x, y);
}

inline HVX_Vector softplus_a(HVX_Vector x) {
    return exp_sf(sf_min(x, splat_f32(20.0f)));
}

inline HVX_Vector softplus_b(HVX_Vector x, HVX_Vector a) {
    return softplus_c(x, log_sf_normal(Q6_Vsf_vadd_VsfVsf(splat_f32(1.0f), a)));
}

// min(1, max(0, (x + 3) / 6))
inline HVX_Vector hardsigmoid_a(HVX_Vector x) {  // div_sf(x + 3, 6): 6 is normal, div_sf_normal applies
    return div_sf_normal(Q6_Vsf_vadd_VsfVsf(x, splat_f32(3.0f)), splat_f32(6.0f), recip_sf(splat_f32(6.0f)));
}

inline HVX_Vector hardsigmoid_b(HVX_Vector a) {
    return sf_min(sf_max(a, Q6_V_vzero()), splat_f32(1.0f));
}

inline HVX_Vector hardsigmoid_sf(HVX_Vector x) {
    return hardsigmoid_b(hardsigmoid_a(x));
}

// FLOOR / CEIL / ROUND / TRUNC from t = trunc(|x|) (the 1.5 * 2^23 trick rounds |x| to nearest,
// stepped back where that went up) and frac = |x| - t (exact): one is added to t where the
// kind rounds |x| up, then x's sign is put back (ceil(-0.3) = -0). |x| >= 2^23, inf and NaN are
// integral already and kept.
template <int K> inline HVX_Vector round_sf(HVX_Vector x) {
    const HVX_Vector     sign = Q6_V_vand_VV(x, splat_i32(0x80000000));
    const HVX_Vector     a    = Q6_V_vxor_VV(x, sign);
    const HVX_Vector     m    = splat_f32(8388608.0f);  // 2^23
    HVX_Vector           t    = Q6_Vsf_vsub_VsfVsf(Q6_Vsf_vadd_VsfVsf(a, m), m);
    const HVX_Vector     one  = splat_f32(1.0f);
    t                         = Q6_V_vmux_QVV(sf_gt(t, a), Q6_Vsf_vsub_VsfVsf(t, one), t);
    const HVX_Vector     frac = Q6_Vsf_vsub_VsfVsf(a, t);
    HVX_VectorPred       up;
    const HVX_VectorPred has_frac = sf_gt(frac, Q6_V_vzero());
    const HVX_VectorPred neg      = Q6_Q_vcmp_gt_VwVw(Q6_V_vzero(), x);
    if (K == HTP_EW_ROUND) {
        up = Q6_Q_not_Q(sf_gt(splat_f32(0.5f), frac));  // frac >= 0.5
    } else if (K == HTP_EW_CEIL) {
        up = Q6_Q_and_QQ(has_frac, Q6_Q_not_Q(neg));
    } else if (K == HTP_EW_FLOOR) {
        up = Q6_Q_and_QQ(has_frac, neg);
    } else {
        up = Q6_Q_vcmp_gt_VwVw(Q6_V_vzero(), Q6_V_vzero());  // TRUNC: never
    }
    const HVX_Vector r = Q6_V_vor_VV(Q6_V_vmux_QVV(up, Q6_Vsf_vadd_VsfVsf(t, one), t), sign);
    return Q6_V_vmux_QVV(sf_gt(m, a), r, x);  // (NaN: its key is above 2^23's, kept)
}

// What compute_rows needs besides the row pointers, by reference (the call has five register
// arguments and nothing on the stack): the activation's parameters as vectors, the row
// pitches in vectors, the row length; for F16 rows the fp32 scratch rows.
struct ew_consts {
    HVX_Vector   p0, p1, p2, p3, p4;
    uint32_t     py, px, pg;
    uint32_t     n_vec;   // fp32 vectors per row
    uint32_t     n_half;  // F16: fp16 vectors per row; 0: the rows are F32
    uint32_t     two;     // F16: g is a second operand to widen
    HVX_Vector * xs;      // F16: fp32 scratch rows of x, g and y
    HVX_Vector * gs;
    HVX_Vector * ys;
};

// XIELU from x and a = expm1(x), as ggml-cpu's op_xielu: x > 0 ? alpha_p x x + beta x :
// (expm1(min(x, eps)) - x) alpha_n + beta x, with expm1(eps) (p4) where eps < x.
inline HVX_Vector xielu_b(HVX_Vector x, HVX_Vector a, const ew_consts & c) {
    const HVX_Vector bx  = Q6_Vsf_vmpy_VsfVsf(c.p2, x);
    const HVX_Vector pos = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(c.p1, x), x), bx);
    const HVX_Vector em  = Q6_Vsf_vsub_VsfVsf(Q6_V_vmux_QVV(sf_gt(x, c.p3), c.p4, a), x);
    const HVX_Vector neg = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(em, c.p0), bx);
    return Q6_V_vmux_QVV(sf_gt(x, Q6_V_vzero()), pos, neg);
}

// SWIGLU_OAI in two halves: a = sigmoid(p0 x'), then x' a (g' + 1) (x' = min(x, p1), g' =
// clamp(g, -p1, p1)); in one loop its constants and sigmoid_sf's divide spilled.
inline HVX_Vector swiglu_oai_a(HVX_Vector x, const ew_consts & c) {
    return sigmoid_sf(Q6_Vsf_vmpy_VsfVsf(c.p0, sf_min(x, c.p1)));
}

inline HVX_Vector swiglu_oai_b(HVX_Vector x, HVX_Vector a, HVX_Vector g, const ew_consts & c) {
    const HVX_Vector xl = sf_min(x, c.p1);
    const HVX_Vector nl = Q6_V_vxor_VV(c.p1, splat_i32(0x80000000));
    const HVX_Vector gl = sf_min(sf_max(g, nl), c.p1);
    return Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(xl, a), Q6_Vsf_vadd_VsfVsf(gl, splat_f32(1.0f)));
}

template <int K> inline HVX_Vector apply(HVX_Vector x, HVX_Vector g, const ew_consts & c) {
    switch (K) {
        case HTP_EW_ABS:         return sf_abs(x);
        case HTP_EW_NEG:         return Q6_V_vxor_VV(x, splat_i32(0x80000000));
        case HTP_EW_SQR:         return Q6_Vsf_vmpy_VsfVsf(x, x);
        case HTP_EW_SQRT:        return sqrt_sf(x);
        case HTP_EW_LOG:         return log_sf(x);
        case HTP_EW_EXP:         return exp_sf(x);
        case HTP_EW_TANH:        return tanh_sf(x);
        case HTP_EW_SIGMOID:     return sigmoid_sf(x);
        case HTP_EW_SILU:        return silu_sf(x);
        case HTP_EW_GELU:        return gelu_sf(x);
        case HTP_EW_GELU_ERF:    return gelu_erf_sf(x);
        case HTP_EW_GELU_QUICK:  return gelu_quick_sf(x);
        case HTP_EW_SOFTPLUS:    return softplus_b(x, softplus_a(x));
        case HTP_EW_RELU:        return relu_sf(x);
        case HTP_EW_CLAMP:       return sf_min(sf_max(x, c.p0), c.p1);
        case HTP_EW_REGLU:       return Q6_Vsf_vmpy_VsfVsf(relu_sf(x), g);
        case HTP_EW_GEGLU:       return Q6_Vsf_vmpy_VsfVsf(gelu_sf(x), g);
        case HTP_EW_GEGLU_ERF:   return Q6_Vsf_vmpy_VsfVsf(gelu_erf_sf(x), g);
        case HTP_EW_GEGLU_QUICK: return Q6_Vsf_vmpy_VsfVsf(gelu_quick_sf(x), g);
        case HTP_EW_SWIGLU:      return Q6_Vsf_vmpy_VsfVsf(silu_sf(x), g);
        case HTP_EW_SWIGLU_OAI:  return swiglu_oai_b(x, swiglu_oai_a(x, c), g, c);  // (runs as two passes)
        case HTP_EW_SWIGLU_CLAMP: {
            const HVX_Vector nl = Q6_V_vxor_VV(c.p1, splat_i32(0x80000000));
            return Q6_Vsf_vmpy_VsfVsf(silu_sf(sf_min(x, c.p1)), sf_min(sf_max(g, nl), c.p1));
        }
        case HTP_EW_SGN: {
            const HVX_Vector one = splat_f32(1.0f);
            const HVX_Vector pos = Q6_V_vmux_QVV(sf_gt(x, Q6_V_vzero()), one, Q6_V_vzero());
            return Q6_V_vmux_QVV(sf_gt(Q6_V_vzero(), x), splat_f32(-1.0f), pos);
        }
        case HTP_EW_STEP:        return Q6_V_vmux_QVV(sf_gt(x, Q6_V_vzero()), splat_f32(1.0f), Q6_V_vzero());
        case HTP_EW_ELU:         return Q6_V_vmux_QVV(sf_gt(x, Q6_V_vzero()), x, expm1_sf(x));
        case HTP_EW_HARDSWISH:   return Q6_Vsf_vmpy_VsfVsf(x, hardsigmoid_sf(x));
        case HTP_EW_HARDSIGMOID: return hardsigmoid_sf(x);
        case HTP_EW_EXPM1:       return expm1_sf(x);
        case HTP_EW_XIELU:       return xielu_b(x, expm1_sf(x), c);  // (runs as two passes)
        case HTP_EW_SIN:         return sincos_sf<false>(x);
        case HTP_EW_COS:         return sincos_sf<true>(x);
        case HTP_EW_FLOOR:
        case HTP_EW_CEIL:
        case HTP_EW_ROUND:
        case HTP_EW_TRUNC:       return round_sf<K>(x);
        case HTP_EW_LEAKY_RELU: {
            const HVX_Vector pos = Q6_V_vmux_QVV(sf_gt(x, Q6_V_vzero()), x, Q6_V_vzero());
            const HVX_Vector neg = Q6_V_vmux_QVV(sf_gt(Q6_V_vzero(), x), x, Q6_V_vzero());
            return Q6_Vsf_vadd_VsfVsf(pos, Q6_Vsf_vmpy_VsfVsf(c.p0, neg));
        }
        default:                 return Q6_Vsf_vadd_VsfVsf(x, g);  // ADD_ID
    }
}

// The kinds whose one-pass loop needs more than the 32 vector registers (their constants, kept
// in registers across the loop, spilled): two passes over the row instead, the first leaves
// the exp / divide part (*_a, tanh_sf_exp) in y, the second finishes from x and y (same
// operations per element, so the same results).
template <int K> struct ew_two_pass {
    static constexpr bool on = K == HTP_EW_TANH || K == HTP_EW_GELU || K == HTP_EW_GELU_ERF || K == HTP_EW_SOFTPLUS ||
                               K == HTP_EW_GEGLU || K == HTP_EW_GEGLU_ERF || K == HTP_EW_HARDSWISH ||
                               K == HTP_EW_HARDSIGMOID || K == HTP_EW_XIELU || K == HTP_EW_SWIGLU_OAI;
};

template <int K> inline HVX_Vector first_pass(HVX_Vector x, const ew_consts & c) {
    switch (K) {
        case HTP_EW_SWIGLU_OAI: return swiglu_oai_a(x, c);
        case HTP_EW_TANH:      return tanh_sf_exp(x);
        case HTP_EW_GELU:
        case HTP_EW_GEGLU:     return gelu_a(x);
        case HTP_EW_GELU_ERF:
        case HTP_EW_GEGLU_ERF: return gelu_erf_a(x);
        case HTP_EW_SOFTPLUS:  return softplus_a(x);
        case HTP_EW_XIELU:     return expm1_sf(x);
        default:               return hardsigmoid_a(x);  // HARDSWISH, HARDSIGMOID
    }
}

template <int K> inline HVX_Vector second_pass(HVX_Vector x, HVX_Vector a, HVX_Vector g, const ew_consts & c) {
    switch (K) {
        case HTP_EW_TANH:      return tanh_sf_finish(x, a);
        case HTP_EW_GELU:      return gelu_b(x, a);
        case HTP_EW_GEGLU:     return Q6_Vsf_vmpy_VsfVsf(gelu_b(x, a), g);
        case HTP_EW_GELU_ERF:  return gelu_erf_b(x, a);
        case HTP_EW_GEGLU_ERF: return Q6_Vsf_vmpy_VsfVsf(gelu_erf_b(x, a), g);
        // 1 + e^min(x, 20) is normal, positive and finite, or NaN: log_sf_normal is log_sf there
        case HTP_EW_SOFTPLUS:  return log_sf_normal(Q6_Vsf_vadd_VsfVsf(splat_f32(1.0f), a));  // then softplus_c
        case HTP_EW_HARDSWISH: return Q6_Vsf_vmpy_VsfVsf(x, hardsigmoid_b(a));
        case HTP_EW_XIELU:     return xielu_b(x, a, c);
        case HTP_EW_SWIGLU_OAI: return swiglu_oai_b(x, a, g, c);
        default:               return hardsigmoid_b(a);  // HARDSIGMOID
    }
}

// The kinds with a second operand row (GLU's gate, ADD_ID's bias): only they need the F16
// two-operand row loop, which for XIELU kept one scalar more than the registers hold.
template <int K> struct ew_two_operand {
    static constexpr bool on = (K >= HTP_EW_REGLU && K <= HTP_EW_SWIGLU_CLAMP) || K == HTP_EW_ADD_ID;
};

// Operand g's vector i for the kinds that read it (a counted load, npu/ops/hvx-vmem.h); the
// others get x's vector, which they ignore, and load nothing.
template <int K> inline HVX_Vector ew_operand(const HVX_Vector * g, uint32_t i, HVX_Vector x) {
    return ew_two_operand<K>::on ? hvx_vmem_load(g + i) : x;
}

// Out of line, one pass each: inlined into the row loop, both passes' constants were hoisted
// above it together.
template <int K>
HTP_COMPUTE void compute_pass_a(HVX_Vector * y, const HVX_Vector * x, uint32_t n_vec, const ew_consts & c) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n_vec; i++) {
        hvx_vmem_store(y + i, first_pass<K>(hvx_vmem_load(x + i), c));
    }
}

template <int K>
HTP_COMPUTE void compute_pass_b(HVX_Vector * y, const HVX_Vector * x, const HVX_Vector * g, uint32_t n_vec,
                                const ew_consts & c) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n_vec; i++) {
        const HVX_Vector xv = hvx_vmem_load(x + i);
        hvx_vmem_store(y + i, second_pass<K>(xv, hvx_vmem_load(y + i), ew_operand<K>(g, i, xv), c));
    }
}

// SOFTPLUS's last step (x > 20 ? x : y) as a pass of its own: with log's constants it spilled.
HTP_COMPUTE void compute_pass_softplus_c(HVX_Vector * y, const HVX_Vector * x, uint32_t n_vec) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n_vec; i++) {
        hvx_vmem_store(y + i, softplus_c(hvx_vmem_load(x + i), hvx_vmem_load(y + i)));
    }
}

template <int K> inline void apply_row(HVX_Vector * y, const HVX_Vector * x, const HVX_Vector * g, uint32_t n_vec,
                                       const ew_consts & c) {
    if (ew_two_pass<K>::on) {
        compute_pass_a<K>(y, x, n_vec, c);
        compute_pass_b<K>(y, x, g, n_vec, c);
        if (K == HTP_EW_SOFTPLUS) {
            compute_pass_softplus_c(y, x, n_vec);
        }
        return;
    }
    for (uint32_t i = 0; i < n_vec; i++) {
        const HVX_Vector xv = hvx_vmem_load(x + i);
        hvx_vmem_store(y + i, apply<K>(xv, ew_operand<K>(g, i, xv), c));
    }
}


// One F16 row widened to fp32 scratch, and back (out of line: the F16 row loops call them).
HTP_COMPUTE void compute_widen_row(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_half) {
    f16_to_f32_vectors(dst, src, n_half);
}

HTP_COMPUTE void compute_narrow_row(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_half) {
    f32_to_f16_vectors(dst, src, n_half);
}

// The F16 row loops of the two-pass kinds only call (their passes are calls); the others
// convert inline (a call there would spill the activation's vector constants).
template <int K> inline void widen_row(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_half) {
    if (ew_two_pass<K>::on) {
        compute_widen_row(dst, src, n_half);
    } else {
        f16_to_f32_vectors(dst, src, n_half);
    }
}

template <int K> inline void narrow_row(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_half) {
    if (ew_two_pass<K>::on) {
        compute_narrow_row(dst, src, n_half);
    } else {
        f32_to_f16_vectors(dst, src, n_half);
    }
}

// n_rows rows of op K; F16 rows are widened into the scratch rows, computed there and narrowed
// back into y, one row at a time (here, so that the row loop makes no call).
template <int K>
HTP_COMPUTE void compute_rows(HVX_Vector * y, const HVX_Vector * x, const HVX_Vector * g, uint32_t n_rows,
                              const ew_consts & c) {
    const uint32_t n_vec = c.n_vec;
    const uint32_t py = c.py, px = c.px, pg = c.pg;
    if (c.n_half == 0) {
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < n_rows; j++) {
            apply_row<K>(y, x, g, n_vec, c);
            x += px;
            g += pg;
            y += py;
        }
        return;
    }
    // A loop each for one and two operands, calls only (the row conversions too): what they
    // keep across the calls fits the callee-saved registers.
    const uint32_t n_half = c.n_half;
    HVX_Vector *   xs     = c.xs;
    HVX_Vector *   ys     = c.ys;
    if (!c.two || !ew_two_operand<K>::on) {  // (the unary kinds compile no two-operand loop)
        HTP_NO_UNROLL
        for (; n_rows > 0; n_rows--) {
            widen_row<K>(xs, x, n_half);
            apply_row<K>(ys, xs, xs, 2 * n_half, c);
            narrow_row<K>(y, ys, n_half);
            x += px;
            y += py;
        }
        return;
    }
    // The scratch rows, their length and the pitches are read from c at each use, not kept in
    // registers: with a two-pass kind whose passes read c (SWIGLU_OAI) the values kept across
    // the calls were one more than the callee-saved registers.
    HTP_NO_UNROLL
    for (; n_rows > 0; n_rows--) {
        widen_row<K>(c.xs, x, c.n_half);
        widen_row<K>(c.gs, g, c.n_half);
        apply_row<K>(c.ys, c.xs, c.gs, 2 * c.n_half, c);
        narrow_row<K>(y, c.ys, c.n_half);
        x += c.px;
        g += c.pg;
        y += c.py;
    }
}

// BF16 rows: the chunk's rows widened to fp32 rows of the wide scratch, and back (ggml's
// fp32 -> bf16: round to nearest even; a NaN stays a quiet NaN). Out of line, called once a
// chunk: the F32 row loop between them is compute_rows' own.
HTP_COMPUTE void compute_bf16_widen(HVX_Vector * dst, uint32_t dst_pitch, const HVX_Vector * src, uint32_t src_pitch,
                                    uint32_t n_rows, uint32_t n_half) {
    for (uint32_t j = 0; j < n_rows; j++) {
        bf16_to_f32_vectors(dst + j * dst_pitch, src + j * src_pitch, n_half);
    }
}

HTP_COMPUTE void compute_bf16_narrow(HVX_Vector * dst, uint32_t dst_pitch, const HVX_Vector * src, uint32_t src_pitch,
                                     uint32_t n_rows, uint32_t n_half) {
    for (uint32_t j = 0; j < n_rows; j++) {
        const HVX_Vector * x = src + j * src_pitch;
        HVX_Vector *       y = dst + j * dst_pitch;
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < n_half; i++) {
            hvx_vmem_store(&y[i], f32_to_bf16_vector(hvx_vmem_load(&x[2 * i]), hvx_vmem_load(&x[2 * i + 1])));
        }
    }
}

typedef void (*compute_fn)(HVX_Vector *, const HVX_Vector *, const HVX_Vector *, uint32_t, const ew_consts &);

// kCompute[k] = compute_rows<k> for every htp_ew_kind k (the kinds run 0 .. HTP_EW_KIND_COUNT - 1),
// generated so that a new kind needs no row here.
template <int... K> struct compute_table {
    static constexpr compute_fn fn[] = { compute_rows<K>... };
};
template <int N, int... K> struct make_compute_table : make_compute_table<N - 1, N - 1, K...> {};
template <int... K> struct make_compute_table<0, K...> : compute_table<K...> {};

constexpr const compute_fn * kCompute = make_compute_table<HTP_EW_KIND_COUNT>::fn;
static_assert(sizeof(make_compute_table<HTP_EW_KIND_COUNT>::fn) / sizeof(compute_fn) == HTP_EW_KIND_COUNT,
              "one compute per htp_ew_kind");

struct elementwise_op : row_op<htp_elementwise_params> {
    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const htp_context * ctx = octx->ctx;
        const row_pos       c   = row_coords(p->shape, r);
        const dma_addr_t    s0  = octx->src[0].data + p->src0_off + row_offset(p->src0, c.i1, c.i2, c.i3);
        const uint32_t      row = p->row_bytes;
        if (!dma_queue_push(q, vtcm_slot(ctx, p->split, ith, p->vsrc0, slot), s0, p->vsrc0.row_pitch, p->src0.nb1,
                            row, n)) {
            return -1;
        }
        if (!p->has_src1) {
            return 1;
        }
        const dma_addr_t v1 = vtcm_slot(ctx, p->split, ith, p->vsrc1, slot);
        if (p->kind == HTP_EW_ADD_ID) {  // one bias row per dst row, chosen by ids[i1, i2]
            for (uint32_t j = 0; j < n; j++) {
                const dma_addr_t ia = octx->src[2].data + row_offset(p->ids, c.i1 + j, c.i2, 0);
                const uint32_t   id = (uint32_t) *(const int32_t *) htp_va(ia);
                if (!dma_queue_push_1d(q, v1 + j * p->vsrc1.row_pitch, octx->src[1].data + id * p->src1.nb1, row)) {
                    return -1;  // stream_rows flushes what was queued
                }
            }
            return 1 + (int) n;
        }
        const dma_addr_t base1 = p->src1_is_src0 ? octx->src[0].data : octx->src[1].data;
        const dma_addr_t s1    = base1 + p->src1_off + row_offset(p->src1, c.i1, c.i2, c.i3);
        return dma_queue_push(q, v1, s1, p->vsrc1.row_pitch, p->src1.nb1, row, n) ? 2 : -1;
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const htp_context * ctx = octx->ctx;
        const HVX_Vector *  x   = vptr(vtcm_slot(ctx, p->split, ith, p->vsrc0, slot));
        const HVX_Vector *  g   = p->has_src1 ? vptr(vtcm_slot(ctx, p->split, ith, p->vsrc1, slot)) : x;
        HVX_Vector *        y   = vptr(vtcm_slot(ctx, p->split, ith, p->vdst, slot));
        const uint32_t      px  = p->vsrc0.row_pitch / 128;
        const uint32_t      pg  = p->has_src1 ? p->vsrc1.row_pitch / 128 : px;
        const uint32_t      py  = p->vdst.row_pitch / 128;
        ew_consts c = { splat_f32(p->p0), splat_f32(p->p1), splat_f32(p->p2), splat_f32(p->p3), splat_f32(p->p4),
                        py, px, pg, (p->ne0 + 31) / 32, 0, 0, nullptr, nullptr, nullptr };
        if (p->type == HTP_TYPE_BF16) {  // widened into the wide scratch, F32 rows there, narrowed back
            const uint32_t n_half = (p->ne0 + 63) / 64;
            const uint32_t wp     = p->vwide.row_pitch / 128;
            HVX_Vector *   xs     = vptr(vtcm_slot(ctx, p->split, ith, p->vwide, slot));
            HVX_Vector *   gs     = xs + p->wide_pitch / 128;
            HVX_Vector *   ys     = gs + p->wide_pitch / 128;
            compute_bf16_widen(xs, wp, x, px, n, n_half);
            if (p->has_src1) {
                compute_bf16_widen(gs, wp, g, pg, n, n_half);
            }
            c.py    = wp;
            c.px    = wp;
            c.pg    = wp;
            c.n_vec = 2 * n_half;
            kCompute[p->kind](ys, xs, p->has_src1 ? gs : xs, n, c);
            compute_bf16_narrow(y, py, ys, wp, n, n_half);
            return;
        }
        if (p->type != HTP_TYPE_F32) {  // F16
            c.n_half = (p->ne0 + 63) / 64;
            c.n_vec  = 2 * c.n_half;
            c.two    = p->has_src1;
            c.xs     = vptr(vtcm_at(ctx, p->split, ith, p->f16_scratch));
            c.gs     = c.xs + 2 * c.n_half;
            c.ys     = c.gs + 2 * c.n_half;
        }
        kCompute[p->kind](y, x, g, n, c);
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        return store_chunk(octx, p, ith, q, r, n, slot, p->row_bytes);
    }
};

}  // namespace

int htp_op_elementwise(struct htp_op_context * octx) {
    return run_rows<elementwise_op>(octx, octx->params->elementwise);
}
