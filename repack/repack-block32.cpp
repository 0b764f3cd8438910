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

// ---- Q5_0 / Q5_1 codes: low nibbles as Q4_0 + the Q5_K fifth-bit plane -------------------
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

// ---- The seven formats -------------------------------------------------------------------
// Each format names its ggml block and tile size and says how the block's parts move:
//   codes(b, q) / set_codes(q, b)     the block's 32 codes, in element order, and back
//   put(tile, r, q) / get(tile, r, q) row r's codes in the tile
//   put_scales / get_scales           row r's scale fields (copied unchanged: lossless)
//   value(tile, r, code)              the dequantized element (to_f16, the reference)
// pack_row / unpack_row / to_f16 below are written once for all of them.

// 4-bit codes in nibble-pair order (Q4_0, IQ4_NL, Q4_1, MXFP4).
template <class B> struct nibble_codes {
    static void codes(const B & b, uint8_t * q) { flat_to_codes(b.qs, q); }
    static void set_codes(const uint8_t * q, B & b) { codes_to_flat(q, b.qs); }
    static void put(uint8_t * tile, int r, const uint8_t * q) { put_nibble_row(tile, r, q); }
    static void get(const uint8_t * tile, int r, uint8_t * q) { get_nibble_row(tile, r, q); }
};

// 5-bit codes: nibbles plus the fifth-bit plane at QH (Q5_0, Q5_1).
template <class B, size_t QH> struct q5_codes {
    static void codes(const B & b, uint8_t * q) { q5_flat_to_codes(b.qs, b.qh, q); }
    static void set_codes(const uint8_t * q, B & b) { q5_codes_to_flat(q, b.qs, b.qh); }
    static void put(uint8_t * tile, int r, const uint8_t * q) { put_q5_row(tile, r, q, QH); }
    static void get(const uint8_t * tile, int r, uint8_t * q) { get_q5_row(tile, r, q, QH); }
};

// One FP16 d per row at SC (Q4_0, IQ4_NL, Q8_0, Q5_0).
template <class B, size_t SC> struct d_scale {
    static void  put_scales(uint8_t * tile, int r, const B & b) { wr16(tile + SC + 2 * r, b.d); }
    static void  get_scales(const uint8_t * tile, int r, B & b) { b.d = rd16(tile + SC + 2 * r); }
    static float d(const uint8_t * tile, int r) { return fp16_to_fp32(rd16(tile + SC + 2 * r)); }
};

// FP16 (d, m) per row at SC (Q4_1, Q5_1).
template <class B, size_t SC> struct dm_scale {
    static void put_scales(uint8_t * tile, int r, const B & b) {
        wr16(tile + SC + 4 * r, b.d);
        wr16(tile + SC + 4 * r + 2, b.m);
    }
    static void get_scales(const uint8_t * tile, int r, B & b) {
        b.d = rd16(tile + SC + 4 * r);
        b.m = rd16(tile + SC + 4 * r + 2);
    }
    static float value(const uint8_t * tile, int r, uint8_t q) {
        const float d = fp16_to_fp32(rd16(tile + SC + 4 * r));
        const float m = fp16_to_fp32(rd16(tile + SC + 4 * r + 2));
        return (float) q * d + m;
    }
};

// The IQ4_NL non-linear code book (ggml's kvalues_iq4nl).
const int8_t iq4_nl_values[16] = { -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113 };

// E2M1 values; code 8 (-0) maps to +0 as in ggml's table.
const float mxfp4_values[16] = { 0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f,
                                 0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f };

// Q4_0: { FP16 d, 16 B nibbles } -> 512 B nibbles + 32 x FP16 d; value (code - 8) * d.
struct fmt_q4_0 : nibble_codes<block_q4_0>, d_scale<block_q4_0, HTP_TILE_Q4_0_SCALES> {
    using block                      = block_q4_0;
    static constexpr uint32_t tile_size = HTP_TENSOR_TILE_SIZE_Q4_0;
    static float value(const uint8_t * tile, int r, uint8_t q) { return (float) ((int) q - 8) * d(tile, r); }
};

// IQ4_NL: Q4_0's block and tile; value d * kvalues_iq4nl[code].
struct fmt_iq4_nl : nibble_codes<block_iq4_nl>, d_scale<block_iq4_nl, HTP_TILE_IQ4_NL_SCALES> {
    using block                      = block_iq4_nl;
    static constexpr uint32_t tile_size = HTP_TENSOR_TILE_SIZE_IQ4_NL;
    static float value(const uint8_t * tile, int r, uint8_t q) { return d(tile, r) * (float) iq4_nl_values[q]; }
};

// Q4_1: { FP16 d, FP16 m, 16 B nibbles } -> 512 B nibbles + 32 x (FP16 d, FP16 m); code * d + m.
struct fmt_q4_1 : nibble_codes<block_q4_1>, dm_scale<block_q4_1, HTP_TILE_Q4_1_SCALES> {
    using block                      = block_q4_1;
    static constexpr uint32_t tile_size = HTP_TENSOR_TILE_SIZE_Q4_1;
};

