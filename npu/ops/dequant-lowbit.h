// NVFP4, TQ1_0 and TQ2_0 rows to F32, ggml's dequantize_row_nvfp4 / _tq1_0 / _tq2_0 bit for
// bit, shared by GET_ROWS (npu/ops/get-rows.cpp: rows picked by index, CPY of such a source)
// and MUL_MAT's flat weight prep (npu/ops/mul-mat/mul-mat-flat.h: a weight row dequantized in
// VTCM, then dotted on the F32 path). A row arrives as two dense arrays (host/ops/get-rows.cpp
// scale_quant_layout, host/ops/mul-mat/mul-mat.cpp weight_fields): the scales (NVFP4: 4 UE4M3
// bytes a block of 64; TQ: one FP16 d a super-block of 256) and the quants (NVFP4: 32 bytes a
// block; TQ2_0: 64 bytes a super-block; TQ1_0: its 52 bytes, 64 apart).
#pragma once
#include "htp-abi/htp-types.h"
#include "hvx-util.h"
#include "hvx-vmem.h"
#include "quant-luts.h"
#include "row-stream.h"

namespace htp_ops {
namespace lowbit_rows {

// TQ1_0 (dequantize_row_tq1_0): element e of a super-block is base-3 digit n of byte s, which
// tq1_source returns as 8 s + n: e < 160 (qs[0..31]): s = e % 32, n = e / 32; e < 240
// (qs[32..47]): s = 32 + (e - 160) % 16, n = (e - 160) / 16; else (qh, after qs in the VTCM
// copy): s = 48 + (e - 240) % 4, n = (e - 240) / 4.
constexpr int tq1_source(int e) {
    return e < 160 ? 8 * (e % 32) + e / 32
           : e < 240 ? 8 * (32 + (e - 160) % 16) + (e - 160) / 16
                     : 8 * (48 + (e - 240) % 4) + (e - 240) / 4;
}

// Byte tables (in .rodata, read by HVX loads).
constexpr byte_perm make_table(int kind) {
    constexpr uint8_t pow3[5] = { 1, 3, 9, 27, 81 };
    byte_perm t{};
    for (int l = 0; l < 128; l++) {
        switch (kind) {
            case 0:  // NVFP4: the low-nibble half of every 16 bytes (a 16-element sub-block)
                t.v[l] = (l % 16) < 8 ? 0xff : 0;
                break;
            case 1:  // NVFP4: byte l <- quant byte 8 (l / 16) + l % 8 (sub-block l / 16's 8 bytes twice)
                t.v[l] = vlut32_perm_index(8 * (l / 16) + l % 8);
                break;
            case 2:  // NVFP4: word l / 64 into lanes 16 (l / 64) .. + 15 (two sub-blocks' scales)
                t.v[l] = vlut32_perm_index(4 * (l / 64) + l % 4);
                break;
            case 3:  // TQ1_0: byte l <- the byte of element l (elements 0..127; 4: 128..255)
            case 4:
                t.v[l] = vlut32_perm_index(tq1_source(128 * (kind - 3) + l) / 8);
                break;
            default:  // 5, 6: TQ1_0: 3^n of element l's digit n (6: elements 128..255)
                t.v[l] = pow3[tq1_source(128 * (kind - 5) + l) % 8];
                break;
        }
    }
    return t;
}

inline constexpr byte_perm kNvLowHalf = make_table(0);
inline constexpr byte_perm kNvIdx     = make_table(1);
inline constexpr byte_perm kNvSub     = make_table(2);
inline constexpr byte_perm kTq1Idx[2] = { make_table(3), make_table(4) };
inline constexpr byte_perm kTq1Pow[2] = { make_table(5), make_table(6) };

// 4-bit codes in element order: the low nibbles of x where low_half is 0xff, the high
// nibbles elsewhere (x holds each group's quant bytes twice; GET_ROWS' 4-bit rows too).
HTP_INLINE HVX_Vector nibbles(HVX_Vector x, HVX_Vector low_half) {
    const HVX_Vector lo = Q6_V_vand_VV(x, Q6_V_vsplat_R(0x0f0f0f0f));
    const HVX_Vector hi = Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(x, 4), Q6_V_vsplat_R(0x0f0f0f0f));
    return Q6_V_vxor_VV(hi, Q6_V_vand_VV(Q6_V_vxor_VV(lo, hi), low_half));
}

// 64 NVFP4 UE4M3 scale bytes (half 0: bytes 0..63 of v; 1: 64..127) as F32 in order, lo the
// first 32 (two registers, not an array: a run-time index would put it on the stack). The 7
// value bits as an FP16 (x << 7: the 4 exponent bits into the low 4 of the FP16's, the 3
// mantissa bits on top of its mantissa; exponent 0 an FP16 subnormal) are the value times
// 2^-7 for every code, exactly; widened and times 128 (exact). Code 0x7F is 0 and bit 7 is
// ignored, as in ggml_ue4m3_to_fp32.
HTP_INLINE void ue4m3_scales_f32(HVX_Vector v, uint32_t half, HVX_Vector & lo, HVX_Vector & hi) {
    const HVX_VectorPair u   = Q6_Wuh_vunpack_Vub(v);
    const HVX_Vector     x   = half ? Q6_V_hi_W(u) : Q6_V_lo_W(u);
    const HVX_Vector     x7  = Q6_V_vand_VV(x, Q6_Vh_vsplat_R(0x7f));
    const HVX_VectorPred nan = Q6_Q_vcmp_eq_VhVh(x, Q6_Vh_vsplat_R(0x7f));
    const HVX_Vector     h   = Q6_V_vmux_QVV(nan, Q6_V_vzero(), Q6_Vh_vasl_VhR(x7, 7));
    const HVX_VectorPair f   = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(h));
    lo                       = Q6_Vsf_vmpy_VsfVsf(Q6_V_lo_W(f), splat_f32(128.0f));
    hi                       = Q6_Vsf_vmpy_VsfVsf(Q6_V_hi_W(f), splat_f32(128.0f));
}

