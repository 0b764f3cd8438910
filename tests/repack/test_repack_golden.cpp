// Golden layout tests, written from the tile layouts of docs/tiled-formats.md. Each test builds a
// small flat matrix from chosen quants and scales, checks with ggml's own to_float that the flat
// blocks mean what we chose, repacks, and asserts every tile byte at the offset that page gives.
// Matrices span 2 row-tiles and >= 2 k-tiles so tile_idx = ct * n_k_tiles + kt is exercised.
#include "repack-test-util.h"

using namespace rt;

namespace {

// Chosen quant code of (row, col) in [0, range).
int code(int64_t r, int64_t c, int range) { return (int) ((5 * r + 3 * c + (r * c) / 7) % range); }

void check_flat(ggml_type type, const std::vector<uint8_t> & flat, int64_t ne0, int64_t ne1,
                const std::function<float(int64_t, int64_t)> & value) {
    const auto x = to_float(type, flat, ne0, ne1);
    for (int64_t r = 0; r < ne1; r++) {
        for (int64_t c = 0; c < ne0; c++) {
            ASSERT_EQ(x[r * ne0 + c], value(r, c)) << "flat encoding of the test itself, row " << r << " col " << c;
        }
    }
}

struct grid {
    enum htp_type type;
    int64_t       ne0, ne1, n_kt;
    const std::vector<uint8_t> & tiled;
    const uint8_t * at(int64_t ct, int64_t kt) const { return tile_ptr(tiled, type, ne0, ct, kt); }
};

// ---- block-32 nibble formats ----------------------------------------------------------------
std::vector<uint8_t> build_nibble_blocks(int64_t ne0, int64_t ne1, size_t blk_size, size_t qs_off,
                                         const std::function<void(uint8_t *, int64_t, int64_t)> & header) {
    std::vector<uint8_t> flat(blk_size * (size_t) (ne0 / 32 * ne1));
    for (int64_t r = 0; r < ne1; r++) {
        for (int64_t b = 0; b < ne0 / 32; b++) {
            uint8_t * blk = flat.data() + (r * (ne0 / 32) + b) * blk_size;
            header(blk, r, b);
            for (int j = 0; j < 16; j++) {
                blk[qs_off + j] = (uint8_t) (code(r, 32 * b + j, 16) | (code(r, 32 * b + j + 16, 16) << 4));
            }
        }
    }
    return flat;
}

// docs/tiled-formats.md: tile[cp * 32 + row] = (quant[row][2cp+1] << 4) | quant[row][2cp], for all 4-bit formats.
void expect_nibble_quants(const grid & g) {
    for (int64_t ct = 0; ct < g.ne1 / 32; ct++) {
        for (int64_t kt = 0; kt < g.n_kt; kt++) {
            const uint8_t * t = g.at(ct, kt);
            for (int cp = 0; cp < 16; cp++) {
                for (int row = 0; row < 32; row++) {
                    const int64_t R = 32 * ct + row, C = 32 * kt;
                    ASSERT_EQ(t[cp * 32 + row], (code(R, C + 2 * cp + 1, 16) << 4) | code(R, C + 2 * cp, 16))
                        << "ct " << ct << " kt " << kt << " cp " << cp << " row " << row;
                }
            }
        }
    }
}

uint16_t d_of(int64_t r, int64_t b) { return f16((float) (1 + r + 0.25 * b) / 64.0f); }

}  // namespace

