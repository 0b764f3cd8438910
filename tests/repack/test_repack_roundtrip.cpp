// Round trips and dequantization against ggml, on weights quantized by ggml itself:
//  - lossless formats: unrepack(repack(x)) == x byte for byte, and the reference FP16 tile
//    equals fl16(ggml to_float) bit for bit;
//  - lossy formats (Q3_K..Q6_K): the FP16 tile is within the stated bound of ggml's to_float,
//    unrepack is within twice that bound, and repack(unrepack(T)) == T;
//  - ne1 not a multiple of 32 (padding rows), partial row ranges in any order, stacked matrices.
#include <algorithm>

#include "repack-internal.h"
#include "repack-test-util.h"

using namespace rt;

class RepackType : public ::testing::TestWithParam<type_case> {};

INSTANTIATE_TEST_SUITE_P(All, RepackType, ::testing::ValuesIn(all_types()),
                         [](const ::testing::TestParamInfo<type_case> & i) { return std::string(i.param.name); });

namespace {

// Compares the reference FP16 tiles of the whole matrix with ggml's to_float of `flat`.
void expect_dequant_matches(const type_case & t, const std::vector<uint8_t> & flat, const std::vector<uint8_t> & tiled,
                            int64_t ne0, int64_t ne1) {
    const auto    x      = to_float(t.gtype, flat, ne0, ne1);
    const int64_t kc     = htp_tile_k_cols(t.htype);
    const int64_t n_kt   = htp_tile_n_k_tiles(t.htype, ne0);
    const bool    exact  = htp_repack_lossless(t.htype);
    const size_t  rowsz  = ggml_row_size(t.gtype, ne0);
    std::vector<uint16_t> out((size_t) kc * 32);
    int64_t               n_checked = 0;
    for (int64_t ct = 0; ct < htp_tile_n_col_tiles(ne1); ct++) {
        for (int64_t kt = 0; kt < n_kt; kt++) {
            ASSERT_TRUE(htp_repack_tile_to_f16(t.htype, tiled.data(), ne0, ne1, ct, kt, out.data()));
            for (int r = 0; r < 32; r++) {
                const int64_t R = 32 * ct + r;
                for (int64_t c = 0; c < kc; c++) {
                    const uint16_t got = out[(size_t) ((c / 32) * 1024 + r * 32 + c % 32)];
                    if (R >= ne1) {   // padding rows dequantize to zero
                        ASSERT_EQ(f32(got), 0.0f) << t.name << " padding row " << R;
                        continue;
                    }
                    const int64_t C  = kt * kc + c;
                    const float   xv = x[(size_t) (R * ne0 + C)];
                    if (exact) {
                        ASSERT_EQ(got, f16(xv)) << t.name << " row " << R << " col " << C << " ggml " << xv;
                    } else {
                        const uint8_t * blk = flat.data() + (size_t) R * rowsz + (size_t) (C / 256) * ggml_type_size(t.gtype);
                        const elem      el  = decompose(t.gtype, blk, (int) (C % 256));
                        ASSERT_EQ(el.S * (float) el.q - el.M, xv) << "test's decomposition of ggml's block";
                        ASSERT_LE(std::fabs((double) f32(got) - xv), lossy_bound(xv, el))
                            << t.name << " row " << R << " col " << C << " ggml " << xv << " tile " << f32(got);
                    }
                    n_checked++;
                }
            }
        }
    }
    EXPECT_EQ(n_checked, ne0 * ne1);
}

// Lossy formats: bytes of the quant fields of one flat block (they must survive exactly).
std::vector<std::pair<size_t, size_t>> quant_fields(ggml_type type) {
    switch (type) {
        case GGML_TYPE_Q3_K: return { { 0, 96 } };     // hmask, qs
        case GGML_TYPE_Q4_K: return { { 16, 128 } };   // qs
        case GGML_TYPE_Q5_K: return { { 16, 160 } };   // qh, qs
        case GGML_TYPE_Q6_K: return { { 0, 192 } };    // ql, qh
        default: return {};
    }
}

void expect_round_trip(const type_case & t, const std::vector<uint8_t> & flat, int64_t ne0, int64_t ne1,
                       int * exact_blocks = nullptr) {
    const auto           tiled = repack_all(t.htype, flat, ne0, ne1);
    std::vector<uint8_t> back(flat.size(), 0xee);
    ASSERT_TRUE(htp_unrepack_rows(t.htype, back.data(), tiled.data(), ne0, ne1, 0, ne1));
    if (htp_repack_lossless(t.htype)) {
        ASSERT_EQ(back, flat) << t.name;
        return;
    }
    // Quants exact.
    const size_t bs = ggml_type_size(t.gtype);
    for (size_t b = 0; b < flat.size() / bs; b++) {
        for (auto [off, len] : quant_fields(t.gtype)) {
            ASSERT_EQ(memcmp(back.data() + b * bs + off, flat.data() + b * bs + off, len), 0) << t.name << " block " << b;
        }
        if (exact_blocks && memcmp(back.data() + b * bs, flat.data() + b * bs, bs) == 0) {
            (*exact_blocks)++;
        }
    }
    // Tile fixed point: set(get(T)) == T.
    ASSERT_EQ(repack_all(t.htype, back, ne0, ne1), tiled) << t.name;
    // Values within twice the tile bound of the original's.
    const auto   x0    = to_float(t.gtype, flat, ne0, ne1);
    const auto   x1    = to_float(t.gtype, back, ne0, ne1);
    const size_t rowsz = ggml_row_size(t.gtype, ne0);
    for (int64_t i = 0; i < ne0 * ne1; i++) {
        const int64_t R = i / ne0, C = i % ne0;
        const elem    el = decompose(t.gtype, flat.data() + (size_t) R * rowsz + (size_t) (C / 256) * bs, (int) (C % 256));
        ASSERT_LE(std::fabs((double) x1[i] - x0[i]), 2 * lossy_bound(x0[i], el)) << t.name << " element " << i;
    }
}

}  // namespace

