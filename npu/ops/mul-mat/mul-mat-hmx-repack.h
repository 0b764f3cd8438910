// rt-repack on HVX: 32 flat weight rows in VTCM -> one column tile's tiles in VTCM, byte for
// byte what the shared scalar repacker (repack/, htp_repack_col_tile) writes, with vector loads
// and stores only (the spec: no scalar VTCM reads or writes in kernels). The HMX path calls
// mmr::repack_col_tile from weight_worker::compute_repack (mul-mat-hmx.cpp); unit.test_hvx_repack
// compares it with the scalar repacker on every type it takes.
//
// Every tiled type (docs/tiled-formats.md). Per tile:
//   1. each row's block (K-quants: its super-block, the tile's share of it) is read by
//      unaligned vector loads and turned into a row record in registers: nibble formats 16
//      bytes (column pair cp: low nibble column 2cp), Q8_0 32 bytes (its quants), Q5 planes 4
//      bytes (2-bit 4 x 4 transposes), and muxed into record vectors (8 / 4 / 32 rows each);
//      words already in vrmpy order (Q1_0 / Q2_0 / K-quant bit planes: bit transposes,
//      shift-and-or) are muxed straight into word r of the tile's vectors; the scale fields go
//      into a scale vector (the K-quants' FP16 products by the scalar repacker's own
//      arithmetic, on scalars vextract'ed from registers: never a scalar VTCM access);
//   2. the records are transposed ([row][i] -> [i][row], i = column pair, quant pair or plane
//      byte) by perfect shuffles: a shuffle of the N vectors (element index bits rotated left
//      by one) is one vror, one vmux and one vshuff per vector;
//   3. the tile's vectors go out by read-modify-write of the aligned VTCM vectors they cover
//      (tiles are 576, 640, ... bytes: not vector aligned).
#pragma once
#include <stdint.h>

#include "htp-abi/htp-tile-formats.h"
#include "htp-abi/htp-types.h"
#include "hvx-util.h"
#include "htp-repack/fp16.h"  // the scalar repacker's FP16 conversions (K-quant scale products)

namespace htp_ops {
namespace mmr {

constexpr uint32_t kRows = HTP_TENSOR_TILE_N_ROWS;

static inline HVX_Vector load_u(const uint8_t * p) {
    return hvx_vmemu_load(p);
}

// Bytes [at, at + n) of a vector (0 <= at, at + n <= 128).
static inline HVX_VectorPred byte_range(uint32_t at, uint32_t n) {
    return Q6_Q_and_QQ(Q6_Q_vsetq2_R((int32_t) (at + n)), Q6_Q_not_Q(Q6_Q_vsetq_R((int32_t) at)));
}

// v rotated so that its byte 0 lands on byte `at`.
static inline HVX_Vector rotate_to(HVX_Vector v, uint32_t at) {
    return Q6_V_vror_VR(v, (int32_t) ((128 - at) & 127));
}

// Bytes [0, n) of v to p (any alignment, n <= 128): a mux into each aligned vector it covers.
static inline void store_bytes(uint8_t * p, HVX_Vector v, uint32_t n) {
    const uint32_t   off = (uint32_t) ((uintptr_t) p & 127);
    HVX_Vector *     a   = (HVX_Vector *) (p - off);
    const HVX_Vector r   = rotate_to(v, off);
    const uint32_t   end = off + n;
    hvx_vmem_store(&a[0], Q6_V_vmux_QVV(byte_range(off, (end < 128 ? end : 128) - off), r, hvx_vmem_load(&a[0])));
    if (end > 128) {
        hvx_vmem_store(&a[1], Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (end - 128)), r, hvx_vmem_load(&a[1])));
    }
}

// n bytes of zeros at p (any alignment).
static inline void zero_bytes(uint8_t * p, uint32_t n) {
    HTP_NO_UNROLL
    for (; n > 128; n -= 128, p += 128) {
        store_bytes(p, Q6_V_vzero(), 128);
    }
    if (n) {
        store_bytes(p, Q6_V_vzero(), n);
    }
}

// One perfect shuffle of N vectors of bytes (kHalf: halfwords): element index [vector bits,
// element bits] rotated left by one. Output vector V interleaves half (V & 1) of in[V / 2]
// with the same half of in[N / 2 + V / 2].
template <int N, bool kHalf> static inline void pshuffle(const HVX_Vector * in, HVX_Vector * out) {
    const HVX_VectorPred lo = Q6_Q_vsetq_R(64);
#pragma GCC unroll 8
    for (int v = 0; v < N; v++) {
        const HVX_Vector a = in[v / 2], b = in[N / 2 + v / 2];
        const HVX_Vector x = (v & 1) ? Q6_V_vmux_QVV(lo, Q6_V_vror_VR(a, 64), b) : Q6_V_vmux_QVV(lo, a, Q6_V_vror_VR(b, 64));
        out[v]             = kHalf ? Q6_Vh_vshuff_Vh(x) : Q6_Vb_vshuff_Vb(x);
    }
}

// K shuffles of v[0..N) in place (ping-pong through t).
template <int N, bool kHalf, int K> static inline void pshuffle_n(HVX_Vector * v) {
    HVX_Vector t[N];
#pragma GCC unroll 8
    for (int k = 0; k < K; k += 2) {
        pshuffle<N, kHalf>(v, t);
        if (k + 1 < K) {
            pshuffle<N, kHalf>(t, v);
        } else {
#pragma GCC unroll 8
            for (int i = 0; i < N; i++) {
                v[i] = t[i];
            }
        }
    }
}

