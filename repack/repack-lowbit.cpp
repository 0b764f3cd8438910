// Low-bit formats with wide tiles: Q1_0 (K = 128, one ggml block per row per tile) and Q2_0
// (K = 64, likewise). Both use vrmpy byte order: column k of a 32-column quarter lives in byte
// 4*row + k%4 of that quarter's 128-byte vector, in the bit field of group g = k/4. Lossless.
#include "repack-internal.h"

namespace htp_repack {
namespace {

constexpr int NR = HTP_TENSOR_TILE_N_ROWS;

// ---- Q1_0: 4 quarters x 128 B of sign bits (bit g = k/4) + 32 x FP16 d ---------------------
// ggml: bit j of qs (byte j/8, bit j%8) is column j; set = +d, clear = -d. The tile keeps the
// bit's sense.
size_t q1_0_byte(int r, int k) { return (size_t) (k / 32) * 128 + 4 * r + (k % 4); }
int    q1_0_bit(int k) { return (k % 32) / 4; }

void q1_0_pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        block_q1_0 b;
        memcpy(&b, flat + kt * sizeof(b), sizeof(b));
        uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q1_0;
        for (int quarter = 0; quarter < 4; quarter++) {
            for (int byte = 0; byte < 4; byte++) {
                tile[quarter * 128 + 4 * r + byte] = 0;
            }
        }
        for (int k = 0; k < 128; k++) {
            const int bit = (b.qs[k / 8] >> (k % 8)) & 1;
            tile[q1_0_byte(r, k)] |= (uint8_t) (bit << q1_0_bit(k));
        }
        wr16(tile + HTP_TILE_Q1_0_SCALES + 2 * r, b.d);
    }
}

void q1_0_unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q1_0;
        block_q1_0      b;
        memset(b.qs, 0, sizeof(b.qs));
        for (int k = 0; k < 128; k++) {
            const int bit = (tile[q1_0_byte(r, k)] >> q1_0_bit(k)) & 1;
            b.qs[k / 8] |= (uint8_t) (bit << (k % 8));
        }
        b.d = rd16(tile + HTP_TILE_Q1_0_SCALES + 2 * r);
        memcpy(flat + kt * sizeof(b), &b, sizeof(b));
    }
}

void q1_0_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q1_0;
    for (int r = 0; r < NR; r++) {
        const float d = fp16_to_fp32(rd16(tile + HTP_TILE_Q1_0_SCALES + 2 * r));
        for (int k = 0; k < 128; k++) {
            const int bit = (tile[q1_0_byte(r, k)] >> q1_0_bit(k)) & 1;
            // HMX tile k/32, row r, column k%32
            out[(k / 32) * 1024 + r * 32 + (k % 32)] = fp32_to_fp16(bit ? d : -d);
        }
    }
}

// ---- Q2_0: 4 vectors x 128 B of 2-bit codes (vec k/16, shift 2*((k/4)%4)) + 32 x FP16 d ----
// ggml: code j sits in qs[j/4] at bit 2*(j%4); value = (code - 1) * d. Codes are kept as is.
size_t q2_0_byte(int r, int k) { return (size_t) (k / 16) * 128 + 4 * r + (k % 4); }
int    q2_0_shift(int k) { return 2 * ((k / 4) % 4); }

void q2_0_pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        block_q2_0 b;
        memcpy(&b, flat + kt * sizeof(b), sizeof(b));
        uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q2_0;
        for (int vec = 0; vec < 4; vec++) {
            for (int byte = 0; byte < 4; byte++) {
                tile[vec * 128 + 4 * r + byte] = 0;
            }
        }
        for (int k = 0; k < 64; k++) {
            const int code = (b.qs[k / 4] >> (2 * (k % 4))) & 3;
            tile[q2_0_byte(r, k)] |= (uint8_t) (code << q2_0_shift(k));
        }
        wr16(tile + HTP_TILE_Q2_0_SCALES + 2 * r, b.d);
    }
}

void q2_0_unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q2_0;
        block_q2_0      b;
        memset(b.qs, 0, sizeof(b.qs));
        for (int k = 0; k < 64; k++) {
            const int code = (tile[q2_0_byte(r, k)] >> q2_0_shift(k)) & 3;
            b.qs[k / 4] |= (uint8_t) (code << (2 * (k % 4)));
        }
        b.d = rd16(tile + HTP_TILE_Q2_0_SCALES + 2 * r);
        memcpy(flat + kt * sizeof(b), &b, sizeof(b));
    }
}

void q2_0_to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * HTP_TENSOR_TILE_SIZE_Q2_0;
    for (int r = 0; r < NR; r++) {
        const float d = fp16_to_fp32(rd16(tile + HTP_TILE_Q2_0_SCALES + 2 * r));
        for (int k = 0; k < 64; k++) {
            const int code = (tile[q2_0_byte(r, k)] >> q2_0_shift(k)) & 3;
            out[(k / 32) * 1024 + r * 32 + (k % 32)] = fp32_to_fp16((float) (code - 1) * d);
        }
    }
}

const format_ops q1_0_ops = { HTP_TYPE_Q1_0, 128, sizeof(block_q1_0), true, q1_0_pack_row, q1_0_unpack_row,
                              q1_0_to_f16 };
const format_ops q2_0_ops = { HTP_TYPE_Q2_0, 64, sizeof(block_q2_0), true, q2_0_pack_row, q2_0_unpack_row,
                              q2_0_to_f16 };

}  // namespace

const format_ops * ops_q1_0() { return &q1_0_ops; }
const format_ops * ops_q2_0() { return &q2_0_ops; }

}  // namespace htp_repack
