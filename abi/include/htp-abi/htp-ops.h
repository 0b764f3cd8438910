// Opcodes and the per-op kernel_params structs: the host precomputes every field, the NPU
// kernel honours every field and recomputes none (docs/architecture.md, "One op, end to end").
// One struct per op family; all live in the fixed-size union htp_kernel_params.
#pragma once
#include <stdint.h>

#include "htp-fastdiv.h"
#include "htp-op-list.h"

// Opcodes: HTP_OP_NONE (0, never valid in a message), then one per row of HTP_OP_LIST.
#define HTP_OPCODE_ENUM(name, origin, mdev, params, kernel, encoder) HTP_OP_##name,
enum htp_opcode { HTP_OP_NONE = 0, HTP_OP_LIST(HTP_OPCODE_ENUM) HTP_OP_COUNT };
#undef HTP_OPCODE_ENUM

static inline const char * htp_opcode_name(uint32_t op) {
#define HTP_OPCODE_NAME(name, origin, mdev, params, kernel, encoder) #name,
    static const char * const names[HTP_OP_COUNT] = { "NONE", HTP_OP_LIST(HTP_OPCODE_NAME) };
#undef HTP_OPCODE_NAME
    return op < HTP_OP_COUNT ? names[op] : "?";
}

// Whether every member of a device group runs the op on its own slice (MDEV column SPLIT), or
// member 0 runs it alone (DEV0).
static inline int htp_opcode_mdev_split(uint32_t op) {
#define HTP_MDEV_SPLIT_SPLIT 1
#define HTP_MDEV_SPLIT_DEV0  0
#define HTP_OPCODE_MDEV(name, origin, mdev, params, kernel, encoder) HTP_MDEV_SPLIT_##mdev,
    static const unsigned char split[HTP_OP_COUNT] = { 0, HTP_OP_LIST(HTP_OPCODE_MDEV) };
#undef HTP_OPCODE_MDEV
#undef HTP_MDEV_SPLIT_DEV0
#undef HTP_MDEV_SPLIT_SPLIT
    return op < HTP_OP_COUNT ? split[op] : 0;
}

// Fields every op's params start with: how the work is split. The host picks them; the
// kernel uses them as given.
struct htp_split_params {
    uint32_t n_threads;        // HVX threads to run on (1..session's n_hvx)
    uint32_t total_rows;       // outer dims flattened: ne1 * ne2 * ne3 of the iterated tensor
    uint32_t rows_per_thread;  // ceil(total_rows / n_threads)
    uint32_t rows_per_chunk;   // rows moved by one DMA transfer
    uint32_t n_bufs;           // DMA buffers per thread (2..16)
    uint32_t vtcm_per_thread;  // bytes of VTCM each thread owns, at vtcm_base + ith * vtcm_per_thread
};

// Op-specific structs are declared in htp-kernel-params.h (one header a family under params/).
#include "htp-kernel-params.h"

#define HTP_KERNEL_PARAMS_SIZE 512

union htp_kernel_params {
    struct htp_split_params split;  // common prefix of every struct below
    HTP_KERNEL_PARAMS_MEMBERS
    uint8_t raw[HTP_KERNEL_PARAMS_SIZE];
};
// Every struct fits the ABI's fixed size: a member that grew past it would grow the union.
#ifdef __cplusplus
static_assert(sizeof(union htp_kernel_params) == HTP_KERNEL_PARAMS_SIZE, "kernel_params outgrew HTP_KERNEL_PARAMS_SIZE");
#else
_Static_assert(sizeof(union htp_kernel_params) == HTP_KERNEL_PARAMS_SIZE, "kernel_params outgrew HTP_KERNEL_PARAMS_SIZE");
#endif

// Bytes of the params struct each opcode's kernel reads (HTP_OP_LIST's params column), 0 for
// HTP_OP_NONE and unknown opcodes.
static inline uint32_t htp_opcode_params_size(uint32_t op) {
#define HTP_OPCODE_PARAMS_SIZE(name, origin, mdev, params, kernel, encoder) \
    (uint32_t) sizeof(((union htp_kernel_params *) 0)->params),
    static const uint32_t sizes[HTP_OP_COUNT] = { 0, HTP_OP_LIST(HTP_OPCODE_PARAMS_SIZE) };
#undef HTP_OPCODE_PARAMS_SIZE
    return op < HTP_OP_COUNT ? sizes[op] : 0;
}