// Nibble-format row record from a vector whose bytes 0..15 are the block's qs (element j: low
// nibble of qs[j], j + 16: high nibble): record byte cp (column pair 2cp, 2cp + 1) = code(2cp)
// | code(2cp + 1) << 4; per halfword h = qs[2h] | qs[2h+1] << 8 that is byte h = the low
// nibbles of both, byte 8 + h = their high nibbles. Returned interleaved: halfword h = (byte h,
// byte 8 + h) of the record; deal_records puts the bytes in order (once per record vector).
static inline HVX_Vector nibble_record(HVX_Vector x) {
    return Q6_V_vor_VV(Q6_V_vand_VV(x, Q6_Vh_vsplat_R((int16_t) 0xF00F)),
                       Q6_V_vor_VV(Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(x, 4), Q6_Vh_vsplat_R(0x00F0)),
                                   Q6_V_vand_VV(Q6_Vh_vasl_VhR(x, 4), Q6_Vh_vsplat_R(0x0F00))));
}

// In every 16-byte record: byte q <- 2q (q < 8), 2 (q - 8) + 1 (the interleaved halves in order);
// coded for permute_bytes (hvx-util.h).
static constexpr byte_perm make_deal16() {
    byte_perm t{};
    for (int p = 0; p < 128; p++) {
        const int q = p % 16;
        t.v[p]      = vlut32_perm_index(16 * (p / 16) + (q < 8 ? 2 * q : 2 * (q - 8) + 1));
    }
    return t;
}

alignas(128) static constexpr byte_perm kDeal16 = make_deal16();

static inline void deal_records(HVX_Vector * rec) {
    const HVX_Vector idx = hvx_vmem_load_at(kDeal16.v);
#pragma GCC unroll 4
    for (int u = 0; u < 4; u++) {
        rec[u] = permute_bytes(rec[u], idx);
    }
}

// Q5 plane record from a vector whose word 0 is the block's qh (bit k: column k's fifth bit):
// plane byte l, bits 2m, 2m + 1 = columns 8m + 2l, 8m + 2l + 1, i.e. the 4 x 4 transpose of
// the word's 2-bit units (two delta swaps).
static inline HVX_Vector q5_record(HVX_Vector x) {
    HVX_Vector t = Q6_V_vand_VV(Q6_V_vxor_VV(Q6_Vuw_vlsr_VuwR(x, 6), x), Q6_V_vsplat_R(0x00CC00CC));
    x            = Q6_V_vxor_VV(x, Q6_V_vxor_VV(t, Q6_Vw_vasl_VwR(t, 6)));
    t            = Q6_V_vand_VV(Q6_V_vxor_VV(Q6_Vuw_vlsr_VuwR(x, 12), x), Q6_V_vsplat_R(0x0000F0F0));
    return Q6_V_vxor_VV(x, Q6_V_vxor_VV(t, Q6_Vw_vasl_VwR(t, 12)));
}

// A nibble format: ggml block of BB bytes with qs at QO, SB scale bytes per row at 0 of the
// block and at SC + SB r of the tile (TB bytes); Q5 (QH >= 0): qh at QH of the block, the
// plane at PL of the tile.
template <uint32_t BB, uint32_t QO, uint32_t SB, uint32_t SC, int QH, uint32_t PL, uint32_t TB>
static inline void repack_nibble_tile(uint8_t * tile, const uint8_t * blk0, uint32_t stride) {
    HVX_Vector rec[4] = { Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero() };
    HVX_Vector sc = Q6_V_vzero(), pl = Q6_V_vzero();
    const uint8_t * b = blk0;
#pragma GCC unroll 32
    for (uint32_t r = 0; r < kRows; r++, b += stride) {
        const HVX_Vector v = load_u(b);
        rec[r / 8] = Q6_V_vmux_QVV(byte_range(16 * (r % 8), 16), rotate_to(nibble_record(Q6_V_vror_VR(v, QO)), 16 * (r % 8)),
                                   rec[r / 8]);
        sc         = Q6_V_vmux_QVV(byte_range(SB * r, SB), rotate_to(v, SB * r), sc);
        if (QH >= 0) {
            pl = Q6_V_vmux_QVV(byte_range(4 * r, 4), rotate_to(q5_record(Q6_V_vror_VR(v, QH)), 4 * r), pl);
        }
    }
    // rec byte 128 (r / 8) + 16 (r % 8) + cp = [r | cp] -> tile byte 32 cp + r = [cp | r]: the
    // 9 index bits rotated left by 5 (the row's 5 bits to the bottom).
    deal_records(rec);
    pshuffle_n<4, false, 5>(rec);
#pragma GCC unroll 4
    for (int u = 0; u < 4; u++) {
        store_bytes(tile + 128 * u, rec[u], 128);
    }
    store_bytes(tile + SC, sc, SB * kRows);
    if (QH >= 0) {
        // plane record byte 4 r + l = [r | l] -> plane byte 32 l + r: 7 bits rotated left by 5.
#pragma GCC unroll 5
        for (int k = 0; k < 5; k++) {
            pl = Q6_Vb_vshuff_Vb(pl);
        }
        store_bytes(tile + PL, pl, 128);
    }
    (void) BB;
    (void) TB;
}

