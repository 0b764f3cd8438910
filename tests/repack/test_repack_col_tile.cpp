// htp_repack_col_tile (the NPU's run-time repack, rt-repack) against the host's set_tensor
// repack (htp_repack_rows): for every tiled type, each column tile repacked from its 32 flat
// rows (strided, as the NPU's 2-D DMA lays them out, in K chunks of whole flat blocks and
// tiles, rows past the matrix zero-filled) is byte for byte the column tile of the whole
// matrix's repack.
#include <algorithm>

#include "repack-test-util.h"

using namespace rt;

class ColTile : public ::testing::TestWithParam<type_case> {};

INSTANTIATE_TEST_SUITE_P(All, ColTile, ::testing::ValuesIn(all_types()),
                         [](const ::testing::TestParamInfo<type_case> & i) { return std::string(i.param.name); });

TEST_P(ColTile, KChunksMatchWholeMatrixRepack) {
    const type_case & t = GetParam();
    std::mt19937      rng(77);
    // K chunk: whole flat blocks and whole tiles (K-quants: 8 tiles = one super-block).
    const int64_t  step = k_step(t);
    const int64_t  ne0 = step * 5, ne1 = 70;   // 3 column tiles, the last one with 6 rows
    const auto     flat = quantize(t.gtype, random_weights(rng, ne0 * ne1), ne0, ne1);
    const auto     want = repack_all(t.htype, flat, ne0, ne1);
    const size_t   row  = ggml_row_size(t.gtype, ne0);
    const int64_t  n_kt = htp_tile_n_k_tiles(t.htype, ne0);
    const int64_t  tiles_per_step = step / htp_tile_k_cols(t.htype);
    const uint32_t tb   = htp_tile_size(t.htype);
    for (int64_t chunk_steps : { (int64_t) 1, (int64_t) 2, (int64_t) 5 }) {
        const int64_t kc_tiles = chunk_steps * tiles_per_step;
        for (int64_t ct = 0; ct < htp_tile_n_col_tiles(ne1); ct++) {
            for (int64_t t0 = 0; t0 < n_kt; t0 += kc_tiles) {
                const int64_t nt   = std::min(kc_tiles, n_kt - t0);
                const size_t  fb   = ggml_row_size(t.gtype, nt * htp_tile_k_cols(t.htype));
                const size_t  foff = ggml_row_size(t.gtype, t0 * htp_tile_k_cols(t.htype));
                std::vector<uint8_t> rows(32 * fb, 0);
                for (int64_t r = 0; r < 32 && ct * 32 + r < ne1; r++) {
                    memcpy(rows.data() + r * fb, flat.data() + (ct * 32 + r) * row + foff, fb);
                }
                std::vector<uint8_t> got(nt * tb, 0xa5);
                ASSERT_TRUE(htp_repack_col_tile(t.htype, got.data(), rows.data(), fb, nt));
                const uint8_t * w = tile_ptr(want, t.htype, ne0, ct, t0);
                ASSERT_EQ(0, memcmp(got.data(), w, got.size()))
                    << "ct " << ct << " t0 " << t0 << " chunk " << kc_tiles << " tiles";
            }
        }
    }
}

TEST(ColTileApi, RejectsUntiledTypes) {
    uint8_t buf[64] = {};
    EXPECT_FALSE(htp_repack_col_tile(HTP_TYPE_F32, buf, buf, 4, 1));
    EXPECT_FALSE(htp_repack_col_tile(HTP_TYPE_Q4_0, buf, buf, 18, 0));
}
