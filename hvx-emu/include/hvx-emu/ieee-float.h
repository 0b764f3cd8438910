// HVX IEEE-754 float arithmetic on sf (fp32) lanes, v68+ with -mhvx-ieee-fp.
// Each lane rounds to nearest-even and keeps subnormals, as the host's SSE/AVX arithmetic
// does with the default MXCSR (no FTZ/DAZ), so the host vector ops below are exact models.
// A NaN result is always the HVX default NaN 0x7fffffff (no payload or sign propagation), so
// the host's NaN (0xffc00000 for invalid, or a quieted input) is replaced.
#pragma once
#include "hvx-emu/types.h"

// NaN lanes of an sf vector replaced by the HVX default NaN 0x7fffffff
HVX_EMU_INLINE HVX_Vector hvx_emu_sf_default_nan(hvx_vsf r) {
    const hvx_vw nan = (hvx_vw) (r != r);
    return (HVX_Vector) (((hvx_vw) r & ~nan) | (nan & 0x7fffffff));
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
