// HVX compares and Q-register (predicate) operations (ISA: Compare Vector with Vector,
// Predicate Operations, vmux, vand with Q). A compare on w lanes sets all 4 predicate bits of
// each word lane (h lanes: 2 bits), so a word predicate can steer any element width.
#pragma once
#include "hvx-emu/types.h"

// Qd = vcmp.eq / vcmp.gt on signed words, halfwords, bytes and unsigned words: the lane
// compare's mask as a predicate.
#define HVX_EMU_VCMP(NAME, VIEW, OP) \
    HVX_EMU_VV(HVX_VectorPred, NAME, ALU, hvx_emu_mask_to_pred((hvx_vub) ((VIEW) Vu OP (VIEW) Vv)))
HVX_EMU_VCMP(Q6_Q_vcmp_eq_VwVw, hvx_vw, ==)
HVX_EMU_VCMP(Q6_Q_vcmp_gt_VwVw, hvx_vw, >)
HVX_EMU_VCMP(Q6_Q_vcmp_gt_VuwVuw, hvx_vuw, >)
HVX_EMU_VCMP(Q6_Q_vcmp_eq_VhVh, hvx_vh, ==)
HVX_EMU_VCMP(Q6_Q_vcmp_gt_VhVh, hvx_vh, >)
HVX_EMU_VCMP(Q6_Q_vcmp_eq_VbVb, hvx_vb, ==)
HVX_EMU_VCMP(Q6_Q_vcmp_gt_VbVb, hvx_vb, >)

// Vd.ub[i] = Q[i] ? Vu.ub[i] : Vv.ub[i]
HVX_EMU_INLINE HVX_Vector Q6_V_vmux_QVV(HVX_VectorPred Qt, HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(ALU);
    const HVX_Vector m = (HVX_Vector) hvx_emu_pred_to_mask(Qt);
    return (Vu & m) | (Vv & ~m);
}

// Vd.b[i] = Q[i] ? Vu.b[i] : 0  (vand(Qv, Vu))
HVX_EMU_INLINE HVX_Vector Q6_V_vand_QV(HVX_VectorPred Qv, HVX_Vector Vu) {
    HVX_EMU_COUNT(ALU);
    return Vu & (HVX_Vector) hvx_emu_pred_to_mask(Qv);
}

// Vd.ub[i] = Q[i] ? Rt.ub[i % 4] : 0  (vand(Qu, Rt))
HVX_EMU_INLINE HVX_Vector Q6_V_vand_QR(HVX_VectorPred Qu, int32_t Rt) {
    HVX_EMU_COUNT(ALU);
    return hvx_emu_splat32((uint32_t) Rt) & (HVX_Vector) hvx_emu_pred_to_mask(Qu);
}

// Q[i] = (Vu.ub[i] & Rt.ub[i % 4]) != 0  (vand(Vu, Rt))
HVX_EMU_INLINE HVX_VectorPred Q6_Q_vand_VR(HVX_Vector Vu, int32_t Rt) {
    HVX_EMU_COUNT(OTHER);
    const hvx_vub x = (hvx_vub) (Vu & hvx_emu_splat32((uint32_t) Rt));
    return hvx_emu_mask_to_pred((hvx_vub) (x != 0));
}

// Qd = vsetq(Rt): Q[i] = i < (Rt & 127); Rt = 128 gives all-false.
HVX_EMU_INLINE HVX_VectorPred Q6_Q_vsetq_R(int32_t Rt) {
    HVX_EMU_COUNT(OTHER);
    const uint32_t n = (uint32_t) Rt & (HVX_EMU_VLEN - 1);
    HVX_VectorPred q;
    q.q[0] = n >= 64 ? ~0ull : ((1ull << n) - 1);
    q.q[1] = n <= 64 ? 0ull : ((1ull << (n - 64)) - 1);
    return q;
}

// Qd = vsetq2(Rt): Q[i] = i <= ((Rt - 1) & 127); Rt = 128 gives all-true, Rt = 0 too.
HVX_EMU_INLINE HVX_VectorPred Q6_Q_vsetq2_R(int32_t Rt) {
    HVX_EMU_COUNT(OTHER);
    const uint32_t last = ((uint32_t) Rt - 1u) & (HVX_EMU_VLEN - 1);  // index of the last set lane
    HVX_VectorPred q;
    q.q[0] = last >= 63 ? ~0ull : ((2ull << last) - 1);
    q.q[1] = last < 64 ? 0ull : (last == 127 ? ~0ull : ((2ull << (last - 64)) - 1));
    return q;
}

HVX_EMU_INLINE HVX_VectorPred Q6_Q_and_QQ(HVX_VectorPred Qs, HVX_VectorPred Qt) {
    HVX_EMU_COUNT(OTHER);
    HVX_VectorPred q = { { Qs.q[0] & Qt.q[0], Qs.q[1] & Qt.q[1] } };
    return q;
}

HVX_EMU_INLINE HVX_VectorPred Q6_Q_or_QQ(HVX_VectorPred Qs, HVX_VectorPred Qt) {
    HVX_EMU_COUNT(OTHER);
    HVX_VectorPred q = { { Qs.q[0] | Qt.q[0], Qs.q[1] | Qt.q[1] } };
    return q;
}

HVX_EMU_INLINE HVX_VectorPred Q6_Q_not_Q(HVX_VectorPred Qs) {
    HVX_EMU_COUNT(OTHER);
    HVX_VectorPred q = { { ~Qs.q[0], ~Qs.q[1] } };
    return q;
}
