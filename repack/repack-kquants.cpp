// K-quants: Q2_K, Q3_K, Q4_K, Q5_K, Q6_K. A 256-column super-block of a row becomes that row's
// share of 8 consecutive tiles of 32 columns (tile j holds super-block columns 32j..32j+31).
// Q2_K is lossless (it keeps d and -dmin, an exact sign flip); Q3_K, Q4_K, Q5_K and Q6_K store
// FP16 products of the super-block scale and the integer sub-block scales, which unrepack
// refits (fit_scales).
#include "repack-internal.h"

namespace htp_repack {
namespace {

constexpr int NR  = HTP_TENSOR_TILE_N_ROWS;
constexpr int SBT = HTP_TILE_KQ_TILES_PER_SUPERBLOCK;

// ---- where a column k (0..31) of row r lives inside a tile ---------------------------------
// vrmpy order 2-bit planes: vector k/16, byte 4r + k%4, bits 2*((k/4)%4).
size_t v2_byte(int r, int k) { return (size_t) (k / 16) * 128 + 4 * r + (k % 4); }
int    v2_shift(int k) { return 2 * ((k / 4) % 4); }
// vrmpy order 1-bit plane (Q3_K signs): byte 4r + k%4, bit k/4.
size_t v1_byte(int r, int k) { return (size_t) 4 * r + (k % 4); }
int    v1_bit(int k) { return k / 4; }
// Q4_K/Q5_K nibbles: byte 32*(k/2) + r, low nibble for even k.
size_t n4_byte(int r, int k) { return (size_t) 32 * (k / 2) + r; }
int    n4_shift(int k) { return 4 * (k & 1); }
// Q5_K fifth-bit plane: lane l = 32*((k/2)%4) + r of quant vector i = k/8; bit 2i + (k&1).
size_t q5_byte(int r, int k) { return HTP_TILE_Q5_K_QH + (size_t) 32 * ((k / 2) % 4) + r; }
int    q5_bit(int k) { return 2 * (k / 8) + (k & 1); }
// Q6_K low nibbles in vrmpy order: vector k/8, byte 4r + k%4, nibble (k/4)%2.
size_t q6l_byte(int r, int k) { return (size_t) 128 * (k / 8) + 4 * r + (k % 4); }
int    q6l_shift(int k) { return 4 * ((k / 4) % 2); }

// Row r's bytes of the 4 bytes-per-row vrmpy planes are cleared before bits are OR-ed in.
void clear_v_row(uint8_t * tile, size_t base, int n_vec, int r) {
    for (int v = 0; v < n_vec; v++) {
        memset(tile + base + (size_t) v * 128 + 4 * r, 0, 4);
    }
}

// ---- ggml's element order inside a super-block (e = 0..255) --------------------------------
// Q2_K / Q3_K low 2 bits: qs[32*(e/128) + e%32] >> 2*((e%128)/32). Q3_K high bit: hmask[e%32]
// bit e/32. Sub-block scale index e/16.
int lo2_of(const uint8_t * qs, int e) { return (qs[32 * (e / 128) + e % 32] >> (2 * ((e % 128) / 32))) & 3; }
void set_lo2(uint8_t * qs, int e, int v) { qs[32 * (e / 128) + e % 32] |= (uint8_t) (v << (2 * ((e % 128) / 32))); }
// Q4_K / Q5_K low 4 bits: qs[32*(e/64) + e%32] >> 4*((e/32)&1). Q5_K 5th bit: qh[e%32] bit e/32.
int lo4_of(const uint8_t * qs, int e) { return (qs[32 * (e / 64) + e % 32] >> (4 * ((e / 32) & 1))) & 15; }
void set_lo4(uint8_t * qs, int e, int v) { qs[32 * (e / 64) + e % 32] |= (uint8_t) (v << (4 * ((e / 32) & 1))); }
// Q6_K: ql[64*(e/128) + 32*(w/32 & 1) + e%32] nibble (w/64), qh[32*(e/128) + e%32] >> 2*(w/32),
// with w = e%128. Sub-block scale index e/16.
size_t q6_ql_idx(int e) { return (size_t) 64 * (e / 128) + 32 * (((e % 128) / 32) & 1) + e % 32; }
int    q6_ql_shift(int e) { return 4 * ((e % 128) / 64); }
size_t q6_qh_idx(int e) { return (size_t) 32 * (e / 128) + e % 32; }
int    q6_qh_shift(int e) { return 2 * ((e % 128) / 32); }

// Q4_K / Q5_K 6-bit scale and min j (0..7) in the 12-byte scales field.
void get_scale_min(int j, const uint8_t * s, int * sc, int * m) {
    if (j < 4) {
        *sc = s[j] & 63;
        *m  = s[j + 4] & 63;
    } else {
        *sc = (s[j + 4] & 0xf) | ((s[j - 4] >> 6) << 4);
        *m  = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

void set_scale_min(int j, uint8_t * s, int sc, int m) {   // s zeroed beforehand
    if (j < 4) {
        s[j] |= (uint8_t) sc;
        s[j + 4] |= (uint8_t) m;
    } else {
        s[j + 4] |= (uint8_t) ((sc & 0xf) | ((m & 0xf) << 4));
        s[j - 4] |= (uint8_t) ((sc >> 4) << 6);
        s[j] |= (uint8_t) ((m >> 4) << 6);
    }
}

// Q3_K 6-bit scale j (0..15): low 4 bits in nibbles of bytes 0..7, high 2 bits in bytes 8..11.
int q3_scale(const uint8_t * s, int j) {
    const int lo = j < 8 ? (s[j] & 0xf) : (s[j - 8] >> 4);
    const int hi = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
    return lo | (hi << 4);
}

void set_q3_scale(uint8_t * s, int j, int v) {   // s zeroed beforehand
    if (j < 8) {
        s[j] |= (uint8_t) (v & 0xf);
    } else {
        s[j - 8] |= (uint8_t) ((v & 0xf) << 4);
    }
    s[8 + j % 4] |= (uint8_t) ((v >> 4) << (2 * (j / 4)));
}

template <typename B> B load_block(const uint8_t * flat, int64_t sb) {
    B b;
    memcpy(&b, flat + sb * sizeof(B), sizeof(B));
    return b;
}

// ==== Q2_K ====================================================================================
constexpr uint32_t T2 = HTP_TENSOR_TILE_SIZE_Q2_K;

void q2_K_pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t sb = 0; sb < n_k_tiles / SBT; sb++) {
        const block_q2_K b     = load_block<block_q2_K>(flat, sb);
        uint8_t *        tiles = ct_tiles + sb * SBT * T2;
        for (int j = 0; j < SBT; j++) {
            uint8_t * tile = tiles + j * T2;
            clear_v_row(tile, 0, 2, r);
            for (int k = 0; k < 32; k++) {
                tile[v2_byte(r, k)] |= (uint8_t) (lo2_of(b.qs, 32 * j + k) << v2_shift(k));
            }
            tile[HTP_TILE_Q2_K_SCALES + r]      = b.scales[2 * j];
            tile[HTP_TILE_Q2_K_SCALES + 32 + r] = b.scales[2 * j + 1];
        }
        // d of rows 8t..8t+7 in tile t, -dmin in tile 4+t (t = 0..3).
        wr16(tiles + (r / 8) * T2 + HTP_TILE_Q2_K_DM + 2 * (r % 8), b.d);
        wr16(tiles + (4 + r / 8) * T2 + HTP_TILE_Q2_K_DM + 2 * (r % 8), fp16_neg(b.dmin));
    }
}

void q2_K_unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t sb = 0; sb < n_k_tiles / SBT; sb++) {
        const uint8_t * tiles = ct_tiles + sb * SBT * T2;
        block_q2_K      b;
        memset(&b, 0, sizeof(b));
        for (int j = 0; j < SBT; j++) {
            const uint8_t * tile = tiles + j * T2;
            for (int k = 0; k < 32; k++) {
                set_lo2(b.qs, 32 * j + k, (tile[v2_byte(r, k)] >> v2_shift(k)) & 3);
            }
            b.scales[2 * j]     = tile[HTP_TILE_Q2_K_SCALES + r];
            b.scales[2 * j + 1] = tile[HTP_TILE_Q2_K_SCALES + 32 + r];
        }
        b.d    = rd16(tiles + (r / 8) * T2 + HTP_TILE_Q2_K_DM + 2 * (r % 8));
        b.dmin = fp16_neg(rd16(tiles + (4 + r / 8) * T2 + HTP_TILE_Q2_K_DM + 2 * (r % 8)));
        memcpy(flat + sb * sizeof(b), &b, sizeof(b));
    }
}