TEST(Fp16, MatchesGgmlConverters) {
    using namespace htp_repack;
    for (uint32_t h = 0; h < 0x10000; h++) {
        const float a = fp16_to_fp32((uint16_t) h), b = ggml_fp16_to_fp32((ggml_fp16_t) h);
        if (std::isnan(b)) {
            ASSERT_TRUE(std::isnan(a));
        } else {
            ASSERT_EQ(f32_bits(a), f32_bits(b)) << h;
        }
        if (!std::isnan(a)) {   // every FP16 survives FP32 and back
            ASSERT_EQ(fp32_to_fp16(a), h) << h;
        }
    }
    std::mt19937 rng(7);
    for (int i = 0; i < 4000000; i++) {
        uint32_t u = rng();
        if (i % 2) {   // concentrate on the FP16 range, subnormals and rounding ties
            u = (u & 0x8000ffffu) | ((uint32_t) (96 + (u >> 16) % 48) << 23);
        }
        const float f = bits_f32(u);
        if (std::isnan(f)) {
            continue;
        }
        ASSERT_EQ(fp32_to_fp16(f), ggml_fp32_to_fp16(f)) << std::hex << u;
    }
}

TEST_P(RepackType, RoundTripAndDequantOnGgmlQuantizedWeights) {
    const type_case & t = GetParam();
    std::mt19937      rng(1234 + (int) t.gtype);
    int               exact_blocks = 0, blocks = 0;
    for (int64_t ne1 : { 1, 32, 45, 70 }) {
        for (int64_t mult : { 1, 3 }) {
            const int64_t ne0  = k_step(t) * mult;
            const auto    flat = quantize(t.gtype, random_weights(rng, ne0 * ne1), ne0, ne1);
            SCOPED_TRACE(testing::Message() << t.name << " ne0 " << ne0 << " ne1 " << ne1);
            expect_round_trip(t, flat, ne0, ne1, &exact_blocks);
            expect_dequant_matches(t, flat, repack_all(t.htype, flat, ne0, ne1), ne0, ne1);
            blocks += (int) (flat.size() / ggml_type_size(t.gtype));
        }
    }
    if (!htp_repack_lossless(t.htype)) {
        // Informational: how often the refit recovers ggml's exact bytes.
        std::printf("%s: unrepack recovered %d of %d ggml blocks byte for byte\n", t.name, exact_blocks, blocks);
    }
}

