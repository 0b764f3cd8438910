// HVX register types for hosts, 128-byte mode, laid out as on Hexagon:
//   HVX_Vector      one 1024-bit V register (32 words / 64 halfwords / 128 bytes)
//   HVX_UVector     the same with byte alignment, for vmemu-style unaligned loads/stores
//   HVX_VectorPair  a V register pair Vdd = V(2n+1):V(2n); words [0,32) are the low register
//                   (Q6_V_lo_W), words [32,64) the high one (Q6_V_hi_W)
//   HVX_VectorPred  a Q register: 128 bits, bit i predicates byte lane i
// Element views (lanes) are GCC vector types of the same size; casting between them is a bit
// cast, so `(hvx_vsf) v` reinterprets v's bits as 32 floats, like Vu.sf in the ISA.
#pragma once
#include <stdint.h>
#include <string.h>

#if defined(__AVX2__)
#    include <immintrin.h>
#endif

// HVX_EMU_AVX512: the build targets AVX-512 F/BW/DQ/VL with VNNI and VBMI (CMake option
// GGML_HEXAGON_AVX512), and the intrinsics that gain from it take an AVX-512 form: one HVX
// vector is two zmm registers, a predicate's two words are two k-registers. Every other build
// keeps the AVX2 forms (or the portable ones), which stay bit for bit the same.
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__) && \
    defined(__AVX512VNNI__) && defined(__AVX512VBMI__)
#    define HVX_EMU_AVX512 1
#endif

#define HVX_EMU_VLEN 128

// may_alias: kernels cast float / half / byte buffers to HVX_Vector * and read them back as
// scalars (as real code does with vmem); without it GCC's type-based alias analysis may
// reorder those accesses on the host.
typedef int32_t HVX_Vector __attribute__((vector_size(HVX_EMU_VLEN), aligned(HVX_EMU_VLEN), may_alias));
typedef int32_t HVX_UVector __attribute__((vector_size(HVX_EMU_VLEN), aligned(1), may_alias));
typedef int32_t HVX_VectorPair __attribute__((vector_size(2 * HVX_EMU_VLEN), aligned(HVX_EMU_VLEN), may_alias));

typedef struct {
    uint64_t q[2];  // bit i of the 128 (q[i / 64] >> (i % 64)) predicates byte lane i
} HVX_VectorPred;

// Lane views of one vector (internal to the emulation).
typedef int8_t   hvx_vb __attribute__((vector_size(HVX_EMU_VLEN)));
typedef uint8_t  hvx_vub __attribute__((vector_size(HVX_EMU_VLEN)));
typedef int16_t  hvx_vh __attribute__((vector_size(HVX_EMU_VLEN)));
typedef uint16_t hvx_vuh __attribute__((vector_size(HVX_EMU_VLEN)));
typedef int32_t  hvx_vw __attribute__((vector_size(HVX_EMU_VLEN)));
typedef uint32_t hvx_vuw __attribute__((vector_size(HVX_EMU_VLEN)));
typedef float    hvx_vsf __attribute__((vector_size(HVX_EMU_VLEN)));
// Wider intermediates (two registers' worth) for widening/saturating arithmetic.
typedef int64_t  hvx_vw64 __attribute__((vector_size(2 * HVX_EMU_VLEN)));

#define HVX_EMU_INLINE static inline __attribute__((always_inline))

// Defines the intrinsic NAME(Vu, Vv) (HVX_EMU_VV) or NAME(Vu) (HVX_EMU_V) returning EXPR of
// type RET, counted as class CLS: one line per SDK name for the instruction families whose
// members differ only in their lane view and operator (compares, wrapping add / sub, unpacks).
#define HVX_EMU_VV(RET, NAME, CLS, EXPR)                    \
    HVX_EMU_INLINE RET NAME(HVX_Vector Vu, HVX_Vector Vv) { \
        HVX_EMU_COUNT(CLS);                                 \
        return EXPR;                                        \
    }
#define HVX_EMU_V(RET, NAME, CLS, EXPR)      \
    HVX_EMU_INLINE RET NAME(HVX_Vector Vu) { \
        HVX_EMU_COUNT(CLS);                  \
        return EXPR;                         \
    }

#if defined(__AVX2__)
// One vector as SSE / AVX2 registers, for the AVX2 forms of the intrinsics: x its eight
// 16-byte chunks, y its four 32-byte ones, b its bytes.
typedef union {
    HVX_Vector v;
    uint8_t    b[HVX_EMU_VLEN];
    __m128i    x[8];
    __m256i    y[4];
#    if defined(HVX_EMU_AVX512)
    __m512i z[2];  // bytes [0, 64) and [64, 128)
#    endif
} hvx_emu_simd;
#endif

#if defined(HVX_EMU_AVX512)
// The byte index vector {0, 1, ..., 63} + base (vpermb / vpermt2b read the low 6 / 7 bits).
HVX_EMU_INLINE __m512i hvx_emu_iota8(int base) {
    const __m512i iota = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45,
                                         44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26,
                                         25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5,
                                         4, 3, 2, 1, 0);
    return _mm512_add_epi8(iota, _mm512_set1_epi8((char) base));
}
#endif