void q2_K_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tiles = ct_tiles + (kt - kt % SBT) * T2;
    const uint8_t * tile  = ct_tiles + kt * T2;
    for (int r = 0; r < NR; r++) {
        const float d    = fp16_to_fp32(rd16(tiles + (r / 8) * T2 + HTP_TILE_Q2_K_DM + 2 * (r % 8)));
        const float dmin = -fp16_to_fp32(rd16(tiles + (4 + r / 8) * T2 + HTP_TILE_Q2_K_DM + 2 * (r % 8)));
        for (int k = 0; k < 32; k++) {
            const int   sc = tile[HTP_TILE_Q2_K_SCALES + 32 * (k / 16) + r];
            const float dl = d * (float) (sc & 0xf);
            const float ml = dmin * (float) (sc >> 4);
            const int   q  = (tile[v2_byte(r, k)] >> v2_shift(k)) & 3;
            out[r * 32 + k] = fp32_to_fp16(dl * (float) q - ml);
        }
    }
}

// ==== Q3_K ====================================================================================
constexpr uint32_t T3 = HTP_TENSOR_TILE_SIZE_Q3_K;

void q3_K_pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t sb = 0; sb < n_k_tiles / SBT; sb++) {
        const block_q3_K b = load_block<block_q3_K>(flat, sb);
        const float      d = fp16_to_fp32(b.d);
        for (int j = 0; j < SBT; j++) {
            uint8_t * tile = ct_tiles + (sb * SBT + j) * T3;
            clear_v_row(tile, 0, 2, r);
            clear_v_row(tile, HTP_TILE_Q3_K_SIGNS, 1, r);
            for (int k = 0; k < 32; k++) {
                const int e = 32 * j + k;
                tile[v2_byte(r, k)] |= (uint8_t) (lo2_of(b.qs, e) << v2_shift(k));
                const int neg = ((b.hmask[e % 32] >> (e / 32)) & 1) ? 0 : 1;
                tile[HTP_TILE_Q3_K_SIGNS + v1_byte(r, k)] |= (uint8_t) (neg << v1_bit(k));
            }
            for (int h = 0; h < 2; h++) {
                const int s = q3_scale(b.scales, 2 * j + h);
                wr16(tile + HTP_TILE_Q3_K_SCALES + 2 * (32 * h + r), fp32_to_fp16(d * (float) (s - 32)));
            }
        }
    }
}

