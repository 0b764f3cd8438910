// HVX unpack (widening, cross-lane) instructions (ISA: Unpack elements with zero/sign extend).
// vunpack keeps element order across the pair: element i of the source becomes element i of
// the 2x-wide pair viewed as one array (low register first). Contrast vsxt/vzxt, which split
// even and odd lanes between the registers.
#pragma once
#include "hvx-emu/types.h"

typedef int16_t  hvx_emu_wh __attribute__((vector_size(2 * HVX_EMU_VLEN)));
typedef uint16_t hvx_emu_wuh __attribute__((vector_size(2 * HVX_EMU_VLEN)));
typedef int32_t  hvx_emu_ww __attribute__((vector_size(2 * HVX_EMU_VLEN)));
typedef uint32_t hvx_emu_wuw __attribute__((vector_size(2 * HVX_EMU_VLEN)));

// Vdd = vunpack(Vu): every lane of VIEW widened to WIDE (signed views sign-extend, unsigned
// ones zero-extend): Vdd.h = vunpack(Vu.b), Vdd.uh = vunpack(Vu.ub), Vdd.w = vunpack(Vu.h),
// Vdd.uw = vunpack(Vu.uh).
#define HVX_EMU_VUNPACK(NAME, VIEW, WIDE) \
    HVX_EMU_V(HVX_VectorPair, NAME, PERMUTE, (HVX_VectorPair) __builtin_convertvector((VIEW) Vu, WIDE))
HVX_EMU_VUNPACK(Q6_Wh_vunpack_Vb, hvx_vb, hvx_emu_wh)
HVX_EMU_VUNPACK(Q6_Wuh_vunpack_Vub, hvx_vub, hvx_emu_wuh)
HVX_EMU_VUNPACK(Q6_Ww_vunpack_Vh, hvx_vh, hvx_emu_ww)
HVX_EMU_VUNPACK(Q6_Wuw_vunpack_Vuh, hvx_vuh, hvx_emu_wuw)

// Vd.h = vpacke(Vu.w, Vv.w): the low halfword of every word (truncation); Vv's in lanes
// [0, 32), Vu's in [32, 64).
HVX_EMU_INLINE HVX_Vector Q6_Vh_vpacke_VwVw(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(PERMUTE);
#if defined(HVX_EMU_AVX512)
    // The even halfwords of each source, one vpermt2w per result half.
    hvx_emu_simd U, V, D;
    U.v                = Vu;
    V.v                = Vv;
    const __m512i even = _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32, 30, 28, 26,
                                          24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    D.z[0]             = _mm512_permutex2var_epi16(V.z[0], even, V.z[1]);
    D.z[1]             = _mm512_permutex2var_epi16(U.z[0], even, U.z[1]);
    return D.v;
#else
    const hvx_vuw u = (hvx_vuw) Vu, v = (hvx_vuw) Vv;
    hvx_vuh       d;
    for (int i = 0; i < 32; i++) {
        d[i]      = (uint16_t) v[i];
        d[i + 32] = (uint16_t) u[i];
    }
    return (HVX_Vector) d;
#endif
}

// Vd.b = vpacke(Vu.h, Vv.h): the low byte of every halfword; Vv's in lanes [0, 64), Vu's in
// [64, 128).
HVX_EMU_INLINE HVX_Vector Q6_Vb_vpacke_VhVh(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(PERMUTE);
#if defined(HVX_EMU_AVX512)
    // The even bytes of each source (index 2k of its 128), one vpermt2b per result half.
    hvx_emu_simd U, V, D;
    U.v                = Vu;
    V.v                = Vv;
    const __m512i even = _mm512_add_epi8(hvx_emu_iota8(0), hvx_emu_iota8(0));
    D.z[0]             = _mm512_permutex2var_epi8(V.z[0], even, V.z[1]);
    D.z[1]             = _mm512_permutex2var_epi8(U.z[0], even, U.z[1]);
    return D.v;
#else
    const hvx_vuh u = (hvx_vuh) Vu, v = (hvx_vuh) Vv;
    hvx_vub       d;
    for (int i = 0; i < 64; i++) {
        d[i]      = (uint8_t) v[i];
        d[i + 64] = (uint8_t) u[i];
    }
    return (HVX_Vector) d;
#endif
}
