// Tiled weight formats -> 32x32 FP16 HMX weight tiles (docs/tiled-formats.md, htp/hmx.h).
//
// One tile of a tiled weight (32 rows x K_cols columns, htp-abi/htp-tile-formats.h) becomes
// K_cols / 32 HMX weight tiles (Q1_0: 4, Q2_0: 2, others 1), each 2048 bytes, element (n, k)
// at half index n * 32 + k (n = row of the tile, k = column), consecutive tiles following
// along K. Decoding is HVX throughout: a column of 32 rows at a time, codes picked with masks
// and shifts (vlut32 for table formats), converted to FP32 exactly, scaled per row with the
// per-format formula of the reference dequantizer (htp_repack_tile_to_f16), rounded to FP16
// once (nearest-even), then transposed into the row-major HMX layout in registers.
// Bound (tests/kernels/test_tile_dequant.cpp): bit-equal to the reference for Q4_0, Q8_0,
// IQ4_NL, MXFP4, Q1_0, Q2_0, Q3_K, Q6_K, Q5_0 (one product per value); within 1 FP16 ulp for
// Q4_1, Q5_1, Q2_K, Q4_K, Q5_K (a product and a sum: the compiler may fuse them into one
// rounding).
#pragma once
#include <stdint.h>

#include "htp-abi/htp-tile-formats.h"
#include "hvx-util.h"

namespace htp_ops {

// HMX tiles one weight tile yields.
static inline uint32_t tile_dequant_n_out(uint32_t type) {
    return htp_tile_k_cols((enum htp_type) type) / 32;
}

// Dequantizes the tile at `tile` into tile_dequant_n_out(type) FP16 tiles at `out`
// (2048-byte aligned VTCM). `sb_first`: for Q2_K, the first tile of the tile's 256-column
// super-block (its d / -dmin live in the super-block's tiles 0..7); ignored otherwise.
// `tile` / `sb_first` need no alignment (tiles sit tile_bytes apart; only the 128-byte blocks
// holding the tile's bytes are read). `scratch`: 4096 bytes of 128-aligned VTCM, unused by
// the HVX decoders (kept for callers). Returns false for a type without a tiled format.
bool tile_dequant_f16(uint32_t type, const uint8_t * tile, const uint8_t * sb_first, HVX_Vector * out,
                      float * scratch);

}  // namespace htp_ops
