// What a kernel gets: the session context (threads, DMA queues, VTCM, trace writers) and the
// op with its tensors already mapped to device addresses and its host-made kernel_params.
#pragma once
#include <stdint.h>

#include "htp-abi/htp-abi.h"
#include "htp/htp-device.h"
#include "mdev.h"

// A tensor after the dispatcher mapped its buffer: data is a device address.
struct htp_tensor {
    dma_addr_t data;   // 0 for an absent optional src
    uint32_t   type;   // enum htp_type (== ggml_type)
    uint32_t   ne[4];
    uint32_t   nb[4];
    uint32_t   flags;  // enum htp_tensor_flags
};

struct htp_context {
    const struct htp_session_info * info;
    struct work_queue * work_queue;
    struct dma_queue *  dma[HTP_MAX_HVX_THREADS];  // dma[ith] belongs to HVX thread ith
    dma_addr_t vtcm_base;
    uint32_t   vtcm_size;
    uint32_t   n_hvx;
    struct htp_trace trace[HTP_MAX_HVX_THREADS];   // trace[ith]: writer for HVX thread ith
    struct htp_trace session_trace;                // the dispatcher's own writer
    struct htp_mdev  mdev;                         // the device group (mdev.count 1: alone)
};

struct htp_op_context {
    struct htp_context * ctx;
    uint32_t opcode;
    uint32_t n_src;
    struct htp_tensor dst;
    struct htp_tensor src[HTP_MAX_SRC];
    const union htp_kernel_params * params;
};

// An op's entry point: runs the op to completion, returns an htp_status.
typedef int (*htp_op_fn)(struct htp_op_context * octx);
