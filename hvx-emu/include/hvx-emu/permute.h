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
#if defined(HVX_EMU_AVX512)
    // vpermt2b indexes the 128 bytes of its two sources by the low 7 bits: byte k of the
    // result is byte (k + Rt) & 127 of Vu, two instructions.
    hvx_emu_simd U, D;
    U.v    = Vu;
    D.z[0] = _mm512_permutex2var_epi8(U.z[0], hvx_emu_iota8(Rt & 127), U.z[1]);
    D.z[1] = _mm512_permutex2var_epi8(U.z[0], hvx_emu_iota8((Rt + 64) & 127), U.z[1]);
    return D.v;
#elif defined(__AVX2__)
    // In registers (a doubled buffer costs store-forwarding stalls): 16-byte chunk i of the
    // result joins chunks i + q and i + q + 1 (Rt = 16 q + s) with two byte shuffles.
    hvx_emu_simd U, D;
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
#if defined(HVX_EMU_AVX512)
    // The table is the 64-byte half of Vv that bit 5 of a matching index selects (matchval & 1);
    // vpermb reads its byte 2 * (idx % 32) + oddhalf, i.e. the low 6 bits of 2 * idx + oddhalf;
    // lanes whose bits 5-7 miss matchval are zeroed through the k-mask.
    hvx_emu_simd U, V, D;
    U.v                 = Vu;
    V.v                 = Vv;
    const __m512i table = V.z[matchval & 1u];
    const __m512i odd   = _mm512_set1_epi8((char) oddhalf);
    const __m512i want  = _mm512_set1_epi8((char) (matchval << 5));
    for (int k = 0; k < 2; k++) {
        const __m512i   idx = U.z[k];
        const __mmask64 hit = _mm512_cmpeq_epi8_mask(_mm512_and_si512(idx, _mm512_set1_epi8((char) 0xe0)), want);
        D.z[k]              = _mm512_maskz_permutexvar_epi8(hit, _mm512_or_si512(_mm512_add_epi8(idx, idx), odd), table);
    }
    return D.v;
#elif defined(__AVX2__)
    // The 32 table bytes a match can read (idx % 64 has bit 5 = matchval & 1), then two
    // 16-entry vpshufb lookups per 32 lanes, picked by index bit 4, zeroed where bits 5-7 miss.
    hvx_emu_simd U, V, D;
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
#if defined(HVX_EMU_AVX512)
    // Result half h (64 bytes) starts at byte s + 64 h of the 320-byte row Vv:Vu:0, so it lies
    // within the two 64-byte chunks c, c + 1 (c = (s >> 6) + h): one vpermt2b each (index
    // (s & 63) + k < 128).
    hvx_emu_simd U, V, D;
    U.v                = Vu;
    V.v                = Vv;
    const __m512i c[5] = { V.z[0], V.z[1], U.z[0], U.z[1], _mm512_setzero_si512() };
    const __m512i idx  = hvx_emu_iota8((int) (s & 63));
    for (uint32_t h = 0; h < 2; h++) {
        const uint32_t q = (s >> 6) + h;
        D.z[h]           = _mm512_permutex2var_epi8(c[q], idx, c[q + 1]);
    }
    return D.v;
#else
    uint8_t tmp[2 * HVX_EMU_VLEN];
    memcpy(tmp, &Vv, HVX_EMU_VLEN);
    memcpy(tmp + HVX_EMU_VLEN, &Vu, HVX_EMU_VLEN);
    HVX_Vector r;
    memcpy(&r, tmp + s, HVX_EMU_VLEN);
    return r;
#endif
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

// The portable lane permutations of vshuff / vdeal, for lanes of `bytes` (1 or 2) bytes, n =
// 128 / bytes lanes: shuff interleaves the low and the high half (d[2i] = u[i], d[2i + 1] =
// u[i + n/2]); deal is its inverse (d[i] = u[2i], d[i + n/2] = u[2i + 1]). One loop serves
// both lane sizes and both directions; the AVX2 builds (every x86-64 host we build on) take
// the SSE forms below instead.
HVX_EMU_INLINE HVX_Vector hvx_emu_shuffle_lanes(HVX_Vector Vu, int bytes, int deal) {
    union {
        HVX_Vector v;
        uint8_t    b[HVX_EMU_VLEN];
    } U, D;
    U.v            = Vu;
    const int half = HVX_EMU_VLEN / bytes / 2;
    for (int i = 0; i < half; i++) {
        for (int k = 0; k < bytes; k++) {
            const int lo_lane = i * bytes + k, hi_lane = (i + half) * bytes + k;  // byte of lane i, i + n/2
            const int even = 2 * i * bytes + k, odd = (2 * i + 1) * bytes + k;  // byte of lane 2i, 2i + 1
            if (deal) {
                D.b[lo_lane] = U.b[even];
                D.b[hi_lane] = U.b[odd];
            } else {
                D.b[even] = U.b[lo_lane];
                D.b[odd]  = U.b[hi_lane];
            }
        }
    }
    return D.v;
}

