// Block-32 formats: Q4_0, Q4_1, IQ4_NL, MXFP4 (4-bit codes in nibble-pair order), Q5_0, Q5_1
// (the same low nibbles plus a fifth-bit plane) and Q8_0 (byte pairs). One ggml block of a row
// is exactly that row's 32 columns of one tile, so each (row, tile) pair is handled alone. All
// seven are lossless: the tile holds the block's codes and its scale fields unchanged.
#include "repack-internal.h"

namespace htp_repack {
namespace {

constexpr int NR = HTP_TENSOR_TILE_N_ROWS;

// ggml's 32-element nibble block: element j is the low nibble of qs[j], element j+16 the high.
void flat_to_codes(const uint8_t * qs, uint8_t * q) {
    for (int j = 0; j < 16; j++) {
        q[j]      = qs[j] & 0x0f;
        q[j + 16] = qs[j] >> 4;
    }
}

void codes_to_flat(const uint8_t * q, uint8_t * qs) {
    for (int j = 0; j < 16; j++) {
        qs[j] = (uint8_t) (q[j] | (q[j + 16] << 4));
    }
}

// Tile quants: column pair cp (columns 2cp, 2cp+1) is 32 bytes, one per row; low nibble even.
void put_nibble_row(uint8_t * tile, int r, const uint8_t * q) {
    for (int cp = 0; cp < 16; cp++) {
        tile[cp * NR + r] = (uint8_t) (q[2 * cp] | (q[2 * cp + 1] << 4));
    }
}

void get_nibble_row(const uint8_t * tile, int r, uint8_t * q) {
    for (int cp = 0; cp < 16; cp++) {
        const uint8_t b = tile[cp * NR + r];
        q[2 * cp]       = b & 0x0f;
        q[2 * cp + 1]   = b >> 4;
    }
}

// ---- Q4_0 / IQ4_NL: { FP16 d, 16 B nibbles } -> 512 B nibbles + 32 x FP16 d ----------------
// Both have the same flat block and the same tile; only the dequantization differs.
template <uint32_t TILE> void pack_row_d_nibbles(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        block_q4_0 b;
        memcpy(&b, flat + kt * sizeof(b), sizeof(b));
        uint8_t q[32];
        flat_to_codes(b.qs, q);
        uint8_t * tile = ct_tiles + kt * TILE;
        put_nibble_row(tile, r, q);
        wr16(tile + 512 + 2 * r, b.d);
    }
}

template <uint32_t TILE> void unpack_row_d_nibbles(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        const uint8_t * tile = ct_tiles + kt * TILE;
        block_q4_0      b;
        uint8_t         q[32];
        get_nibble_row(tile, r, q);
        codes_to_flat(q, b.qs);
        b.d = rd16(tile + 512 + 2 * r);
        memcpy(flat + kt * sizeof(b), &b, sizeof(b));
    }
}

void q4_0_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q4_0;
    for (int r = 0; r < NR; r++) {
        const float d = fp16_to_fp32(rd16(tile + HTP_TILE_Q4_0_SCALES + 2 * r));
        uint8_t     q[32];
        get_nibble_row(tile, r, q);
        for (int c = 0; c < 32; c++) {
            out[r * 32 + c] = fp32_to_fp16((float) ((int) q[c] - 8) * d);
        }
    }
}

// The IQ4_NL non-linear code book (ggml's kvalues_iq4nl).
const int8_t iq4_nl_values[16] = { -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113 };

void iq4_nl_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_IQ4_NL;
    for (int r = 0; r < NR; r++) {
        const float d = fp16_to_fp32(rd16(tile + HTP_TILE_IQ4_NL_SCALES + 2 * r));
        uint8_t     q[32];
        get_nibble_row(tile, r, q);
        for (int c = 0; c < 32; c++) {
            out[r * 32 + c] = fp32_to_fp16(d * (float) iq4_nl_values[q[c]]);
        }
    }
}