void q3_K_unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t sb = 0; sb < n_k_tiles / SBT; sb++) {
        block_q3_K b;
        memset(&b, 0, sizeof(b));
        uint16_t p[16];
        for (int j = 0; j < SBT; j++) {
            const uint8_t * tile = ct_tiles + (sb * SBT + j) * T3;
            for (int k = 0; k < 32; k++) {
                const int e = 32 * j + k;
                set_lo2(b.qs, e, (tile[v2_byte(r, k)] >> v2_shift(k)) & 3);
                const int neg = (tile[HTP_TILE_Q3_K_SIGNS + v1_byte(r, k)] >> v1_bit(k)) & 1;
                b.hmask[e % 32] |= (uint8_t) ((neg ? 0 : 1) << (e / 32));
            }
            for (int h = 0; h < 2; h++) {
                p[2 * j + h] = rd16(tile + HTP_TILE_Q3_K_SCALES + 2 * (32 * h + r));
            }
        }
        int a[16];
        fit_scales(p, 16, -32, 31, &b.d, a);
        for (int i = 0; i < 16; i++) {
            set_q3_scale(b.scales, i, a[i] + 32);
        }
        memcpy(flat + sb * sizeof(b), &b, sizeof(b));
    }
}

void q3_K_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * T3;
    for (int r = 0; r < NR; r++) {
        for (int k = 0; k < 32; k++) {
            const float s   = fp16_to_fp32(rd16(tile + HTP_TILE_Q3_K_SCALES + 2 * (32 * (k / 16) + r)));
            const int   lo  = (tile[v2_byte(r, k)] >> v2_shift(k)) & 3;
            const int   neg = (tile[HTP_TILE_Q3_K_SIGNS + v1_byte(r, k)] >> v1_bit(k)) & 1;
            out[r * 32 + k] = fp32_to_fp16(s * (float) (lo - 4 * neg));
        }
    }
}