TEST(Golden, TileConstants) {
    EXPECT_EQ(HTP_TENSOR_TILE_N_ROWS, 32);
    EXPECT_EQ(HTP_TENSOR_TILE_N_COLS, 32);
    const struct { enum htp_type t; uint32_t k, size; } want[] = {
        { HTP_TYPE_Q4_0, 32, 576 }, { HTP_TYPE_Q8_0, 32, 1088 }, { HTP_TYPE_IQ4_NL, 32, 576 },
        { HTP_TYPE_MXFP4, 32, 544 }, { HTP_TYPE_Q4_1, 32, 640 }, { HTP_TYPE_Q1_0, 128, 576 },
        { HTP_TYPE_Q2_0, 64, 576 },  { HTP_TYPE_Q2_K, 32, 336 }, { HTP_TYPE_Q3_K, 32, 512 },
        { HTP_TYPE_Q4_K, 32, 640 },  { HTP_TYPE_Q5_K, 32, 768 }, { HTP_TYPE_Q6_K, 32, 896 },
        { HTP_TYPE_Q5_0, 32, 704 },  { HTP_TYPE_Q5_1, 32, 768 },
    };
    for (const auto & w : want) {
        EXPECT_EQ(htp_tile_k_cols(w.t), w.k) << w.t;
        EXPECT_EQ(htp_tile_size(w.t), w.size) << w.t;
    }
    // Q2_K tiling is the same size as ggml's blocks: 8 tiles = 32 rows x 1 super-block.
    EXPECT_EQ(8u * HTP_TENSOR_TILE_SIZE_Q2_K, 32u * ggml_type_size(GGML_TYPE_Q2_K));
    EXPECT_EQ(htp_tile_n_col_tiles(1), 1);
    EXPECT_EQ(htp_tile_n_col_tiles(32), 1);
    EXPECT_EQ(htp_tile_n_col_tiles(33), 2);
    EXPECT_EQ(htp_tile_n_k_tiles(HTP_TYPE_Q1_0, 512), 4);
    EXPECT_EQ(htp_tile_n_k_tiles(HTP_TYPE_Q2_0, 512), 8);
    EXPECT_EQ(htp_tile_idx(2, 3, 5), 13);
    EXPECT_EQ(htp_tile_offset(HTP_TYPE_Q8_0, 1, 2, 4), 6u * 1088);
    EXPECT_EQ(htp_tiled_matrix_size(HTP_TYPE_Q4_K, 512, 33), 2u * 16 * 640);
    EXPECT_EQ(htp_tiled_matrix_size(HTP_TYPE_IQ4_NL, 4096, 64), 2u * 128 * 576);
    // ABI type ids are ggml's.
    for (const auto & t : all_types()) {
        EXPECT_EQ((int) t.htype, (int) t.gtype) << t.name;
        EXPECT_EQ(htp_repack_flat_block_k(t.htype), (uint32_t) ggml_blck_size(t.gtype)) << t.name;
        EXPECT_EQ(htp_repack_flat_row_size(t.htype, 1024), ggml_row_size(t.gtype, 1024)) << t.name;
    }
}

TEST(Golden, Q4_0) {
    const int64_t ne0 = 64, ne1 = 64;
    auto flat = build_nibble_blocks(ne0, ne1, 18, 2, [](uint8_t * b, int64_t r, int64_t k) {
        const uint16_t d = d_of(r, k);
        memcpy(b, &d, 2);
    });
    check_flat(GGML_TYPE_Q4_0, flat, ne0, ne1,
               [](int64_t r, int64_t c) { return (float) (code(r, c, 16) - 8) * f32(d_of(r, c / 32)); });
    const auto tiled = repack_all(HTP_TYPE_Q4_0, flat, ne0, ne1);
    const grid g{ HTP_TYPE_Q4_0, ne0, ne1, 2, tiled };
    expect_nibble_quants(g);
    // Literal bytes: row 0 has codes 0, 3 in columns 0, 1; row 1 has 5, 8.
    EXPECT_EQ(g.at(0, 0)[0], 0x30);
    EXPECT_EQ(g.at(0, 0)[1], 0x85);
    for (int64_t ct = 0; ct < 2; ct++) {
        for (int64_t kt = 0; kt < 2; kt++) {
            for (int row = 0; row < 32; row++) {
                EXPECT_EQ(rd16(g.at(ct, kt) + 512 + 2 * row), d_of(32 * ct + row, kt));
            }
        }
    }
}

TEST(Golden, IQ4_NL) {
    static const int8_t kv[16] = { -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113 };
    const int64_t       ne0 = 64, ne1 = 64;
    auto flat = build_nibble_blocks(ne0, ne1, 18, 2, [](uint8_t * b, int64_t r, int64_t k) {
        const uint16_t d = d_of(r, k);
        memcpy(b, &d, 2);
    });
    check_flat(GGML_TYPE_IQ4_NL, flat, ne0, ne1,
               [](int64_t r, int64_t c) { return f32(d_of(r, c / 32)) * (float) kv[code(r, c, 16)]; });
    const auto tiled = repack_all(HTP_TYPE_IQ4_NL, flat, ne0, ne1);
    const grid g{ HTP_TYPE_IQ4_NL, ne0, ne1, 2, tiled };
    expect_nibble_quants(g);
    for (int64_t ct = 0; ct < 2; ct++) {
        for (int64_t kt = 0; kt < 2; kt++) {
            for (int row = 0; row < 32; row++) {
                EXPECT_EQ(rd16(g.at(ct, kt) + 512 + 2 * row), d_of(32 * ct + row, kt));
            }
        }
    }
}

