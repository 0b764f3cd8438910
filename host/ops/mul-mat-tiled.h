// The tiled-weight HVX plan shared by MUL_MAT (the mm_tiled_hvx_* hooks of mul-mat-tiled.cpp)
// and MUL_MAT_ID over tiled expert stacks (mul-mat-id.cpp): threads, work items (column
// tiles x K chunks), buffers and the VTCM layout (htp-abi/params/mul-mat.h, docs/mul-mat.md
// "Tiled HVX path").
#pragma once
#include "encode-util.h"
#include "mul-mat-paths.h"

namespace htp_enc {

struct mmt_plan {
    uint32_t order, n_ct, n_kt, pitch, act_pitch, stage;
    uint32_t n_act, priv, out_per_row;
    uint32_t n_threads, q_threads, rpt, cpc, kpc, n_kchunks, n_bufs;
    uint32_t per_thread, vw_slot, vout_pitch, vacc_bytes, act_bytes;
    uint32_t bias;  // 1: a fused bias ADD (vbias slots, one more fetch descriptor per item)
};

// Plans the tiled weight w (layout tw; every plane of w must be addressable) against up to
// n_rows activation rows per pass, results written to rows dst_nb1 bytes apart. scatter:
// each activation row's results leave with their own descriptor (MUL_MAT_ID). bias: room for
// a fused bias ADD's slice next to each work item (MUL_MAT+ADD). False when the format or
// shape does not fit.
bool mmt_plan_tiled(const htp_device_caps & caps, const ggml_tensor * w, const htp_tiled_weight & tw, uint32_t n_rows,
                    uint64_t dst_nb1, bool scatter, bool bias, mmt_plan & pl);

// Fills p from the plan: weights w (tiled as tw), activations a, result dst (strides as
// they are; MUL_MAT's plane fields from a's and w's dims 2 and 3). With pl.bias the bias
// slots are placed; has_bias and the bias strides are the caller's.
void mmt_fill_tiled(const mmt_plan & pl, const ggml_tensor * w, const htp_tiled_weight & tw, const ggml_tensor * a,
                    const ggml_tensor * dst, htp_mul_mat_tiled_params & p);

}  // namespace htp_enc
