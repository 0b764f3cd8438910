// HVX splats, pair access and permutes (ISA: Vector Alignment, vror, Deal, shuffle,
// vcombine, vsplat). Byte-granular rotations use a doubled buffer instead of lane loops.
#pragma once
#include "hvx-emu/types.h"

// Vd = vsplat(Rt): every word = Rt
HVX_EMU_INLINE HVX_Vector Q6_V_vsplat_R(int32_t Rt) {
    HVX_EMU_COUNT(OTHER);
    return hvx_emu_splat32((uint32_t) Rt);
}

// Vd.h = vsplat(Rt): every halfword = Rt.h[0]
HVX_EMU_INLINE HVX_Vector Q6_Vh_vsplat_R(int32_t Rt) {
    HVX_EMU_COUNT(OTHER);
    const uint32_t h = (uint32_t) Rt & 0xffffu;
    return hvx_emu_splat32(h | (h << 16));
}

// Vd.b = vsplat(Rt): every byte = Rt.b[0]
HVX_EMU_INLINE HVX_Vector Q6_Vb_vsplat_R(int32_t Rt) {
    HVX_EMU_COUNT(OTHER);
    return hvx_emu_splat32(((uint32_t) Rt & 0xffu) * 0x01010101u);
}

// Rd = vextract(Vu, Rs): Rd = Vu.uw[(Rs & 127) >> 2], a word of a vector into a scalar register
// (no trip through memory)
HVX_EMU_INLINE int32_t Q6_R_vextract_VR(HVX_Vector Vu, int32_t Rs) {
    HVX_EMU_COUNT(OTHER);
    int32_t w;
    memcpy(&w, (const uint8_t *) &Vu + (((uint32_t) Rs & (HVX_EMU_VLEN - 1)) & ~3u), 4);
    return w;
}

HVX_EMU_INLINE HVX_Vector Q6_V_lo_W(HVX_VectorPair Vss) { return hvx_emu_pair_lo(Vss); }
HVX_EMU_INLINE HVX_Vector Q6_V_hi_W(HVX_VectorPair Vss) { return hvx_emu_pair_hi(Vss); }

// Vdd = vcombine(Vu, Vv): Vdd.v[0] = Vv, Vdd.v[1] = Vu
HVX_EMU_INLINE HVX_VectorPair Q6_W_vcombine_VV(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(PERMUTE);
    return hvx_emu_pair(Vu, Vv);
}

// Vd = vror(Vu, Rt): Vd.ub[k] = Vu.ub[(k + Rt) & 127]
HVX_EMU_INLINE HVX_Vector Q6_V_vror_VR(HVX_Vector Vu, int32_t Rt) {
    HVX_EMU_COUNT(PERMUTE);
#if defined(__AVX2__)
    // In registers (a doubled buffer costs store-forwarding stalls): 16-byte chunk i of the
    // result joins chunks i + q and i + q + 1 (Rt = 16 q + s) with two byte shuffles.
    union {
        HVX_Vector v;
        __m128i    x[8];
    } U, D;
    U.v                = Vu;
    const uint32_t r   = (uint32_t) Rt & (HVX_EMU_VLEN - 1), q = r >> 4;
    if ((r & 15) == 0) {  // whole 16-byte chunks (the first steps of every reduction tree): moves only
        for (uint32_t i = 0; i < 8; i++) {
            D.x[i] = U.x[(i + q) & 7];
        }
        return D.v;
    }
    const __m128i  b   = _mm_add_epi8(_mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                      _mm_set1_epi8((char) (r & 15)));
    const __m128i  ilo = _mm_or_si128(b, _mm_cmpgt_epi8(b, _mm_set1_epi8(15)));  // > 15: zero
    const __m128i  ihi = _mm_sub_epi8(b, _mm_set1_epi8(16));                     // < 0: zero
    for (uint32_t i = 0; i < 8; i++) {
        D.x[i] = _mm_or_si128(_mm_shuffle_epi8(U.x[(i + q) & 7], ilo), _mm_shuffle_epi8(U.x[(i + q + 1) & 7], ihi));
    }
    return D.v;
#else
    uint8_t tmp[2 * HVX_EMU_VLEN];
    memcpy(tmp, &Vu, HVX_EMU_VLEN);
    memcpy(tmp + HVX_EMU_VLEN, &Vu, HVX_EMU_VLEN);
    HVX_Vector r;
    memcpy(&r, tmp + ((uint32_t) Rt & (HVX_EMU_VLEN - 1)), HVX_EMU_VLEN);
    return r;
#endif
}

