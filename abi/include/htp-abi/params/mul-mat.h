// kernel_params of MUL_MAT, MUL_MAT_ID: weights x activations on the HVX (vec-dot) and HMX paths.
// Each struct starts with struct htp_split_params `split`; list every struct of this family
// in HTP_KERNEL_PARAMS_MEMBERS_MUL_MAT so it joins union htp_kernel_params.
#pragma once
#include <stdint.h>

struct htp_mul_mat_params {
    struct htp_split_params split;  // placeholder until the family's kernels land
};

#define HTP_KERNEL_PARAMS_MEMBERS_MUL_MAT struct htp_mul_mat_params mul_mat;
