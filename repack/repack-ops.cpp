// The per-format table lookup and the column-tile repack. Freestanding (no heap, no
// exceptions, no libstdc++): besides the host library, the NPU libraries compile this file and
// the per-format files (repack-block32/-lowbit/-kquants/-scales.cpp) to repack flat weights at
// run time (rt-repack, docs/mul-mat.md "Paths"), so host and NPU share one repacker.
#include "repack-internal.h"

namespace htp_repack {

const format_ops * find_ops(enum htp_type type) {
    switch (type) {
        case HTP_TYPE_Q4_0:   return ops_q4_0();
        case HTP_TYPE_Q4_1:   return ops_q4_1();
        case HTP_TYPE_Q8_0:   return ops_q8_0();
        case HTP_TYPE_Q5_0:   return ops_q5_0();
        case HTP_TYPE_Q5_1:   return ops_q5_1();
        case HTP_TYPE_IQ4_NL: return ops_iq4_nl();
        case HTP_TYPE_MXFP4:  return ops_mxfp4();
        case HTP_TYPE_Q1_0:   return ops_q1_0();
        case HTP_TYPE_Q2_0:   return ops_q2_0();
        case HTP_TYPE_Q2_K:   return ops_q2_K();
        case HTP_TYPE_Q3_K:   return ops_q3_K();
        case HTP_TYPE_Q4_K:   return ops_q4_K();
        case HTP_TYPE_Q5_K:   return ops_q5_K();
        case HTP_TYPE_Q6_K:   return ops_q6_K();
        default: return nullptr;
    }
}

}  // namespace htp_repack

bool htp_repack_col_tile(enum htp_type type, void * dst_tiles, const void * src_flat, size_t src_row_stride,
                         int64_t n_k_tiles) {
    const htp_repack::format_ops * ops = htp_repack::find_ops(type);
    if (!ops || n_k_tiles <= 0) {
        return false;
    }
    for (int r = 0; r < HTP_TENSOR_TILE_N_ROWS; r++) {
        ops->pack_row((uint8_t *) dst_tiles, r, (const uint8_t *) src_flat + (size_t) r * src_row_stride, n_k_tiles);
    }
    return true;
}
