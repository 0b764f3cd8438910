// 32 x 32 words transposed with HVX (no scatter / gather): LIGHTNING_INDEXER turns 32 keys of
// dequantized rows into element rows, the K-quant row quantizers (npu/ops/quantize-kquants.h)
// turn 32 sub-blocks into element rows (a lane per sub-block) and their codes back.
#pragma once
#include "hvx-util.h"
#include "quant-luts.h"
#include "row-stream.h"

namespace htp_ops {

// Word lane l: l (the lane masks of the transpose).
constexpr lane_words make_lane_index() {
    lane_words t{};
    for (uint32_t l = 0; l < 32; l++) {
        t.v[l] = l;
    }
    return t;
}

alignas(128) inline constexpr lane_words kLaneIndex = make_lane_index();

// 32 x 32 words: row r of x (rows xs vectors apart) -> row i of y (ys apart) holds lane i of
// every row of x. Five stages, d = 16, 8, .., 1: rows i and i + d (bit d of i clear) swap the
// lanes of row i with bit d set and the lanes of row i + d with it clear (rotated d lanes:
// the off-diagonal d x d blocks of each 2d x 2d block trade places); stages 16 .. 2 in place
// in x, the last one into y (y may be x).
// One stage: rows i, i + d of x (16 pairs) into the same rows of out (os vectors apart).
static HTP_INLINE void transpose_stage(HVX_Vector * out, uint32_t os, HVX_Vector * x, uint32_t xs, uint32_t d,
                                       HVX_Vector lanes) {
    const HVX_VectorPred clear = Q6_Q_vcmp_eq_VwVw(Q6_V_vand_VV(lanes, Q6_V_vsplat_R((int32_t) d)), Q6_V_vzero());
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 16; k++) {
        const uint32_t   i = ((k & ~(d - 1)) << 1) | (k & (d - 1));
        const HVX_Vector a = hvx_vmem_load(&x[i * xs]);
        const HVX_Vector b = hvx_vmem_load(&x[(i + d) * xs]);
        hvx_vmem_store(&out[i * os], Q6_V_vmux_QVV(clear, a, Q6_V_vror_VR(b, (int32_t) (128 - 4 * d))));
        hvx_vmem_store(&out[(i + d) * os], Q6_V_vmux_QVV(clear, Q6_V_vror_VR(a, (int32_t) (4 * d)), b));
    }
}

static HTP_COMPUTE void compute_transpose_32x32(HVX_Vector * y, uint32_t ys, HVX_Vector * x, uint32_t xs) {
    const HVX_Vector lanes = hvx_vmem_load_at(kLaneIndex.v);
    HTP_NO_UNROLL
    for (uint32_t d = 16; d >= 2; d >>= 1) {
        transpose_stage(x, xs, x, xs, d, lanes);
    }
    transpose_stage(y, ys, x, xs, 1, lanes);
}

}  // namespace htp_ops