// Q8_0: { FP16 d, 32 int8 } -> quant byte 64 (c / 2) + 2 r + (c & 1), d at 1024 + 2 r.
static inline void repack_q8_0_tile(uint8_t * tile, const uint8_t * blk0, uint32_t stride) {
    HVX_Vector      rec[8];
    HVX_Vector      sc = Q6_V_vzero();
    const uint8_t * b  = blk0;
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        rec[i] = Q6_V_vzero();
    }
#pragma GCC unroll 32
    for (uint32_t r = 0; r < kRows; r++, b += stride) {
        const HVX_Vector v = load_u(b);
        rec[r / 4] = Q6_V_vmux_QVV(byte_range(32 * (r % 4), 32), rotate_to(Q6_V_vror_VR(v, 2), 32 * (r % 4)), rec[r / 4]);
        sc         = Q6_V_vmux_QVV(byte_range(2 * r, 2), rotate_to(v, 2 * r), sc);
    }
    // halfword 64 (r / 4) + 16 (r % 4) + c / 2 = [r | c/2] -> halfword 32 (c / 2) + r: 9 bits
    // rotated left by 5.
    pshuffle_n<8, true, 5>(rec);
#pragma GCC unroll 8
    for (int u = 0; u < 8; u++) {
        store_bytes(tile + 128 * u, rec[u], 128);
    }
    store_bytes(tile + HTP_TILE_Q8_0_SCALES, sc, 2 * kRows);
}

// Q1_0 word transform: bit 4g + i (column 4g + i of the word's 32) -> bit 8i + g (byte i,
// group g: vrmpy order). Two 4 x 4 bit transposes (one per halfword: bit 16a + 4b + i ->
// 16a + 4i + b, g = 4a + b), then a perfect shuffle of the 8 nibbles (nibble 4a + i -> 2i + a).
static inline HVX_Vector q1_words(HVX_Vector x) {
    HVX_Vector t = Q6_V_vand_VV(Q6_V_vxor_VV(Q6_Vuw_vlsr_VuwR(x, 3), x), Q6_V_vsplat_R(0x0A0A0A0A));
    x            = Q6_V_vxor_VV(x, Q6_V_vxor_VV(t, Q6_Vw_vasl_VwR(t, 3)));
    t            = Q6_V_vand_VV(Q6_V_vxor_VV(Q6_Vuw_vlsr_VuwR(x, 6), x), Q6_V_vsplat_R(0x00CC00CC));
    x            = Q6_V_vxor_VV(x, Q6_V_vxor_VV(t, Q6_Vw_vasl_VwR(t, 6)));
    x = Q6_V_vor_VV(Q6_V_vand_VV(x, Q6_V_vsplat_R((int32_t) 0xFF0000FF)),
                    Q6_V_vor_VV(Q6_V_vand_VV(Q6_Vw_vasl_VwR(x, 8), Q6_V_vsplat_R(0x00FF0000)),
                                Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(x, 8), Q6_V_vsplat_R(0x0000FF00))));
    return Q6_V_vor_VV(Q6_V_vand_VV(x, Q6_V_vsplat_R((int32_t) 0xF00FF00F)),
                       Q6_V_vor_VV(Q6_V_vand_VV(Q6_Vw_vasl_VwR(x, 4), Q6_V_vsplat_R(0x0F000F00)),
                                   Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(x, 4), Q6_V_vsplat_R(0x00F000F0))));
}

// Q1_0 / Q2_0: { FP16 d, 16 B } -> 4 vectors (vrmpy order: word r of vector w = row r's
// columns of quarter / sixteenth w) + 32 x FP16 d at 512. Word w of the block's qs is vector
// w's word of the row once its bits are in vrmpy order: Q1_0 q1_words; Q2_0 the 4 x 4
// transpose of 2-bit units (code 16w + 4g + i: unit 4g + i -> 4i + g), q5_record's.
template <bool kQ1> static inline void repack_lowbit_tile(uint8_t * tile, const uint8_t * blk0, uint32_t stride) {
    HVX_Vector      qv[4] = { Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero() };
    HVX_Vector      sc    = Q6_V_vzero();
    const uint8_t * b     = blk0;
#pragma GCC unroll 32
    for (uint32_t r = 0; r < kRows; r++, b += stride) {
        const HVX_Vector v = load_u(b);
        const HVX_Vector q = Q6_V_vror_VR(v, 2);
        const HVX_Vector x = kQ1 ? q1_words(q) : q5_record(q);
#pragma GCC unroll 4
        for (int w = 0; w < 4; w++) {
            qv[w] = Q6_V_vmux_QVV(byte_range(4 * r, 4), rotate_to(Q6_V_vror_VR(x, 4 * w), 4 * r), qv[w]);
        }
        sc = Q6_V_vmux_QVV(byte_range(2 * r, 2), rotate_to(v, 2 * r), sc);
    }
#pragma GCC unroll 4
    for (int w = 0; w < 4; w++) {
        store_bytes(tile + 128 * w, qv[w], 128);
    }
    static_assert(HTP_TILE_Q1_0_SCALES == 512 && HTP_TILE_Q2_0_SCALES == 512, "Q1_0 / Q2_0 scales after 4 vectors");
    store_bytes(tile + 512, sc, 2 * kRows);
}

