// F32 rows quantized into the ternary formats as SET_ROWS and CPY write them, bit for bit
// ggml's quantize_row_tq1_0_ref / quantize_row_tq2_0_ref (tests/kernels/test_npu_ops.cpp
// checks them against ggml's own). Both take super-blocks of 256 (8 vectors) with d = max |x|
// (FP16, through the row's F32 scale scratch as Q2_0's) and the codes roundf(x * (1 / d)) + 1
// of Q2_0 (ternary_codes, npu/ops/quantize-lanes.h); they differ in the packing:
// TQ2_0 2 bits a code, byte m of each 32 holding elements m, m + 32, m + 64, m + 96 of its 128;
// TQ1_0 5 codes a byte as base-3 digits (the first the most significant), the number q then
// scaled to ceil(q * 256 / 243) so the digits come back by multiplying by 3: 32 bytes of
// elements m + 32 n (n = 0..4), 16 of 160 + m + 16 n, and 4 (qh) of 240 + m + 4 n (n = 0..3,
// times 3).
#pragma once
#include "quantize-lanes.h"

namespace htp_ops {

// A TQ2_0 row, super-block by super-block: the 64 code bytes to the quants, d to the scratch.
static HTP_COMPUTE void compute_quant_row_tq2_0(const HVX_Vector * x, HVX_Vector * y, const htp_quant_row * L) {
    const quant_row_arrays a(y, *L);
    const uint32_t         nb = L->n_blocks;
    piece_collector<32>    qc = { Q6_V_vzero() };
    piece_collector<4>     dc = { Q6_V_vzero() };
    HTP_NO_UNROLL
    for (uint32_t b = 0; b < nb; b++) {
        const float amax = max_abs_sf(&x[8 * b], 8);
        const float id   = amax != 0.0f ? 1.0f / amax : 0.0f;
        HTP_NO_UNROLL
        for (uint32_t h = 0; h < 2; h++) {
            HVX_Vector w = Q6_V_vzero();
            HTP_NO_UNROLL
            for (uint32_t n = 0; n < 4; n++) {
                const HVX_Vector c = ternary_codes(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&x[8 * b + 4 * h + n]), splat_f32(id)));
                w                  = Q6_V_vor_VV(w, Q6_Vw_vasl_VwR(c, (int32_t) (2 * n)));
            }
            qc.push(word_bytes(w), a.quants, 2 * b + h, 2 * nb);
        }
        dc.push(splat_f32(amax), a.dscr, b, nb);
    }
}

// t * 3 + u on integer lanes (a base-3 digit appended).
HTP_INLINE HVX_Vector times3_add(HVX_Vector t, HVX_Vector u) {
    return Q6_Vw_vadd_VwVw(Q6_Vw_vadd_VwVw(Q6_Vw_vasl_VwR(t, 1), t), u);
}

// TQ1_0's byte of 5 digits q (0..242): ceil(q * 256 / 243) = floor((256 q + 242) / 243), taken
// as floor((256 q + 242.5) * fl(1 / 243)) in F32: the product lies within 3.1e-5 of the
// quotient, which is at least 0.5 / 243 from an integer.
HTP_INLINE HVX_Vector trit_byte(HVX_Vector q) {
    const HVX_Vector n = Q6_Vw_vadd_VwVw(Q6_Vw_vasl_VwR(q, 8), Q6_V_vsplat_R(242));
    const HVX_Vector f = Q6_Vsf_vadd_VsfVsf(int_to_sf_small(n), splat_f32(0.5f));
    return trunc_code(Q6_Vsf_vmpy_VsfVsf(f, splat_f32(1.0f / 243.0f)));
}

// A TQ1_0 row, super-block by super-block: qs[0..31] to the quants, qs[32..47] and qh[0..3]
// as 20 bytes of a 32-byte piece to the high array, d to the scratch.
static HTP_COMPUTE void compute_quant_row_tq1_0(const HVX_Vector * x, HVX_Vector * y, const htp_quant_row * L) {
    const quant_row_arrays a(y, *L);
    const uint32_t         nb   = L->n_blocks;
    const HVX_VectorPred   lo16 = Q6_Q_vsetq_R(64);
    piece_collector<32>    qc = { Q6_V_vzero() }, hc = { Q6_V_vzero() };
    piece_collector<4>     dc = { Q6_V_vzero() };
    HTP_NO_UNROLL
    for (uint32_t b = 0; b < nb; b++) {
        const HVX_Vector * xb   = &x[8 * b];
        const float        amax = max_abs_sf(xb, 8);
        const HVX_Vector   id   = splat_f32(amax != 0.0f ? 1.0f / amax : 0.0f);
        HVX_Vector         q1   = Q6_V_vzero();  // elements m + 32 n: vectors 0..4, lane m
        HTP_NO_UNROLL
        for (uint32_t v = 0; v < 5; v++) {
            q1 = times3_add(q1, ternary_codes(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&xb[v]), id)));
        }
        const HVX_Vector c5 = ternary_codes(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&xb[5]), id));
        const HVX_Vector c6 = ternary_codes(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&xb[6]), id));
        const HVX_Vector c7 = ternary_codes(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&xb[7]), id));
        // 160 + m + 16 n (lanes 0..15): vectors 5, 6 and their upper halves, then vector 7
        const HVX_Vector q2 =
            times3_add(times3_add(times3_add(times3_add(c5, Q6_V_vror_VR(c5, 64)), c6), Q6_V_vror_VR(c6, 64)), c7);
        // 240 + m + 4 n (lanes 0..3): vector 7's upper half t, lanes m, m + 4, m + 8, m + 12
        const HVX_Vector t  = Q6_V_vror_VR(c7, 64);
        const HVX_Vector q3 = times3_add(
            times3_add(times3_add(times3_add(t, Q6_V_vror_VR(t, 16)), Q6_V_vror_VR(t, 32)), Q6_V_vror_VR(t, 48)), Q6_V_vzero());
        qc.push(word_bytes(trit_byte(q1)), a.quants, b, nb);
        hc.push(word_bytes(trit_byte(Q6_V_vmux_QVV(lo16, q2, Q6_V_vror_VR(q3, 64)))), a.high, b, nb);
        dc.push(splat_f32(amax), a.dscr, b, nb);
    }
}

}  // namespace htp_ops
