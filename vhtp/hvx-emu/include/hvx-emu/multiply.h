// HVX integer multiplies (ISA: MMVECTOR MULTIPLICATIONS). Widening forms return pairs whose
// low register holds the even lanes' products and the high register the odd lanes'.
#pragma once
#include "hvx-emu/types.h"

// Vd.h = vmpyi(Vu.h, Vv.h): low 16 bits of each halfword product.
HVX_EMU_INLINE HVX_Vector Q6_Vh_vmpyi_VhVh(HVX_Vector Vu, HVX_Vector Vv) {
    return (HVX_Vector) ((hvx_vuh) Vu * (hvx_vuh) Vv);
}

// Vdd.w = vmpy(Vu.h, Vv.h): full 32-bit products; Vdd.v[0].w[i] from the even halfwords
// (2i), Vdd.v[1].w[i] from the odd ones (2i+1).
HVX_EMU_INLINE HVX_VectorPair Q6_Ww_vmpy_VhVh(HVX_Vector Vu, HVX_Vector Vv) {
    // Sign-extend each halfword within its word: even = (w << 16) >> 16, odd = w >> 16.
    const hvx_vw ue = (Vu << 16) >> 16, uo = Vu >> 16;
    const hvx_vw ve = (Vv << 16) >> 16, vo = Vv >> 16;
    // |product| <= 2^30, so 32-bit multiplication is exact.
    const hvx_vw lo = ue * ve, hi = uo * vo;
    return hvx_emu_pair((HVX_Vector) hi, (HVX_Vector) lo);
}