// Q2_K (lossless): super-block { scales[16], qs[64], FP16 d, dmin } -> 8 tiles of 336 B. Tile
// j: column k's 2-bit code (qs[32 (j / 4) + k] >> 2 (j % 4)) in vrmpy order (vector k / 16,
// byte 4r + k % 4, bits 2 ((k / 4) % 4)); raw scale bytes scales[2j] at 256 + r and
// scales[2j + 1] at 288 + r; 8 FP16 at 320: d of rows 8j.. (j < 4) or -dmin of rows 8(j - 4)..
static inline void repack_q2_k_tile(uint8_t * tile, const uint8_t * sb0, uint32_t stride, uint32_t j) {
    const uint32_t   qoff = 16 + 32 * (j / 4), sh = 2 * (j % 4);
    const HVX_Vector m2   = Q6_V_vsplat_R(0x03030303);
    HVX_Vector       c0 = Q6_V_vzero(), c1 = Q6_V_vzero(), sv = Q6_V_vzero(), dm = Q6_V_vzero();
    const uint8_t *  b  = sb0;
#pragma GCC unroll 32
    for (uint32_t r = 0; r < kRows; r++, b += stride) {
        const HVX_Vector v = load_u(b);
        // byte k of y: column k's code; word 4v of z: vector v's word of the row
        const HVX_Vector y = Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(Q6_V_vror_VR(v, (int32_t) qoff), (int32_t) sh), m2);
        const HVX_Vector z = Q6_V_vor_VV(Q6_V_vor_VV(y, Q6_Vw_vasl_VwR(Q6_V_vror_VR(y, 4), 2)),
                                         Q6_V_vor_VV(Q6_Vw_vasl_VwR(Q6_V_vror_VR(y, 8), 4),
                                                     Q6_Vw_vasl_VwR(Q6_V_vror_VR(y, 12), 6)));
        c0                 = Q6_V_vmux_QVV(byte_range(4 * r, 4), rotate_to(z, 4 * r), c0);
        c1                 = Q6_V_vmux_QVV(byte_range(4 * r, 4), rotate_to(Q6_V_vror_VR(z, 16), 4 * r), c1);
        const HVX_Vector w = Q6_V_vror_VR(v, (int32_t) (2 * j));  // bytes 0, 1: scales[2j], scales[2j + 1]
        sv                 = Q6_V_vmux_QVV(byte_range(r, 1), rotate_to(w, r), sv);
        sv                 = Q6_V_vmux_QVV(byte_range(32 + r, 1), rotate_to(w, 31 + r), sv);
    }
    const uint8_t *  rows = sb0 + 8 * (j % 4) * stride + (j < 4 ? 80 : 82);
    const HVX_Vector neg  = j < 4 ? Q6_V_vzero() : Q6_Vh_vsplat_R((int16_t) 0x8000);  // -dmin: the sign flipped
#pragma GCC unroll 8
    for (uint32_t i = 0; i < 8; i++, rows += stride) {
        dm = Q6_V_vmux_QVV(byte_range(2 * i, 2), rotate_to(Q6_V_vxor_VV(load_u(rows), neg), 2 * i), dm);
    }
    store_bytes(tile, c0, 128);
    store_bytes(tile + 128, c1, 128);
    store_bytes(tile + HTP_TILE_Q2_K_SCALES, sv, 64);
    store_bytes(tile + HTP_TILE_Q2_K_DM, dm, 16);
}

