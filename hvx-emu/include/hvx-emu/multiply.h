// HVX integer multiplies (ISA: MMVECTOR MULTIPLICATIONS). Widening forms return pairs whose
// low register holds the even lanes' products and the high register the odd lanes'.
#pragma once
#include "hvx-emu/types.h"

// Vd.h = vmpyi(Vu.h, Vv.h): low 16 bits of each halfword product.
HVX_EMU_INLINE HVX_Vector Q6_Vh_vmpyi_VhVh(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(MPY);
    return (HVX_Vector) ((hvx_vuh) Vu * (hvx_vuh) Vv);
}

// Vdd.w = vmpy(Vu.h, Vv.h): full 32-bit products; Vdd.v[0].w[i] from the even halfwords
// (2i), Vdd.v[1].w[i] from the odd ones (2i+1).
HVX_EMU_INLINE HVX_VectorPair Q6_Ww_vmpy_VhVh(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(MPY);
    // Sign-extend each halfword within its word: even = (w << 16) >> 16, odd = w >> 16.
    const hvx_vw ue = (Vu << 16) >> 16, uo = Vu >> 16;
    const hvx_vw ve = (Vv << 16) >> 16, vo = Vv >> 16;
    // |product| <= 2^30, so 32-bit multiplication is exact.
    const hvx_vw lo = ue * ve, hi = uo * vo;
    return hvx_emu_pair((HVX_Vector) hi, (HVX_Vector) lo);
}

// Vd.w = vrmpy(Vu.b, Vv.b): each word lane is the sum of its four signed byte products
// (|sum| <= 4 * 128 * 128, no overflow).
HVX_EMU_INLINE HVX_Vector Q6_Vw_vrmpy_VbVb(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(MPY);
#if defined(__AVX2__)
    // Each 16-bit lane split into its sign-extended low (even) and high (odd) byte; vpmaddwd
    // then sums the two even and the two odd products of each word exactly (|sum| <= 2^15).
    union {
        HVX_Vector v;
        __m256i    y[4];
    } U, V, D;
    U.v = Vu;
    V.v = Vv;
    for (int k = 0; k < 4; k++) {
        const __m256i ue = _mm256_srai_epi16(_mm256_slli_epi16(U.y[k], 8), 8), uo = _mm256_srai_epi16(U.y[k], 8);
        const __m256i ve = _mm256_srai_epi16(_mm256_slli_epi16(V.y[k], 8), 8), vo = _mm256_srai_epi16(V.y[k], 8);
        D.y[k] = _mm256_add_epi32(_mm256_madd_epi16(ue, ve), _mm256_madd_epi16(uo, vo));
    }
    return D.v;
#else
    const hvx_vb u = (hvx_vb) Vu, v = (hvx_vb) Vv;
    hvx_vw       d;
    for (int i = 0; i < 32; i++) {
        d[i] = u[4 * i] * v[4 * i] + u[4 * i + 1] * v[4 * i + 1] + u[4 * i + 2] * v[4 * i + 2] +
               u[4 * i + 3] * v[4 * i + 3];
    }
    return (HVX_Vector) d;
#endif
}

// Vx.w += vrmpy(Vu.b, Vv.b) (wraps modulo 2^32 like the hardware).
HVX_EMU_INLINE HVX_Vector Q6_Vw_vrmpyacc_VwVbVb(HVX_Vector Vx, HVX_Vector Vu, HVX_Vector Vv) {
    return (HVX_Vector) ((hvx_vuw) Vx + (hvx_vuw) Q6_Vw_vrmpy_VbVb(Vu, Vv));
}