// Vd.b = vlut32(Vu.b, Vv.b, Rt): a 32-entry byte table lookup. matchval = Rt & 7, oddhalf =
// (Rt >> 1) & 1 (128-byte vectors: log2(128) - 6 = 1); idx = Vu.ub[i]:
// Vd.b[i] = (idx & 0xe0) == matchval << 5 ? Vv.h[idx % 64].b[oddhalf] : 0.
// With Rt = 0 an index 0..31 reads byte 2 * idx of Vv.
HVX_EMU_INLINE HVX_Vector Q6_Vb_vlut32_VbVbR(HVX_Vector Vu, HVX_Vector Vv, int32_t Rt) {
    HVX_EMU_COUNT(OTHER);
    const uint32_t matchval = (uint32_t) Rt & 7u;
    const uint32_t oddhalf  = ((uint32_t) Rt >> 1) & 1u;
#if defined(__AVX2__)
    // The 32 table bytes a match can read (idx % 64 has bit 5 = matchval & 1), then two
    // 16-entry vpshufb lookups per 32 lanes, picked by index bit 4, zeroed where bits 5-7 miss.
    union {
        HVX_Vector v;
        uint8_t    b[HVX_EMU_VLEN];
        __m256i    y[4];
    } U, V, D;
    U.v = Vu;
    V.v = Vv;
    uint8_t         t[32];
    const uint8_t * half = V.b + 64 * (matchval & 1u) + oddhalf;
    for (int j = 0; j < 32; j++) {
        t[j] = half[2 * j];
    }
    const __m256i tlo  = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) t));
    const __m256i thi  = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) (t + 16)));
    const __m256i want = _mm256_set1_epi8((char) (matchval << 5));
    for (int k = 0; k < 4; k++) {
        const __m256i idx = U.y[k];
        const __m256i lo4 = _mm256_and_si256(idx, _mm256_set1_epi8(0x0f));
        const __m256i b4  = _mm256_cmpeq_epi8(_mm256_and_si256(idx, _mm256_set1_epi8(0x10)), _mm256_set1_epi8(0x10));
        const __m256i r   = _mm256_blendv_epi8(_mm256_shuffle_epi8(tlo, lo4), _mm256_shuffle_epi8(thi, lo4), b4);
        const __m256i hit = _mm256_cmpeq_epi8(_mm256_and_si256(idx, _mm256_set1_epi8((char) 0xe0)), want);
        D.y[k]            = _mm256_and_si256(r, hit);
    }
    return D.v;
#else
    uint8_t        u[HVX_EMU_VLEN], v[HVX_EMU_VLEN], d[HVX_EMU_VLEN];
    memcpy(u, &Vu, HVX_EMU_VLEN);
    memcpy(v, &Vv, HVX_EMU_VLEN);
    for (uint32_t i = 0; i < HVX_EMU_VLEN; i++) {
        const uint32_t idx = u[i];
        d[i]               = (idx & 0xe0u) == matchval << 5 ? v[2 * (idx % 64) + oddhalf] : 0;
    }
    HVX_Vector r;
    memcpy(&r, d, HVX_EMU_VLEN);
    return r;
#endif
}

