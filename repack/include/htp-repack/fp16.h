// FP16 <-> FP32 of the repacker (IEEE binary16, round to nearest even), public because the
// NPU's HVX repacker (npu/ops/mul-mat/mul-mat-hmx-repack.h) must round the K-quant scale
// products exactly as the scalar repacker does (the tests compare their tiles byte for byte).
// Freestanding: <stdint.h> and <string.h> only.
#pragma once
#include <stdint.h>
#include <string.h>

namespace htp_repack {

static inline uint32_t f32_bits(float f) { uint32_t u; __builtin_memcpy(&u, &f, 4); return u; }
static inline float    bits_f32(uint32_t u) { float f; __builtin_memcpy(&f, &u, 4); return f; }

static inline float fp16_to_fp32(uint16_t h) {
    const uint32_t sign = (uint32_t) (h & 0x8000) << 16;
    const uint32_t e    = (h >> 10) & 0x1f;
    const uint32_t m    = h & 0x3ff;
    if (e == 0) {
        const float f = (float) m * 0x1p-24f;   // zero or subnormal, exact
        return sign ? -f : f;
    }
    if (e == 31) {
        return bits_f32(sign | 0x7f800000u | (m << 13));
    }
    return bits_f32(sign | ((e + 112) << 23) | (m << 13));
}

static inline uint16_t fp32_to_fp16(float f) {
    const uint32_t x    = f32_bits(f);
    const uint16_t sign = (uint16_t) ((x >> 16) & 0x8000);
    uint32_t       ax   = x & 0x7fffffffu;
    if (ax > 0x7f800000u) {                       // NaN: keep it quiet and keep the top payload
        return (uint16_t) (sign | 0x7e00 | ((ax >> 13) & 0x1ff));
    }
    if (ax >= 0x477ff000u) {                      // >= 65520 rounds to infinity
        return (uint16_t) (sign | 0x7c00);
    }
    if (ax < 0x38800000u) {                       // below 2^-14: FP16 subnormal or zero
        // Adding 0.5 puts the value's 2^-24 units in the low mantissa bits, rounded (RNE).
        const float r = bits_f32(ax) + 0.5f;
        return (uint16_t) (sign | (f32_bits(r) - 0x3f000000u));
    }
    ax += 0xc8000fffu + ((ax >> 13) & 1);         // rebias exponent (-112) and round to even
    return (uint16_t) (sign | (ax >> 13));
}

}  // namespace htp_repack