// Q4_K / Q5_K: super-block { FP16 d, dmin, scales[12], (Q5: qh[32]), qs[128] } -> 8 tiles of
// 640 / 768 B. Tile j: column k's low 4 bits (qs[32 (j / 2) + k] >> 4 (j & 1)) in the nibble
// layout (byte 32 (k / 2) + r); Q5: the fifth bit (qh[k] >> j) in the Q5 plane at 640; at
// 512 + 4r the FP16 pair (fl16(d * sc_j), fl16(-dmin * m_j)). The pair is the scalar
// repacker's arithmetic on scalars read from registers (vextract of rotated vectors), not from
// VTCM: the same bits on any input.
template <bool kQ5> static inline void repack_q45_k_tile(uint8_t * tile, const uint8_t * sb0, uint32_t stride, uint32_t j) {
    constexpr uint32_t QS  = kQ5 ? 48 : 16;
    const uint32_t     qo  = QS + 32 * (j / 2);
    const HVX_Vector   m0f = Q6_Vh_vsplat_R(0x000F);
    const HVX_Vector   mf0 = Q6_Vh_vsplat_R(0x00F0);
    const HVX_Vector   one = Q6_Vb_vsplat_R(1);
    HVX_Vector         rec[4] = { Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero() };
    HVX_Vector         sv = Q6_V_vzero(), pl = Q6_V_vzero();
    const uint8_t *    b  = sb0;
#pragma GCC unroll 32
    for (uint32_t r = 0; r < kRows; r++, b += stride) {
        const HVX_Vector v = load_u(b);
        // halfword h of x: qs[32 (j / 2) + 2h], [.. + 2h + 1] -> byte h of the record (a load
        // of its own: the block is longer than a vector)
        const HVX_Vector x  = load_u(b + qo);
        const HVX_Vector xs = (j & 1) ? Q6_Vuh_vlsr_VuhR(x, 4) : x;
        const HVX_Vector y  = Q6_V_vor_VV(Q6_V_vand_VV(xs, m0f), Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(xs, 4), mf0));
        // halfword h = (record byte h, byte 8 + h), as nibble_record's
        const HVX_Vector yi = Q6_V_vor_VV(y, Q6_Vh_vasl_VhR(Q6_V_vror_VR(y, 16), 8));
        rec[r / 8]          = Q6_V_vmux_QVV(byte_range(16 * (r % 8), 16), rotate_to(yi, 16 * (r % 8)), rec[r / 8]);
        if (kQ5) {
            // byte k: bit j of qh[k]; folded into word 0, bit k (4 bytes -> a nibble, 8 nibbles)
            HVX_Vector u = Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(Q6_V_vror_VR(v, 16), (int32_t) j), one);
            u            = Q6_V_vand_VV(Q6_V_vor_VV(u, Q6_Vuw_vlsr_VuwR(u, 7)), Q6_V_vsplat_R(0x00030003));
            u            = Q6_V_vand_VV(Q6_V_vor_VV(u, Q6_Vuw_vlsr_VuwR(u, 14)), Q6_V_vsplat_R(0x0000000F));
            u            = Q6_V_vor_VV(u, Q6_Vw_vasl_VwR(Q6_V_vror_VR(u, 4), 4));
            u            = Q6_V_vor_VV(u, Q6_Vw_vasl_VwR(Q6_V_vror_VR(u, 8), 8));
            u            = Q6_V_vor_VV(u, Q6_Vw_vasl_VwR(Q6_V_vror_VR(u, 16), 16));
            pl           = Q6_V_vmux_QVV(byte_range(4 * r, 4), rotate_to(q5_record(u), 4 * r), pl);
        }
        // (d, dmin) and the scale bytes s[j], s[j + 4] (and s[j - 4]) of the 12 at 4
        const uint32_t dd = (uint32_t) Q6_R_vextract_VR(v, 0);
        const uint32_t s0 = (uint32_t) Q6_R_vextract_VR(Q6_V_vror_VR(v, (int32_t) (4 + j)), 0) & 0xff;
        const uint32_t s4 = (uint32_t) Q6_R_vextract_VR(Q6_V_vror_VR(v, (int32_t) (8 + j)), 0) & 0xff;
        const uint32_t sm = (uint32_t) Q6_R_vextract_VR(Q6_V_vror_VR(v, (int32_t) j), 0) & 0xff;  // s[j - 4], j >= 4
        const int      sc = j < 4 ? (int) (s0 & 63) : (int) ((s4 & 0xf) | ((sm >> 6) << 4));
        const int      m  = j < 4 ? (int) (s4 & 63) : (int) ((s4 >> 4) | ((s0 >> 6) << 4));
        const float    d    = htp_repack::fp16_to_fp32((uint16_t) (dd & 0xffff));
        const float    dmin = htp_repack::fp16_to_fp32((uint16_t) (dd >> 16));
        const uint32_t pair = (uint32_t) htp_repack::fp32_to_fp16(d * (float) sc) |
                              (uint32_t) htp_repack::fp32_to_fp16(-dmin * (float) m) << 16;
        sv = Q6_V_vmux_QVV(byte_range(4 * r, 4), Q6_V_vsplat_R((int32_t) pair), sv);
    }
    deal_records(rec);
    pshuffle_n<4, false, 5>(rec);
#pragma GCC unroll 4
    for (int u = 0; u < 4; u++) {
        store_bytes(tile + 128 * u, rec[u], 128);
    }
    store_bytes(tile + HTP_TILE_Q4_K_SCALES, sv, 128);
    if (kQ5) {
#pragma GCC unroll 5
        for (int k = 0; k < 5; k++) {
            pl = Q6_Vb_vshuff_Vb(pl);
        }
        store_bytes(tile + HTP_TILE_Q5_K_QH, pl, 128);
    }
}

// 2-bit codes (qs[k] >> sh) & 3 of the 32 bytes at q (k = 0..31) -> words 0 and 4: the row's
// words of the two vrmpy-order vectors (byte 4r + k % 4 of vector k / 16, bits 2 ((k / 4) % 4)).
static inline HVX_Vector vrmpy_codes2(HVX_Vector q, uint32_t sh) {
    const HVX_Vector y = Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(q, (int32_t) sh), Q6_V_vsplat_R(0x03030303));
    return Q6_V_vor_VV(Q6_V_vor_VV(y, Q6_Vw_vasl_VwR(Q6_V_vror_VR(y, 4), 2)),
                       Q6_V_vor_VV(Q6_Vw_vasl_VwR(Q6_V_vror_VR(y, 8), 4), Q6_Vw_vasl_VwR(Q6_V_vror_VR(y, 12), 6)));
}