TEST(Golden, MXFP4) {
    static const int8_t kv[16] = { 0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12 };
    auto                e_of   = [](int64_t r, int64_t b) { return (uint8_t) (118 + (r + 3 * b) % 17); };
    const int64_t       ne0 = 64, ne1 = 64;
    auto flat = build_nibble_blocks(ne0, ne1, 17, 1, [&](uint8_t * b, int64_t r, int64_t k) { b[0] = e_of(r, k); });
    check_flat(GGML_TYPE_MXFP4, flat, ne0, ne1, [&](int64_t r, int64_t c) {
        return (float) kv[code(r, c, 16)] * std::ldexp(1.0f, e_of(r, c / 32) - 128);
    });
    const auto tiled = repack_all(HTP_TYPE_MXFP4, flat, ne0, ne1);
    const grid g{ HTP_TYPE_MXFP4, ne0, ne1, 2, tiled };
    expect_nibble_quants(g);
    for (int64_t ct = 0; ct < 2; ct++) {
        for (int64_t kt = 0; kt < 2; kt++) {
            for (int row = 0; row < 32; row++) {
                EXPECT_EQ(g.at(ct, kt)[512 + row], e_of(32 * ct + row, kt));   // one E8M0 byte per row
            }
        }
    }
}

TEST(Golden, Q4_1) {
    auto          m_of = [](int64_t r, int64_t b) { return f16(-(float) (r + 2 * b) / 16.0f); };
    const int64_t ne0 = 64, ne1 = 64;
    auto flat = build_nibble_blocks(ne0, ne1, 20, 4, [&](uint8_t * b, int64_t r, int64_t k) {
        const uint16_t d = d_of(r, k), m = m_of(r, k);
        memcpy(b, &d, 2);
        memcpy(b + 2, &m, 2);
    });
    check_flat(GGML_TYPE_Q4_1, flat, ne0, ne1, [&](int64_t r, int64_t c) {
        return (float) code(r, c, 16) * f32(d_of(r, c / 32)) + f32(m_of(r, c / 32));
    });
    const auto tiled = repack_all(HTP_TYPE_Q4_1, flat, ne0, ne1);
    const grid g{ HTP_TYPE_Q4_1, ne0, ne1, 2, tiled };
    expect_nibble_quants(g);
    for (int64_t ct = 0; ct < 2; ct++) {
        for (int64_t kt = 0; kt < 2; kt++) {
            for (int row = 0; row < 32; row++) {   // scale[2*row] = d, scale[2*row+1] = m
                EXPECT_EQ(rd16(g.at(ct, kt) + 512 + 2 * (2 * row + 0)), d_of(32 * ct + row, kt));
                EXPECT_EQ(rd16(g.at(ct, kt) + 512 + 2 * (2 * row + 1)), m_of(32 * ct + row, kt));
            }
        }
    }
}

TEST(Golden, Q8_0) {
    auto          q_of = [](int64_t r, int64_t c) { return code(r, c, 256) - 128; };
    const int64_t ne0 = 64, ne1 = 64;
    std::vector<uint8_t> flat(34 * (size_t) (ne0 / 32 * ne1));
    for (int64_t r = 0; r < ne1; r++) {
        for (int64_t b = 0; b < 2; b++) {
            uint8_t *      blk = flat.data() + (r * 2 + b) * 34;
            const uint16_t d   = d_of(r, b);
            memcpy(blk, &d, 2);
            for (int j = 0; j < 32; j++) {
                blk[2 + j] = (uint8_t) (int8_t) q_of(r, 32 * b + j);
            }
        }
    }
    check_flat(GGML_TYPE_Q8_0, flat, ne0, ne1,
               [&](int64_t r, int64_t c) { return (float) q_of(r, c) * f32(d_of(r, c / 32)); });
    const auto tiled = repack_all(HTP_TYPE_Q8_0, flat, ne0, ne1);
    const grid g{ HTP_TYPE_Q8_0, ne0, ne1, 2, tiled };
    for (int64_t ct = 0; ct < 2; ct++) {
        for (int64_t kt = 0; kt < 2; kt++) {
            const uint8_t * t = g.at(ct, kt);
            for (int row = 0; row < 32; row++) {
                const int64_t R = 32 * ct + row;
                for (int cp = 0; cp < 16; cp++) {
                    EXPECT_EQ((int8_t) t[cp * 64 + 2 * row + 0], q_of(R, 32 * kt + 2 * cp));
                    EXPECT_EQ((int8_t) t[cp * 64 + 2 * row + 1], q_of(R, 32 * kt + 2 * cp + 1));
                }
                EXPECT_EQ(rd16(t + 1024 + 2 * row), d_of(R, kt));
            }
        }
    }
}