TEST_P(RepackType, PaddingRowsAreWrittenAndZero) {
    const type_case & t   = GetParam();
    std::mt19937      rng(99);
    const int64_t     ne0 = k_step(t) * 2, ne1 = 45;
    const auto        flat = quantize(t.gtype, random_weights(rng, ne0 * ne1), ne0, ne1);
    // Every byte of the padded matrix is written: two different pre-fills give the same bytes.
    std::vector<uint8_t> a(htp_tiled_matrix_size(t.htype, ne0, ne1), 0x00), b(a.size(), 0xff);
    ASSERT_EQ(a.size(), (size_t) 2 * (size_t) htp_tile_n_k_tiles(t.htype, ne0) * htp_tile_size(t.htype));
    ASSERT_TRUE(htp_repack_rows(t.htype, a.data(), flat.data(), ne0, ne1, 0, ne1));
    ASSERT_TRUE(htp_repack_rows(t.htype, b.data(), flat.data(), ne0, ne1, 0, ne1));
    EXPECT_EQ(a, b);
    expect_dequant_matches(t, flat, a, ne0, ne1);   // includes padding rows == 0
}

TEST_P(RepackType, PartialRowRangesInAnyOrder) {
    const type_case & t = GetParam();
    std::mt19937      rng(4321);
    const int64_t     ne0 = k_step(t) * 2, ne1 = 77;
    const auto        flat = quantize(t.gtype, random_weights(rng, ne0 * ne1), ne0, ne1);
    const size_t      rowsz = ggml_row_size(t.gtype, ne0);
    const auto        whole = repack_all(t.htype, flat, ne0, ne1);
    for (int trial = 0; trial < 8; trial++) {
        // Random cut points, chunks applied in shuffled order, over a different pre-fill.
        std::vector<int64_t> cuts = { 0, ne1 };
        for (int i = 0; i < 5; i++) {
            cuts.push_back((int64_t) (rng() % (uint32_t) ne1));
        }
        std::sort(cuts.begin(), cuts.end());
        std::vector<std::pair<int64_t, int64_t>> chunks;
        for (size_t i = 0; i + 1 < cuts.size(); i++) {
            chunks.push_back({ cuts[i], cuts[i + 1] });
        }
        std::shuffle(chunks.begin(), chunks.end(), rng);
        std::vector<uint8_t> tiled(whole.size(), (uint8_t) (0x11 * trial));
        for (auto [r0, r1] : chunks) {
            ASSERT_TRUE(htp_repack_rows(t.htype, tiled.data(), flat.data() + (size_t) r0 * rowsz, ne0, ne1, r0, r1));
        }
        ASSERT_EQ(tiled, whole) << t.name << " trial " << trial;
        // Partial unrepack equals the slice of the whole unrepack.
        std::vector<uint8_t> all(flat.size());
        ASSERT_TRUE(htp_unrepack_rows(t.htype, all.data(), whole.data(), ne0, ne1, 0, ne1));
        for (auto [r0, r1] : chunks) {
            std::vector<uint8_t> part((size_t) (r1 - r0) * rowsz);
            ASSERT_TRUE(htp_unrepack_rows(t.htype, part.data(), whole.data(), ne0, ne1, r0, r1));
            ASSERT_TRUE(std::equal(part.begin(), part.end(), all.begin() + (ptrdiff_t) ((size_t) r0 * rowsz)));
        }
    }
}

