// kernel_params of CONCAT, REPEAT, PAD, FILL, DIAG, TRI, SUM_ROWS, MEAN, CUMSUM, ARGSORT and other data movement / reductions.
// Each struct starts with struct htp_split_params `split`; list every struct of this family
// in HTP_KERNEL_PARAMS_MEMBERS_DATA so it joins union htp_kernel_params.
#pragma once
#include <stdint.h>

struct htp_data_params {
    struct htp_split_params split;  // placeholder until the family's kernels land
};

#define HTP_KERNEL_PARAMS_MEMBERS_DATA struct htp_data_params data;