// ---- Q4_1: { FP16 d, FP16 m, 16 B nibbles } -> 512 B nibbles + 32 x (FP16 d, FP16 m) -------
void q4_1_pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        block_q4_1 b;
        memcpy(&b, flat + kt * sizeof(b), sizeof(b));
        uint8_t q[32];
        flat_to_codes(b.qs, q);
        uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q4_1;
        put_nibble_row(tile, r, q);
        wr16(tile + HTP_TILE_Q4_1_SCALES + 4 * r, b.d);
        wr16(tile + HTP_TILE_Q4_1_SCALES + 4 * r + 2, b.m);
    }
}

void q4_1_unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q4_1;
        block_q4_1      b;
        uint8_t         q[32];
        get_nibble_row(tile, r, q);
        codes_to_flat(q, b.qs);
        b.d = rd16(tile + HTP_TILE_Q4_1_SCALES + 4 * r);
        b.m = rd16(tile + HTP_TILE_Q4_1_SCALES + 4 * r + 2);
        memcpy(flat + kt * sizeof(b), &b, sizeof(b));
    }
}

void q4_1_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q4_1;
    for (int r = 0; r < NR; r++) {
        const float d = fp16_to_fp32(rd16(tile + HTP_TILE_Q4_1_SCALES + 4 * r));
        const float m = fp16_to_fp32(rd16(tile + HTP_TILE_Q4_1_SCALES + 4 * r + 2));
        uint8_t     q[32];
        get_nibble_row(tile, r, q);
        for (int c = 0; c < 32; c++) {
            out[r * 32 + c] = fp32_to_fp16((float) q[c] * d + m);
        }
    }
}

// ---- MXFP4: { E8M0 e, 16 B nibbles } -> 512 B nibbles + 32 x E8M0 e -------------------------
void mxfp4_pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        block_mxfp4 b;
        memcpy(&b, flat + kt * sizeof(b), sizeof(b));
        uint8_t q[32];
        flat_to_codes(b.qs, q);
        uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_MXFP4;
        put_nibble_row(tile, r, q);
        tile[HTP_TILE_MXFP4_SCALES + r] = b.e;
    }
}

void mxfp4_unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_MXFP4;
        block_mxfp4     b;
        uint8_t         q[32];
        get_nibble_row(tile, r, q);
        codes_to_flat(q, b.qs);
        b.e = tile[HTP_TILE_MXFP4_SCALES + r];
        memcpy(flat + kt * sizeof(b), &b, sizeof(b));
    }
}

// E2M1 values; code 8 (-0) maps to +0 as in ggml's table.
const float mxfp4_values[16] = { 0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f,
                                 0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f };

void mxfp4_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_MXFP4;
    for (int r = 0; r < NR; r++) {
        // The spec's kernel rule: FP16 scale bits = clamp(e - 112, 0, 30) << 10, i.e. 2^(e-127)
        // for e in 113..142, 0 below, 2^15 above.
        const int   e  = tile[HTP_TILE_MXFP4_SCALES + r];
        const int   eh = e - 112 < 0 ? 0 : (e - 112 > 30 ? 30 : e - 112);
        const float s  = fp16_to_fp32((uint16_t) (eh << 10));
        uint8_t     q[32];
        get_nibble_row(tile, r, q);
        for (int c = 0; c < 32; c++) {
            out[r * 32 + c] = fp32_to_fp16(mxfp4_values[q[c]] * s);
        }
    }
}

// ---- Q8_0: { FP16 d, 32 x int8 } -> column pairs of (row-interleaved) byte pairs + 32 x d ----
void q8_0_pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        block_q8_0 b;
        memcpy(&b, flat + kt * sizeof(b), sizeof(b));
        uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q8_0;
        for (int cp = 0; cp < 16; cp++) {
            tile[cp * 64 + 2 * r + 0] = (uint8_t) b.qs[2 * cp];
            tile[cp * 64 + 2 * r + 1] = (uint8_t) b.qs[2 * cp + 1];
        }
        wr16(tile + HTP_TILE_Q8_0_SCALES + 2 * r, b.d);
    }
}

void q8_0_unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q8_0;
        block_q8_0      b;
        for (int cp = 0; cp < 16; cp++) {
            b.qs[2 * cp]     = (int8_t) tile[cp * 64 + 2 * r + 0];
            b.qs[2 * cp + 1] = (int8_t) tile[cp * 64 + 2 * r + 1];
        }
        b.d = rd16(tile + HTP_TILE_Q8_0_SCALES + 2 * r);
        memcpy(flat + kt * sizeof(b), &b, sizeof(b));
    }
}