TEST(Golden, Q1_0) {
    const int64_t ne0 = 256, ne1 = 64;   // 2 tiles of 128 columns along K
    auto          bit_of = [](int64_t r, int64_t c) { return code(r, c, 2); };
    std::vector<uint8_t> flat(18 * (size_t) (ne0 / 128 * ne1), 0);
    for (int64_t r = 0; r < ne1; r++) {
        for (int64_t b = 0; b < 2; b++) {
            uint8_t *      blk = flat.data() + (r * 2 + b) * 18;
            const uint16_t d   = d_of(r, b);
            memcpy(blk, &d, 2);
            for (int j = 0; j < 128; j++) {
                blk[2 + j / 8] |= (uint8_t) (bit_of(r, 128 * b + j) << (j % 8));
            }
        }
    }
    check_flat(GGML_TYPE_Q1_0, flat, ne0, ne1, [&](int64_t r, int64_t c) {
        const float d = f32(d_of(r, c / 128));
        return bit_of(r, c) ? d : -d;
    });
    const auto tiled = repack_all(HTP_TYPE_Q1_0, flat, ne0, ne1);
    const grid g{ HTP_TYPE_Q1_0, ne0, ne1, 2, tiled };
    for (int64_t ct = 0; ct < 2; ct++) {
        for (int64_t kt = 0; kt < 2; kt++) {
            const uint8_t * t = g.at(ct, kt);
            for (int row = 0; row < 32; row++) {
                const int64_t R = 32 * ct + row;
                for (int quarter = 0; quarter < 4; quarter++) {
                    for (int kq = 0; kq < 32; kq++) {
                        const int byte_offset = quarter * 128 + 4 * row + (kq % 4);
                        const int bit         = kq / 4;
                        EXPECT_EQ((t[byte_offset] >> bit) & 1, bit_of(R, 128 * kt + 32 * quarter + kq));
                    }
                }
                EXPECT_EQ(rd16(t + 512 + 2 * row), d_of(R, kt));
            }
        }
    }
}

TEST(Golden, Q2_0) {
    const int64_t ne0 = 128, ne1 = 64;   // 2 tiles of 64 columns along K
    auto          c_of = [](int64_t r, int64_t c) { return code(r, c, 4); };
    std::vector<uint8_t> flat(18 * (size_t) (ne0 / 64 * ne1), 0);
    for (int64_t r = 0; r < ne1; r++) {
        for (int64_t b = 0; b < 2; b++) {
            uint8_t *      blk = flat.data() + (r * 2 + b) * 18;
            const uint16_t d   = d_of(r, b);
            memcpy(blk, &d, 2);
            for (int j = 0; j < 64; j++) {
                blk[2 + j / 4] |= (uint8_t) (c_of(r, 64 * b + j) << (2 * (j % 4)));
            }
        }
    }
    check_flat(GGML_TYPE_Q2_0, flat, ne0, ne1,
               [&](int64_t r, int64_t c) { return (float) (c_of(r, c) - 1) * f32(d_of(r, c / 64)); });
    const auto tiled = repack_all(HTP_TYPE_Q2_0, flat, ne0, ne1);
    const grid g{ HTP_TYPE_Q2_0, ne0, ne1, 2, tiled };
    for (int64_t ct = 0; ct < 2; ct++) {
        for (int64_t kt = 0; kt < 2; kt++) {
            const uint8_t * t = g.at(ct, kt);
            for (int row = 0; row < 32; row++) {
                const int64_t R = 32 * ct + row;
                for (int col = 0; col < 64; col++) {
                    const int group = col / 4;                          // 16 groups of 4 columns
                    const int vec   = group >> 2;                       // vector group >> 2
                    const int byte  = vec * 128 + 4 * row + (col % 4);  // byte 4*row + column byte
                    const int shift = 2 * (group & 3);                  // bit offset 2 * (group & 3)
                    EXPECT_EQ((t[byte] >> shift) & 3, c_of(R, 64 * kt + col)) << "row " << row << " col " << col;
                }
                EXPECT_EQ(rd16(t + 512 + 2 * row), d_of(R, kt));
            }
        }
    }
}

