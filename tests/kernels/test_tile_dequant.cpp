// npu/ops/mul-mat/tile-dequant: every tile of every tiled format, dequantized by the NPU routine into
// FP16 HMX tiles, against (1) the reference dequantizer htp_repack_tile_to_f16 and (2) ggml's
// to_float. Bounds (tile-dequant.h): (1) bit-equal, or within 1 FP16 ulp for the formats whose
// value is a product plus a sum (Q4_1, Q5_1, Q2_K, Q4_K, Q5_K); (2) lossless formats: the FP16
// rounding of ggml's value (half an ulp, plus the ulp of (1)); lossy formats: the bound of
// docs/tiled-formats.md ("Precision", in terms of ggml's S, q, M), plus (1).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "ggml.h"
#include "htp-repack/repack.h"
#include "repack-test-util.h"
#include "mul-mat/tile-dequant.h"

namespace {

struct tc {
    ggml_type    type;
    const char * name;
};

const tc kTypes[] = {
    { GGML_TYPE_Q4_0, "Q4_0" }, { GGML_TYPE_Q8_0, "Q8_0" }, { GGML_TYPE_IQ4_NL, "IQ4_NL" },
    { GGML_TYPE_MXFP4, "MXFP4" }, { GGML_TYPE_Q4_1, "Q4_1" }, { GGML_TYPE_Q1_0, "Q1_0" },
    { GGML_TYPE_Q2_0, "Q2_0" }, { GGML_TYPE_Q2_K, "Q2_K" }, { GGML_TYPE_Q3_K, "Q3_K" },
    { GGML_TYPE_Q4_K, "Q4_K" }, { GGML_TYPE_Q5_K, "Q5_K" }, { GGML_TYPE_Q6_K, "Q6_K" },
    { GGML_TYPE_Q5_0, "Q5_0" }, { GGML_TYPE_Q5_1, "Q5_1" },
};

int ulp_diff(uint16_t a, uint16_t b) {
    auto key = [](uint16_t h) { return (h & 0x8000) ? -(int) (h & 0x7fff) : (int) h; };
    return std::abs(key(a) - key(b));
}

class TileDequant : public ::testing::TestWithParam<tc> {};

TEST_P(TileDequant, MatchesReferenceAndGgml) {
    const tc       t    = GetParam();
    const htp_type ht   = (htp_type) t.type;
    const int64_t  ne0  = 512, ne1 = 40;  // 2 K-quant super-blocks, a padded second row-tile
    const bool     sum  = t.type == GGML_TYPE_Q4_1 || t.type == GGML_TYPE_Q2_K || t.type == GGML_TYPE_Q4_K ||
                     t.type == GGML_TYPE_Q5_K || t.type == GGML_TYPE_Q5_1;
    std::mt19937   rng(11);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float>              x((size_t) (ne0 * ne1));
    for (auto & v : x) {
        v = nd(rng);
    }
    std::vector<uint8_t> flat(ggml_row_size(t.type, ne0) * ne1);
    std::vector<float>   imat((size_t) ne0, 1.0f);
    ggml_quantize_chunk(t.type, x.data(), flat.data(), 0, ne1, ne0, imat.data());
    std::vector<float> ref_f32((size_t) (ne0 * ne1));
    ggml_get_type_traits(t.type)->to_float(flat.data(), ref_f32.data(), ne0 * ne1);

    std::vector<uint8_t> tiled(htp_tiled_matrix_size(ht, ne0, ne1));
    ASSERT_TRUE(htp_repack_rows(ht, tiled.data(), flat.data(), ne0, ne1, 0, ne1));

    const uint32_t kc = htp_tile_k_cols(ht), n_out = kc / 32, tb = htp_tile_size(ht);
    const int64_t  nkt = htp_tile_n_k_tiles(ht, ne0);
    // VTCM stand-ins: 128-aligned scratch and output, the tile copied into an aligned slot.
    auto * out     = (HVX_Vector *) std::aligned_alloc(2048, 4 * 2048);
    auto * scratch = (float *) std::aligned_alloc(128, 4096);
    auto * slot    = (uint8_t *) std::aligned_alloc(128, 8 * 1088);
    std::vector<uint16_t> ref(n_out * 1024);
    const bool lossless = htp_repack_lossless(ht);
    int        worst_ulp = 0;
    for (int64_t ct = 0; ct < htp_tile_n_col_tiles(ne1); ct++) {
        for (int64_t kt = 0; kt < nkt; kt++) {
            const int64_t sb0 = kt & ~7;  // the super-block's first tile (Q2_K)
            const int64_t nsb = std::min<int64_t>(8, nkt - sb0);
            memcpy(slot, tiled.data() + htp_tile_offset(ht, ct, sb0, nkt), (size_t) nsb * tb);
            ASSERT_TRUE(htp_ops::tile_dequant_f16(t.type, slot + (kt - sb0) * tb, slot, out, scratch));
            ASSERT_TRUE(htp_repack_tile_to_f16(ht, tiled.data(), ne0, ne1, ct, kt, ref.data()));
            const uint16_t * got = (const uint16_t *) out;
            for (uint32_t q = 0; q < n_out; q++) {
                for (int r = 0; r < 32; r++) {
                    for (int c = 0; c < 32; c++) {
                        const size_t   i  = q * 1024 + r * 32 + c;
                        const int      du = ulp_diff(got[i], ref[i]);
                        worst_ulp         = std::max(worst_ulp, du);
                        ASSERT_LE(du, sum ? 1 : 0) << t.name << " ct " << ct << " kt " << kt << " (" << r << "," << c
                                                   << ") got " << got[i] << " ref " << ref[i];
                        const int64_t row = ct * 32 + r, col = kt * kc + q * 32 + c;
                        const float   g   = ggml_fp16_to_fp32(got[i]);
                        if (row >= ne1) {
                            ASSERT_EQ(g, 0.0f) << t.name << " padding row";
                            continue;
                        }
                        const float xv  = ref_f32[(size_t) (row * ne0 + col)];
                        const float ulp = std::ldexp(1.0f, std::max(-24, (int) std::floor(std::log2(std::fabs(xv) + 1e-30f)) - 10));
                        float tol = 1.5f * ulp;
                        if (!lossless) {
                            // docs/tiled-formats.md "Precision", plus the 1 ulp allowed against the reference.
                            const size_t   bs  = (size_t) ggml_blck_size(t.type);
                            const size_t   e   = (size_t) (row * ne0 + col);
                            const uint8_t * blk = flat.data() + (e / bs) * ggml_type_size(t.type);
                            const rt::elem  el  = rt::decompose(t.type, blk, (int) (e % bs));
                            tol = std::ldexp(1.0f, -10) * (1 + std::ldexp(1.0f, -10)) *
                                      (std::fabs(xv) + std::fabs(el.S * el.q) + std::fabs(el.M)) +
                                  (std::abs(el.q) + 2) * std::ldexp(1.0f, -24) + ulp;
                        }
                        ASSERT_LE(std::fabs(g - xv), tol) << t.name << " vs ggml at (" << row << "," << col << ")";
                    }
                }
            }
        }
    }
    std::free(out);
    std::free(scratch);
    std::free(slot);
    RecordProperty("worst_ulp_vs_reference", worst_ulp);
}

INSTANTIATE_TEST_SUITE_P(AllFormats, TileDequant, ::testing::ValuesIn(kTypes),
                         [](const ::testing::TestParamInfo<tc> & i) { return std::string(i.param.name); });

}  // namespace