// Bytes [s, s + 128) of the 256-byte concatenation Vu:Vv (Vv in the low half).
HVX_EMU_INLINE HVX_Vector hvx_emu_align_bytes(HVX_Vector Vu, HVX_Vector Vv, uint32_t s) {
    uint8_t tmp[2 * HVX_EMU_VLEN];
    memcpy(tmp, &Vv, HVX_EMU_VLEN);
    memcpy(tmp + HVX_EMU_VLEN, &Vu, HVX_EMU_VLEN);
    HVX_Vector r;
    memcpy(&r, tmp + s, HVX_EMU_VLEN);
    return r;
}

// Vd = valign(Vu, Vv, Rt): shift = Rt & 127; Vd.ub[i] = i + shift >= 128 ? Vu.ub[i + shift - 128]
// : Vv.ub[i + shift]
HVX_EMU_INLINE HVX_Vector Q6_V_valign_VVR(HVX_Vector Vu, HVX_Vector Vv, int32_t Rt) {
    HVX_EMU_COUNT(PERMUTE);
    return hvx_emu_align_bytes(Vu, Vv, (uint32_t) Rt & (HVX_EMU_VLEN - 1));
}

// Vd = vlalign(Vu, Vv, Rt): as valign with shift = 128 - (Rt & 127) (Rt & 127 == 0 gives Vu)
HVX_EMU_INLINE HVX_Vector Q6_V_vlalign_VVR(HVX_Vector Vu, HVX_Vector Vv, int32_t Rt) {
    HVX_EMU_COUNT(PERMUTE);
    return hvx_emu_align_bytes(Vu, Vv, HVX_EMU_VLEN - ((uint32_t) Rt & (HVX_EMU_VLEN - 1)));
}

#if defined(__AVX2__)
// Interleaves the low and the high 64 bytes of Vu in elements of `bytes` (1 or 2) bytes:
// element 2i = low[i], 2i + 1 = high[i] (vshuff.b / vshuff.h) with SSE unpacks.
HVX_EMU_INLINE HVX_Vector hvx_emu_interleave_halves(HVX_Vector Vu, int bytes) {
    union {
        HVX_Vector v;
        __m128i    x[8];
    } U, D;
    U.v = Vu;
    for (int k = 0; k < 4; k++) {
        const __m128i lo = U.x[k], hi = U.x[4 + k];
        D.x[2 * k]     = bytes == 1 ? _mm_unpacklo_epi8(lo, hi) : _mm_unpacklo_epi16(lo, hi);
        D.x[2 * k + 1] = bytes == 1 ? _mm_unpackhi_epi8(lo, hi) : _mm_unpackhi_epi16(lo, hi);
    }
    return D.v;
}
#endif

// Vd.h = vshuff(Vu.h): Vd.h[2i] = Vu.h[i], Vd.h[2i + 1] = Vu.h[i + 32]
HVX_EMU_INLINE HVX_Vector hvx_emu_vshuff_h(HVX_Vector Vu) {
#if defined(__AVX2__)
    return hvx_emu_interleave_halves(Vu, 2);
#elif defined(__GNUC__) && !defined(__clang__)
    const hvx_vuh idx = { 0,  32, 1,  33, 2,  34, 3,  35, 4,  36, 5,  37, 6,  38, 7,  39,
                          8,  40, 9,  41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47,
                          16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55,
                          24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63 };
    return (HVX_Vector) __builtin_shuffle((hvx_vuh) Vu, idx);
#else
    const hvx_vuh u = (hvx_vuh) Vu;
    hvx_vuh d;
    for (int i = 0; i < 32; i++) {
        d[2 * i]     = u[i];
        d[2 * i + 1] = u[i + 32];
    }
    return (HVX_Vector) d;
#endif
}