// One NVFP4 row of n_blocks blocks of 64 (sub-block s's 8 quant bytes hold its elements 0..7
// in their low nibbles, 8..15 in their high: dequantize_row_nvfp4). Two blocks a step: their
// 64 quant bytes (kNvIdx, plus 32 in every byte for the vector's upper half) each sub-block's
// 8 twice, then nibbles and kvalues_mxfp4 (kLutMxfp4x2, the same values); 4 output vectors of
// two sub-blocks each, the two scales by one permutation (kNvSub plus 2j: words j, j + 1 into
// lanes 0..15, 16..31). An odd n_blocks writes one block (2 vectors) past the row.
HTP_COMPUTE inline void compute_nvfp4_row(HVX_Vector * y, const HVX_Vector * scales, const HVX_Vector * quants,
                                          uint32_t n_blocks) {
    const HVX_Vector low = hvx_vmem_load((const HVX_Vector *) kNvLowHalf.v);
    const HVX_Vector idx = hvx_vmem_load((const HVX_Vector *) kNvIdx.v);
    const HVX_Vector sub = hvx_vmem_load((const HVX_Vector *) kNvSub.v);
    const HVX_Vector lut = hvx_vmem_load_at(kLutMxfp4x2);
    HVX_Vector       s_lo, s_hi;
    ue4m3_scales_f32(hvx_vmem_load(&scales[0]), 0, s_lo, s_hi);
    HTP_NO_UNROLL
    for (uint32_t b0 = 0; b0 < n_blocks; b0 += 2) {
        if ((b0 & 15) == 0) {  // the scales of blocks b0 .. b0 + 15
            ue4m3_scales_f32(hvx_vmem_load(&scales[b0 / 32]), (b0 / 16) % 2, s_lo, s_hi);
        }
        const HVX_Vector ih = Q6_Vh_vadd_VhVh(idx, Q6_V_vsplat_R((int32_t) (0x20202020u * ((b0 / 2) % 2))));
        const HVX_Vector q  = permute_bytes(hvx_vmem_load(&quants[b0 / 4]), ih);
        HVX_Vector       f[4];
        i8_to_f32_vectors4(Q6_Vb_vlut32_VbVbR(nibbles(q, low), lut, 0), f);
        for (uint32_t k = 0; k < 4; k++) {
            const uint32_t   j  = 4 * (b0 % 16) + 2 * k;  // the vector's first sub-block, of the 64 scales
            const HVX_Vector ij = Q6_Vh_vadd_VhVh(sub, Q6_V_vsplat_R((int32_t) (0x02020202u * (j % 32))));
            hvx_vmem_store(&y[2 * b0 + k], Q6_Vsf_vmpy_VsfVsf(f[k], permute_bytes((j & 32) ? s_hi : s_lo, ij)));
        }
    }
}

