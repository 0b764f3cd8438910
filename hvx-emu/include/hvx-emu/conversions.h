// HVX numeric conversions: int -> sf (v73 vconv), hf <-> sf (v68 vcvt, -mhvx-ieee-fp).
// Lane order (as the compiler lowers fpext/fptrunc: vcvt then vdeal/after vshuff):
//   Q6_Wsf_vcvt_Vhf(Vu):        Vdd.v[0].sf[i] = Vu.hf[2i], Vdd.v[1].sf[i] = Vu.hf[2i+1]
//   Q6_Vhf_vcvt_VsfVsf(Vu, Vv): Vd.hf[2i] = Vu.sf[i],      Vd.hf[2i+1] = Vv.sf[i]
// so in-order conversions are Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(x)) and
// Q6_Vh_vdeal_Vh(Q6_Vhf_vcvt_VsfVsf(lo, hi)) (the ISA's vcvt_hf_sf puts Vu in the even lanes).
// Rounding is to nearest-even; subnormals kept; sf -> hf overflows to infinity; a NaN result is
// the HVX default NaN (0x7fffffff sf, 0x7fff hf).
#pragma once
#include "hvx-emu/ieee-float.h"
#include "hvx-emu/permute.h"
#include "hvx-emu/types.h"

typedef struct {
    uint16_t h[32];  // 32 hf lanes (half a vector); a struct, not a 64-byte vector, to keep
} hvx_emu_h32;       // the host ABI stable without AVX-512

// Scalar IEEE binary16 <-> binary32, round to nearest-even (portable reference path).
HVX_EMU_INLINE float hvx_emu_f16_to_f32(uint16_t h) {
    const uint32_t sign = (uint32_t) (h & 0x8000u) << 16;
    uint32_t       exp  = (h >> 10) & 0x1fu;
    uint32_t       man  = h & 0x3ffu;
    uint32_t       bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else {  // subnormal: normalise
        exp = 113;
        while (!(man & 0x400u)) {
            man <<= 1;
            exp--;
        }
        bits = sign | (exp << 23) | ((man & 0x3ffu) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

HVX_EMU_INLINE uint16_t hvx_emu_f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    const uint16_t sign = (uint16_t) ((x >> 16) & 0x8000u);
    const uint32_t ax   = x & 0x7fffffffu;
    if (ax > 0x7f800000u) {  // NaN: keep it quiet, keep the top payload bits
        return (uint16_t) (sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    }
    if (ax >= 0x477ff000u) {  // rounds to >= 65536: infinity
        return (uint16_t) (sign | 0x7c00u);
    }
    if (ax < 0x38800000u) {  // result subnormal or zero: round |f| * 2^24 to an integer
        const uint32_t e     = ax >> 23;
        if (e < 102) {
            return sign;  // below half the smallest subnormal
        }
        const uint32_t m     = (ax & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - e;  // 14..24
        uint32_t       r     = m >> shift;
        const uint32_t rem   = m & ((1u << shift) - 1);
        const uint32_t half  = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) {
            r++;
        }
        return (uint16_t) (sign | r);
    }
    uint32_t       r   = ax - 0x38000000u;  // rebias exponent 127 -> 15 (still 23-bit mantissa)
    const uint32_t rem = r & 0x1fffu;
    r >>= 13;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) {
        r++;
    }
    return (uint16_t) (sign | r);
}

// 32 hf lanes -> 32 sf lanes, in order
HVX_EMU_INLINE HVX_Vector hvx_emu_cvt_hf32_sf(hvx_emu_h32 h) {
#if defined(HVX_EMU_AVX512)
    union {
        hvx_vsf v;
        __m512  z[2];
    } r;
    for (int k = 0; k < 2; k++) {
        // the all-lanes mask form: GCC 12's plain form starts from an undefined register and
        // then warns it may be used uninitialized
        r.z[k] = _mm512_maskz_cvtph_ps((__mmask16) 0xffff, _mm256_loadu_si256((const __m256i *) (h.h + 16 * k)));
    }
    return (HVX_Vector) r.v;
#elif defined(__F16C__) && defined(__AVX__)
    union {
        hvx_vsf v;
        __m256  m[4];
    } r;
    for (int k = 0; k < 4; k++) {
        r.m[k] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (h.h + 8 * k)));
    }
    return (HVX_Vector) r.v;
#else
    hvx_vsf r;
    for (int i = 0; i < 32; i++) {
        r[i] = hvx_emu_f16_to_f32(h.h[i]);
    }
    return (HVX_Vector) r;
#endif
}

