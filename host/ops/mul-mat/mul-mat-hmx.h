// The HMX plan shared by MUL_MAT (the mm_hmx_* hooks of mul-mat-hmx.cpp) and MUL_MAT_ID over
// tiled expert stacks (mul-mat-id.cpp): chunk size, threads, buffers and the VTCM layout
// (htp-abi/params/mul-mat.h "MUL_MAT_HMX", docs/mul-mat.md "HMX path").
#pragma once
#include "encode-util.h"
#include "mul-mat-paths.h"

namespace htp_enc {

struct mmh_plan {
    uint32_t n_threads, a_threads, max_threads, n_bufs, kc_tiles, n_kc, n_mb, per_thread;
    uint32_t vraw_slot, vw_bytes, vout_slot, vstage_slot, vconv_bytes;
    uint32_t act_bytes;
    bool     store_per_row;
    // rt-repack (tw.flat): flat bytes per row and per fetch, repacked tiles per thread.
    uint32_t flat_row_bytes = 0, flat_chunk_bytes = 0, vtiles_bytes = 0;
};

// Plans op's weight (op->src[0], laid out as tw) against chunks of up to n_rows
// (<= HTP_MMH_MAX_ACT_ROWS) activation rows of op->src[1]; false when the format or shape
// does not fit.
bool mmh_plan_hmx(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw, uint32_t n_rows,
                  mmh_plan & pl);

// Fills p from the plan (MUL_MAT's plane fields from the dims 2 and 3 of op's sources).
void mmh_fill_hmx(const mmh_plan & pl, const ggml_tensor * op, const htp_tiled_weight & tw,
                  htp_mul_mat_hmx_params & p);

}  // namespace htp_enc