// Q6_K: super-block { ql[128], qh[64], int8 scales[16], FP16 d } -> 8 tiles of 896 B. Tile j:
// column k's low 4 bits (ql[64 (j / 4) + 32 (j & 1) + k] >> 4 ((j % 4) / 2)) at vector k / 8,
// byte 4r + k % 4, nibble (k / 4) % 2; its high 2 bits (qh[32 (j / 4) + k] >> 2 (j % 4)) in
// two vrmpy-order vectors at 512; FP16 fl16(d * scales[2j + h]) at 768 + 2 (32 h + r).
static inline void repack_q6_k_tile(uint8_t * tile, const uint8_t * sb0, uint32_t stride, uint32_t j) {
    const uint32_t   lo_off = 64 * (j / 4) + 32 * (j & 1), lo_sh = 4 * ((j % 4) / 2);
    const uint32_t   hi_off = 128 + 32 * (j / 4), hi_sh = 2 * (j % 4);
    const HVX_Vector m4     = Q6_V_vsplat_R(0x0F0F0F0F);
    HVX_Vector       lo[4]  = { Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero() };
    HVX_Vector       hi0 = Q6_V_vzero(), hi1 = Q6_V_vzero(), sv = Q6_V_vzero();
    const uint8_t *  b   = sb0;
#pragma GCC unroll 32
    for (uint32_t r = 0; r < kRows; r++, b += stride) {
        // byte k of y: column k's low 4 bits; word 2v of z: vector v's word of the row
        const HVX_Vector y = Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(load_u(b + lo_off), (int32_t) lo_sh), m4);
        const HVX_Vector z = Q6_V_vor_VV(y, Q6_Vw_vasl_VwR(Q6_V_vror_VR(y, 4), 4));
#pragma GCC unroll 4
        for (int v = 0; v < 4; v++) {
            lo[v] = Q6_V_vmux_QVV(byte_range(4 * r, 4), rotate_to(Q6_V_vror_VR(z, 8 * v), 4 * r), lo[v]);
        }
        const HVX_Vector h = vrmpy_codes2(load_u(b + hi_off), hi_sh);
        hi0                = Q6_V_vmux_QVV(byte_range(4 * r, 4), rotate_to(h, 4 * r), hi0);
        hi1                = Q6_V_vmux_QVV(byte_range(4 * r, 4), rotate_to(Q6_V_vror_VR(h, 16), 4 * r), hi1);
        // scales[2j], scales[2j + 1] and d, from registers (vextract of rotated vectors)
        const HVX_Vector x  = load_u(b + 192);
        const uint32_t   sp = (uint32_t) Q6_R_vextract_VR(Q6_V_vror_VR(x, (int32_t) (2 * j)), 0);
        const float      d  = htp_repack::fp16_to_fp32((uint16_t) Q6_R_vextract_VR(Q6_V_vror_VR(x, 16), 0));
        const uint16_t   p0 = htp_repack::fp32_to_fp16(d * (float) (int8_t) (sp & 0xff));
        const uint16_t   p1 = htp_repack::fp32_to_fp16(d * (float) (int8_t) ((sp >> 8) & 0xff));
        sv                  = Q6_V_vmux_QVV(byte_range(2 * r, 2), Q6_Vh_vsplat_R((int16_t) p0), sv);
        sv                  = Q6_V_vmux_QVV(byte_range(64 + 2 * r, 2), Q6_Vh_vsplat_R((int16_t) p1), sv);
    }
#pragma GCC unroll 4
    for (int v = 0; v < 4; v++) {
        store_bytes(tile + 128 * v, lo[v], 128);
    }
    store_bytes(tile + HTP_TILE_Q6_K_QH, hi0, 128);
    store_bytes(tile + HTP_TILE_Q6_K_QH + 128, hi1, 128);
    store_bytes(tile + HTP_TILE_Q6_K_SCALES, sv, 128);
}

