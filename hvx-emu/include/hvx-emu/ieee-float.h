// HVX IEEE-754 float arithmetic on sf (fp32) lanes, v68+ with -mhvx-ieee-fp.
// Each lane rounds to nearest-even and keeps subnormals, as the host's SSE/AVX arithmetic
// does with the default MXCSR (no FTZ/DAZ), so the host vector ops below are exact models.
// A NaN result is always the HVX default NaN 0x7fffffff (no payload or sign propagation), so
// the host's NaN (0xffc00000 for invalid, or a quieted input) is replaced.
#pragma once
#include "hvx-emu/types.h"

// NaN lanes of an sf vector replaced by the HVX default NaN 0x7fffffff
HVX_EMU_INLINE HVX_Vector hvx_emu_sf_default_nan(hvx_vsf r) {
#if defined(HVX_EMU_AVX512)
    // vfixupimmps classifies each lane of its second operand; table 0x11111100 answers QNaN
    // and SNaN (tokens 0, 1) with the first operand (the default NaN) and every other class
    // (zeros, +-1, infinities, finite values, subnormals too as MXCSR.DAZ is off) with the lane.
    union {
        hvx_vsf v;
        __m512  z[2];
    } u;
    u.v                = r;
    const __m512  dnan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
    const __m512i tab  = _mm512_set1_epi32(0x11111100);
    for (int k = 0; k < 2; k++) {
        u.z[k] = _mm512_fixupimm_ps(dnan, u.z[k], tab, 0);
    }
    return (HVX_Vector) u.v;
#else
    const hvx_vw nan = (hvx_vw) (r != r);
    return (HVX_Vector) (((hvx_vw) r & ~nan) | (nan & 0x7fffffff));
#endif
}

// Vd.sf = vadd(Vu.sf, Vv.sf)
HVX_EMU_INLINE HVX_Vector Q6_Vsf_vadd_VsfVsf(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(ALU);
    return hvx_emu_sf_default_nan((hvx_vsf) Vu + (hvx_vsf) Vv);
}

// Vd.sf = vsub(Vu.sf, Vv.sf)
HVX_EMU_INLINE HVX_Vector Q6_Vsf_vsub_VsfVsf(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(ALU);
    return hvx_emu_sf_default_nan((hvx_vsf) Vu - (hvx_vsf) Vv);
}

// Vd.sf = vmpy(Vu.sf, Vv.sf)
HVX_EMU_INLINE HVX_Vector Q6_Vsf_vmpy_VsfVsf(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(MPY);
    return hvx_emu_sf_default_nan((hvx_vsf) Vu * (hvx_vsf) Vv);
}