// Vd.b = vshuff(Vu.b): Vd.b[2i] = Vu.b[i], Vd.b[2i + 1] = Vu.b[i + 64]
HVX_EMU_INLINE HVX_Vector Q6_Vb_vshuff_Vb(HVX_Vector Vu) {
    HVX_EMU_COUNT(PERMUTE);
#if defined(__AVX2__)
    return hvx_emu_interleave_halves(Vu, 1);
#elif defined(__GNUC__) && !defined(__clang__)
    const hvx_vub idx = { 0, 64, 1, 65, 2, 66, 3, 67, 4, 68, 5, 69, 6, 70, 7, 71,
                          8, 72, 9, 73, 10, 74, 11, 75, 12, 76, 13, 77, 14, 78, 15, 79,
                          16, 80, 17, 81, 18, 82, 19, 83, 20, 84, 21, 85, 22, 86, 23, 87,
                          24, 88, 25, 89, 26, 90, 27, 91, 28, 92, 29, 93, 30, 94, 31, 95,
                          32, 96, 33, 97, 34, 98, 35, 99, 36, 100, 37, 101, 38, 102, 39, 103,
                          40, 104, 41, 105, 42, 106, 43, 107, 44, 108, 45, 109, 46, 110, 47, 111,
                          48, 112, 49, 113, 50, 114, 51, 115, 52, 116, 53, 117, 54, 118, 55, 119,
                          56, 120, 57, 121, 58, 122, 59, 123, 60, 124, 61, 125, 62, 126, 63, 127 };
    return (HVX_Vector) __builtin_shuffle((hvx_vub) Vu, idx);
#else
    const hvx_vub u = (hvx_vub) Vu;
    hvx_vub d;
    for (int i = 0; i < 64; i++) {
        d[2 * i]     = u[i];
        d[2 * i + 1] = u[i + 64];
    }
    return (HVX_Vector) d;
#endif
}

// Vd.h = vdeal(Vu.h): Vd.h[i] = Vu.h[2i], Vd.h[i + 32] = Vu.h[2i + 1]
HVX_EMU_INLINE HVX_Vector hvx_emu_vdeal_h(HVX_Vector Vu) {
#if defined(__AVX2__)
    // Each 16-byte chunk to its 4 even halfwords (low 8 bytes) and 4 odd ones (high 8 bytes);
    // chunk pairs then join by 64-bit unpacks: evens to bytes [0,64), odds to [64,128).
    union {
        HVX_Vector v;
        __m128i    x[8];
    } U, D;
    U.v = Vu;
    const __m128i eo = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    for (int j = 0; j < 4; j++) {
        const __m128i a = _mm_shuffle_epi8(U.x[2 * j], eo), b = _mm_shuffle_epi8(U.x[2 * j + 1], eo);
        D.x[j]          = _mm_unpacklo_epi64(a, b);
        D.x[4 + j]      = _mm_unpackhi_epi64(a, b);
    }
    return D.v;
#elif defined(__GNUC__) && !defined(__clang__)
    const hvx_vuh idx = { 0,  2,  4,  6,  8,  10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
                          32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62,
                          1,  3,  5,  7,  9,  11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31,
                          33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63 };
    return (HVX_Vector) __builtin_shuffle((hvx_vuh) Vu, idx);
#else
    const hvx_vuh u = (hvx_vuh) Vu;
    hvx_vuh d;
    for (int i = 0; i < 32; i++) {
        d[i]      = u[2 * i];
        d[i + 32] = u[2 * i + 1];
    }
    return (HVX_Vector) d;
#endif
}

HVX_EMU_INLINE HVX_Vector Q6_Vh_vshuff_Vh(HVX_Vector Vu) {
    HVX_EMU_COUNT(PERMUTE);
    return hvx_emu_vshuff_h(Vu);
}

HVX_EMU_INLINE HVX_Vector Q6_Vh_vdeal_Vh(HVX_Vector Vu) {
    HVX_EMU_COUNT(PERMUTE);
    return hvx_emu_vdeal_h(Vu);
}