void q8_0_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q8_0;
    for (int r = 0; r < NR; r++) {
        const float d = fp16_to_fp32(rd16(tile + HTP_TILE_Q8_0_SCALES + 2 * r));
        for (int c = 0; c < 32; c++) {
            const int8_t q  = (int8_t) tile[(c / 2) * 64 + 2 * r + (c & 1)];
            out[r * 32 + c] = fp32_to_fp16((float) q * d);
        }
    }
}

// ---- Q5_0 / Q5_1: low nibbles as Q4_0 + the Q5_K fifth-bit plane -------------------------
// ggml: element j (0..15) = low nibble of qs[j], j + 16 = high nibble; its fifth bit is bit j
// (j + 16) of the little-endian 32-bit qh. Tile plane: column k of row r at byte
// 32 * ((k / 2) % 4) + r of the plane, bit 2 * (k / 8) + k % 2.
size_t q5_plane_byte(int r, int k) { return (size_t) 32 * ((k / 2) % 4) + r; }
int    q5_plane_bit(int k) { return 2 * (k / 8) + (k & 1); }

// 32 five-bit codes of one block: q[c] = low4 | fifth << 4.
void q5_flat_to_codes(const uint8_t * qs, const uint8_t * qh, uint8_t * q) {
    flat_to_codes(qs, q);
    for (int c = 0; c < 32; c++) {
        q[c] |= (uint8_t) (((qh[c / 8] >> (c % 8)) & 1) << 4);
    }
}

void q5_codes_to_flat(const uint8_t * q, uint8_t * qs, uint8_t * qh) {
    uint8_t lo[32];
    memset(qh, 0, 4);
    for (int c = 0; c < 32; c++) {
        lo[c] = q[c] & 15;
        qh[c / 8] |= (uint8_t) (((q[c] >> 4) & 1) << (c % 8));
    }
    codes_to_flat(lo, qs);
}

// Row r's 5-bit codes into the nibbles (bytes 0..511) and the plane at plane_off.
void put_q5_row(uint8_t * tile, int r, const uint8_t * q, size_t plane_off) {
    uint8_t lo[32];
    for (int l = 0; l < 4; l++) {
        tile[plane_off + 32 * l + r] = 0;
    }
    for (int c = 0; c < 32; c++) {
        lo[c] = q[c] & 15;
        tile[plane_off + q5_plane_byte(r, c)] |= (uint8_t) ((q[c] >> 4) << q5_plane_bit(c));
    }
    put_nibble_row(tile, r, lo);
}

void get_q5_row(const uint8_t * tile, int r, uint8_t * q, size_t plane_off) {
    get_nibble_row(tile, r, q);
    for (int c = 0; c < 32; c++) {
        q[c] |= (uint8_t) (((tile[plane_off + q5_plane_byte(r, c)] >> q5_plane_bit(c)) & 1) << 4);
    }
}

void q5_0_pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        block_q5_0 b;
        memcpy(&b, flat + kt * sizeof(b), sizeof(b));
        uint8_t q[32];
        q5_flat_to_codes(b.qs, b.qh, q);
        uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q5_0;
        put_q5_row(tile, r, q, HTP_TILE_Q5_0_QH);
        wr16(tile + HTP_TILE_Q5_0_SCALES + 2 * r, b.d);
    }
}

void q5_0_unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q5_0;
        block_q5_0      b;
        uint8_t         q[32];
        get_q5_row(tile, r, q, HTP_TILE_Q5_0_QH);
        q5_codes_to_flat(q, b.qs, b.qh);
        b.d = rd16(tile + HTP_TILE_Q5_0_SCALES + 2 * r);
        memcpy(flat + kt * sizeof(b), &b, sizeof(b));
    }
}

void q5_0_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q5_0;
    for (int r = 0; r < NR; r++) {
        const float d = fp16_to_fp32(rd16(tile + HTP_TILE_Q5_0_SCALES + 2 * r));
        uint8_t     q[32];
        get_q5_row(tile, r, q, HTP_TILE_Q5_0_QH);
        for (int c = 0; c < 32; c++) {
            out[r * 32 + c] = fp32_to_fp16((float) ((int) q[c] - 16) * d);
        }
    }
}