// 32 sf lanes -> 32 hf lanes, in order
HVX_EMU_INLINE hvx_emu_h32 hvx_emu_cvt_sf_hf32(HVX_Vector v) {
#if defined(HVX_EMU_AVX512)
    union {
        hvx_vsf v;
        __m512  z[2];
    } u;
    hvx_emu_h32 r;
    u.v = (hvx_vsf) v;
    for (int k = 0; k < 2; k++) {
        _mm256_storeu_si256((__m256i *) (r.h + 16 * k),
                            _mm512_maskz_cvtps_ph((__mmask16) 0xffff, u.z[k], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    return r;
#elif defined(__F16C__) && defined(__AVX__)
    union {
        hvx_vsf v;
        __m256  m[4];
    } u;
    hvx_emu_h32 r;
    u.v = (hvx_vsf) v;
    for (int k = 0; k < 4; k++) {
        _mm_storeu_si128((__m128i *) (r.h + 8 * k),
                         _mm256_cvtps_ph(u.m[k], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    return r;
#else
    const hvx_vsf f = (hvx_vsf) v;
    hvx_emu_h32   r;
    for (int i = 0; i < 32; i++) {
        r.h[i] = hvx_emu_f32_to_f16(f[i]);
    }
    return r;
#endif
}

// Vd.hf = vcvt(Vu.h) (v68): int16 -> fp16 lane for lane, round to nearest-even
// (every int16 is below fp16's largest finite value, so no lane overflows).
HVX_EMU_INLINE HVX_Vector Q6_Vhf_vcvt_Vh(HVX_Vector Vu) {
    HVX_EMU_COUNT(ALU);
    typedef int16_t hvx_emu_h32i __attribute__((vector_size(64)));
    typedef float   hvx_emu_f32x32 __attribute__((vector_size(128)));
    hvx_emu_h32i half[2];
    memcpy(half, &Vu, sizeof(half));
    HVX_Vector r;
    for (int k = 0; k < 2; k++) {
        const hvx_emu_f32x32 f = __builtin_convertvector(half[k], hvx_emu_f32x32);
        HVX_Vector fv;
        memcpy(&fv, &f, sizeof(fv));
        const hvx_emu_h32 h = hvx_emu_cvt_sf_hf32(fv);
        memcpy((char *) &r + 64 * k, &h, 64);
    }
    return r;
}

// Vdd.sf = vcvt(Vu.hf): even hf lanes to the low register, odd to the high one
HVX_EMU_INLINE HVX_VectorPair Q6_Wsf_vcvt_Vhf(HVX_Vector Vu) {
    HVX_EMU_COUNT(ALU);
    const HVX_Vector d = hvx_emu_vdeal_h(Vu);  // evens in bytes [0,64), odds in [64,128)
    hvx_emu_h32      even, odd;
    memcpy(&even, (const char *) &d, 64);
    memcpy(&odd, (const char *) &d + 64, 64);
    const hvx_vsf    lo = (hvx_vsf) hvx_emu_cvt_hf32_sf(even), hi = (hvx_vsf) hvx_emu_cvt_hf32_sf(odd);
    return hvx_emu_pair(hvx_emu_sf_default_nan(hi), hvx_emu_sf_default_nan(lo));  // default NaN
}

// Vd.hf = vcvt(Vu.sf, Vv.sf): Vu's lanes to the even hf lanes, Vv's to the odd ones
HVX_EMU_INLINE HVX_Vector Q6_Vhf_vcvt_VsfVsf(HVX_Vector Vu, HVX_Vector Vv) {
    HVX_EMU_COUNT(ALU);
    const hvx_emu_h32 even = hvx_emu_cvt_sf_hf32(Vu);
    const hvx_emu_h32 odd  = hvx_emu_cvt_sf_hf32(Vv);
    HVX_Vector        d;
    memcpy((char *) &d, &even, 64);
    memcpy((char *) &d + 64, &odd, 64);
    const hvx_vuh h   = (hvx_vuh) hvx_emu_vshuff_h(d);
    const hvx_vuh nan = (hvx_vuh) ((h & 0x7fff) > 0x7c00);  // default NaN
    return (HVX_Vector) ((h & ~nan) | (nan & 0x7fff));
}
