// npu/ops/mul-mat/mul-mat-hmx-repack.h (rt-repack on HVX) against the shared scalar repacker
// htp_repack_col_tile (repack/), byte for byte: for every tiled type, 32 rows of random bytes
// (any bytes: the repack moves bits, and the K-quants' FP16 scale products, NaN and infinity
// included, are the same scalar arithmetic) at several strides, alignments and tile counts,
// into destination buffers holding the same random bytes: the whole buffers must be equal
// afterwards (the tiles, and every byte around them left as it was).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "mul-mat/mul-mat-hmx-repack.h"
#include "htp-repack/repack.h"

namespace {

const htp_type kTiled[] = { HTP_TYPE_Q4_0, HTP_TYPE_Q4_1, HTP_TYPE_Q8_0, HTP_TYPE_Q5_0, HTP_TYPE_Q5_1,
                            HTP_TYPE_IQ4_NL, HTP_TYPE_MXFP4, HTP_TYPE_Q1_0, HTP_TYPE_Q2_0, HTP_TYPE_Q2_K,
                            HTP_TYPE_Q3_K, HTP_TYPE_Q4_K, HTP_TYPE_Q5_K, HTP_TYPE_Q6_K };

// Every tiled type (the HMX path's rt-repack has no scalar fallback).
const htp_type (&kHvx)[14] = kTiled;

const char * name_of(htp_type t) {
    switch (t) {
        case HTP_TYPE_Q4_0: return "Q4_0";
        case HTP_TYPE_Q4_1: return "Q4_1";
        case HTP_TYPE_Q8_0: return "Q8_0";
        case HTP_TYPE_Q5_0: return "Q5_0";
        case HTP_TYPE_Q5_1: return "Q5_1";
        case HTP_TYPE_IQ4_NL: return "IQ4_NL";
        case HTP_TYPE_MXFP4: return "MXFP4";
        case HTP_TYPE_Q1_0: return "Q1_0";
        case HTP_TYPE_Q2_0: return "Q2_0";
        case HTP_TYPE_Q2_K: return "Q2_K";
        case HTP_TYPE_Q3_K: return "Q3_K";
        case HTP_TYPE_Q4_K: return "Q4_K";
        case HTP_TYPE_Q5_K: return "Q5_K";
        case HTP_TYPE_Q6_K: return "Q6_K";
        default: return "other";
    }
}

// 128-aligned storage with `before` bytes of offset (the emulated vectors need no more).
struct buf {
    std::vector<uint8_t> mem;
    uint8_t *            p;

    buf(size_t n, size_t before) : mem(n + before + 512) {
        uintptr_t a = ((uintptr_t) mem.data() + 127) & ~(uintptr_t) 127;
        p           = (uint8_t *) a + before;
    }
};

void fill(std::mt19937 & rng, uint8_t * p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t) rng();
    }
}

TEST(HvxRepack, TypesItTakes) {
    for (htp_type t : kTiled) {
        EXPECT_TRUE(htp_ops::mmr::supported(t)) << name_of(t);
        EXPECT_TRUE(htp_repack_supported(t)) << name_of(t);
    }
    uint8_t dummy[256] __attribute__((aligned(128))) = {};
    EXPECT_FALSE(htp_ops::mmr::supported(HTP_TYPE_F32));
    EXPECT_FALSE(htp_ops::mmr::repack_col_tile(HTP_TYPE_F32, dummy, dummy, 4, 1));
    EXPECT_FALSE(htp_ops::mmr::repack_col_tile(HTP_TYPE_F16, dummy, dummy, 4, 1));
}

class HvxRepackType : public ::testing::TestWithParam<htp_type> {};

INSTANTIATE_TEST_SUITE_P(All, HvxRepackType, ::testing::ValuesIn(kHvx),
                         [](const ::testing::TestParamInfo<htp_type> & i) { return std::string(name_of(i.param)); });

TEST_P(HvxRepackType, SameBytesAsScalarRepacker) {
    const htp_type t  = GetParam();
    const uint32_t tb = htp_tile_size(t);
    std::mt19937   rng(1234u + (unsigned) t);
    int            cases = 0;
    // K-quants: whole super-blocks (8 tiles), as rt-repack's K chunks.
    const uint32_t step = htp_repack_flat_block_k(t) == 256 ? HTP_TILE_KQ_TILES_PER_SUPERBLOCK : 1;
    for (uint32_t n_steps : { 1u, 2u, 3u, 5u, 8u }) {
        const uint32_t n_tiles = n_steps * step;
        const uint32_t fb = (uint32_t) htp_repack_flat_row_size(t, (int64_t) n_tiles * htp_tile_k_cols(t));
        ASSERT_GT(fb, 0u);
        for (uint32_t pad : { 0u, 1u, 7u, 64u }) {
            for (size_t src_off : { (size_t) 0, (size_t) 3, (size_t) 64 }) {
                for (size_t dst_off : { (size_t) 0, (size_t) 64, (size_t) 5 }) {
                    const uint32_t stride = fb + pad;
                    buf            src(32 * (size_t) stride + 128, src_off);
                    fill(rng, src.p, 32 * (size_t) stride + 128);
                    const size_t region = (size_t) n_tiles * tb + 256;  // the tiles and a guard after them
                    buf          want(region + 128, dst_off), got(region + 128, dst_off);
                    fill(rng, want.p - dst_off, region + 128 + dst_off);
                    memcpy(got.p - dst_off, want.p - dst_off, region + 128 + dst_off);
                    const std::vector<uint8_t> before(want.p, want.p + region);
                    ASSERT_TRUE(htp_repack_col_tile(t, want.p, src.p, stride, n_tiles));
                    ASSERT_TRUE(htp_ops::mmr::repack_col_tile(t, got.p, src.p, stride, n_tiles));
                    ASSERT_NE(0, memcmp(before.data(), want.p, n_tiles * (size_t) tb));  // the tiles were written
                    for (size_t i = 0; i < region + 128 + dst_off; i++) {
                        const ptrdiff_t o = (ptrdiff_t) i - (ptrdiff_t) dst_off;  // from the tiles' start
                        ASSERT_EQ(want.p[o], got.p[o]) << "byte " << o << " of the tiles (tile " << o / (ptrdiff_t) tb
                                                       << "), " << n_tiles << " tiles, stride " << stride << ", src +"
                                                       << src_off << ", dst +" << dst_off;
                    }
                    cases++;
                }
            }
        }
    }
    EXPECT_EQ(cases, 5 * 4 * 3 * 3);
}

// The zero fill of rows past a matrix's end (rt-repack's last column tile): exactly the bytes
// asked for, whatever their alignment.
TEST(HvxRepack, ZeroBytes) {
    std::mt19937 rng(5);
    for (size_t off : { (size_t) 0, (size_t) 1, (size_t) 100 }) {
        for (uint32_t n : { 1u, 127u, 128u, 129u, 300u }) {
            buf b(1024, 0);
            fill(rng, b.p, 1024);
            std::vector<uint8_t> want(b.p, b.p + 1024);
            memset(want.data() + off, 0, n);
            htp_ops::mmr::zero_bytes(b.p + off, n);
            ASSERT_EQ(0, memcmp(want.data(), b.p, 1024)) << "off " << off << " n " << n;
        }
    }
}

}  // namespace