// HVX_EMU_COUNT(ALU | MPY | PERMUTE | OTHER): an intrinsic's instruction class, for whoever
// includes these headers with HVX_EMU_COUNT_HOOK(cls) defined (the device API's level-2
// counters, device-api/include/htp/hvx.h); nothing otherwise.
#if defined(HVX_EMU_COUNT_HOOK)
#    define HVX_EMU_COUNT(cls) HVX_EMU_COUNT_HOOK(cls)
#else
#    define HVX_EMU_COUNT(cls) ((void) 0)
#endif

// Every word lane = x (the ISA's Rt broadcast for vsplat, vand(Q, Rt), ...).
HVX_EMU_INLINE HVX_Vector hvx_emu_splat32(uint32_t x) {
    const hvx_vuw z = { 0 };
    return (HVX_Vector) (z + x);
}

// A pair from its registers (lo = V(2n), hi = V(2n+1)) and back.
HVX_EMU_INLINE HVX_VectorPair hvx_emu_pair(HVX_Vector hi, HVX_Vector lo) {
    HVX_VectorPair r;
    memcpy((char *) &r, &lo, HVX_EMU_VLEN);
    memcpy((char *) &r + HVX_EMU_VLEN, &hi, HVX_EMU_VLEN);
    return r;
}

HVX_EMU_INLINE HVX_Vector hvx_emu_pair_lo(HVX_VectorPair w) {
    HVX_Vector v;
    memcpy(&v, (const char *) &w, HVX_EMU_VLEN);
    return v;
}

HVX_EMU_INLINE HVX_Vector hvx_emu_pair_hi(HVX_VectorPair w) {
    HVX_Vector v;
    memcpy(&v, (const char *) &w + HVX_EMU_VLEN, HVX_EMU_VLEN);
    return v;
}

// Byte-mask form of a predicate (0x00 / 0xff per byte lane) and back. The AVX2 paths move
// 32 lanes per step; the portable loops are the reference the unit tests also exercise.
HVX_EMU_INLINE hvx_vub hvx_emu_pred_to_mask_portable(HVX_VectorPred q) {
    hvx_vub m;
    for (int i = 0; i < HVX_EMU_VLEN; i++) {
        m[i] = ((q.q[i >> 6] >> (i & 63)) & 1) ? 0xff : 0x00;
    }
    return m;
}

HVX_EMU_INLINE HVX_VectorPred hvx_emu_mask_to_pred_portable(hvx_vub m) {
    HVX_VectorPred q = { { 0, 0 } };
    for (int i = 0; i < HVX_EMU_VLEN; i++) {
        q.q[i >> 6] |= (uint64_t) (m[i] >> 7) << (i & 63);
    }
    return q;
}

HVX_EMU_INLINE hvx_vub hvx_emu_pred_to_mask(HVX_VectorPred q) {
#if defined(HVX_EMU_AVX512)
    hvx_emu_simd u;  // vpmovm2b: each k bit to a 0x00 / 0xff byte
    u.z[0] = _mm512_movm_epi8((__mmask64) q.q[0]);
    u.z[1] = _mm512_movm_epi8((__mmask64) q.q[1]);
    return (hvx_vub) u.v;
#elif defined(__AVX2__)
    // Each 32-bit slice of q expands to 32 bytes: broadcast the 4 bytes, route byte k/8 to
    // lane k, keep bit k%8, compare non-zero.
    const __m256i route = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                           2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long) 0x8040201008040201ull);
    union {
        hvx_vub v;
        __m256i m[4];
    } u;
    for (int k = 0; k < 4; k++) {
        const uint32_t bits32 = (uint32_t) (q.q[k >> 1] >> ((k & 1) * 32));
        __m256i x = _mm256_shuffle_epi8(_mm256_set1_epi32((int) bits32), route);
        x = _mm256_and_si256(x, bit);
        u.m[k] = _mm256_cmpeq_epi8(x, bit);
    }
    return u.v;
#else
    return hvx_emu_pred_to_mask_portable(q);
#endif
}

HVX_EMU_INLINE HVX_VectorPred hvx_emu_mask_to_pred(hvx_vub m) {
#if defined(HVX_EMU_AVX512)
    hvx_emu_simd u;  // vpmovb2m: each byte's top bit to a k bit
    u.v = (HVX_Vector) m;
    HVX_VectorPred q;
    q.q[0] = (uint64_t) _mm512_movepi8_mask(u.z[0]);
    q.q[1] = (uint64_t) _mm512_movepi8_mask(u.z[1]);
    return q;
#elif defined(__AVX2__)
    union {
        hvx_vub v;
        __m256i m[4];
    } u;
    u.v = m;
    HVX_VectorPred q;
    q.q[0] = (uint64_t) (uint32_t) _mm256_movemask_epi8(u.m[0]) |
             ((uint64_t) (uint32_t) _mm256_movemask_epi8(u.m[1]) << 32);
    q.q[1] = (uint64_t) (uint32_t) _mm256_movemask_epi8(u.m[2]) |
             ((uint64_t) (uint32_t) _mm256_movemask_epi8(u.m[3]) << 32);
    return q;
#else
    return hvx_emu_mask_to_pred_portable(m);
#endif
}

// Predicate bit of byte lane i (scalar helper for tests and references).
HVX_EMU_INLINE int hvx_emu_pred_bit(HVX_VectorPred q, int i) {
    return (int) ((q.q[i >> 6] >> (i & 63)) & 1);
}
