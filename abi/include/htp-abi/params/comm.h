// kernel_params of the ops the host issues itself between devices (not from a ggml op):
// ALLREDUCE, the all-reduce of llama's tensor split (host/src/comm.cpp). List every struct of
// this family in HTP_KERNEL_PARAMS_MEMBERS_COMM so it joins union htp_kernel_params.
#pragma once
#include <stdint.h>

// ALLREDUCE F32: src[0 .. n_parts-1] are the same contiguous tensor's partial results, one
// per device of the communicator, in its order (dst is this device's own, one of them). Every
// device runs the op at once (a group of n_parts, npu/src/mdev.h): each takes its share of the
// rows, fetches those rows of every part, sums them in part order and writes the sum back into
// every part, so afterwards all parts hold the same sum. Rows are ne0 elements, row_bytes
// apart (the tensor flattened to total_rows = nelements / ne0 rows).
struct htp_allreduce_params {
    struct htp_split_params split;
    uint32_t ne0;
    uint32_t n_parts;                // 2 .. HTP_MAX_SRC
    uint32_t row_bytes;              // ne0 * 4: also the rows' stride in DDR
    struct htp_vtcm_stream vparts;   // a slot holds the chunk's rows of every part, part k at k * part_size
    uint32_t part_size;              // rows_per_chunk * vparts.row_pitch
    struct htp_vtcm_stream vsum;
};

#define HTP_KERNEL_PARAMS_MEMBERS_COMM \
    struct htp_allreduce_params allreduce;
