// GET_ROWS of the IQ codebook types (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M):
// ggml's dequantize_row_* (ggml-quants.c) bit for bit; also MUL_MAT's weight prep of these types
// (npu/ops/mul-mat/mul-mat-dequant.h). Each super-block (one ggml block of 256
// elements, 50..110 bytes) arrives in a 128-byte VTCM vector of its own (host/ops/get-rows.cpp
// is_iq_grid), so its bytes reach the core by vextract (the core reads no VTCM). A group of 8
// elements is one grid entry of 8 byte values (IQ3: two of 4), a scalar load from the
// library's constant data (iq-grids.h); its signs are applied to the packed bytes in scalar (a
// byte's two's complement (w ^ m) + (m & 0x01010101), m = 0xff per negative byte: the grid
// values are 1..62, so no byte carries into the next) and its two words enter a vector by
// valign. 32 words make the 128 int8 values of 4 groups of 32 in element order, widened to
// F32 (i8_to_f32_half) and scaled as ggml does: value * scale, IQ1 (value + delta) * scale.
#pragma once
#include "htp-abi/htp-types.h"
#include "hvx-util.h"
#include "hvx-vmem.h"
#include "iq-grids-iq1.h"
#include "iq-grids.h"
#include "row-stream.h"

namespace htp_ops {
namespace iq_rows {

HTP_INLINE uint32_t byte_at(HVX_Vector v, uint32_t off) {
    return word_at(v, off) & 0xff;
}

// The FP16 halfword 0 of v as F32 (the vector conversion: the core has no FP16 scalar).
HTP_INLINE float f16_lane0(HVX_Vector v) {
    return f32_from_bits(word_at(Q6_V_lo_W(f16_scales_f32(v)), 0));
}

// Bits 0..3 of n -> 0xff in bytes 0..3 (n * 0x00204081 puts bit i at i + 7 i; no two overlap).
HTP_INLINE uint32_t byte_mask4(uint32_t n) {
    return (((n & 15) * 0x00204081u) & 0x01010101u) * 0xffu;
}

// Four packed byte values, those whose sign bit (bits 0..3 of s) is set negated.
HTP_INLINE uint32_t signed_bytes(uint32_t w, uint32_t s) {
    const uint32_t m = byte_mask4(s);
    return (w ^ m) + (m & 0x01010101u);
}

// ggml's ksigns_iq2xs: 7 sign bits and their parity as the eighth.
HTP_INLINE uint32_t ksigns(uint32_t s7) {
    return s7 | ((uint32_t) __builtin_popcount(s7) & 1) << 7;
}

// Group g (0..31: elements 8g .. 8g + 7) of super-block b as two words of int8 values.
template <uint32_t T> HTP_INLINE void group_words(HVX_Vector b, uint32_t g, uint32_t & lo, uint32_t & hi) {
    const uint32_t ib = g / 4, l = g % 4;
    uint64_t       e  = 0;
    uint32_t       s  = 0;  // sign bits of the 8 values
    if (T == HTP_TYPE_IQ2_XXS) {  // d, qs: per 32 elements 4 index bytes, then 4 x 7 sign bits and the scale
        e = iq2xxs_grid[byte_at(b, 2 + 8 * ib + l)];
        s = ksigns((word_at(b, 6 + 8 * ib) >> (7 * l)) & 127);
    } else if (T == HTP_TYPE_IQ2_XS) {  // d, qs: a 16-bit word per group (9-bit index, 7 sign bits), scales
        const uint32_t q = word_at(b, 2 + 2 * g) & 0xffff;
        e                = iq2xs_grid[q & 511];
        s                = ksigns(q >> 9);
    } else if (T == HTP_TYPE_IQ2_S) {  // d, qs (32 index bytes, 32 sign bytes), qh, scales
        e = iq2s_grid[byte_at(b, 2 + g) | ((byte_at(b, 66 + ib) << (8 - 2 * l)) & 0x300)];
        s = byte_at(b, 34 + g);
    } else if (T == HTP_TYPE_IQ3_XXS) {  // d, qs (64 index bytes), 8 words of 4 x 7 sign bits and the scale
        lo = iq3xxs_grid[byte_at(b, 2 + 2 * g)];
        hi = iq3xxs_grid[byte_at(b, 3 + 2 * g)];
        s  = ksigns((word_at(b, 66 + 4 * ib) >> (7 * l)) & 127);
    } else if (T == HTP_TYPE_IQ3_S) {  // d, qs (64), qh (8), signs (32), scales (4)
        const uint32_t h = byte_at(b, 66 + ib);
        lo               = iq3s_grid[byte_at(b, 2 + 2 * g) | ((h << (8 - 2 * l)) & 256)];
        hi               = iq3s_grid[byte_at(b, 3 + 2 * g) | ((h << (7 - 2 * l)) & 256)];
        s                = byte_at(b, 74 + g);
    } else if (T == HTP_TYPE_IQ1_S) {  // d, qs (32), qh (8 x 16 bits): values -1, 0, 1, no signs
        const uint32_t h = word_at(b, 34 + 2 * ib) & 0xffff;
        e                = iq1s_grid[byte_at(b, 2 + g) | (((h >> (3 * l)) & 7) << 8)];
    } else {  // IQ1_M: qs (32), qh (16), scales (8)
        const uint32_t h = byte_at(b, 32 + 2 * ib + l / 2);
        e                = iq1s_grid[byte_at(b, g) | ((h << (l % 2 ? 4 : 8)) & 0x700)];
    }
    if (T != HTP_TYPE_IQ3_XXS && T != HTP_TYPE_IQ3_S) {
        lo = (uint32_t) e;
        hi = (uint32_t) (e >> 32);
    }
    if (T != HTP_TYPE_IQ1_S && T != HTP_TYPE_IQ1_M) {
        lo = signed_bytes(lo, s);
        hi = signed_bytes(hi, s >> 4);
    }
}

// Halves (elements 0..15, 16..31) of a group of 32 with their own value.
HTP_INLINE HVX_Vector halves(float a, float b) {
    return Q6_V_vmux_QVV(Q6_Q_vsetq_R(64), splat_f32(a), splat_f32(b));
}

// The 32 values of group ib of 32 (as F32 in f) scaled as ggml does; d: the super-block's.
template <uint32_t T> HTP_INLINE HVX_Vector scale_group(HVX_Vector b, uint32_t ib, float d, HVX_Vector f) {
    if (T == HTP_TYPE_IQ2_XXS) {
        return Q6_Vsf_vmpy_VsfVsf(f, splat_f32(d * (0.5f + (float) (word_at(b, 6 + 8 * ib) >> 28)) * 0.25f));
    }
    if (T == HTP_TYPE_IQ2_XS || T == HTP_TYPE_IQ2_S) {
        const uint32_t sc = byte_at(b, (T == HTP_TYPE_IQ2_XS ? 66 : 74) + ib);
        return Q6_Vsf_vmpy_VsfVsf(f, halves(d * (0.5f + (float) (sc & 0xf)) * 0.25f, d * (0.5f + (float) (sc >> 4)) * 0.25f));
    }
    if (T == HTP_TYPE_IQ3_XXS) {
        return Q6_Vsf_vmpy_VsfVsf(f, splat_f32(d * (0.5f + (float) (word_at(b, 66 + 4 * ib) >> 28)) * 0.5f));
    }
    if (T == HTP_TYPE_IQ3_S) {
        const uint32_t sc = (byte_at(b, 106 + ib / 2) >> (4 * (ib % 2))) & 0xf;
        return Q6_Vsf_vmpy_VsfVsf(f, splat_f32(d * (float) (1 + 2 * sc)));
    }
    if (T == HTP_TYPE_IQ1_S) {
        const uint32_t h     = word_at(b, 34 + 2 * ib) & 0xffff;
        const float    delta = (h & 0x8000) ? -0.125f : 0.125f;
        return Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vadd_VsfVsf(f, splat_f32(delta)), splat_f32(d * (float) (2 * ((h >> 12) & 7) + 1)));
    }
    // IQ1_M: 3-bit scales per 16 elements (a 16-bit word per two groups), a delta per 8
    const uint32_t sc = (word_at(b, 48 + 2 * (ib / 2)) & 0xffff) >> (6 * (ib % 2));
    const uint32_t h  = word_at(b, 32 + 2 * ib) & 0xffff;  // qh of groups 2 ib, 2 ib + 1
    HVX_Vector     dv = Q6_V_vzero();
    for (uint32_t l = 0; l < 4; l++) {  // delta of elements 8 l .. 8 l + 7: bit 3 of h's nibble l
        const float v = ((h >> (4 * l)) & 0x08) ? -0.125f : 0.125f;
        dv            = Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (32 * l)), dv, splat_f32(v));  // bytes >= 32 l
    }
    const HVX_Vector s = halves(d * (float) (2 * (sc & 7) + 1), d * (float) (2 * ((sc >> 3) & 7) + 1));
    return Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vadd_VsfVsf(f, dv), s);
}

