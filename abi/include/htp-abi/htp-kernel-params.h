// The pieces every op family's kernel_params share, and the union's member list: each family
// keeps its structs (each starting with struct htp_split_params `split`) in its header under
// params/, one a family of tests/ops/*.ops, and HTP_KERNEL_PARAMS_MEMBERS joins their lists
// into union htp_kernel_params.
//
// Conventions shared by the row-streaming ops (binary, rms_norm, scale, cpy, get_rows,
// set_rows: params/core.h; and most of the other families):
// - A "row" is one ne[0] run of the iterated tensor; rows are numbered by flattening
//   (i1, i2, i3) as r = i1 + ne1 * (i2 + ne2 * i3). htp_rows_shape turns r back into
//   coordinates with fastdiv; byte offsets are sums of coordinate * stride (all < 4 GiB).
// - Thread ith owns rows [rows_per_thread * ith, min(that + rows_per_thread, total_rows)).
//   rows_per_thread is a multiple of rows_per_chunk, and rows_per_chunk divides ne1, so a
//   chunk never crosses an (i2, i3) plane: one 2-D DMA descriptor moves a whole chunk.
// - Each thread owns vtcm_per_thread bytes at vtcm_base + ith * vtcm_per_thread. A stream
//   (htp_vtcm_stream) is n_bufs slots of slot_size bytes at `offset` in that region; rows in
//   a slot are row_pitch apart (a multiple of 128, so HVX may read/write whole vectors past
//   the row's end without touching the next row).
// - In flight per thread: n_bufs chunks' fetch descriptors plus n_bufs chunks' write-back
//   descriptors; encoders keep that within HTP_DMA_INFLIGHT_MAX.
#pragma once
#include <stdint.h>

// Descriptors an op may keep queued on one DMA queue (dma_queue_capacity() is at least 64).
#define HTP_DMA_INFLIGHT_MAX 64u

struct htp_rows_shape {
    uint32_t ne1, ne2;           // rows per plane, planes per volume
    struct htp_fastdiv div_ne1;  // r -> (i1 = r % ne1, r / ne1)
    struct htp_fastdiv div_ne2;  // r / ne1 -> (i2, i3)
};

struct htp_rows_strides {
    uint32_t nb1, nb2, nb3;  // bytes between rows, planes, volumes
};

struct htp_vtcm_stream {
    uint32_t offset;     // bytes from the thread's VTCM base
    uint32_t slot_size;  // bytes per buffer slot
    uint32_t row_pitch;  // bytes between rows inside a slot (multiple of 128)
};

// Op families, one header each under params/ (so the families' authors do not edit each
// other's structs), named as the tests/ops/*.ops lists.
#include "params/attention.h"
#include "params/comm.h"
#include "params/core.h"
#include "params/data.h"
#include "params/elementwise.h"
#include "params/hyper-conn.h"
#include "params/mul-mat.h"
#include "params/norm-rope-softmax.h"
#include "params/sequence.h"

#define HTP_KERNEL_PARAMS_MEMBERS                \
    HTP_KERNEL_PARAMS_MEMBERS_CORE               \
    HTP_KERNEL_PARAMS_MEMBERS_MUL_MAT            \
    HTP_KERNEL_PARAMS_MEMBERS_ELEMENTWISE        \
    HTP_KERNEL_PARAMS_MEMBERS_HYPER_CONN         \
    HTP_KERNEL_PARAMS_MEMBERS_NORM_ROPE_SOFTMAX  \
    HTP_KERNEL_PARAMS_MEMBERS_DATA               \
    HTP_KERNEL_PARAMS_MEMBERS_SEQUENCE           \
    HTP_KERNEL_PARAMS_MEMBERS_ATTENTION          \
    HTP_KERNEL_PARAMS_MEMBERS_COMM