// ---- K-quants ---------------------------------------------------------------------------------
namespace {

constexpr int64_t KNE0 = 512, KNE1 = 64;   // 2 super-blocks (16 k-tiles) x 2 row-tiles

// vrmpy 2-bit plane: k = 0..31 -> group g = k/4; vec m = g/4 holds groups 4m..4m+3 at bit
// offsets 0, 2, 4, 6; byte 4*r + (k%4) holds row r.
int vrmpy2(const uint8_t * base, int r, int k) {
    const int g = k / 4, m = g / 4;
    return (base[128 * m + 4 * r + (k % 4)] >> (2 * (g - 4 * m))) & 3;
}

uint16_t kd(int64_t r, int64_t sb) { return f16((float) (3 + r + 5 * sb) / 512.0f); }
uint16_t kdmin(int64_t r, int64_t sb) { return f16((float) (7 + 2 * r + sb) / 1024.0f); }
int      sub6(int64_t r, int64_t sb, int j) { return (int) ((r * 11 + sb * 5 + j * 7) % 64); }
int      min6(int64_t r, int64_t sb, int j) { return (int) ((r * 3 + sb * 13 + j * 5 + 1) % 64); }

void set_scale_min_k4(int j, uint8_t * s, int sc, int m) {
    if (j < 4) {
        s[j] |= (uint8_t) sc;
        s[j + 4] |= (uint8_t) m;
    } else {
        s[j + 4] |= (uint8_t) ((sc & 0xf) | ((m & 0xf) << 4));
        s[j - 4] |= (uint8_t) ((sc >> 4) << 6);
        s[j] |= (uint8_t) ((m >> 4) << 6);
    }
}

template <typename F> void for_tiles(F && f) {
    for (int64_t ct = 0; ct < KNE1 / 32; ct++) {
        for (int64_t kt = 0; kt < KNE0 / 32; kt++) {
            f(ct, kt, kt / 8, (int) (kt % 8));
        }
    }
}

}  // namespace

TEST(Golden, Q2_K) {
    auto q_of  = [](int64_t r, int64_t c) { return code(r, c, 4); };
    auto scb   = [](int64_t r, int64_t sb, int i) { return (uint8_t) ((min6(r, sb, i) % 16) << 4 | (sub6(r, sb, i) % 16)); };
    std::vector<uint8_t> flat(84 * (size_t) (KNE0 / 256 * KNE1), 0);
    for (int64_t r = 0; r < KNE1; r++) {
        for (int64_t sb = 0; sb < 2; sb++) {
            uint8_t * blk = flat.data() + (r * 2 + sb) * 84;   // scales[16] qs[64] d dmin
            for (int i = 0; i < 16; i++) {
                blk[i] = scb(r, sb, i);
            }
            for (int e = 0; e < 256; e++) {
                blk[16 + 32 * (e / 128) + e % 32] |= (uint8_t) (q_of(r, 256 * sb + e) << (2 * ((e % 128) / 32)));
            }
            const uint16_t d = kd(r, sb), dm = kdmin(r, sb);
            memcpy(blk + 80, &d, 2);
            memcpy(blk + 82, &dm, 2);
        }
    }
    check_flat(GGML_TYPE_Q2_K, flat, KNE0, KNE1, [&](int64_t r, int64_t c) {
        const int64_t sb = c / 256;
        const uint8_t s  = scb(r, sb, (int) (c % 256) / 16);
        return f32(kd(r, sb)) * (float) (s & 0xf) * (float) q_of(r, c) - f32(kdmin(r, sb)) * (float) (s >> 4);
    });
    const auto tiled = repack_all(HTP_TYPE_Q2_K, flat, KNE0, KNE1);
    for_tiles([&](int64_t ct, int64_t kt, int64_t sb, int j) {
        const uint8_t * t = tile_ptr(tiled, HTP_TYPE_Q2_K, KNE0, ct, kt);
        for (int r = 0; r < 32; r++) {
            const int64_t R = 32 * ct + r;
            for (int k = 0; k < 32; k++) {
                ASSERT_EQ(vrmpy2(t, r, k), q_of(R, 32 * kt + k));
            }
            EXPECT_EQ(t[256 + r], scb(R, sb, 2 * j));        // [0..31] for k 0..15
            EXPECT_EQ(t[256 + 32 + r], scb(R, sb, 2 * j + 1));  // [32..63] for k 16..31
        }
        for (int i = 0; i < 8; i++) {   // 8 FP16: d (j < 4) or -dmin (j >= 4) of rows 8*(j%4)+i
            const int64_t R = 32 * ct + 8 * (j % 4) + i;
            const uint16_t want = j < 4 ? kd(R, sb) : f16(-f32(kdmin(R, sb)));
            EXPECT_EQ(rd16(t + 320 + 2 * i), want) << "tile j " << j << " i " << i;
        }
    });
}

