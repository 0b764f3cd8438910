// kernel_params of NORM, L2_NORM, RMS_NORM_MUL (fused), ROPE, SOFT_MAX, FLASH_ATTN_EXT.
// Each struct starts with struct htp_split_params `split`; list every struct of this family
// in HTP_KERNEL_PARAMS_MEMBERS_NORM_ROPE_SOFTMAX so it joins union htp_kernel_params.
#pragma once
#include <stdint.h>

struct htp_norm_params {
    struct htp_split_params split;  // placeholder until the family's kernels land
};

#define HTP_KERNEL_PARAMS_MEMBERS_NORM_ROPE_SOFTMAX struct htp_norm_params norm;