// TQ1_0 / TQ2_0 super-block m's 256 digits - 1 (-1..1) as 4 halfword vectors of 64, in
// element order. TQ2_0: Q2_K's 2-bit code layout (element 128h + 32j + l: bits 2j of byte
// 32h + l of the super-block's 64; two super-blocks a vector). TQ1_0: each element's byte and
// power of 3 (kTq1Idx, kTq1Pow; super-block m % 2 in the upper half of the vector: 32 more in
// every index byte), the digit ((x 3^n mod 256) 3) >> 8 in halfwords.
template <uint32_t T> HTP_INLINE void ternary_digits(const HVX_Vector * qs, uint32_t m, HVX_Vector h[4]) {
    const HVX_Vector one = Q6_Vh_vsplat_R(1);
    if (T == HTP_TYPE_TQ2_0) {
        const HVX_Vector v = hvx_vmem_load(&qs[m / 2]);
        for (uint32_t g = 0; g < 2; g++) {
            const HVX_Vector     c = Q6_V_vand_VV(quarter_lsr(rep_quarter(v, 2 * (m % 2) + g), 0, 2),
                                                  Q6_V_vsplat_R(0x03030303));
            const HVX_VectorPair u = Q6_Wuh_vunpack_Vub(c);
            h[2 * g]               = Q6_Vh_vsub_VhVh(Q6_V_lo_W(u), one);
            h[2 * g + 1]           = Q6_Vh_vsub_VhVh(Q6_V_hi_W(u), one);
        }
        return;
    }
    const HVX_Vector q  = hvx_vmem_load(&qs[m / 2]);
    const HVX_Vector up = Q6_V_vsplat_R((int32_t) (0x20202020u * (m % 2)));
    for (uint32_t g = 0; g < 2; g++) {
        const HVX_Vector     ix = Q6_Vh_vadd_VhVh(hvx_vmem_load((const HVX_Vector *) kTq1Idx[g].v), up);
        const HVX_VectorPair xu = Q6_Wuh_vunpack_Vub(permute_bytes(q, ix));
        const HVX_VectorPair pu = Q6_Wuh_vunpack_Vub(hvx_vmem_load((const HVX_Vector *) kTq1Pow[g].v));
        for (uint32_t k = 0; k < 2; k++) {
            const HVX_Vector x3 = Q6_Vh_vmpyi_VhVh(k ? Q6_V_hi_W(xu) : Q6_V_lo_W(xu), k ? Q6_V_hi_W(pu) : Q6_V_lo_W(pu));
            const HVX_Vector q8 = Q6_V_vand_VV(x3, Q6_Vh_vsplat_R(0xff));
            h[2 * g + k]        = Q6_Vh_vsub_VhVh(Q6_Vuh_vlsr_VuhR(Q6_Vh_vmpyi_VhVh(q8, Q6_Vh_vsplat_R(3)), 8), one);
        }
    }
}

// One TQ1_0 / TQ2_0 row of n_sb super-blocks: (digit - 1) d.
template <uint32_t T>
HTP_COMPUTE void compute_ternary_row(HVX_Vector * y, const HVX_Vector * scales, const HVX_Vector * qs, uint32_t n_sb) {
    const HVX_Vector bcast0 = hvx_vmem_load((const HVX_Vector *) kWordBcast0.v);
    HVX_VectorPair   d      = f16_scales_f32(hvx_vmem_load(&scales[0]));
    HTP_NO_UNROLL
    for (uint32_t m = 0; m < n_sb; m++) {
        if ((m & 63) == 0) {
            d = f16_scales_f32(hvx_vmem_load(&scales[m / 64]));
        }
        const HVX_Vector dm = block_bcast(d, m, bcast0);
        HVX_Vector       h[4];
        ternary_digits<T>(qs, m, h);
        for (uint32_t k = 0; k < 4; k++) {
            const HVX_VectorPair w = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(Q6_Vhf_vcvt_Vh(h[k])));
            hvx_vmem_store(&y[8 * m + 2 * k], Q6_Vsf_vmpy_VsfVsf(Q6_V_lo_W(w), dm));
            hvx_vmem_store(&y[8 * m + 2 * k + 1], Q6_Vsf_vmpy_VsfVsf(Q6_V_hi_W(w), dm));
        }
    }
}

}  // namespace lowbit_rows
}  // namespace htp_ops