TEST(Golden, Q3_K) {
    auto q_of = [](int64_t r, int64_t c) { return code(r, c, 8) - 4; };   // -4..3
    std::vector<uint8_t> flat(110 * (size_t) (KNE0 / 256 * KNE1), 0);
    for (int64_t r = 0; r < KNE1; r++) {
        for (int64_t sb = 0; sb < 2; sb++) {
            uint8_t * blk = flat.data() + (r * 2 + sb) * 110;   // hmask[32] qs[64] scales[12] d
            for (int e = 0; e < 256; e++) {
                const int q = q_of(r, 256 * sb + e);
                blk[32 + 32 * (e / 128) + e % 32] |= (uint8_t) ((q & 3) << (2 * ((e % 128) / 32)));
                blk[e % 32] |= (uint8_t) ((q >= 0 ? 1 : 0) << (e / 32));
            }
            for (int j = 0; j < 16; j++) {
                const int s = sub6(r, sb, j);
                blk[96 + (j < 8 ? j : j - 8)] |= (uint8_t) ((s & 0xf) << (j < 8 ? 0 : 4));
                blk[96 + 8 + j % 4] |= (uint8_t) ((s >> 4) << (2 * (j / 4)));
            }
            const uint16_t d = kd(r, sb);
            memcpy(blk + 108, &d, 2);
        }
    }
    check_flat(GGML_TYPE_Q3_K, flat, KNE0, KNE1, [&](int64_t r, int64_t c) {
        const int64_t sb = c / 256;
        return f32(kd(r, sb)) * (float) (sub6(r, sb, (int) (c % 256) / 16) - 32) * (float) q_of(r, c);
    });
    const auto tiled = repack_all(HTP_TYPE_Q3_K, flat, KNE0, KNE1);
    for_tiles([&](int64_t ct, int64_t kt, int64_t sb, int j) {
        const uint8_t * t = tile_ptr(tiled, HTP_TYPE_Q3_K, KNE0, ct, kt);
        for (int r = 0; r < 32; r++) {
            const int64_t R = 32 * ct + r;
            for (int k = 0; k < 32; k++) {
                const int q = q_of(R, 32 * kt + k);
                ASSERT_EQ(vrmpy2(t, r, k), q & 3);                                  // low 2 bits
                ASSERT_EQ((t[256 + 4 * r + k % 4] >> (k / 4)) & 1, q < 0 ? 1 : 0);  // sign: hmask 0
            }
            for (int h = 0; h < 2; h++) {   // fp16[0..31] for k 0..15, [32..63] for k 16..31
                const float want = f32(kd(R, sb)) * (float) (sub6(R, sb, 2 * j + h) - 32);
                EXPECT_EQ(rd16(t + 384 + 2 * (32 * h + r)), f16(want));
            }
        }
    });
}

// Q4_K and Q5_K share the builder: 5 bits when Q5.
static void golden_q45(bool q5) {
    const ggml_type     gt   = q5 ? GGML_TYPE_Q5_K : GGML_TYPE_Q4_K;
    const enum htp_type ht   = q5 ? HTP_TYPE_Q5_K : HTP_TYPE_Q4_K;
    const size_t        bs   = q5 ? 176 : 144;
    const size_t        qoff = q5 ? 48 : 16;
    auto q_of = [&](int64_t r, int64_t c) { return code(r, c, q5 ? 32 : 16); };
    std::vector<uint8_t> flat(bs * (size_t) (KNE0 / 256 * KNE1), 0);
    for (int64_t r = 0; r < KNE1; r++) {
        for (int64_t sb = 0; sb < 2; sb++) {
            uint8_t *      blk = flat.data() + (r * 2 + sb) * bs;   // d dmin scales[12] (qh[32]) qs[128]
            const uint16_t d = kd(r, sb), dm = kdmin(r, sb);
            memcpy(blk, &d, 2);
            memcpy(blk + 2, &dm, 2);
            for (int j = 0; j < 8; j++) {
                set_scale_min_k4(j, blk + 4, sub6(r, sb, j), min6(r, sb, j));
            }
            for (int e = 0; e < 256; e++) {
                const int q = q_of(r, 256 * sb + e);
                blk[qoff + 32 * (e / 64) + e % 32] |= (uint8_t) ((q & 15) << (4 * ((e / 32) & 1)));
                if (q5) {
                    blk[16 + e % 32] |= (uint8_t) ((q >> 4) << (e / 32));
                }
            }
        }
    }
    check_flat(gt, flat, KNE0, KNE1, [&](int64_t r, int64_t c) {
        const int64_t sb = c / 256;
        const int     j  = (int) (c % 256) / 32;
        const float   d1 = f32(kd(r, sb)) * (float) sub6(r, sb, j);
        const float   m1 = f32(kdmin(r, sb)) * (float) min6(r, sb, j);
        return d1 * (float) q_of(r, c) - m1;
    });
    const auto tiled = repack_all(ht, flat, KNE0, KNE1);
    for_tiles([&](int64_t ct, int64_t kt, int64_t sb, int j) {
        const uint8_t * t = tile_ptr(tiled, ht, KNE0, ct, kt);
        for (int r = 0; r < 32; r++) {
            const int64_t R = 32 * ct + r;
            for (int cp = 0; cp < 16; cp++) {   // byte 32*cp + r: k = 2cp low, 2cp+1 high
                ASSERT_EQ(t[32 * cp + r], ((q_of(R, 32 * kt + 2 * cp + 1) & 15) << 4) | (q_of(R, 32 * kt + 2 * cp) & 15));
            }
            EXPECT_EQ(rd16(t + 512 + 4 * r), f16(f32(kd(R, sb)) * (float) sub6(R, sb, j)));
            EXPECT_EQ(rd16(t + 514 + 4 * r), f16(-f32(kdmin(R, sb)) * (float) min6(R, sb, j)));
        }
        if (q5) {   // byte 640 + l: bit 2i = 5th bit of lane l's low nibble in vec i, 2i+1 high
            for (int i = 0; i < 4; i++) {
                for (int l = 0; l < 128; l++) {
                    const int     cp = (128 * i + l) / 32, r = l % 32;
                    const int64_t R = 32 * ct + r;
                    ASSERT_EQ((t[640 + l] >> (2 * i)) & 1, q_of(R, 32 * kt + 2 * cp) >> 4);
                    ASSERT_EQ((t[640 + l] >> (2 * i + 1)) & 1, q_of(R, 32 * kt + 2 * cp + 1) >> 4);
                }
            }
        }
    });
}

