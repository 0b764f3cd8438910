// MUL_MAT flat HVX path: the weight types it dequantizes to an F32 row (host/ops/mul-mat/mul-mat.cpp
// is_dequant_weight, docs/mul-mat.md "Dequantized weights") with GET_ROWS' own row dequantizers,
// ggml's dequantize_row_* bit for bit: NVFP4, TQ1_0, TQ2_0 (npu/ops/dequant-lowbit.h) and the IQ
// codebook types (npu/ops/get-rows-iq.h). The row is then dotted on the F32 path, as F32 weights.
#pragma once
#include "dequant-lowbit.h"
#include "get-rows-iq.h"

namespace htp_ops {

// Weight row -> F32 row w of n_blocks blocks (super-blocks), its fields as DMA'd: f0 the scales
// (NVFP4, TQ) or the whole super-blocks, one a vector (IQ); f1 the quants (NVFP4, TQ).
static inline void mm_prep_dequant(uint32_t type, HVX_Vector * w, const HVX_Vector * f0, const HVX_Vector * f1,
                                   uint32_t n_blocks) {
    switch (type) {
        case HTP_TYPE_NVFP4:
            lowbit_rows::compute_nvfp4_row(w, f0, f1, n_blocks);
            break;
        case HTP_TYPE_TQ1_0:
            lowbit_rows::compute_ternary_row<HTP_TYPE_TQ1_0>(w, f0, f1, n_blocks);
            break;
        case HTP_TYPE_TQ2_0:
            lowbit_rows::compute_ternary_row<HTP_TYPE_TQ2_0>(w, f0, f1, n_blocks);
            break;
        case HTP_TYPE_IQ2_XXS:
            iq_rows::compute_iq_row<HTP_TYPE_IQ2_XXS>(w, f0, n_blocks);
            break;
        case HTP_TYPE_IQ2_XS:
            iq_rows::compute_iq_row<HTP_TYPE_IQ2_XS>(w, f0, n_blocks);
            break;
        case HTP_TYPE_IQ2_S:
            iq_rows::compute_iq_row<HTP_TYPE_IQ2_S>(w, f0, n_blocks);
            break;
        case HTP_TYPE_IQ3_XXS:
            iq_rows::compute_iq_row<HTP_TYPE_IQ3_XXS>(w, f0, n_blocks);
            break;
        case HTP_TYPE_IQ3_S:
            iq_rows::compute_iq_row<HTP_TYPE_IQ3_S>(w, f0, n_blocks);
            break;
        case HTP_TYPE_IQ1_S:
            iq_rows::compute_iq_row<HTP_TYPE_IQ1_S>(w, f0, n_blocks);
            break;
        default:  // IQ1_M (mul-mat-flat.h prep_weight sends only the types above)
            iq_rows::compute_iq_row<HTP_TYPE_IQ1_M>(w, f0, n_blocks);
            break;
    }
}

}  // namespace htp_ops