// ==== Q4_K and Q5_K (Q5_K = Q4_K tile + fifth-bit plane) =====================================
// Scale pair of row r, tile j: (fl16(d * sc_j), fl16(-dmin * m_j)).
void put_q45_scales(uint8_t * tile, int r, float d, float dmin, int sc, int m) {
    wr16(tile + HTP_TILE_Q4_K_SCALES + 4 * r, fp32_to_fp16(d * (float) sc));
    wr16(tile + HTP_TILE_Q4_K_SCALES + 4 * r + 2, fp32_to_fp16(-dmin * (float) m));
}

// Refits (d, sc[8]) and (dmin, m[8]) from the 8 tiles' scale pairs of row r.
void fit_q45_scales(const uint8_t * tiles, uint32_t tile_size, int r, uint16_t * d, uint16_t * dmin,
                    uint8_t * scales) {
    uint16_t ps[8], pm[8];
    for (int j = 0; j < SBT; j++) {
        ps[j] = rd16(tiles + j * tile_size + HTP_TILE_Q4_K_SCALES + 4 * r);
        pm[j] = fp16_neg(rd16(tiles + j * tile_size + HTP_TILE_Q4_K_SCALES + 4 * r + 2));
    }
    int sc[8], m[8];
    fit_scales(ps, 8, 0, 63, d, sc);
    fit_scales(pm, 8, 0, 63, dmin, m);
    memset(scales, 0, 12);
    for (int j = 0; j < SBT; j++) {
        set_scale_min(j, scales, sc[j], m[j]);
    }
}

template <bool Q5> void q45_K_pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    constexpr uint32_t T = Q5 ? HTP_TENSOR_TILE_SIZE_Q5_K : HTP_TENSOR_TILE_SIZE_Q4_K;
    for (int64_t sb = 0; sb < n_k_tiles / SBT; sb++) {
        uint16_t       d16, dmin16;
        const uint8_t *scales, *qs, *qh = nullptr;
        block_q4_K     b4;
        block_q5_K     b5;
        if (Q5) {
            b5     = load_block<block_q5_K>(flat, sb);
            d16    = b5.d;
            dmin16 = b5.dmin;
            scales = b5.scales;
            qs     = b5.qs;
            qh     = b5.qh;
        } else {
            b4     = load_block<block_q4_K>(flat, sb);
            d16    = b4.d;
            dmin16 = b4.dmin;
            scales = b4.scales;
            qs     = b4.qs;
        }
        const float d = fp16_to_fp32(d16), dmin = fp16_to_fp32(dmin16);
        for (int j = 0; j < SBT; j++) {
            uint8_t * tile = ct_tiles + (sb * SBT + j) * T;
            if (Q5) {
                for (int l = 0; l < 4; l++) {
                    tile[HTP_TILE_Q5_K_QH + 32 * l + r] = 0;
                }
            }
            for (int k = 0; k < 32; k += 2) {
                const int e = 32 * j + k;
                tile[n4_byte(r, k)] = (uint8_t) (lo4_of(qs, e) | (lo4_of(qs, e + 1) << 4));
                if (Q5) {
                    for (int kk = k; kk < k + 2; kk++) {
                        const int hb = (qh[(32 * j + kk) % 32] >> ((32 * j + kk) / 32)) & 1;
                        tile[q5_byte(r, kk)] |= (uint8_t) (hb << q5_bit(kk));
                    }
                }
            }
            int sc, m;
            get_scale_min(j, scales, &sc, &m);
            put_q45_scales(tile, r, d, dmin, sc, m);
        }
    }
}

