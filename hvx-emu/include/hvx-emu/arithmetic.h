// HVX element-wise integer arithmetic (ISA: MMVECTOR ELEMENT-WISE ARITHMETIC).
// Plain vadd/vsub wrap modulo 2^width; :sat forms clamp to the lane type's range.
#pragma once
#include "hvx-emu/types.h"

// Vd.w / Vd.h = vadd / vsub(Vu, Vv)  (wraps; done in unsigned lanes so overflow is defined)
#define HVX_EMU_VWRAP(NAME, UVIEW, OP) HVX_EMU_VV(HVX_Vector, NAME, ALU, (HVX_Vector) ((UVIEW) Vu OP (UVIEW) Vv))
HVX_EMU_VWRAP(Q6_Vw_vadd_VwVw, hvx_vuw, +)
HVX_EMU_VWRAP(Q6_Vw_vsub_VwVw, hvx_vuw, -)
HVX_EMU_VWRAP(Q6_Vh_vadd_VhVh, hvx_vuh, +)
HVX_EMU_VWRAP(Q6_Vh_vsub_VhVh, hvx_vuh, -)

// Vd.w = vadd(Vu.w, Vv.w):sat  (signed saturation to [INT32_MIN, INT32_MAX])
HVX_EMU_INLINE HVX_Vector Q6_Vw_vadd_VwVw_sat(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(ALU);
    const hvx_vw s = (hvx_vw) ((hvx_vuw) Vu + (hvx_vuw) Vv);
    // Overflow iff both operands have the same sign and the sum's sign differs.
    const hvx_vw ovf = ((Vu ^ s) & (Vv ^ s)) >> 31;            // -1 on overflow
    const hvx_vw sat = (Vu >> 31) ^ INT32_MAX;  // INT32_MAX, or INT32_MIN when Vu < 0
    return (HVX_Vector) ((s & ~ovf) | (sat & ovf));
}

// Vd.w = vsub(Vu.w, Vv.w):sat
HVX_EMU_INLINE HVX_Vector Q6_Vw_vsub_VwVw_sat(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(ALU);
    const hvx_vw s = (hvx_vw) ((hvx_vuw) Vu - (hvx_vuw) Vv);
    // Overflow iff the operands differ in sign and the result's sign differs from Vu's.
    const hvx_vw ovf = ((Vu ^ Vv) & (Vu ^ s)) >> 31;
    const hvx_vw sat = (Vu >> 31) ^ INT32_MAX;
    return (HVX_Vector) ((s & ~ovf) | (sat & ovf));
}

// Vd.w = vmax(Vu.w, Vv.w) / vmin
HVX_EMU_VV(HVX_Vector, Q6_Vw_vmax_VwVw, ALU, (HVX_Vector) (Vu > Vv ? Vu : Vv))
HVX_EMU_VV(HVX_Vector, Q6_Vw_vmin_VwVw, ALU, (HVX_Vector) (Vu < Vv ? Vu : Vv))