void q5_1_pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        block_q5_1 b;
        memcpy(&b, flat + kt * sizeof(b), sizeof(b));
        uint8_t q[32];
        q5_flat_to_codes(b.qs, b.qh, q);
        uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q5_1;
        put_q5_row(tile, r, q, HTP_TILE_Q5_1_QH);
        wr16(tile + HTP_TILE_Q5_1_SCALES + 4 * r, b.d);
        wr16(tile + HTP_TILE_Q5_1_SCALES + 4 * r + 2, b.m);
    }
}

void q5_1_unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q5_1;
        block_q5_1      b;
        uint8_t         q[32];
        get_q5_row(tile, r, q, HTP_TILE_Q5_1_QH);
        q5_codes_to_flat(q, b.qs, b.qh);
        b.d = rd16(tile + HTP_TILE_Q5_1_SCALES + 4 * r);
        b.m = rd16(tile + HTP_TILE_Q5_1_SCALES + 4 * r + 2);
        memcpy(flat + kt * sizeof(b), &b, sizeof(b));
    }
}

void q5_1_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q5_1;
    for (int r = 0; r < NR; r++) {
        const float d = fp16_to_fp32(rd16(tile + HTP_TILE_Q5_1_SCALES + 4 * r));
        const float m = fp16_to_fp32(rd16(tile + HTP_TILE_Q5_1_SCALES + 4 * r + 2));
        uint8_t     q[32];
        get_q5_row(tile, r, q, HTP_TILE_Q5_1_QH);
        for (int c = 0; c < 32; c++) {
            out[r * 32 + c] = fp32_to_fp16((float) q[c] * d + m);
        }
    }
}

const format_ops q4_0_ops   = { HTP_TYPE_Q4_0, 32, sizeof(block_q4_0), true,
                                pack_row_d_nibbles<HTP_TENSOR_TILE_SIZE_Q4_0>,
                                unpack_row_d_nibbles<HTP_TENSOR_TILE_SIZE_Q4_0>, q4_0_to_f16 };
const format_ops iq4_nl_ops = { HTP_TYPE_IQ4_NL, 32, sizeof(block_iq4_nl), true,
                                pack_row_d_nibbles<HTP_TENSOR_TILE_SIZE_IQ4_NL>,
                                unpack_row_d_nibbles<HTP_TENSOR_TILE_SIZE_IQ4_NL>, iq4_nl_to_f16 };
const format_ops q4_1_ops   = { HTP_TYPE_Q4_1, 32, sizeof(block_q4_1), true,
                                q4_1_pack_row, q4_1_unpack_row, q4_1_to_f16 };
const format_ops mxfp4_ops  = { HTP_TYPE_MXFP4, 32, sizeof(block_mxfp4), true,
                                mxfp4_pack_row, mxfp4_unpack_row, mxfp4_to_f16 };
const format_ops q8_0_ops   = { HTP_TYPE_Q8_0, 32, sizeof(block_q8_0), true,
                                q8_0_pack_row, q8_0_unpack_row, q8_0_to_f16 };
const format_ops q5_0_ops   = { HTP_TYPE_Q5_0, 32, sizeof(block_q5_0), true,
                                q5_0_pack_row, q5_0_unpack_row, q5_0_to_f16 };
const format_ops q5_1_ops   = { HTP_TYPE_Q5_1, 32, sizeof(block_q5_1), true,
                                q5_1_pack_row, q5_1_unpack_row, q5_1_to_f16 };

static_assert(sizeof(block_iq4_nl) == sizeof(block_q4_0), "IQ4_NL shares Q4_0's block shape");

}  // namespace

const format_ops * ops_q4_0() { return &q4_0_ops; }
const format_ops * ops_iq4_nl() { return &iq4_nl_ops; }
const format_ops * ops_q4_1() { return &q4_1_ops; }
const format_ops * ops_mxfp4() { return &mxfp4_ops; }
const format_ops * ops_q8_0() { return &q8_0_ops; }
const format_ops * ops_q5_0() { return &q5_0_ops; }
const format_ops * ops_q5_1() { return &q5_1_ops; }

}  // namespace htp_repack
