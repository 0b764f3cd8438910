// HVX integer multiplies (ISA: MMVECTOR MULTIPLICATIONS). Widening forms return pairs whose
// low register holds the even lanes' products and the high register the odd lanes'.
#pragma once
#include "hvx-emu/types.h"

// Vd.h = vmpyi(Vu.h, Vv.h): low 16 bits of each halfword product.
HVX_EMU_INLINE HVX_Vector Q6_Vh_vmpyi_VhVh(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(MPY);
    return (HVX_Vector) ((hvx_vuh) Vu * (hvx_vuh) Vv);
}

// Vdd.w = vmpy(Vu.h, Vv.h): full 32-bit products; Vdd.v[0].w[i] from the even halfwords
// (2i), Vdd.v[1].w[i] from the odd ones (2i+1).
HVX_EMU_INLINE HVX_VectorPair Q6_Ww_vmpy_VhVh(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(MPY);
    // Sign-extend each halfword within its word: even = (w << 16) >> 16, odd = w >> 16.
    const hvx_vw ue = (Vu << 16) >> 16, uo = Vu >> 16;
    const hvx_vw ve = (Vv << 16) >> 16, vo = Vv >> 16;
    // |product| <= 2^30, so 32-bit multiplication is exact.
    const hvx_vw lo = ue * ve, hi = uo * vo;
    return hvx_emu_pair((HVX_Vector) hi, (HVX_Vector) lo);
}

#if defined(__AVX2__)
// vrmpy on 256 bits, any bytes: each 16-bit lane split into its sign-extended low (even) and
// high (odd) byte; vpmaddwd then sums the two even and the two odd products of each word
// exactly (|sum| <= 2^15). 9 AVX2 operations.
HVX_EMU_INLINE __m256i hvx_emu_vrmpy_bb_widen(__m256i u, __m256i v) {
    const __m256i ue = _mm256_srai_epi16(_mm256_slli_epi16(u, 8), 8), uo = _mm256_srai_epi16(u, 8);
    const __m256i ve = _mm256_srai_epi16(_mm256_slli_epi16(v, 8), 8), vo = _mm256_srai_epi16(v, 8);
    return _mm256_add_epi32(_mm256_madd_epi16(ue, ve), _mm256_madd_epi16(uo, vo));
}

// vrmpy on 256 bits when no byte of v is -128: u * v = |u| * (v signed by u), where |u| is
// read unsigned by vpmaddubsw (|-128| = 0x80 = 128) and vpsignb cannot overflow (v != -128),
// so each product has |p| <= 128 * 127 and a pair's sum (<= 32512) never reaches vpmaddubsw's
// saturation; vpmaddwd by 1 then adds the two pairs of each word. 4 AVX2 operations.
HVX_EMU_INLINE __m256i hvx_emu_vrmpy_bb_sign(__m256i u, __m256i v) {
    const __m256i p = _mm256_maddubs_epi16(_mm256_abs_epi8(u), _mm256_sign_epi8(v, u));
    return _mm256_madd_epi16(p, _mm256_set1_epi16(1));
}

// True when no byte of the 128-byte vector (as 4 x 256 bits) is -128: 4 vpcmpeqb, 3 vpor, vptest.
HVX_EMU_INLINE bool hvx_emu_no_byte_min(const __m256i y[4]) {
    const __m256i m = _mm256_set1_epi8((char) -128);
    const __m256i e = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(y[0], m), _mm256_cmpeq_epi8(y[1], m)),
                                      _mm256_or_si256(_mm256_cmpeq_epi8(y[2], m), _mm256_cmpeq_epi8(y[3], m)));
    return _mm256_testz_si256(e, e) != 0;
}
#endif

