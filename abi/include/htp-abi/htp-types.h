// Tensor element types as they cross the ABI: the values are ggml_type's (stable: GGUF stores
// them), so the host passes t->type unchanged; the host static_asserts the match. Block
// layouts of the quantized types kernels read in flat (not repacked) form are declared here
// too, so NPU code never includes ggml headers.
#pragma once
#include <stdint.h>

enum htp_type {
    HTP_TYPE_F32 = 0,
    HTP_TYPE_F16 = 1,
    HTP_TYPE_Q4_0 = 2,
    HTP_TYPE_Q4_1 = 3,
    HTP_TYPE_Q5_0 = 6,
    HTP_TYPE_Q5_1 = 7,
    HTP_TYPE_Q8_0 = 8,
    HTP_TYPE_Q2_K = 10,
    HTP_TYPE_Q3_K = 11,
    HTP_TYPE_Q4_K = 12,
    HTP_TYPE_Q5_K = 13,
    HTP_TYPE_Q6_K = 14,
    HTP_TYPE_IQ2_XXS = 16,  // ggml's IQ codebook types (super-blocks of 256: grid indices, signs,
    HTP_TYPE_IQ2_XS = 17,   // scales; the grids: npu/ops/iq-grids.h): GET_ROWS dequantizes them
    HTP_TYPE_IQ3_XXS = 18,
    HTP_TYPE_IQ1_S = 19,
    HTP_TYPE_IQ4_NL = 20,
    HTP_TYPE_IQ3_S = 21,
    HTP_TYPE_IQ2_S = 22,
    HTP_TYPE_IQ4_XS = 23,
    HTP_TYPE_I8 = 24,     // bytes: CPY's unit for a copy of quantized rows of an odd byte count
    HTP_TYPE_I32 = 26,
    HTP_TYPE_I64 = 27,
    HTP_TYPE_IQ1_M = 29,
    HTP_TYPE_BF16 = 30,
    HTP_TYPE_TQ1_0 = 34,  // ggml's GGML_TYPE_TQ1_0 (super-block of 256: base-3 digits, FP16 d)
    HTP_TYPE_TQ2_0 = 35,  // ggml's GGML_TYPE_TQ2_0 (super-block of 256: 2-bit codes, FP16 d)
    HTP_TYPE_MXFP4 = 39,
    HTP_TYPE_NVFP4 = 40,  // ggml's GGML_TYPE_NVFP4 (block of 64: 4 UE4M3 scales, 64 E2M1 nibbles)
    HTP_TYPE_Q1_0 = 41,   // ggml's GGML_TYPE_Q1_0 (block of 128: FP16 d + 128 sign bits)
    HTP_TYPE_Q2_0 = 42,   // ggml's GGML_TYPE_Q2_0 (block of 64: FP16 d + 64 2-bit codes)
};

// A type's storage unit: `elems` elements in `bytes` bytes (1 and the element size for the
// plain types, a block for the quantized ones); 0 for a type not listed. The dispatcher bounds
// tensor descriptors with it (npu/src/dispatcher.cpp); tests/kernels/test_op_list.cpp checks it
// against ggml's type traits.
static inline uint32_t htp_type_unit(uint32_t type, uint32_t * elems) {
    *elems = 1;
    switch (type) {
        case HTP_TYPE_F32: case HTP_TYPE_I32: return 4;
        case HTP_TYPE_F16: case HTP_TYPE_BF16: return 2;
        case HTP_TYPE_I8: return 1;
        case HTP_TYPE_I64: return 8;
        default: break;
    }
    *elems = 32;
    switch (type) {
        case HTP_TYPE_Q4_0: case HTP_TYPE_IQ4_NL: return 18;
        case HTP_TYPE_Q4_1: return 20;
        case HTP_TYPE_Q5_0: return 22;
        case HTP_TYPE_Q5_1: return 24;
        case HTP_TYPE_Q8_0: return 34;
        case HTP_TYPE_MXFP4: return 17;
        default: break;
    }
    *elems = 256;
    switch (type) {
        case HTP_TYPE_Q2_K: return 84;
        case HTP_TYPE_Q3_K: return 110;
        case HTP_TYPE_Q4_K: return 144;
        case HTP_TYPE_Q5_K: return 176;
        case HTP_TYPE_Q6_K: return 210;
        case HTP_TYPE_IQ4_XS: return 136;
        case HTP_TYPE_TQ1_0: return 54;
        case HTP_TYPE_TQ2_0: return 66;
        case HTP_TYPE_IQ2_XXS: return 66;
        case HTP_TYPE_IQ2_XS: return 74;
        case HTP_TYPE_IQ2_S: return 82;
        case HTP_TYPE_IQ3_XXS: return 98;
        case HTP_TYPE_IQ3_S: return 110;
        case HTP_TYPE_IQ1_S: return 50;
        case HTP_TYPE_IQ1_M: return 56;
        default: break;
    }
    *elems = type == HTP_TYPE_Q1_0 ? 128 : 64;
    if (type == HTP_TYPE_NVFP4) {
        return 36;
    }
    return type == HTP_TYPE_Q1_0 || type == HTP_TYPE_Q2_0 ? 18 : 0;
}

#define HTP_QK8_0 32
struct htp_block_q8_0 {
    uint16_t d;               // FP16 scale
    int8_t   qs[HTP_QK8_0];   // quants
};