// MXFP4: { E8M0 e, 16 B nibbles } -> 512 B nibbles + 32 x E8M0 e; value E2M1[code] * 2^(e-127).
struct fmt_mxfp4 : nibble_codes<block_mxfp4> {
    using block                      = block_mxfp4;
    static constexpr uint32_t tile_size = HTP_TENSOR_TILE_SIZE_MXFP4;
    static void put_scales(uint8_t * tile, int r, const block & b) { tile[HTP_TILE_MXFP4_SCALES + r] = b.e; }
    static void get_scales(const uint8_t * tile, int r, block & b) { b.e = tile[HTP_TILE_MXFP4_SCALES + r]; }
    static float value(const uint8_t * tile, int r, uint8_t q) {
        // The kernels' rule (docs/tiled-formats.md, MXFP4 dequantization): FP16 scale bits = clamp(e - 112, 0, 30) << 10, i.e. 2^(e-127)
        // for e in 113..142, 0 below, 2^15 above.
        const int e  = tile[HTP_TILE_MXFP4_SCALES + r];
        const int eh = e - 112 < 0 ? 0 : (e - 112 > 30 ? 30 : e - 112);
        return mxfp4_values[q] * fp16_to_fp32((uint16_t) (eh << 10));
    }
};

// Q8_0: { FP16 d, 32 x int8 } -> column pairs of (row-interleaved) byte pairs + 32 x d.
struct fmt_q8_0 : d_scale<block_q8_0, HTP_TILE_Q8_0_SCALES> {
    using block                      = block_q8_0;
    static constexpr uint32_t tile_size = HTP_TENSOR_TILE_SIZE_Q8_0;
    static void codes(const block & b, uint8_t * q) { memcpy(q, b.qs, 32); }
    static void set_codes(const uint8_t * q, block & b) { memcpy(b.qs, q, 32); }
    static void put(uint8_t * tile, int r, const uint8_t * q) {
        for (int c = 0; c < 32; c++) {
            tile[(c / 2) * 64 + 2 * r + (c & 1)] = q[c];
        }
    }
    static void get(const uint8_t * tile, int r, uint8_t * q) {
        for (int c = 0; c < 32; c++) {
            q[c] = tile[(c / 2) * 64 + 2 * r + (c & 1)];
        }
    }
    static float value(const uint8_t * tile, int r, uint8_t q) { return (float) (int8_t) q * d(tile, r); }
};

// Q5_0: Q4_0's nibbles + fifth-bit plane + FP16 d; value (code - 16) * d.
struct fmt_q5_0 : q5_codes<block_q5_0, HTP_TILE_Q5_0_QH>, d_scale<block_q5_0, HTP_TILE_Q5_0_SCALES> {
    using block                      = block_q5_0;
    static constexpr uint32_t tile_size = HTP_TENSOR_TILE_SIZE_Q5_0;
    static float value(const uint8_t * tile, int r, uint8_t q) { return (float) ((int) q - 16) * d(tile, r); }
};

// Q5_1: the Q5_K-like tile with (d, m); value code * d + m.
struct fmt_q5_1 : q5_codes<block_q5_1, HTP_TILE_Q5_1_QH>, dm_scale<block_q5_1, HTP_TILE_Q5_1_SCALES> {
    using block                      = block_q5_1;
    static constexpr uint32_t tile_size = HTP_TENSOR_TILE_SIZE_Q5_1;
};

// One ggml block of a row is that row's 32 columns of one tile.
template <class F> void pack_row(uint8_t * ct_tiles, int r, const uint8_t * flat, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        typename F::block b;
        memcpy(&b, flat + kt * sizeof(b), sizeof(b));
        uint8_t q[32];
        F::codes(b, q);
        uint8_t * tile = ct_tiles + kt * F::tile_size;
        F::put(tile, r, q);
        F::put_scales(tile, r, b);
    }
}

template <class F> void unpack_row(uint8_t * flat, const uint8_t * ct_tiles, int r, int64_t n_k_tiles) {
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        const uint8_t *   tile = ct_tiles + kt * F::tile_size;
        typename F::block b;
        uint8_t           q[32];
        F::get(tile, r, q);
        F::set_codes(q, b);
        F::get_scales(tile, r, b);
        memcpy(flat + kt * sizeof(b), &b, sizeof(b));
    }
}

template <class F> void to_f16(const uint8_t * ct_tiles, int64_t kt, uint16_t * out) {
    const uint8_t * tile = ct_tiles + kt * F::tile_size;
    for (int r = 0; r < NR; r++) {
        uint8_t q[32];
        F::get(tile, r, q);
        for (int c = 0; c < 32; c++) {
            out[r * 32 + c] = fp32_to_fp16(F::value(tile, r, q[c]));
        }
    }
}

template <class F> constexpr format_ops ops_of(enum htp_type type) {
    return { type, 32, sizeof(typename F::block), true, pack_row<F>, unpack_row<F>, to_f16<F> };
}

const format_ops q4_0_ops   = ops_of<fmt_q4_0>(HTP_TYPE_Q4_0);
const format_ops iq4_nl_ops = ops_of<fmt_iq4_nl>(HTP_TYPE_IQ4_NL);
const format_ops q4_1_ops   = ops_of<fmt_q4_1>(HTP_TYPE_Q4_1);
const format_ops mxfp4_ops  = ops_of<fmt_mxfp4>(HTP_TYPE_MXFP4);
const format_ops q8_0_ops   = ops_of<fmt_q8_0>(HTP_TYPE_Q8_0);
const format_ops q5_0_ops   = ops_of<fmt_q5_0>(HTP_TYPE_Q5_0);
const format_ops q5_1_ops   = ops_of<fmt_q5_1>(HTP_TYPE_Q5_1);

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
