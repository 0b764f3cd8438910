// HVX logical operations and shifts (ISA: MMVECTOR LOGICAL OPERATIONS, MMVECTOR SHIFTING).
// Scalar shift amounts use only their low log2(width) bits, as the hardware does.
#pragma once
#include "hvx-emu/types.h"

HVX_EMU_INLINE HVX_Vector Q6_V_vand_VV(HVX_Vector Vu, HVX_Vector Vv) { HVX_EMU_COUNT(ALU); return Vu & Vv; }
HVX_EMU_INLINE HVX_Vector Q6_V_vor_VV(HVX_Vector Vu, HVX_Vector Vv) { HVX_EMU_COUNT(ALU); return Vu | Vv; }
HVX_EMU_INLINE HVX_Vector Q6_V_vxor_VV(HVX_Vector Vu, HVX_Vector Vv) { HVX_EMU_COUNT(ALU); return Vu ^ Vv; }
HVX_EMU_INLINE HVX_Vector Q6_V_vnot_V(HVX_Vector Vu) { HVX_EMU_COUNT(ALU); return ~Vu; }

// Vd = #0 (vd0)
HVX_EMU_INLINE HVX_Vector Q6_V_vzero(void) {
    HVX_EMU_COUNT(ALU);
    const HVX_Vector z = { 0 };
    return z;
}

// Vd.w = vasl(Vu.w, Rt): shift left by Rt & 31
HVX_EMU_INLINE HVX_Vector Q6_Vw_vasl_VwR(HVX_Vector Vu, int32_t Rt) {
    HVX_EMU_COUNT(ALU);
    return (HVX_Vector) ((hvx_vuw) Vu << (uint32_t) (Rt & 31));
}

// Vd.w = vasr(Vu.w, Rt): arithmetic shift right by Rt & 31
HVX_EMU_INLINE HVX_Vector Q6_Vw_vasr_VwR(HVX_Vector Vu, int32_t Rt) {
    HVX_EMU_COUNT(ALU);
    return Vu >> (Rt & 31);
}

// Vd.uw = vlsr(Vu.uw, Rt): logical shift right by Rt & 31
HVX_EMU_INLINE HVX_Vector Q6_Vuw_vlsr_VuwR(HVX_Vector Vu, int32_t Rt) {
    HVX_EMU_COUNT(ALU);
    return (HVX_Vector) ((hvx_vuw) Vu >> (uint32_t) (Rt & 31));
}

// Vd.h = vasl(Vu.h, Rt) / vasr / vlsr: shift amount Rt & 15
HVX_EMU_INLINE HVX_Vector Q6_Vh_vasl_VhR(HVX_Vector Vu, int32_t Rt) {
    HVX_EMU_COUNT(ALU);
    return (HVX_Vector) ((hvx_vuh) Vu << (uint16_t) (Rt & 15));
}

HVX_EMU_INLINE HVX_Vector Q6_Vh_vasr_VhR(HVX_Vector Vu, int32_t Rt) {
    HVX_EMU_COUNT(ALU);
    return (HVX_Vector) ((hvx_vh) Vu >> (int16_t) (Rt & 15));
}

HVX_EMU_INLINE HVX_Vector Q6_Vuh_vlsr_VuhR(HVX_Vector Vu, int32_t Rt) {
    HVX_EMU_COUNT(ALU);
    return (HVX_Vector) ((hvx_vuh) Vu >> (uint16_t) (Rt & 15));
}