// Interleaves the low and the high 64 bytes of Vu in elements of `bytes` (1 or 2) bytes:
// element 2i = low[i], 2i + 1 = high[i] (vshuff.b / vshuff.h); with SSE unpacks on AVX2 hosts.
HVX_EMU_INLINE HVX_Vector hvx_emu_interleave_halves(HVX_Vector Vu, int bytes) {
#if defined(HVX_EMU_AVX512)
    // Result element j (of 64 per zmm) is source element j / 2 (+ n/2 when j is odd) of the
    // 128-byte vector: one vpermt2b / vpermt2w per half.
    hvx_emu_simd U, D;
    U.v = Vu;
    for (int h = 0; h < 2; h++) {
        if (bytes == 1) {
            const __m512i j   = hvx_emu_iota8(64 * h);
            const __m512i idx = _mm512_or_si512(_mm512_srli_epi16(_mm512_and_si512(j, _mm512_set1_epi8((char) 0xfe)), 1),
                                                _mm512_slli_epi16(_mm512_and_si512(j, _mm512_set1_epi8(1)), 6));
            D.z[h]            = _mm512_permutex2var_epi8(U.z[0], idx, U.z[1]);
        } else {
            const __m512i j   = _mm512_add_epi16(_mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
                                                                   17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2,
                                                                   1, 0),
                                                  _mm512_set1_epi16((short) (32 * h)));
            const __m512i idx = _mm512_or_si512(_mm512_srli_epi16(j, 1), _mm512_slli_epi16(_mm512_and_si512(j, _mm512_set1_epi16(1)), 5));
            D.z[h]            = _mm512_permutex2var_epi16(U.z[0], idx, U.z[1]);
        }
    }
    return D.v;
#elif defined(__AVX2__)
    hvx_emu_simd U, D;
    U.v = Vu;
    for (int k = 0; k < 4; k++) {
        const __m128i lo = U.x[k], hi = U.x[4 + k];
        D.x[2 * k]     = bytes == 1 ? _mm_unpacklo_epi8(lo, hi) : _mm_unpacklo_epi16(lo, hi);
        D.x[2 * k + 1] = bytes == 1 ? _mm_unpackhi_epi8(lo, hi) : _mm_unpackhi_epi16(lo, hi);
    }
    return D.v;
#else
    return hvx_emu_shuffle_lanes(Vu, bytes, 0);
#endif
}

// Vd.h = vshuff(Vu.h): Vd.h[2i] = Vu.h[i], Vd.h[2i + 1] = Vu.h[i + 32]
HVX_EMU_INLINE HVX_Vector hvx_emu_vshuff_h(HVX_Vector Vu) { return hvx_emu_interleave_halves(Vu, 2); }

// Vd.b = vshuff(Vu.b): Vd.b[2i] = Vu.b[i], Vd.b[2i + 1] = Vu.b[i + 64]
HVX_EMU_INLINE HVX_Vector Q6_Vb_vshuff_Vb(HVX_Vector Vu) {
    HVX_EMU_COUNT(PERMUTE);
    return hvx_emu_interleave_halves(Vu, 1);
}

// Vd.h = vdeal(Vu.h): Vd.h[i] = Vu.h[2i], Vd.h[i + 32] = Vu.h[2i + 1]
HVX_EMU_INLINE HVX_Vector hvx_emu_vdeal_h(HVX_Vector Vu) {
#if defined(HVX_EMU_AVX512)
    // Halfwords 2i (low result register half) and 2i + 1 (high) of the 64: one vpermt2w each.
    hvx_emu_simd U, D;
    U.v                = Vu;
    const __m512i even = _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32, 30, 28, 26,
                                          24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    D.z[0]             = _mm512_permutex2var_epi16(U.z[0], even, U.z[1]);
    D.z[1]             = _mm512_permutex2var_epi16(U.z[0], _mm512_add_epi16(even, _mm512_set1_epi16(1)), U.z[1]);
    return D.v;
#elif defined(__AVX2__)
    // Each 16-byte chunk to its 4 even halfwords (low 8 bytes) and 4 odd ones (high 8 bytes);
    // chunk pairs then join by 64-bit unpacks: evens to bytes [0,64), odds to [64,128).
    hvx_emu_simd U, D;
    U.v = Vu;
    const __m128i eo = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    for (int j = 0; j < 4; j++) {
        const __m128i a = _mm_shuffle_epi8(U.x[2 * j], eo), b = _mm_shuffle_epi8(U.x[2 * j + 1], eo);
        D.x[j]          = _mm_unpacklo_epi64(a, b);
        D.x[4 + j]      = _mm_unpackhi_epi64(a, b);
    }
    return D.v;
#else
    return hvx_emu_shuffle_lanes(Vu, 2, 1);
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
