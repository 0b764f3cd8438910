// Per-op kernel_params structs. Each starts with struct htp_split_params `split`.
// HTP_KERNEL_PARAMS_MEMBERS lists them as members of union htp_kernel_params.
#pragma once
#include <stdint.h>

struct htp_unary_placeholder_params {
    struct htp_split_params split;
};

#define HTP_KERNEL_PARAMS_MEMBERS struct htp_unary_placeholder_params placeholder;
