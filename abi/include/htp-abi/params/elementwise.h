// kernel_params of UNARY (SILU, GELU, ...), GLU variants, ADD_ID, CLAMP, SQR, SQRT, LOG.
// Each struct starts with struct htp_split_params `split`; list every struct of this family
// in HTP_KERNEL_PARAMS_MEMBERS_ELEMENTWISE so it joins union htp_kernel_params.
#pragma once
#include <stdint.h>

struct htp_unary_params {
    struct htp_split_params split;  // placeholder until the family's kernels land
};

#define HTP_KERNEL_PARAMS_MEMBERS_ELEMENTWISE struct htp_unary_params unary;