template <bool Q5> void q45_K_unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    constexpr uint32_t T = Q5 ? HTP_TENSOR_TILE_SIZE_Q5_K : HTP_TENSOR_TILE_SIZE_Q4_K;
    for (int64_t sb = 0; sb < n_k_tiles / SBT; sb++) {
        const uint8_t * tiles = ct_tiles + sb * SBT * T;
        block_q4_K      b4;
        block_q5_K      b5;
        memset(&b4, 0, sizeof(b4));
        memset(&b5, 0, sizeof(b5));
        uint8_t * qs = Q5 ? b5.qs : b4.qs;
        for (int j = 0; j < SBT; j++) {
            const uint8_t * tile = tiles + j * T;
            for (int k = 0; k < 32; k++) {
                const int e = 32 * j + k;
                set_lo4(qs, e, (tile[n4_byte(r, k)] >> n4_shift(k)) & 15);
                if (Q5) {
                    b5.qh[e % 32] |= (uint8_t) (((tile[q5_byte(r, k)] >> q5_bit(k)) & 1) << (e / 32));
                }
            }
        }
        if (Q5) {
            fit_q45_scales(tiles, T, r, &b5.d, &b5.dmin, b5.scales);
            memcpy(flat + sb * sizeof(b5), &b5, sizeof(b5));
        } else {
            fit_q45_scales(tiles, T, r, &b4.d, &b4.dmin, b4.scales);
            memcpy(flat + sb * sizeof(b4), &b4, sizeof(b4));
        }
    }
}

template <bool Q5> void q45_K_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    constexpr uint32_t T    = Q5 ? HTP_TENSOR_TILE_SIZE_Q5_K : HTP_TENSOR_TILE_SIZE_Q4_K;
    const uint8_t *    tile = ct_tiles + kt * T;
    for (int r = 0; r < NR; r++) {
        const float s = fp16_to_fp32(rd16(tile + HTP_TILE_Q4_K_SCALES + 4 * r));
        const float m = fp16_to_fp32(rd16(tile + HTP_TILE_Q4_K_SCALES + 4 * r + 2));
        for (int k = 0; k < 32; k++) {
            int q = (tile[n4_byte(r, k)] >> n4_shift(k)) & 15;
            if (Q5) {
                q |= ((tile[q5_byte(r, k)] >> q5_bit(k)) & 1) << 4;
            }
            out[r * 32 + k] = fp32_to_fp16(s * (float) q + m);
        }
    }
}

// ==== Q6_K ====================================================================================
constexpr uint32_t T6 = HTP_TENSOR_TILE_SIZE_Q6_K;

void q6_K_pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t sb = 0; sb < n_k_tiles / SBT; sb++) {
        const block_q6_K b = load_block<block_q6_K>(flat, sb);
        const float      d = fp16_to_fp32(b.d);
        for (int j = 0; j < SBT; j++) {
            uint8_t * tile = ct_tiles + (sb * SBT + j) * T6;
            clear_v_row(tile, 0, 4, r);
            clear_v_row(tile, HTP_TILE_Q6_K_QH, 2, r);
            for (int k = 0; k < 32; k++) {
                const int e  = 32 * j + k;
                const int lo = (b.ql[q6_ql_idx(e)] >> q6_ql_shift(e)) & 15;
                const int hi = (b.qh[q6_qh_idx(e)] >> q6_qh_shift(e)) & 3;
                tile[q6l_byte(r, k)] |= (uint8_t) (lo << q6l_shift(k));
                tile[HTP_TILE_Q6_K_QH + v2_byte(r, k)] |= (uint8_t) (hi << v2_shift(k));
            }
            for (int h = 0; h < 2; h++) {
                const int s = b.scales[2 * j + h];
                wr16(tile + HTP_TILE_Q6_K_SCALES + 2 * (32 * h + r), fp32_to_fp16(d * (float) s));
            }
        }
    }
}