TEST_P(RepackType, StackedMatrices) {
    const type_case & t = GetParam();
    std::mt19937      rng(555);
    const int64_t     ne0 = k_step(t), ne1 = 40, nmat = 3;
    const auto        flat  = quantize(t.gtype, random_weights(rng, ne0 * ne1 * nmat), ne0, ne1 * nmat);
    const size_t      rowsz = ggml_row_size(t.gtype, ne0);
    const uint64_t    msz   = htp_tiled_matrix_size(t.htype, ne0, ne1);
    std::vector<uint8_t> want(msz * nmat), got(msz * nmat, 0x5a);
    for (int64_t m = 0; m < nmat; m++) {
        ASSERT_TRUE(htp_repack_rows(t.htype, want.data() + m * msz, flat.data() + (size_t) (m * ne1) * rowsz, ne0, ne1,
                                    0, ne1));
    }
    // Ranges that cross matrix edges.
    for (auto [r0, r1] : std::vector<std::pair<int64_t, int64_t>>{ { 0, 33 }, { 33, 95 }, { 95, 120 } }) {
        ASSERT_TRUE(htp_repack_rows_stacked(t.htype, got.data(), flat.data() + (size_t) r0 * rowsz, ne0, ne1, r0, r1));
    }
    ASSERT_EQ(got, want);
    std::vector<uint8_t> back(flat.size(), 0);
    ASSERT_TRUE(htp_unrepack_rows_stacked(t.htype, back.data() + 10 * rowsz, got.data(), ne0, ne1, 10, 110));
    std::vector<uint8_t> ref(flat.size(), 0);
    for (int64_t m = 0; m < nmat; m++) {
        ASSERT_TRUE(htp_unrepack_rows(t.htype, ref.data() + (size_t) (m * ne1) * rowsz, want.data() + m * msz, ne0, ne1,
                                      0, ne1));
    }
    ASSERT_TRUE(std::equal(back.begin() + 10 * (ptrdiff_t) rowsz, back.begin() + 110 * (ptrdiff_t) rowsz,
                           ref.begin() + 10 * (ptrdiff_t) rowsz));
}

TEST(RepackApi, RejectsBadArguments) {
    std::vector<uint8_t> buf(1 << 16);
    EXPECT_FALSE(htp_repack_supported(HTP_TYPE_F16));
    EXPECT_FALSE(htp_repack_supported(HTP_TYPE_BF16));
    EXPECT_FALSE(htp_repack_rows(HTP_TYPE_F32, buf.data(), buf.data(), 32, 32, 0, 32));
    EXPECT_FALSE(htp_repack_rows(HTP_TYPE_Q4_K, buf.data(), buf.data(), 128, 32, 0, 32));   // not whole super-blocks
    EXPECT_FALSE(htp_repack_rows(HTP_TYPE_Q1_0, buf.data(), buf.data(), 64, 32, 0, 32));    // not whole Q1_0 blocks
    EXPECT_FALSE(htp_repack_rows(HTP_TYPE_Q4_0, buf.data(), buf.data(), 32, 32, 0, 33));    // past the last row
    EXPECT_FALSE(htp_repack_rows(HTP_TYPE_Q4_0, buf.data(), buf.data(), 32, 32, 5, 4));
    EXPECT_FALSE(htp_unrepack_rows(HTP_TYPE_Q4_0, buf.data(), buf.data(), 32, 0, 0, 0));
    uint16_t out[4096];
    EXPECT_FALSE(htp_repack_tile_to_f16(HTP_TYPE_Q4_0, buf.data(), 64, 32, 0, 2, out));      // kt out of range
    EXPECT_FALSE(htp_repack_tile_to_f16(HTP_TYPE_Q4_0, buf.data(), 64, 32, 1, 0, out));      // ct out of range
    EXPECT_TRUE(htp_repack_rows(HTP_TYPE_Q4_0, buf.data(), buf.data() + 8192, 32, 32, 3, 3));  // empty range
}
