// Fuzz of the repacker over random shapes and random contents, deterministic seeds. ctest
// also runs it as repack.test_repack_fuzz_sanitized, with ASan and UBSan compiled into the
// repacker (buffers are sized exactly, so any out-of-bounds access is caught).
//  - raw random bytes (NaN/Inf scales included): lossless formats round-trip byte for byte;
//    lossy ones keep their quant bits, and nothing reads or writes outside its buffer;
//  - random quants with finite scales: lossy formats also satisfy set(get(T)) == T;
//  - random row ranges: partial repack equals whole repack.
#include <algorithm>

#include "repack-test-util.h"

using namespace rt;

namespace {

size_t quant_off(ggml_type t) { return t == GGML_TYPE_Q3_K || t == GGML_TYPE_Q6_K ? 0 : 16; }
size_t quant_len(ggml_type t) {
    switch (t) {
        case GGML_TYPE_Q3_K: return 96;
        case GGML_TYPE_Q4_K: return 128;
        case GGML_TYPE_Q5_K: return 160;
        case GGML_TYPE_Q6_K: return 192;
        default: return 0;
    }
}

// Overwrites the FP16 super-block scale(s) of lossy blocks with finite values of either sign.
void sanitize_scales(ggml_type t, std::vector<uint8_t> & flat, std::mt19937 & rng) {
    const size_t bs = ggml_type_size(t);
    std::uniform_real_distribution<float> mag(-12.0f, 2.0f);
    auto rnd = [&]() { return f16((rng() & 1 ? -1.0f : 1.0f) * std::exp2(mag(rng))); };
    for (size_t b = 0; b < flat.size() / bs; b++) {
        uint8_t * blk = flat.data() + b * bs;
        uint16_t  d = rnd(), dmin = rnd();
        switch (t) {
            case GGML_TYPE_Q3_K: memcpy(blk + 108, &d, 2); break;
            case GGML_TYPE_Q6_K: memcpy(blk + 208, &d, 2); break;
            default: memcpy(blk, &d, 2); memcpy(blk + 2, &dmin, 2); break;
        }
    }
}

}  // namespace

TEST(RepackFuzz, RandomShapesAndContents) {
    const auto & types = all_types();
    int          n_fixed_point = 0, n_lossy = 0;
    for (uint32_t seed = 1; seed <= 600; seed++) {
        std::mt19937      rng(seed);
        const type_case & t    = types[rng() % types.size()];
        const int64_t     ne0  = k_step(t) * (1 + rng() % 4);
        const int64_t     ne1  = 1 + rng() % 100;
        const bool        sane = (seed % 2) == 0;
        SCOPED_TRACE(testing::Message() << "seed " << seed << " " << t.name << " ne0 " << ne0 << " ne1 " << ne1);

        std::vector<uint8_t> flat(ggml_row_size(t.gtype, ne0) * (size_t) ne1);
        for (auto & b : flat) {
            b = (uint8_t) rng();
        }
        if (sane && !htp_repack_lossless(t.htype)) {
            sanitize_scales(t.gtype, flat, rng);
        }
        // Whole repack vs random partial ranges; exact-size buffers.
        std::vector<uint8_t> whole(htp_tiled_matrix_size(t.htype, ne0, ne1));
        ASSERT_TRUE(htp_repack_rows(t.htype, whole.data(), flat.data(), ne0, ne1, 0, ne1));
        std::vector<uint8_t> parts(whole.size(), 0x77);
        const size_t         rowsz = ggml_row_size(t.gtype, ne0);
        for (int64_t r0 = 0; r0 < ne1;) {
            const int64_t r1 = std::min<int64_t>(ne1, r0 + 1 + (int64_t) (rng() % 40));
            std::vector<uint8_t> chunk(flat.begin() + (ptrdiff_t) ((size_t) r0 * rowsz),
                                       flat.begin() + (ptrdiff_t) ((size_t) r1 * rowsz));
            ASSERT_TRUE(htp_repack_rows(t.htype, parts.data(), chunk.data(), ne0, ne1, r0, r1));
            r0 = r1;
        }
        ASSERT_EQ(parts, whole);

        std::vector<uint8_t> back(flat.size());
        ASSERT_TRUE(htp_unrepack_rows(t.htype, back.data(), whole.data(), ne0, ne1, 0, ne1));
        if (htp_repack_lossless(t.htype)) {
            ASSERT_EQ(back, flat);
        } else {
            const size_t bs = ggml_type_size(t.gtype);
            for (size_t b = 0; b < flat.size() / bs; b++) {
                ASSERT_EQ(memcmp(back.data() + b * bs + quant_off(t.gtype), flat.data() + b * bs + quant_off(t.gtype),
                                 quant_len(t.gtype)), 0);
            }
            std::vector<uint8_t> again(whole.size());
            ASSERT_TRUE(htp_repack_rows(t.htype, again.data(), back.data(), ne0, ne1, 0, ne1));
            if (sane) {
                ASSERT_EQ(again, whole) << "set(get(T)) != T";
                n_fixed_point++;
            }
            n_lossy++;
        }
        // The reference dequantizer reads every tile without faults.
        std::vector<uint16_t> out((size_t) htp_tile_k_cols(t.htype) * 32);
        for (int64_t ct = 0; ct < htp_tile_n_col_tiles(ne1); ct++) {
            for (int64_t kt = 0; kt < htp_tile_n_k_tiles(t.htype, ne0); kt++) {
                ASSERT_TRUE(htp_repack_tile_to_f16(t.htype, whole.data(), ne0, ne1, ct, kt, out.data()));
            }
        }
    }
    std::printf("lossy cases: %d, of which with finite scales (fixed point checked): %d\n", n_lossy, n_fixed_point);
}