// Q3_K: super-block { hmask[32], qs[64], scales[12] (6-bit, packed), FP16 d } -> 8 tiles of
// 512 B. Tile j: column k's low 2 bits (qs[32 (j / 4) + k] >> 2 (j % 4)) as Q2_K's; the sign
// plane at 256 (byte 4r + k % 4, bit k / 4: set when hmask[k] bit j is clear); FP16
// fl16(d * (scale_{2j + h} - 32)) at 384 + 2 (32 h + r).
static inline void repack_q3_k_tile(uint8_t * tile, const uint8_t * sb0, uint32_t stride, uint32_t j) {
    const uint32_t   qoff = 32 + 32 * (j / 4), sh = 2 * (j % 4);
    const HVX_Vector one  = Q6_Vb_vsplat_R(1);
    HVX_Vector       c0 = Q6_V_vzero(), c1 = Q6_V_vzero(), sg = Q6_V_vzero(), sv = Q6_V_vzero();
    const uint8_t *  b  = sb0;
#pragma GCC unroll 32
    for (uint32_t r = 0; r < kRows; r++, b += stride) {
        const HVX_Vector v = load_u(b);
        const HVX_Vector z = vrmpy_codes2(Q6_V_vror_VR(v, (int32_t) qoff), sh);
        c0                 = Q6_V_vmux_QVV(byte_range(4 * r, 4), rotate_to(z, 4 * r), c0);
        c1                 = Q6_V_vmux_QVV(byte_range(4 * r, 4), rotate_to(Q6_V_vror_VR(z, 16), 4 * r), c1);
        // byte k of y: column k's sign bit; word 0 of s: bit 8i + g = column 4g + i
        const HVX_Vector y = Q6_V_vxor_VV(Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(v, (int32_t) j), one), one);
        HVX_Vector       s = Q6_V_vor_VV(y, Q6_Vw_vasl_VwR(Q6_V_vror_VR(y, 4), 1));
        s                  = Q6_V_vor_VV(s, Q6_Vw_vasl_VwR(Q6_V_vror_VR(s, 8), 2));
        s                  = Q6_V_vor_VV(s, Q6_Vw_vasl_VwR(Q6_V_vror_VR(s, 16), 4));
        sg                 = Q6_V_vmux_QVV(byte_range(4 * r, 4), rotate_to(s, 4 * r), sg);
        // scales 2j + h: low 4 bits in byte (2j + h) % 8's nibble (2j + h) / 8, high 2 bits in
        // byte 8 + (2j + h) % 4 >> 2 ((2j + h) / 4); from registers (vextract of rotated vectors)
        const HVX_Vector x  = Q6_V_vror_VR(v, 96);
        const uint32_t   lw = (uint32_t) Q6_R_vextract_VR(Q6_V_vror_VR(x, (int32_t) ((2 * j) % 8)), 0);
        const uint32_t   hw = (uint32_t) Q6_R_vextract_VR(Q6_V_vror_VR(x, (int32_t) (8 + (2 * j) % 4)), 0);
        const float      d  = htp_repack::fp16_to_fp32((uint16_t) Q6_R_vextract_VR(Q6_V_vror_VR(x, 12), 0));
        const uint32_t   ls = j < 4 ? 0 : 4, hs = 2 * (j / 2);
        const int        a0 = (int) (((lw >> ls) & 0xf) | (((hw >> hs) & 3) << 4));
        const int        a1 = (int) (((lw >> (8 + ls)) & 0xf) | (((hw >> (8 + hs)) & 3) << 4));
        const uint16_t   p0 = htp_repack::fp32_to_fp16(d * (float) (a0 - 32));
        const uint16_t   p1 = htp_repack::fp32_to_fp16(d * (float) (a1 - 32));
        sv                  = Q6_V_vmux_QVV(byte_range(2 * r, 2), Q6_Vh_vsplat_R((int16_t) p0), sv);
        sv                  = Q6_V_vmux_QVV(byte_range(64 + 2 * r, 2), Q6_Vh_vsplat_R((int16_t) p1), sv);
    }
    store_bytes(tile, c0, 128);
    store_bytes(tile + 128, c1, 128);
    store_bytes(tile + HTP_TILE_Q3_K_SIGNS, sg, 128);
    store_bytes(tile + HTP_TILE_Q3_K_SCALES, sv, 128);
}

static inline bool supported(uint32_t type) {
    switch (type) {
        case HTP_TYPE_Q4_0:
        case HTP_TYPE_IQ4_NL:
        case HTP_TYPE_Q4_1:
        case HTP_TYPE_MXFP4:
        case HTP_TYPE_Q5_0:
        case HTP_TYPE_Q5_1:
        case HTP_TYPE_Q8_0:
        case HTP_TYPE_Q1_0:
        case HTP_TYPE_Q2_0:
        case HTP_TYPE_Q2_K:
        case HTP_TYPE_Q4_K:
        case HTP_TYPE_Q5_K:
        case HTP_TYPE_Q6_K:
        case HTP_TYPE_Q3_K: return true;
        default: return false;
    }
}

// The tile loops, out of line and named compute_* so that the spills gate checks them (the
// kernel's compute functions, docs/tools.md).
template <uint32_t BB, uint32_t QO, uint32_t SB, uint32_t SC, int QH, uint32_t PL, uint32_t TB>
__attribute__((noinline)) static void compute_repack_nibble_tiles(uint8_t * dst, const uint8_t * flat, uint32_t stride,
                                                                  uint32_t n_tiles) {
    HTP_NO_UNROLL
    for (uint32_t t = 0; t < n_tiles; t++) {
        repack_nibble_tile<BB, QO, SB, SC, QH, PL, TB>(dst + t * TB, flat + t * BB, stride);
    }
}

template <bool kQ1>
__attribute__((noinline)) static void compute_repack_lowbit_tiles(uint8_t * dst, const uint8_t * flat, uint32_t stride,
                                                                  uint32_t n_tiles) {
    static_assert(HTP_TENSOR_TILE_SIZE_Q1_0 == 576 && HTP_TENSOR_TILE_SIZE_Q2_0 == 576, "Q1_0 / Q2_0 tiles");
    HTP_NO_UNROLL
    for (uint32_t t = 0; t < n_tiles; t++) {
        repack_lowbit_tile<kQ1>(dst + t * 576, flat + t * 18, stride);
    }
}

// n_tiles: whole super-blocks (8 tiles each), as the host plans Q2_K chunks.
__attribute__((noinline)) static void compute_repack_q2_k_tiles(uint8_t * dst, const uint8_t * flat, uint32_t stride,
                                                                uint32_t n_tiles) {
    HTP_NO_UNROLL
    for (uint32_t t = 0; t < n_tiles; t++) {
        repack_q2_k_tile(dst + t * HTP_TENSOR_TILE_SIZE_Q2_K, flat + (t / 8) * 84, stride, t % 8);
    }
}

