// Host-side repacking between ggml's flat row-major blocks and the tiled weight formats
// (abi/include/htp-abi/htp-tile-formats.h, docs/tiled-formats.md).
//
// A matrix is [ne0, ne1]: ne1 rows of ne0 elements. Flat data is ggml's: each row is
// ne0 / block_size consecutive blocks. Tiled data is the tile grid of the whole matrix with
// rows padded to a multiple of 32. Every byte of a tile belongs to exactly one row, so any
// range of whole rows can be (un)repacked independently (partial set_tensor/get_tensor).
//
// Lossless formats (unrepack(repack(x)) == x byte for byte, for any bytes):
//   Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL, MXFP4, Q1_0, Q2_0, Q2_K.
// Lossy formats (the tile keeps FP16 products of the super-block scale and the sub-block
// scales): Q3_K, Q4_K, Q5_K, Q6_K. Their quants survive exactly; unrepack refits the
// super-block scale and the integer sub-block scales to the FP16 products (exact refit in
// practice, see docs/tiled-formats.md for the bound when it is not).
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "htp-abi/htp-tile-formats.h"
#include "htp-abi/htp-types.h"

#ifdef __cplusplus
extern "C" {
#endif

// True for the fourteen types that have a tiled format.
bool htp_repack_supported(enum htp_type type);

// True when unrepack(repack(x)) reproduces x exactly.
bool htp_repack_lossless(enum htp_type type);

// Bytes of one flat ggml row of ne0 elements (ggml_row_size); 0 if not supported.
size_t htp_repack_flat_row_size(enum htp_type type, int64_t ne0);

// ggml block size (elements per flat block) of a tiled type; 0 if not supported.
uint32_t htp_repack_flat_block_k(enum htp_type type);

// Repacks rows [row0, row1) of a [ne0, ne1] matrix. src holds those rows only, flat and
// contiguous (src = start of row row0). dst is the start of the tiled matrix
// (htp_tiled_matrix_size bytes); only the bytes of rows row0..row1-1 are written, plus the
// padding rows of the last row-tile when row1 == ne1 (they get the tiling of an all-zero row).
// Returns false (writing nothing) for an unsupported type or bad arguments.
bool htp_repack_rows(enum htp_type type, void * dst_tiled, const void * src_flat,
                     int64_t ne0, int64_t ne1, int64_t row0, int64_t row1);

// Inverse: writes flat rows [row0, row1) to dst (dst = start of row row0) from the tiled
// matrix at src_tiled.
bool htp_unrepack_rows(enum htp_type type, void * dst_flat, const void * src_tiled,
                       int64_t ne0, int64_t ne1, int64_t row0, int64_t row1);

// Repacks 32 flat rows into one column tile: row r (0..31) at src_flat + r * src_row_stride
// holds n_k_tiles tiles' worth of whole flat blocks, and the n_k_tiles consecutive tiles at
// dst_tiles get written. The rows may be a K-range of longer rows when it starts and ends on a
// tile and a flat block boundary (K-quants: whole super-blocks). Rows past a matrix's end
// must be zero-filled by the caller (the tiling of padding rows). No heap: the NPU runs this
// for run-time repacking of flat weights (rt-repack). False for an unsupported type.
bool htp_repack_col_tile(enum htp_type type, void * dst_tiles, const void * src_flat, size_t src_row_stride,
                         int64_t n_k_tiles);

// Fills the padding rows (ne1 .. 32*n_col_tiles-1) with the tiling of an all-zero row.
bool htp_repack_fill_padding(enum htp_type type, void * dst_tiled, int64_t ne0, int64_t ne1);

// Stacks of matrices ([ne0, ne1, ne2, ne3] weights, e.g. MoE experts): matrix i's tiles start
// at i * htp_tiled_matrix_size(type, ne0, ne1). Rows are ggml's flat rows r = i * ne1 + row.
// These split [row0, row1) at matrix boundaries and call the functions above.
bool htp_repack_rows_stacked(enum htp_type type, void * dst_tiled, const void * src_flat,
                             int64_t ne0, int64_t ne1, int64_t row0, int64_t row1);
bool htp_unrepack_rows_stacked(enum htp_type type, void * dst_flat, const void * src_tiled,
                               int64_t ne0, int64_t ne1, int64_t row0, int64_t row1);

// Reference dequantizer (tests, and the oracle for the NPU's HVX routines): tile (ct, kt) of
// the tiled [ne0, ne1] matrix to K_cols/32 consecutive 32x32 FP16 tiles (IEEE binary16 bits),
// each row-major: out[q * 1024 + row * 32 + c] is row `row`, column kt*K_cols + 32*q + c.
// Q1_0 writes 4 tiles, Q2_0 2, every other type 1. Needs the whole matrix because a Q2_K tile
// takes its rows' d / -dmin from the other tiles of its super-block.
// Arithmetic: each value is computed in FP32 from the tile's fields and rounded once to FP16
// (round to nearest even); see docs/tiled-formats.md for the per-format formula.
bool htp_repack_tile_to_f16(enum htp_type type, const void * src_tiled, int64_t ne0, int64_t ne1,
                            int64_t ct, int64_t kt, uint16_t * out);

#ifdef __cplusplus
}
#endif
