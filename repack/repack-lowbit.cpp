// Low-bit formats with wide tiles: Q1_0 (K = 128, one ggml block per row per tile) and Q2_0
// (K = 64, likewise). Both use vrmpy byte order: column k of a 32-column quarter lives in byte
// 4*row + k%4 of that quarter's 128-byte vector, in the bit field of group g = k/4. Lossless.
#include "repack-internal.h"

namespace htp_repack {
namespace {

constexpr int NR = HTP_TENSOR_TILE_N_ROWS;

// Both formats are one ggml block per row per tile of BITS-bit codes: ggml keeps code j in
// qs[j / F] at bit BITS * (j % F) (F = 8 / BITS codes a byte); the tile keeps column k in byte
// 4 * row + k % 4 of vector k / (4 F) (a "quarter" of 4 F columns), at bit BITS * ((k / 4) % F),
// then 32 x FP16 d at SCALES. VALUE is a code's value for scale d.
template <int BITS, int K, class BLOCK, size_t TILE, size_t SCALES, float (*VALUE)(int, float)> struct lowbit {
    static constexpr int F = 8 / BITS, MASK = (1 << BITS) - 1;

    static size_t tile_byte(int r, int k) { return (size_t) (k / (4 * F)) * 128 + 4 * r + (k % 4); }
    static int    tile_shift(int k) { return BITS * ((k / 4) % F); }
    static int    code(const uint8_t * tile, int r, int k) { return (tile[tile_byte(r, k)] >> tile_shift(k)) & MASK; }

    static void pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
        for (int64_t kt = 0; kt < n_k_tiles; kt++) {
            BLOCK b;
            memcpy(&b, flat + kt * sizeof(b), sizeof(b));
            uint8_t * tile = ct_tiles + kt * TILE;
            for (int vec = 0; vec < 4; vec++) {
                for (int byte = 0; byte < 4; byte++) {
                    tile[vec * 128 + 4 * r + byte] = 0;
                }
            }
            for (int k = 0; k < K; k++) {
                const int c = (b.qs[k / F] >> (BITS * (k % F))) & MASK;
                tile[tile_byte(r, k)] |= (uint8_t) (c << tile_shift(k));
            }
            wr16(tile + SCALES + 2 * r, b.d);
        }
    }

    static void unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
        for (int64_t kt = 0; kt < n_k_tiles; kt++) {
            const uint8_t * tile = ct_tiles + kt * TILE;
            BLOCK           b;
            memset(b.qs, 0, sizeof(b.qs));
            for (int k = 0; k < K; k++) {
                b.qs[k / F] |= (uint8_t) (code(tile, r, k) << (BITS * (k % F)));
            }
            b.d = rd16(tile + SCALES + 2 * r);
            memcpy(flat + kt * sizeof(b), &b, sizeof(b));
        }
    }

    static void to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
        const uint8_t * tile = ct_tiles + kt * TILE;
        for (int r = 0; r < NR; r++) {
            const float d = fp16_to_fp32(rd16(tile + SCALES + 2 * r));
            for (int k = 0; k < K; k++) {  // HMX tile k/32, row r, column k%32
                out[(k / 32) * 1024 + r * 32 + (k % 32)] = fp32_to_fp16(VALUE(code(tile, r, k), d));
            }
        }
    }

    static constexpr format_ops ops(enum htp_type type) {
        return { type, K, sizeof(BLOCK), true, pack_row, unpack_row, to_f16 };
    }
};

// Q1_0 (K = 128): a set bit is +d, a clear one -d (the tile keeps the bit's sense).
float q1_0_value(int bit, float d) { return bit ? d : -d; }
// Q2_0 (K = 64): value = (code - 1) * d (codes kept as is).
float q2_0_value(int code, float d) { return (float) (code - 1) * d; }

using q1_0 = lowbit<1, 128, block_q1_0, HTP_TENSOR_TILE_SIZE_Q1_0, HTP_TILE_Q1_0_SCALES, q1_0_value>;
using q2_0 = lowbit<2, 64, block_q2_0, HTP_TENSOR_TILE_SIZE_Q2_0, HTP_TILE_Q2_0_SCALES, q2_0_value>;

const format_ops q1_0_ops = q1_0::ops(HTP_TYPE_Q1_0);
const format_ops q2_0_ops = q2_0::ops(HTP_TYPE_Q2_0);

}  // namespace

const format_ops * ops_q1_0() { return &q1_0_ops; }
const format_ops * ops_q2_0() { return &q2_0_ops; }

}  // namespace htp_repack
