// Small HVX building blocks the kernels share: float splats, lane extraction into a
// register-file copy (not a VTCM scalar read), fp16 <-> fp32 rows, vector row copies.
#pragma once
#include <stdint.h>

#include "htp/hvx.h"
#include "htp/memory.h"

namespace htp_ops {

static inline HVX_Vector splat_f32(float x) {
    int32_t bits;
    __builtin_memcpy(&bits, &x, 4);
    return Q6_V_vsplat_R(bits);
}

// Lane 0 of a vector as float (through a stack copy).
static inline float lane0_f32(HVX_Vector v) {
    float f;
    __builtin_memcpy(&f, &v, 4);
    return f;
}

// Sum of the 32 sf lanes, left in every lane (rotate-and-add tree).
static inline HVX_Vector reduce_sum_sf(HVX_Vector v) {
    for (int shift = 64; shift >= 4; shift >>= 1) {
        v = Q6_Vsf_vadd_VsfVsf(v, Q6_V_vror_VR(v, shift));
    }
    return v;
}

// Copies n_vec whole vectors (aligned on both sides).
static inline void copy_vectors(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_vec) {
    for (uint32_t i = 0; i < n_vec; i++) {
        dst[i] = src[i];
    }
}

// fp32 -> fp16 for 64 * n_out elements: reads 2 * n_out vectors, writes n_out.
static inline void f32_to_f16_vectors(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_out) {
    for (uint32_t i = 0; i < n_out; i++) {
        dst[i] = Q6_Vh_vdeal_Vh(Q6_Vhf_vcvt_VsfVsf(src[2 * i], src[2 * i + 1]));  // Vu -> even lanes
    }
}

// fp16 -> fp32 for 64 * n_in elements: reads n_in vectors, writes 2 * n_in.
static inline void f16_to_f32_vectors(HVX_Vector * dst, const HVX_Vector * src, uint32_t n_in) {
    for (uint32_t i = 0; i < n_in; i++) {
        const HVX_VectorPair w = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(src[i]));
        dst[2 * i]             = Q6_V_lo_W(w);
        dst[2 * i + 1]         = Q6_V_hi_W(w);
    }
}

static inline HVX_Vector * vptr(dma_addr_t a) {
    return (HVX_Vector *) htp_va(a);
}

}  // namespace htp_ops
