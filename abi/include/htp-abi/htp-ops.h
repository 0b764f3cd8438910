// Opcodes and the per-op kernel_params structs: the host precomputes every field, the NPU
// kernel honours every field and recomputes none (spec: "Strict Host-Kernel Alignment").
// One struct per op family; all live in the fixed-size union htp_kernel_params.
#pragma once
#include <stdint.h>

#include "htp-fastdiv.h"

enum htp_opcode {
    HTP_OP_NONE = 0,
    HTP_OP_ADD,
    HTP_OP_SUB,
    HTP_OP_MUL,
    HTP_OP_DIV,
    HTP_OP_RMS_NORM,
    HTP_OP_SCALE,
    HTP_OP_CPY,       // CPY, CONT and DUP: element copy with type conversion F32 <-> F16
    HTP_OP_GET_ROWS,
    HTP_OP_SET_ROWS,
    HTP_OP_COUNT
};

static inline const char * htp_opcode_name(uint32_t op) {
    static const char * const names[HTP_OP_COUNT] = {
        "NONE", "ADD", "SUB", "MUL", "DIV", "RMS_NORM", "SCALE", "CPY", "GET_ROWS", "SET_ROWS",
    };
    return op < HTP_OP_COUNT ? names[op] : "?";
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

// Op-specific structs are declared in htp-kernel-params.h.
#include "htp-kernel-params.h"

#define HTP_KERNEL_PARAMS_SIZE 512

union htp_kernel_params {
    struct htp_split_params split;  // common prefix of every struct below
    HTP_KERNEL_PARAMS_MEMBERS
    uint8_t raw[HTP_KERNEL_PARAMS_SIZE];
};
