// Internals of the repack module: ggml's flat block layouts (restated from ggml-common.h so
// this module needs no ggml internals; the tests check the sizes against ggml), FP16
// conversion (htp-repack/fp16.h, public: the NPU's HVX repacker uses it too), and the
// per-format operation table.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "htp-repack/fp16.h"
#include "htp-repack/repack.h"

namespace htp_repack {

// ---- ggml flat blocks --------------------------------------------------------------------
constexpr int QK_K = 256;

struct block_q4_0   { uint16_t d; uint8_t qs[16]; };
struct block_q4_1   { uint16_t d, m; uint8_t qs[16]; };
struct block_q8_0   { uint16_t d; int8_t qs[32]; };
struct block_q5_0   { uint16_t d; uint8_t qh[4]; uint8_t qs[16]; };   // qh: bit j = element j's 5th bit
struct block_q5_1   { uint16_t d, m; uint8_t qh[4]; uint8_t qs[16]; };
struct block_iq4_nl { uint16_t d; uint8_t qs[16]; };
struct block_mxfp4  { uint8_t e; uint8_t qs[16]; };
struct block_q1_0   { uint16_t d; uint8_t qs[16]; };   // 128 elements, bit j = element j
struct block_q2_0   { uint16_t d; uint8_t qs[16]; };   // 64 elements, 2 bits each
struct block_q2_K   { uint8_t scales[16]; uint8_t qs[64]; uint16_t d, dmin; };
struct block_q3_K   { uint8_t hmask[32]; uint8_t qs[64]; uint8_t scales[12]; uint16_t d; };
struct block_q4_K   { uint16_t d, dmin; uint8_t scales[12]; uint8_t qs[128]; };
struct block_q5_K   { uint16_t d, dmin; uint8_t scales[12]; uint8_t qh[32]; uint8_t qs[128]; };
struct block_q6_K   { uint8_t ql[128]; uint8_t qh[64]; int8_t scales[16]; uint16_t d; };

static_assert(sizeof(block_q4_0) == 18, "q4_0");
static_assert(sizeof(block_q4_1) == 20, "q4_1");
static_assert(sizeof(block_q8_0) == 34, "q8_0");
static_assert(sizeof(block_q5_0) == 22, "q5_0");
static_assert(sizeof(block_q5_1) == 24, "q5_1");
static_assert(sizeof(block_iq4_nl) == 18, "iq4_nl");
static_assert(sizeof(block_mxfp4) == 17, "mxfp4");
static_assert(sizeof(block_q1_0) == 18, "q1_0");
static_assert(sizeof(block_q2_0) == 18, "q2_0");
static_assert(sizeof(block_q2_K) == 84, "q2_K");
static_assert(sizeof(block_q3_K) == 110, "q3_K");
static_assert(sizeof(block_q4_K) == 144, "q4_K");
static_assert(sizeof(block_q5_K) == 176, "q5_K");
static_assert(sizeof(block_q6_K) == 210, "q6_K");

// Exact FP16 negation (a sign flip), used by Q2_K's -dmin.
static inline uint16_t fp16_neg(uint16_t h) { return (uint16_t) (h ^ 0x8000); }

static inline uint16_t rd16(const uint8_t * p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline void     wr16(uint8_t * p, uint16_t v) { memcpy(p, &v, 2); }

// ---- per-format operations ----------------------------------------------------------------
// ct_tiles points at tile (ct, 0): the n_k_tiles tiles of one row-tile, consecutive.
struct format_ops {
    enum htp_type type;
    uint32_t      flat_block_k;     // ggml elements per flat block
    uint32_t      flat_block_size;  // ggml bytes per flat block
    bool          lossless;
    // Writes every byte that belongs to row r (0..31) of this row-tile, from one flat row.
    void (*pack_row)(uint8_t * ct_tiles, int r, const uint8_t * flat_row, int64_t n_k_tiles);
    // Rebuilds one flat row from row r of this row-tile.
    void (*unpack_row)(uint8_t * flat_row, const uint8_t * ct_tiles, int r, int64_t n_k_tiles);
    // Tile kt of this row-tile to K_cols/32 row-major 32x32 FP16 tiles.
    void (*tile_to_f16)(const uint8_t * ct_tiles, int64_t kt, uint16_t * out);
};

// The table of a tiled type; nullptr for any other type (repack-ops.cpp).
const format_ops * find_ops(enum htp_type type);

const format_ops * ops_q4_0();
const format_ops * ops_q4_1();
const format_ops * ops_q8_0();
const format_ops * ops_q5_0();
const format_ops * ops_q5_1();
const format_ops * ops_iq4_nl();
const format_ops * ops_mxfp4();
const format_ops * ops_q1_0();
const format_ops * ops_q2_0();
const format_ops * ops_q2_K();
const format_ops * ops_q3_K();
const format_ops * ops_q4_K();
const format_ops * ops_q5_K();
const format_ops * ops_q6_K();

// Refits FP16 products p[i] ~= fl16(d * a[i]) to an FP16 d and integers a[i] in [lo, hi]
// (unrepack of the lossy K-quants). Prefers an exact fit (fl16(d * a[i]) == p[i] for all i);
// otherwise the candidate with the smallest largest error. Returns true when the fit is exact.
bool fit_scales(const uint16_t * p, int n, int lo, int hi, uint16_t * d, int * a);

}  // namespace htp_repack
