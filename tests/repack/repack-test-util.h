// Shared helpers for the repack tests: ggml type mapping, FP16 via ggml's own converters,
// ggml's to_float, and an element decoder of ggml's flat K-quant blocks written from ggml's
// dequantization code (so the bound of the lossy formats can be computed per element).
#pragma once
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <random>
#include <vector>

#include "ggml.h"
#include "htp-repack/repack.h"

namespace rt {

struct type_case {
    ggml_type     gtype;
    enum htp_type htype;
    const char *  name;
};

// All fourteen tiled types in the order of docs/tiled-formats.md: Q4_0, Q8_0, IQ4_NL, MXFP4,
// Q4_1, Q1_0, Q2_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, then Q5_0 and Q5_1 (our own design).
inline const std::vector<type_case> & all_types() {
    static const std::vector<type_case> v = {
        { GGML_TYPE_Q4_0, HTP_TYPE_Q4_0, "Q4_0" },       { GGML_TYPE_Q8_0, HTP_TYPE_Q8_0, "Q8_0" },
        { GGML_TYPE_IQ4_NL, HTP_TYPE_IQ4_NL, "IQ4_NL" }, { GGML_TYPE_MXFP4, HTP_TYPE_MXFP4, "MXFP4" },
        { GGML_TYPE_Q4_1, HTP_TYPE_Q4_1, "Q4_1" },       { GGML_TYPE_Q1_0, HTP_TYPE_Q1_0, "Q1_0" },
        { GGML_TYPE_Q2_0, HTP_TYPE_Q2_0, "Q2_0" },       { GGML_TYPE_Q2_K, HTP_TYPE_Q2_K, "Q2_K" },
        { GGML_TYPE_Q3_K, HTP_TYPE_Q3_K, "Q3_K" },       { GGML_TYPE_Q4_K, HTP_TYPE_Q4_K, "Q4_K" },
        { GGML_TYPE_Q5_K, HTP_TYPE_Q5_K, "Q5_K" },       { GGML_TYPE_Q6_K, HTP_TYPE_Q6_K, "Q6_K" },
        { GGML_TYPE_Q5_0, HTP_TYPE_Q5_0, "Q5_0" },       { GGML_TYPE_Q5_1, HTP_TYPE_Q5_1, "Q5_1" },
    };
    return v;
}

inline uint16_t f16(float f) { return ggml_fp32_to_fp16(f); }
inline float    f32(uint16_t h) { return ggml_fp16_to_fp32(h); }
inline uint16_t rd16(const uint8_t * p) { uint16_t v; memcpy(&v, p, 2); return v; }

// Smallest ne0 step that is whole flat blocks and whole tiles.
inline int64_t k_step(const type_case & t) {
    const int64_t blk = ggml_blck_size(t.gtype);
    const int64_t kc  = htp_tile_k_cols(t.htype);
    return blk > kc ? blk : kc;
}

inline std::vector<float> to_float(ggml_type type, const std::vector<uint8_t> & flat, int64_t ne0, int64_t ne1) {
    std::vector<float> out((size_t) (ne0 * ne1));
    ggml_get_type_traits(type)->to_float(flat.data(), out.data(), ne0 * ne1);
    return out;
}

inline std::vector<uint8_t> quantize(ggml_type type, const std::vector<float> & x, int64_t ne0, int64_t ne1) {
    std::vector<uint8_t> flat(ggml_row_size(type, ne0) * (size_t) ne1);
    ggml_quantize_chunk(type, x.data(), flat.data(), 0, ne1, ne0, nullptr);
    return flat;
}

inline std::vector<float> random_weights(std::mt19937 & rng, int64_t n) {
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float>              x((size_t) n);
    for (auto & v : x) {
        v = nd(rng);
    }
    return x;
}

inline const uint8_t * tile_ptr(const std::vector<uint8_t> & tiled, enum htp_type type, int64_t ne0, int64_t ct,
                                int64_t kt) {
    return tiled.data() + htp_tile_offset(type, ct, kt, htp_tile_n_k_tiles(type, ne0));
}

inline std::vector<uint8_t> repack_all(enum htp_type type, const std::vector<uint8_t> & flat, int64_t ne0,
                                       int64_t ne1) {
    std::vector<uint8_t> tiled(htp_tiled_matrix_size(type, ne0, ne1), 0xcd);
    EXPECT_TRUE(htp_repack_rows(type, tiled.data(), flat.data(), ne0, ne1, 0, ne1));
    return tiled;
}

// ---- ggml K-quant element decomposition: x = S * q - M (M = 0 for Q3_K, Q6_K) ------------
struct elem {
    float S;   // sub-block scale product (FP32, exact)
    int   q;   // integer quant as ggml multiplies it
    float M;   // min product (FP32, exact)
};

inline void scale_min_k4(int j, const uint8_t * s, int * sc, int * m) {
    if (j < 4) {
        *sc = s[j] & 63;
        *m  = s[j + 4] & 63;
    } else {
        *sc = (s[j + 4] & 0xf) | ((s[j - 4] >> 6) << 4);
        *m  = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

// e: element index inside the 256-element super-block at blk.
inline elem decompose(ggml_type type, const uint8_t * blk, int e) {
    elem r{ 0, 0, 0 };
    switch (type) {
        case GGML_TYPE_Q3_K: {   // hmask[32] qs[64] scales[12] d
            const uint8_t * hm = blk, *qs = blk + 32, *sc = blk + 96;
            const float     d  = f32(rd16(blk + 108));
            const int       j  = e / 16;
            const int lo = j < 8 ? (sc[j] & 0xf) : (sc[j - 8] >> 4);
            const int hi = (sc[8 + j % 4] >> (2 * (j / 4))) & 3;
            r.S          = d * (float) ((lo | (hi << 4)) - 32);
            const int l2 = (qs[32 * (e / 128) + e % 32] >> (2 * ((e % 128) / 32))) & 3;
            r.q          = l2 - (((hm[e % 32] >> (e / 32)) & 1) ? 0 : 4);
            break;
        }
        case GGML_TYPE_Q4_K:
        case GGML_TYPE_Q5_K: {   // d dmin scales[12] (qh[32]) qs[128]
            const float d = f32(rd16(blk)), dmin = f32(rd16(blk + 2));
            int         sc, m;
            scale_min_k4(e / 32, blk + 4, &sc, &m);
            const uint8_t * qs = blk + (type == GGML_TYPE_Q5_K ? 48 : 16);
            r.q                = (qs[32 * (e / 64) + e % 32] >> (4 * ((e / 32) & 1))) & 15;
            if (type == GGML_TYPE_Q5_K) {
                r.q += ((blk[16 + e % 32] >> (e / 32)) & 1) ? 16 : 0;
            }
            r.S = d * (float) sc;
            r.M = dmin * (float) m;
            break;
        }
        case GGML_TYPE_Q6_K: {   // ql[128] qh[64] scales[16] d
            const uint8_t * ql = blk, *qh = blk + 128;
            const int8_t *  sc = (const int8_t *) (blk + 192);
            const float     d  = f32(rd16(blk + 208));
            const int       w  = e % 128;
            const int lo = (ql[64 * (e / 128) + 32 * ((w / 32) & 1) + e % 32] >> (4 * (w / 64))) & 15;
            const int hi = (qh[32 * (e / 128) + e % 32] >> (2 * (w / 32))) & 3;
            r.q          = (lo | (hi << 4)) - 32;
            r.S          = d * (float) sc[e / 16];
            break;
        }
        default: break;
    }
    return r;
}

// The stated bound for the lossy formats (docs/tiled-formats.md):
// |out - x| <= 2^-10 (1 + 2^-10) (|x| + |S q| + |M|) + (|q| + 2) 2^-24.
inline double lossy_bound(double x, const elem & el) {
    return std::ldexp(1.0 + std::ldexp(1.0, -10), -10) * (std::fabs(x) + std::fabs((double) el.S * el.q) + std::fabs((double) el.M)) +
           (std::abs(el.q) + 2) * std::ldexp(1.0, -24);
}

}  // namespace rt