TEST(Golden, Q4_K) { golden_q45(false); }
TEST(Golden, Q5_K) { golden_q45(true); }

TEST(Golden, Q6_K) {
    auto q_of  = [](int64_t r, int64_t c) { return code(r, c, 64); };   // stored 0..63, value q-32
    auto sc_of = [](int64_t r, int64_t sb, int i) { return (int) ((r * 37 + sb * 11 + i * 23) % 256) - 128; };
    std::vector<uint8_t> flat(210 * (size_t) (KNE0 / 256 * KNE1), 0);
    for (int64_t r = 0; r < KNE1; r++) {
        for (int64_t sb = 0; sb < 2; sb++) {
            uint8_t * blk = flat.data() + (r * 2 + sb) * 210;   // ql[128] qh[64] scales[16] d
            for (int e = 0; e < 256; e++) {
                const int q = q_of(r, 256 * sb + e), w = e % 128;
                blk[64 * (e / 128) + 32 * ((w / 32) & 1) + e % 32] |= (uint8_t) ((q & 15) << (4 * (w / 64)));
                blk[128 + 32 * (e / 128) + e % 32] |= (uint8_t) ((q >> 4) << (2 * (w / 32)));
            }
            for (int i = 0; i < 16; i++) {
                blk[192 + i] = (uint8_t) (int8_t) sc_of(r, sb, i);
            }
            const uint16_t d = kd(r, sb);
            memcpy(blk + 208, &d, 2);
        }
    }
    check_flat(GGML_TYPE_Q6_K, flat, KNE0, KNE1, [&](int64_t r, int64_t c) {
        const int64_t sb = c / 256;
        return f32(kd(r, sb)) * (float) sc_of(r, sb, (int) (c % 256) / 16) * (float) (q_of(r, c) - 32);
    });
    const auto tiled = repack_all(HTP_TYPE_Q6_K, flat, KNE0, KNE1);
    for_tiles([&](int64_t ct, int64_t kt, int64_t sb, int j) {
        const uint8_t * t = tile_ptr(tiled, HTP_TYPE_Q6_K, KNE0, ct, kt);
        for (int r = 0; r < 32; r++) {
            const int64_t R = 32 * ct + r;
            for (int k = 0; k < 32; k++) {
                const int q = q_of(R, 32 * kt + k), g = k / 4;
                // low 4 bits: vec i holds group 2i (low nibble) and 2i+1 (high nibble)
                const int i = g / 2;
                ASSERT_EQ((t[128 * i + 4 * r + k % 4] >> (4 * (g % 2))) & 15, q & 15);
                // high 2 bits: vec 4+m holds groups 4m..4m+3 at bit offsets 0, 2, 4, 6
                ASSERT_EQ(vrmpy2(t + 512, r, k), q >> 4);
            }
            for (int h = 0; h < 2; h++) {
                EXPECT_EQ(rd16(t + 768 + 2 * (32 * h + r)), f16(f32(kd(R, sb)) * (float) sc_of(R, sb, 2 * j + h)));
            }
        }
    });
}

