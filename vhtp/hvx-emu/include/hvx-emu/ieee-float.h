// HVX IEEE-754 float arithmetic on sf (fp32) lanes, v68+ with -mhvx-ieee-fp.
// Each lane rounds to nearest-even and keeps subnormals, as the host's SSE/AVX arithmetic
// does with the default MXCSR (no FTZ/DAZ), so the host vector ops below are exact models.
// NaN results are whatever the host produces (a quiet NaN); payloads are not modelled.
#pragma once
#include "hvx-emu/types.h"

// Vd.sf = vadd(Vu.sf, Vv.sf)
HVX_EMU_INLINE HVX_Vector Q6_Vsf_vadd_VsfVsf(HVX_Vector Vu, HVX_Vector Vv) {
    return (HVX_Vector) ((hvx_vsf) Vu + (hvx_vsf) Vv);
}

// Vd.sf = vsub(Vu.sf, Vv.sf)
HVX_EMU_INLINE HVX_Vector Q6_Vsf_vsub_VsfVsf(HVX_Vector Vu, HVX_Vector Vv) {
    return (HVX_Vector) ((hvx_vsf) Vu - (hvx_vsf) Vv);
}

// Vd.sf = vmpy(Vu.sf, Vv.sf)
HVX_EMU_INLINE HVX_Vector Q6_Vsf_vmpy_VsfVsf(HVX_Vector Vu, HVX_Vector Vv) {
    return (HVX_Vector) ((hvx_vsf) Vu * (hvx_vsf) Vv);
}