// The super-block's d: FP16 at bytes 0..1; IQ1_M's from the top nibbles of its 4 scale words.
template <uint32_t T> HTP_INLINE float block_d(HVX_Vector b) {
    if (T == HTP_TYPE_IQ1_M) {
        const uint32_t s01 = word_at(b, 48), s23 = word_at(b, 52);
        const uint32_t h   = ((s01 & 0xffff) >> 12) | ((s01 >> 24) & 0x00f0) | (((s23 & 0xffff) >> 4) & 0x0f00) |
                           ((s23 >> 16) & 0xf000);
        return f16_lane0(Q6_V_vsplat_R((int32_t) h));
    }
    return f16_lane0(b);
}

// Elements 128 H .. 128 H + 127 of super-block b into y[4 H .. 4 H + 3] (H a template argument:
// no half counter or bound kept in a register in the loops, which IQ1_M's scalars fill).
template <uint32_t T, uint32_t H> HTP_INLINE void half_block(HVX_Vector b, float d, HVX_Vector * y) {
    HVX_Vector v = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t g = 16 * H; g < 16 * H + 16; g++) {
        uint32_t lo, hi;
        group_words<T>(b, g, lo, hi);
        v = Q6_V_valign_VVR(Q6_V_vsplat_R((int32_t) lo), v, 4);
        v = Q6_V_valign_VVR(Q6_V_vsplat_R((int32_t) hi), v, 4);
    }
    for (uint32_t k = 0; k < 2; k++) {  // 64 values a trip: no array of converted vectors
        const HVX_VectorPair w  = i8_to_f32_half(v, k);
        const uint32_t       ib = 4 * H + 2 * k;
        hvx_vmem_store(&y[ib], scale_group<T>(b, ib, d, Q6_V_lo_W(w)));
        hvx_vmem_store(&y[ib + 1], scale_group<T>(b, ib + 1, d, Q6_V_hi_W(w)));
    }
}

// One row of n_sb super-blocks, x: one a vector (DMA'd whole), y: 8 F32 vectors each. Out of
// line and named compute_ (the Hexagon gates check its loops); the helpers above inline into it.
template <uint32_t T> HTP_COMPUTE void compute_iq_row(HVX_Vector * y, const HVX_Vector * x, uint32_t n_sb) {
    const HVX_Vector * end = x + n_sb;
    HTP_NO_UNROLL
    for (; x < end; x++, y += 8) {  // pointers stepped: no index kept beside them
        const HVX_Vector b = hvx_vmem_load(x);
        const float      d = block_d<T>(b);
        half_block<T, 0>(b, d, y);
        half_block<T, 1>(b, d, y);
    }
}

}  // namespace iq_rows
}  // namespace htp_ops