// Q5_0 / Q5_1 (docs/tiled-formats.md "Q5_0 and Q5_1"): the 5-bit code's low 4 bits in the Q4_0
// nibble layout (byte 32*cp + r: column 2cp low nibble, 2cp+1 high), its fifth bit in a plane
// (column k of row r: byte P + 32*((k/2)%4) + r, bit 2*(k/8) + k%2; P = 512 for Q5_0, 640 for
// Q5_1); Q5_0 d at 640 + 2r, Q5_1 d at 512 + 4r and m at 514 + 4r.
static void golden_q5(bool q5_1) {
    const ggml_type     gt    = q5_1 ? GGML_TYPE_Q5_1 : GGML_TYPE_Q5_0;
    const enum htp_type ht    = q5_1 ? HTP_TYPE_Q5_1 : HTP_TYPE_Q5_0;
    const size_t        bs    = q5_1 ? 24 : 22;   // d (m) qh[4] qs[16]
    const size_t        qhoff = q5_1 ? 4 : 2;
    const int64_t       ne0 = 64, ne1 = 64;
    auto q_of = [](int64_t r, int64_t c) { return code(r, c, 32); };
    auto m_of = [](int64_t r, int64_t b) { return f16(-(float) (r + 2 * b) / 16.0f); };
    std::vector<uint8_t> flat(bs * (size_t) (ne0 / 32 * ne1), 0);
    for (int64_t r = 0; r < ne1; r++) {
        for (int64_t b = 0; b < ne0 / 32; b++) {
            uint8_t *      blk = flat.data() + (r * (ne0 / 32) + b) * bs;
            const uint16_t d = d_of(r, b), m = m_of(r, b);
            memcpy(blk, &d, 2);
            if (q5_1) {
                memcpy(blk + 2, &m, 2);
            }
            for (int j = 0; j < 32; j++) {   // ggml: element j < 16 low nibble of qs[j], else high of qs[j-16]
                const int q = q_of(r, 32 * b + j);
                blk[qhoff + 4 + j % 16] |= (uint8_t) ((q & 15) << (4 * (j / 16)));
                blk[qhoff + j / 8] |= (uint8_t) ((q >> 4) << (j % 8));
            }
        }
    }
    check_flat(gt, flat, ne0, ne1, [&](int64_t r, int64_t c) {
        const float d = f32(d_of(r, c / 32));
        return q5_1 ? (float) q_of(r, c) * d + f32(m_of(r, c / 32)) : (float) (q_of(r, c) - 16) * d;
    });
    const auto   tiled = repack_all(ht, flat, ne0, ne1);
    const grid   g{ ht, ne0, ne1, 2, tiled };
    const size_t plane = q5_1 ? 640 : 512;
    for (int64_t ct = 0; ct < 2; ct++) {
        for (int64_t kt = 0; kt < 2; kt++) {
            const uint8_t * t = g.at(ct, kt);
            for (int row = 0; row < 32; row++) {
                const int64_t R = 32 * ct + row, C = 32 * kt;
                for (int cp = 0; cp < 16; cp++) {
                    ASSERT_EQ(t[32 * cp + row], ((q_of(R, C + 2 * cp + 1) & 15) << 4) | (q_of(R, C + 2 * cp) & 15));
                }
                for (int k = 0; k < 32; k++) {
                    ASSERT_EQ((t[plane + 32 * ((k / 2) % 4) + row] >> (2 * (k / 8) + k % 2)) & 1, q_of(R, C + k) >> 4)
                        << "ct " << ct << " kt " << kt << " row " << row << " k " << k;
                }
                if (q5_1) {
                    EXPECT_EQ(rd16(t + 512 + 4 * row), d_of(R, kt));
                    EXPECT_EQ(rd16(t + 514 + 4 * row), m_of(R, kt));
                } else {
                    EXPECT_EQ(rd16(t + 640 + 2 * row), d_of(R, kt));
                }
            }
        }
    }
    // Literal bytes: row 0, columns 0..1 have codes 0, 3; row 1 has 5, 8; row 4 column 0 has 20
    // (fifth bit set: plane byte P + 4, bit 0).
    EXPECT_EQ(g.at(0, 0)[0], 0x30);
    EXPECT_EQ(g.at(0, 0)[1], 0x85);
    EXPECT_EQ(q_of(4, 0), 20);
    EXPECT_EQ(g.at(0, 0)[plane + 4] & 1, 1);
}

TEST(Golden, Q5_0) { golden_q5(false); }
TEST(Golden, Q5_1) { golden_q5(true); }