void q6_K_unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t sb = 0; sb < n_k_tiles / SBT; sb++) {
        block_q6_K b;
        memset(&b, 0, sizeof(b));
        uint16_t p[16];
        for (int j = 0; j < SBT; j++) {
            const uint8_t * tile = ct_tiles + (sb * SBT + j) * T6;
            for (int k = 0; k < 32; k++) {
                const int e  = 32 * j + k;
                const int lo = (tile[q6l_byte(r, k)] >> q6l_shift(k)) & 15;
                const int hi = (tile[HTP_TILE_Q6_K_QH + v2_byte(r, k)] >> v2_shift(k)) & 3;
                b.ql[q6_ql_idx(e)] |= (uint8_t) (lo << q6_ql_shift(e));
                b.qh[q6_qh_idx(e)] |= (uint8_t) (hi << q6_qh_shift(e));
            }
            for (int h = 0; h < 2; h++) {
                p[2 * j + h] = rd16(tile + HTP_TILE_Q6_K_SCALES + 2 * (32 * h + r));
            }
        }
        int a[16];
        fit_scales(p, 16, -128, 127, &b.d, a);
        for (int i = 0; i < 16; i++) {
            b.scales[i] = (int8_t) a[i];
        }
        memcpy(flat + sb * sizeof(b), &b, sizeof(b));
    }
}

void q6_K_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * T6;
    for (int r = 0; r < NR; r++) {
        for (int k = 0; k < 32; k++) {
            const float s  = fp16_to_fp32(rd16(tile + HTP_TILE_Q6_K_SCALES + 2 * (32 * (k / 16) + r)));
            const int   lo = (tile[q6l_byte(r, k)] >> q6l_shift(k)) & 15;
            const int   hi = (tile[HTP_TILE_Q6_K_QH + v2_byte(r, k)] >> v2_shift(k)) & 3;
            out[r * 32 + k] = fp32_to_fp16(s * (float) ((lo | (hi << 4)) - 32));
        }
    }
}

const format_ops q2_K_ops = { HTP_TYPE_Q2_K, 256, sizeof(block_q2_K), true, q2_K_pack_row, q2_K_unpack_row,
                              q2_K_to_f16 };
const format_ops q3_K_ops = { HTP_TYPE_Q3_K, 256, sizeof(block_q3_K), false, q3_K_pack_row, q3_K_unpack_row,
                              q3_K_to_f16 };
const format_ops q4_K_ops = { HTP_TYPE_Q4_K, 256, sizeof(block_q4_K), false, q45_K_pack_row<false>,
                              q45_K_unpack_row<false>, q45_K_to_f16<false> };
const format_ops q5_K_ops = { HTP_TYPE_Q5_K, 256, sizeof(block_q5_K), false, q45_K_pack_row<true>,
                              q45_K_unpack_row<true>, q45_K_to_f16<true> };
const format_ops q6_K_ops = { HTP_TYPE_Q6_K, 256, sizeof(block_q6_K), false, q6_K_pack_row, q6_K_unpack_row,
                              q6_K_to_f16 };

}  // namespace

const format_ops * ops_q2_K() { return &q2_K_ops; }
const format_ops * ops_q3_K() { return &q3_K_ops; }
const format_ops * ops_q4_K() { return &q4_K_ops; }
const format_ops * ops_q5_K() { return &q5_K_ops; }
const format_ops * ops_q6_K() { return &q6_K_ops; }

}  // namespace htp_repack