template <bool kQ5>
__attribute__((noinline)) static void compute_repack_q45_k_tiles(uint8_t * dst, const uint8_t * flat, uint32_t stride,
                                                                 uint32_t n_tiles) {
    constexpr uint32_t TB = kQ5 ? HTP_TENSOR_TILE_SIZE_Q5_K : HTP_TENSOR_TILE_SIZE_Q4_K;
    constexpr uint32_t BB = kQ5 ? 176 : 144;
    HTP_NO_UNROLL
    for (uint32_t t = 0; t < n_tiles; t++) {
        repack_q45_k_tile<kQ5>(dst + t * TB, flat + (t / 8) * BB, stride, t % 8);
    }
}

__attribute__((noinline)) static void compute_repack_q6_k_tiles(uint8_t * dst, const uint8_t * flat, uint32_t stride,
                                                                uint32_t n_tiles) {
    HTP_NO_UNROLL
    for (uint32_t t = 0; t < n_tiles; t++) {
        repack_q6_k_tile(dst + t * HTP_TENSOR_TILE_SIZE_Q6_K, flat + (t / 8) * 210, stride, t % 8);
    }
}

__attribute__((noinline)) static void compute_repack_q3_k_tiles(uint8_t * dst, const uint8_t * flat, uint32_t stride,
                                                                uint32_t n_tiles) {
    HTP_NO_UNROLL
    for (uint32_t t = 0; t < n_tiles; t++) {
        repack_q3_k_tile(dst + t * HTP_TENSOR_TILE_SIZE_Q3_K, flat + (t / 8) * 110, stride, t % 8);
    }
}

__attribute__((noinline)) static void compute_repack_q8_0_tiles(uint8_t * dst, const uint8_t * flat, uint32_t stride,
                                                                uint32_t n_tiles) {
    HTP_NO_UNROLL
    for (uint32_t t = 0; t < n_tiles; t++) {
        repack_q8_0_tile(dst + t * HTP_TENSOR_TILE_SIZE_Q8_0, flat + t * 34, stride);
    }
}

// htp_repack_col_tile's contract (repack.h): row r of the 32 at flat + r * stride holds
// n_tiles tiles' worth of whole flat blocks; the n_tiles tiles at dst are written. The rows
// need 128 readable bytes past each block (a vector load each) and the tiles' region is
// written by whole aligned vectors (its other bytes rewritten as they were). False for a type
// supported() refuses.
static inline bool repack_col_tile(uint32_t type, uint8_t * dst, const uint8_t * flat, uint32_t stride, uint32_t n_tiles) {
    switch (type) {
        case HTP_TYPE_Q4_0:
            compute_repack_nibble_tiles<18, 2, 2, HTP_TILE_Q4_0_SCALES, -1, 0, HTP_TENSOR_TILE_SIZE_Q4_0>(
                dst, flat, stride, n_tiles);
            return true;
        case HTP_TYPE_IQ4_NL:
            compute_repack_nibble_tiles<18, 2, 2, HTP_TILE_IQ4_NL_SCALES, -1, 0, HTP_TENSOR_TILE_SIZE_IQ4_NL>(
                dst, flat, stride, n_tiles);
            return true;
        case HTP_TYPE_Q4_1:
            compute_repack_nibble_tiles<20, 4, 4, HTP_TILE_Q4_1_SCALES, -1, 0, HTP_TENSOR_TILE_SIZE_Q4_1>(
                dst, flat, stride, n_tiles);
            return true;
        case HTP_TYPE_MXFP4:
            compute_repack_nibble_tiles<17, 1, 1, HTP_TILE_MXFP4_SCALES, -1, 0, HTP_TENSOR_TILE_SIZE_MXFP4>(
                dst, flat, stride, n_tiles);
            return true;
        case HTP_TYPE_Q5_0:
            compute_repack_nibble_tiles<22, 6, 2, HTP_TILE_Q5_0_SCALES, 2, HTP_TILE_Q5_0_QH, HTP_TENSOR_TILE_SIZE_Q5_0>(
                dst, flat, stride, n_tiles);
            return true;
        case HTP_TYPE_Q5_1:
            compute_repack_nibble_tiles<24, 8, 4, HTP_TILE_Q5_1_SCALES, 4, HTP_TILE_Q5_1_QH, HTP_TENSOR_TILE_SIZE_Q5_1>(
                dst, flat, stride, n_tiles);
            return true;
        case HTP_TYPE_Q8_0: compute_repack_q8_0_tiles(dst, flat, stride, n_tiles); return true;
        case HTP_TYPE_Q1_0: compute_repack_lowbit_tiles<true>(dst, flat, stride, n_tiles); return true;
        case HTP_TYPE_Q2_0: compute_repack_lowbit_tiles<false>(dst, flat, stride, n_tiles); return true;
        case HTP_TYPE_Q2_K: compute_repack_q2_k_tiles(dst, flat, stride, n_tiles); return true;
        case HTP_TYPE_Q4_K: compute_repack_q45_k_tiles<false>(dst, flat, stride, n_tiles); return true;
        case HTP_TYPE_Q5_K: compute_repack_q45_k_tiles<true>(dst, flat, stride, n_tiles); return true;
        case HTP_TYPE_Q6_K: compute_repack_q6_k_tiles(dst, flat, stride, n_tiles); return true;
        case HTP_TYPE_Q3_K: compute_repack_q3_k_tiles(dst, flat, stride, n_tiles); return true;
        default: return false;
    }
}

}  // namespace mmr
}  // namespace htp_ops
