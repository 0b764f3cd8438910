// Value tables of the 4- and 5-bit block formats for vlut32 (Rt = 0 reads byte 2 * code: byte
// 2k holds the signed value of code k), and MXFP4's E8M0 half scale. One copy for every kernel
// that decodes these codes: GET_ROWS' flat rows (npu/ops/get-rows.cpp), the tiled formats'
// HMX tiles (npu/ops/mul-mat/tile-dequant.cpp) and the flat MUL_MAT's row prep
// (npu/ops/mul-mat/mul-mat-prep.h); and the tables of the quantizers that write these formats.
#pragma once
#include <stdint.h>

namespace htp_ops {

// Q4_0: code k -> k - 8.
alignas(128) inline constexpr int8_t kLutQ4_0[128] = { -8, 0, -7, 0, -6, 0, -5, 0, -4, 0, -3, 0, -2, 0, -1, 0,
                                                       0,  0, 1,  0, 2,  0, 3,  0, 4,  0, 5,  0, 6,  0, 7,  0 };
// Q5_0: 5-bit code k -> k - 16 (the fifth bit is ORed in before the lookup).
alignas(128) inline constexpr int8_t kLutQ5_0[128] = { -16, 0, -15, 0, -14, 0, -13, 0, -12, 0, -11, 0, -10, 0, -9, 0,
                                                       -8,  0, -7,  0, -6,  0, -5,  0, -4,  0, -3,  0, -2,  0, -1, 0,
                                                       0,   0, 1,   0, 2,   0, 3,   0, 4,   0, 5,   0, 6,   0, 7,  0,
                                                       8,   0, 9,   0, 10,  0, 11,  0, 12,  0, 13,  0, 14,  0, 15, 0 };
// IQ4_NL: ggml's kvalues_iq4nl.
alignas(128) inline constexpr int8_t kLutIq4nl[128] = { -127, 0, -104, 0, -83, 0, -65, 0, -49, 0, -35, 0, -22, 0, -10, 0,
                                                        1,    0, 13,   0, 25,  0, 38,  0, 53,  0, 69,  0, 89,  0, 113, 0 };
// MXFP4: ggml's kvalues_mxfp4, twice E2M1 (bit 3 the sign); the E8M0 half scale below undoes the 2.
alignas(128) inline constexpr int8_t kLutMxfp4x2[128] = { 0, 0, 1,  0, 2,  0, 3,  0, 4,  0, 6,  0, 8,  0, 12,  0,
                                                          0, 0, -1, 0, -2, 0, -3, 0, -4, 0, -6, 0, -8, 0, -12, 0 };

// The quantizers of SET_ROWS / CPY (npu/ops/quantize-row.h). Word lane l: 1 << l (a Q5 block's
// fifth bits gathered into its 32-bit qh).
struct lane_words {
    uint32_t v[32] __attribute__((aligned(128)));
};

constexpr lane_words make_lane_pow2() {
    lane_words t{};
    for (int l = 0; l < 32; l++) {
        t.v[l] = 1u << l;
    }
    return t;
}

alignas(128) inline constexpr lane_words kLanePow2 = make_lane_pow2();

// Word lane l: 1 << 2 (l % 16) (the low bit of lane l's 2-bit field in word l / 16 of 8 bytes).
constexpr lane_words make_lane_pow4() {
    lane_words t{};
    for (int l = 0; l < 32; l++) {
        t.v[l] = 1u << (2 * (l % 16));
    }
    return t;
}

alignas(128) inline constexpr lane_words kLanePow4 = make_lane_pow4();

// The F32 bits of a small integer (|v| < 2^24), at compile time.
constexpr uint32_t small_int_f32_bits(int v) {
    if (v == 0) {
        return 0;
    }
    const uint32_t s = v < 0 ? 0x80000000u : 0u;
    const uint32_t a = (uint32_t) (v < 0 ? -v : v);
    int            e = 0;
    while ((a >> (e + 1)) != 0) {
        e++;
    }
    return s | (uint32_t) (e + 127) << 23 | ((a << (23 - e)) & 0x7fffffu);
}

// IQ4_NL's values as F32 bits (val[16]: +inf, the bound past the last) and, for the code
// search, key[k] = the order key of val[k] (hvx-math.h sf_key: the magnitude bits of a
// negative flipped) minus one, so that x >= val[k] is key(x) > key[k].
struct iq4nl_search {
    uint32_t val[17];
    int32_t  key[16];
};

constexpr iq4nl_search make_iq4nl_search() {
    iq4nl_search t{};
    for (int k = 0; k < 16; k++) {
        const uint32_t b = small_int_f32_bits(kLutIq4nl[2 * k]);
        t.val[k]         = b;
        t.key[k]         = (int32_t) ((b & 0x80000000u) ? b ^ 0x7fffffffu : b) - 1;
    }
    t.val[16] = 0x7f800000u;
    return t;
}

inline constexpr iq4nl_search kIq4nlSearch = make_iq4nl_search();

// Code k -> k - bias for the K-quants' offset codes (Q3_K: 3 bits, bias 4; Q6_K: 6 bits, bias
// 32; codes 32..63 read with Rt = 1), as vlut32 tables.
struct lut_bytes {
    int8_t v[128] __attribute__((aligned(128)));
};

constexpr lut_bytes make_bias_lut(int n, int bias) {
    lut_bytes t{};
    for (int k = 0; k < n; k++) {
        t.v[2 * k] = (int8_t) (k - bias);
    }
    return t;
}

alignas(128) inline constexpr lut_bytes kLutQ3_K = make_bias_lut(8, 4);
alignas(128) inline constexpr lut_bytes kLutQ6_K = make_bias_lut(64, 32);
// Code k -> k - 1 of the 2-bit and ternary codes: Q2_0 (0..3 -> -1..2), TQ2_0 (0..2 -> -1..1).
alignas(128) inline constexpr lut_bytes kLutTernary = make_bias_lut(4, 1);

// Q4_K / Q5_K: the 6-bit scale and min of 32-element sub-block j (0..7) from a super-block's
// 12 packed bytes, sc(i) byte i (ggml's get_scale_min_k4).
template <class B> inline void k4_scale_min(B sc, int j, uint32_t & d, uint32_t & m) {
    if (j < 4) {
        d = sc(j) & 63;
        m = sc(j + 4) & 63;
    } else {
        d = (sc(j + 4) & 0xF) | ((sc(j - 4) >> 6) << 4);
        m = (sc(j + 4) >> 4) | ((sc(j) >> 6) << 4);
    }
}

// Q3_K: the 6-bit scale (bias 32 taken off) of 16-element sub-block k (0..15) from a super-
// block's 12 packed bytes, sc(i) byte i: low 4 bits from byte 4 (k / 4 % 2) + k % 4 (its high
// nibble for k >= 8), high 2 bits from byte 8 + k % 4, bits 2 (k / 4) (dequantize_row_q3_K's
// aux words).
template <class B> inline int32_t k3_scale(B sc, int k) {
    const int      g  = k / 4, i = k % 4;
    const uint32_t lo = (uint32_t) (sc(4 * (g & 1) + i) >> (4 * (g >> 1))) & 0xF;
    const uint32_t hi = (uint32_t) (sc(8 + i) >> (2 * g)) & 3;
    return (int32_t) (lo | hi << 4) - 32;
}

// The bits of 2^(e - 128) as an F32 (ggml_e8m0_to_fp32_half): MXFP4's scale for kLutMxfp4x2.
inline constexpr uint32_t e8m0_half_bits(uint32_t e) {
    return e < 2 ? 0x00200000u << e : (e - 1) << 23;
}

}  // namespace htp_ops