#if defined(HVX_EMU_AVX512)
// Vx.w + vrmpy(Vu.b, Vv.b) (wrapping) in AVX-512 VNNI: vpdpbusd sums four products of an
// unsigned byte of its first operand and a signed byte of its second into each word, exactly,
// and wraps the accumulator as vrmpyacc does. u = (u ^ 0x80) - 128 with u ^ 0x80 unsigned, so
// u . v = dpbusd(u ^ 0x80, v) - dpbusd(0x80, v): per 512 bits two vpdpbusd, one vpxord, one
// vpsubd, for any bytes. No branch: a first version checked each operand for a byte >= 0x80
// (vpord, vpmovb2m, kortestq) to take one vpdpbusd when either had none; in a loop of 4
// vrmpyacc chains over 64 vector pairs it cost about 5 ns a call on signed operands against
// 2-4 ns without the checks, and gained nothing measurable on non-negative ones.
HVX_EMU_INLINE HVX_Vector hvx_emu_vrmpyacc_bb512(HVX_Vector Vx, HVX_Vector Vu, HVX_Vector Vv) {
    hvx_emu_simd X, U, V;
    X.v                = Vx;
    U.v                = Vu;
    V.v                = Vv;
    const __m512i bias = _mm512_set1_epi8((char) 0x80);
    for (int k = 0; k < 2; k++) {
        const __m512i p = _mm512_dpbusd_epi32(X.z[k], _mm512_xor_si512(U.z[k], bias), V.z[k]);
        X.z[k]          = _mm512_sub_epi32(p, _mm512_dpbusd_epi32(_mm512_setzero_si512(), bias, V.z[k]));
    }
    return X.v;
}
#endif

// Vd.w = vrmpy(Vu.b, Vv.b): each word lane is the sum of its four signed byte products
// (|sum| <= 4 * 128 * 128, no overflow).
HVX_EMU_INLINE HVX_Vector Q6_Vw_vrmpy_VbVb(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(MPY);
#if defined(HVX_EMU_AVX512)
    const HVX_Vector z = { 0 };
    return hvx_emu_vrmpyacc_bb512(z, Vu, Vv);
#elif defined(__AVX2__)
    // The kernels' operands (quants in -127..127, nibbles, codes, ones) take the vpmaddubsw
    // path (hvx_emu_vrmpy_bb_sign) with Vv's bytes signed by Vu's, or the other way round
    // when only Vu is free of -128; the widening path takes the rest. All give the same bits
    // (tests/vhtp-hvx-emu/test_hvx_emu_int.cpp HvxEmuMultiply.Vrmpy*).
    union {
        HVX_Vector v;
        __m256i    y[4];
    } U, V, D;
    U.v = Vu;
    V.v = Vv;
    if (__builtin_expect(hvx_emu_no_byte_min(V.y), 1)) {
        for (int k = 0; k < 4; k++) {
            D.y[k] = hvx_emu_vrmpy_bb_sign(U.y[k], V.y[k]);
        }
    } else if (hvx_emu_no_byte_min(U.y)) {
        for (int k = 0; k < 4; k++) {
            D.y[k] = hvx_emu_vrmpy_bb_sign(V.y[k], U.y[k]);
        }
    } else {
        for (int k = 0; k < 4; k++) {
            D.y[k] = hvx_emu_vrmpy_bb_widen(U.y[k], V.y[k]);
        }
    }
    return D.v;
#else
    const hvx_vb u = (hvx_vb) Vu, v = (hvx_vb) Vv;
    hvx_vw       d;
    for (int i = 0; i < 32; i++) {
        d[i] = u[4 * i] * v[4 * i] + u[4 * i + 1] * v[4 * i + 1] + u[4 * i + 2] * v[4 * i + 2] +
               u[4 * i + 3] * v[4 * i + 3];
    }
    return (HVX_Vector) d;
#endif
}

// Vx.w += vrmpy(Vu.b, Vv.b) (wraps modulo 2^32 like the hardware).
HVX_EMU_INLINE HVX_Vector Q6_Vw_vrmpyacc_VwVbVb(HVX_Vector Vx, HVX_Vector Vu, HVX_Vector Vv) {
#if defined(HVX_EMU_AVX512)
    HVX_EMU_COUNT(MPY);
    return hvx_emu_vrmpyacc_bb512(Vx, Vu, Vv);
#else
    return (HVX_Vector) ((hvx_vuw) Vx + (hvx_vuw) Q6_Vw_vrmpy_VbVb(Vu, Vv));
#endif
}
