// F32 rows quantized into the FP4 formats as SET_ROWS and CPY write them, bit for bit ggml's
// quantize_row_mxfp4_ref (tests/kernels/test_npu_ops.cpp checks them against ggml's own):
// MXFP4, blocks of 32 with one E8M0 exponent byte and 16 bytes of E2M1 codes (code j | code
// j + 16 << 4). The block's scale is scalar (its exponent from the bits of max |x|); each
// value's code is the nearest of the 16 E2M1 values times the scale, found in F32 lanes with
// the C code's own error sums and its first-wins ties.
#pragma once
#include "quantize-lanes.h"

namespace htp_ops {

// floor(log2f(a)) for a finite a > 0, as the host's log2f rounds it (ggml computes MXFP4's
// exponent so): the exponent E of a, one more when a lies so close below 2^(E+1) that
// log2(a) rounds up to the integer n = E + 1: when 2^(k+1) - m <= floor(2^(k - 23 + P) ln 2),
// m the significand as an integer (k + 1 bits), P the exponent of the float spacing at |n|
// (floor(log2 |n|); one less for a positive power of two, whose spacing below is half).
// Checked against log2f over every positive finite float.
HTP_INLINE int32_t floor_log2f(uint32_t bits) {
    const uint32_t ex = bits >> 23, mant = bits & 0x7fffff;
    const uint32_t m  = ex ? mant | 0x800000 : mant;
    const int32_t  k  = 31 - __builtin_clz(m);
    const int32_t  e  = ex ? (int32_t) ex - 127 : k - 149;
    const int32_t  n  = e + 1;
    if (n == 0) {
        return e;
    }
    const uint32_t an = (uint32_t) (n < 0 ? -n : n);
    const int32_t  p  = 31 - __builtin_clz(an) - (n > 0 && (an & (an - 1)) == 0 ? 1 : 0);
    const int32_t  q  = k - 23 + p;  // 0 .. 7 when not negative
    const uint32_t j  = q < 0 ? 0 : (uint32_t) ((2977044471ull << q) >> 32);  // floor(2^q ln 2): ln 2 * 2^32
    return e + ((1u << (k + 1)) - m <= j ? 1 : 0);
}

// ggml's MXFP4 exponent byte of a block whose max |x| has these bits: 0 for 0, else
// floor(log2f(amax)) - 2 + 127 taken to a byte as the C cast does it on the host (the low byte
// of the integer; below 2^-125 the value is negative and the C cast undefined).
HTP_INLINE uint32_t mxfp4_e8m0(uint32_t amax_bits) {
    return amax_bits == 0 ? 0 : (uint32_t) (floor_log2f(amax_bits) - 2 + 127) & 0xff;
}

// Each lane's code as ggml's best_index_mxfp4 picks it: the first of the 16 values v * d with
// the smallest |v * d - x| (one IEEE multiply and subtract each; v * d is exact or overflows
// to inf as in C). A negative candidate's error equals the positive one's for -x, and for x
// of the other sign every candidate loses to code 0 (|x|, the least of them, found first), so
// the search runs on |x| over 0..7 (the doubled E2M1 magnitudes of quant-luts.h kLutMxfp4x2)
// and a negative x takes the code + 8 unless it is 0. d: the half scale per lane (MXFP4:
// e8m0_half_bits, quant-luts.h, as GET_ROWS decodes it).
HTP_INLINE HVX_Vector fp4_codes(HVX_Vector x, HVX_Vector d) {
    const HVX_Vector a    = sf_abs(x);
    HVX_Vector       best = a, idx = Q6_V_vzero();
    HTP_NO_UNROLL
    for (int32_t k = 1; k < 8; k++) {
        const HVX_Vector     v   = Q6_Vsf_vmpy_VsfVsf(splat_f32((float) kLutMxfp4x2[2 * k]), d);
        const HVX_Vector     err = sf_abs(Q6_Vsf_vsub_VsfVsf(v, a));
        const HVX_VectorPred lt  = Q6_Q_vcmp_gt_VwVw(best, err);  // err < best: both >= 0 (NaN aside)
        best                     = Q6_V_vmux_QVV(lt, err, best);
        idx                      = Q6_V_vmux_QVV(lt, Q6_V_vsplat_R(k), idx);
    }
    const HVX_VectorPred neg = Q6_Q_and_QQ(Q6_Q_vcmp_gt_VwVw(Q6_V_vzero(), x), Q6_Q_vcmp_gt_VwVw(idx, Q6_V_vzero()));
    return Q6_V_vor_VV(idx, Q6_V_vand_QR(neg, 8));
}

// max |x| over each group of G lanes (32: the vector; 16: its halves) as float bits, in the
// group's first lane: with the sign cleared, float bits order as integers.
template <int G> HTP_INLINE HVX_Vector abs_max_groups(HVX_Vector x) {
    HVX_Vector m = Q6_V_vand_VV(x, Q6_V_vsplat_R(0x7fffffff));
    for (int s = 2 * G; s >= 4; s >>= 1) {
        m = Q6_Vw_vmax_VwVw(m, Q6_V_vror_VR(m, s));
    }
    return m;
}

// An MXFP4 row, block by block: the E8M0 bytes to the scales array (a byte a block), the
// codes' 16 bytes to the quants.
static HTP_COMPUTE void compute_quant_row_mxfp4(const HVX_Vector * x, HVX_Vector * y, const htp_quant_row * L) {
    const quant_row_arrays a(y, *L);
    const uint32_t         nb = L->n_blocks;
    piece_collector<16>    qc = { Q6_V_vzero() };
    piece_collector<1>     ec = { Q6_V_vzero() };
    HTP_NO_UNROLL
    for (uint32_t b = 0; b < nb; b++) {
        const HVX_Vector xv = hvx_vmem_load(&x[b]);
        const uint32_t   e  = mxfp4_e8m0((uint32_t) Q6_R_vextract_VR(abs_max_groups<32>(xv), 0));
        qc.push(nibble_bytes(fp4_codes(xv, Q6_V_vsplat_R((int32_t) e8m0_half_bits(e)))), a.quants, b, nb);
        ec.push(Q6_V_vsplat_R((int32_t) e), a.scales, b, nb);
    }
}

// ggml's UE4M3 byte of a scale x = max / 6 (ggml_fp32_to_ue4m3): 0 unless x > 0; x clamped
// to 448; below 2^-6 the subnormal m (m * 2^-9, m = (int) (x * 512 + 0.5), at most 7); else
// the exponent + 7 and 3 mantissa bits rounded up by the fourth (bit 19; a carry moves the
// exponent), 0x7e (448) from the exponent 15 on.
HTP_INLINE uint32_t ue4m3_of(float x) {
    if (!(x > 0.0f)) {
        return 0;
    }
    x = x > 448.0f ? 448.0f : x;
    const uint32_t bits = f32_bits(x);
    const int32_t  e    = (int32_t) ((bits >> 23) & 0xff) - 120;
    if (e <= 0) {
        const int32_t m = (int32_t) (x * 512.0f + 0.5f);
        return m > 7 ? 7 : m < 1 ? 0 : (uint32_t) m;
    }
    uint32_t m = ((bits >> 20) & 7) + ((bits >> 19) & 1), ue = (uint32_t) e;
    if (m > 7) {
        m = 0;
        ue++;
    }
    return ue >= 15 ? 0x7e : ue << 3 | m;
}

// Half the scale a UE4M3 byte stands for (ggml_ue4m3_to_fp32; the codes are doubled E2M1
// values): (1 + m / 8) 2^(e - 8), the subnormals m 2^-10; 0 for 0 and 0x7f.
HTP_INLINE float ue4m3_half_f32(uint32_t u) {
    const uint32_t e = u >> 3, m = u & 7;
    if (u == 0 || u == 0x7f) {
        return 0.0f;
    }
    return e == 0 ? (float) m * (1.0f / 1024.0f) : f32_from_bits((e + 119) << 23 | m << 20);
}

// An NVFP4 row, a vector (two sub-blocks of 16) at a time: the sub-blocks' UE4M3 bytes to the
// scales (4 a block), the codes to the quants, 8 bytes a sub-block (byte j: code j | code
// j + 8 << 4).
static HTP_COMPUTE void compute_quant_row_nvfp4(const HVX_Vector * x, HVX_Vector * y, const htp_quant_row * L) {
    const quant_row_arrays a(y, *L);
    const uint32_t         nv   = 2 * L->n_blocks;
    const HVX_VectorPred   lo16 = Q6_Q_vsetq_R(64), lo8 = Q6_Q_vsetq_R(32);
    piece_collector<16>    qc   = { Q6_V_vzero() };
    piece_collector<2>     sc   = { Q6_V_vzero() };
    HTP_NO_UNROLL
    for (uint32_t v = 0; v < nv; v++) {
        const HVX_Vector xv = hvx_vmem_load(&x[v]);
        const HVX_Vector m  = abs_max_groups<16>(xv);
        const uint32_t   u0 = ue4m3_of(f32_from_bits((uint32_t) Q6_R_vextract_VR(m, 0)) / 6.0f);
        const uint32_t   u1 = ue4m3_of(f32_from_bits((uint32_t) Q6_R_vextract_VR(m, 64)) / 6.0f);
        const HVX_Vector c  = fp4_codes(xv, Q6_V_vmux_QVV(lo16, splat_f32(ue4m3_half_f32(u0)), splat_f32(ue4m3_half_f32(u1))));
        const HVX_Vector w  = Q6_V_vor_VV(c, Q6_Vw_vasl_VwR(Q6_V_vror_VR(c, 32), 4));  // lanes 0..7, 16..23
        qc.push(word_bytes(Q6_V_vmux_QVV(lo8, w, Q6_V_vror_VR(w, 32))), a.quants, v, nv);
        sc.push(Q6_V_vsplat_R((int32_t) (u0 | u1 << 8)), a.scales, v, nv);
    }
}

}  // namespace htp_ops
