// The flat-weight HVX plan shared by MUL_MAT (mul-mat.cpp) and MUL_MAT_ID (mul-mat-id.cpp):
// how a flat weight row splits into DMA fields, activation / weight chunk sizes and the VTCM
// layout (see htp-abi/params/mul-mat.h, docs/mul-mat.md).
#pragma once
#include "encode-util.h"

namespace htp_enc {

struct mm_field {
    uint32_t src, size;
    uint32_t dst_stride;  // 0: dense (the field's size)
    int32_t  same_as;     // >= 0: shares that field's VTCM area, dst_off bytes further
    uint32_t dst_off;
};

struct mm_plan {
    uint32_t path, k_vecs, n_fields;
    mm_field f[HTP_MM_MAX_FIELDS];
    uint32_t n_blocks, block_bytes;
    uint32_t raw_pitch, field_vtcm[HTP_MM_MAX_FIELDS], field_stride[HTP_MM_MAX_FIELDS];
    uint32_t split_elems, b_offset, n_lo, planes;
    uint32_t wprep_bytes, wprep_total, act_part, act_pitch, stage_pitch;
    uint32_t n_act, rpc, n_bufs, n_threads, q_threads, per_thread, act_offset;
    uint32_t bias;  // 1: room for a bias slice per chunk (MUL_MAT+ADD: vbias, one more fetch descriptor)
};

// Plans weights `w` (flat) against up to n_act activation rows per chunk (1..32). scatter:
// each activation row's results leave with their own descriptor (MUL_MAT_ID) instead of one
// 2-D descriptor per chunk. bias: plan for a fused bias ADD (mm_fill_flat places vbias).
// False when the type or shape does not fit.
bool mm_plan_flat(const htp_device_caps & caps, const ggml_tensor * w, uint32_t n_act, bool scatter, mm_plan & pl,
                  bool bias = false);

// Fills p from the plan: weights w, activations a, result dst (strides as they are).
void mm_fill_flat(const mm_plan & pl, const ggml_tensor * w, const ggml_tensor * a, const ggml_tensor * dst,
                  htp_mul_mat_params & p);

}  // namespace htp_enc
