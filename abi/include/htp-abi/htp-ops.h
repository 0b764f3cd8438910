// Opcodes and the per-op kernel_params structs: the host precomputes every field, the NPU
// kernel honours every field and recomputes none (spec: "Strict Host-Kernel Alignment").
// One struct per op family; all live in the fixed-size union htp_kernel_params.
#pragma once
#include <stdint.h>

#include "htp-fastdiv.h"

// Every NPU opcode, in ABI order (append only). Ops whose NPU kernel or host encoder is not
// written yet are simply never sent: the host's supports_op refuses them.
#define HTP_OPCODE_LIST(X)                                                          \
    X(NONE)                                                                         \
    X(ADD) X(SUB) X(MUL) X(DIV)             /* binary, broadcasting */              \
    X(RMS_NORM) X(SCALE)                                                            \
    X(CPY)                                  /* CPY, CONT and DUP */                 \
    X(GET_ROWS) X(SET_ROWS)                                                         \
    X(MUL_MAT) X(MUL_MAT_ID)                                                        \
    X(UNARY)                                /* sub-op in kernel_params */           \
    X(GLU)                                  /* sub-op in kernel_params */           \
    X(ADD_ID) X(CLAMP) X(SQR) X(SQRT) X(LOG)                                        \
    X(NORM) X(L2_NORM) X(RMS_NORM_MUL)      /* RMS_NORM_MUL: host fusion */         \
    X(ROPE) X(SOFT_MAX) X(FLASH_ATTN_EXT)                                           \
    X(CONCAT) X(REPEAT) X(PAD) X(FILL) X(DIAG) X(TRI)                               \
    X(SUM_ROWS) X(MEAN) X(CUMSUM) X(ARGSORT)                                        \
    X(SOLVE_TRI) X(SSM_CONV) X(GATED_DELTA_NET) X(IM2COL)                          \
    X(MUL_MAT_TILED)                        /* MUL_MAT, tiled weights, HVX */ \
    X(MUL_MAT_HMX)                          /* MUL_MAT, tiled (or rt-repacked flat) weights on HMX */ \
    X(MUL_MAT_ID_TILED)                     /* MUL_MAT_ID, tiled experts, HVX */ \
    X(MUL_MAT_ID_HMX)                       /* MUL_MAT_ID, tiled experts, HMX */

#define HTP_OPCODE_ENUM(name) HTP_OP_##name,
enum htp_opcode { HTP_OPCODE_LIST(HTP_OPCODE_ENUM) HTP_OP_COUNT };
#undef HTP_OPCODE_ENUM

static inline const char * htp_opcode_name(uint32_t op) {
#define HTP_OPCODE_NAME(name) #name,
    static const char * const names[HTP_OP_COUNT] = { HTP_OPCODE_LIST(HTP_OPCODE_NAME) };
#undef HTP_OPCODE_NAME
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
