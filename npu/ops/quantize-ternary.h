// F32 rows quantized into the ternary formats as SET_ROWS and CPY write them, bit for bit
// ggml's quantize_row_tq1_0_ref / quantize_row_tq2_0_ref (tests/kernels/test_npu_ops.cpp
// checks them against ggml's own). Both take super-blocks of 256 (8 vectors) with d = max |x|
// (FP16, through the row's F32 scale scratch as Q2_0's) and the codes roundf(x * (1 / d)) + 1
// of Q2_0 (ternary_codes, npu/ops/quantize-lanes.h); they differ in the packing:
// TQ2_0 2 bits a code, byte m of each 32 holding elements m, m + 32, m + 64, m + 96 of its 128.
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

}  // namespace htp_ops
