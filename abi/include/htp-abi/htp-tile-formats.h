// Tiled weight formats: the layout constants the host repacker and the NPU kernels share.
//
// A weight matrix of logical shape [ne0, ne1] (ne0 = K, contiguous in ggml; ne1 = N rows) is
// stored as a grid of tiles of 32 rows x K_cols columns. Tile (ct, kt) covers rows
// 32*ct .. 32*ct+31 and columns kt*K_cols .. kt*K_cols+K_cols-1; tiles are laid out row-tile
// major: tile_idx = ct * n_k_tiles + kt. Rows are padded up to a multiple of 32, so the last
// row-tile is always whole. The byte layout inside each tile is in docs/tiled-formats.md.
// Plain C (stdint only): the NPU library includes this without any host or ggml header.
#pragma once
#include <stdint.h>

#include "htp-types.h"

#ifdef __cplusplus
extern "C" {
#endif

// Tile geometry (HMX works on 32x32 FP16 tiles).
#define HTP_TENSOR_TILE_N_ROWS 32
#define HTP_TENSOR_TILE_N_COLS 32

// K columns per tile: 32 for every format except the low-bit ones that pack more K per byte.
#define HTP_TENSOR_TILE_K_Q1_0 128
#define HTP_TENSOR_TILE_K_Q2_0 64

// Bytes per tile.
#define HTP_TENSOR_TILE_SIZE_Q4_0   576
#define HTP_TENSOR_TILE_SIZE_Q8_0   1088
#define HTP_TENSOR_TILE_SIZE_IQ4_NL 576
#define HTP_TENSOR_TILE_SIZE_MXFP4  544
#define HTP_TENSOR_TILE_SIZE_Q4_1   640
#define HTP_TENSOR_TILE_SIZE_Q1_0   576
#define HTP_TENSOR_TILE_SIZE_Q2_0   576
#define HTP_TENSOR_TILE_SIZE_Q2_K   336
#define HTP_TENSOR_TILE_SIZE_Q3_K   512
#define HTP_TENSOR_TILE_SIZE_Q4_K   640
#define HTP_TENSOR_TILE_SIZE_Q5_K   768
#define HTP_TENSOR_TILE_SIZE_Q6_K   896
#define HTP_TENSOR_TILE_SIZE_Q5_0   704
#define HTP_TENSOR_TILE_SIZE_Q5_1   768

// Section offsets inside a tile (bytes). Quants always start at 0.
#define HTP_TILE_Q4_0_SCALES   512 // 32 x FP16 d
#define HTP_TILE_Q8_0_SCALES   1024 // 32 x FP16 d
#define HTP_TILE_IQ4_NL_SCALES 512 // 32 x FP16 d
#define HTP_TILE_MXFP4_SCALES  512 // 32 x E8M0 e
#define HTP_TILE_Q4_1_SCALES   512 // 32 x (FP16 d, FP16 m)
#define HTP_TILE_Q1_0_SCALES   512 // 32 x FP16 d
#define HTP_TILE_Q2_0_SCALES   512 // 32 x FP16 d
#define HTP_TILE_Q2_K_SCALES   256 // 2 x 32 raw scale bytes (min << 4 | sc)
#define HTP_TILE_Q2_K_DM       320 // 8 x FP16: d (tile j < 4) or -dmin (j >= 4)
#define HTP_TILE_Q3_K_SIGNS    256 // 128 B sign mask (bit set: quant = low2 - 4)
#define HTP_TILE_Q3_K_SCALES   384 // 64 x FP16 d * (scale - 32)
#define HTP_TILE_Q4_K_SCALES   512 // 32 x (FP16 d * sc, FP16 -dmin * m)
#define HTP_TILE_Q5_K_SCALES   512 // as Q4_K
#define HTP_TILE_Q5_K_QH       640 // 128 B fifth-bit plane
#define HTP_TILE_Q6_K_QH       512 // 256 B high 2 bits
#define HTP_TILE_Q6_K_SCALES   768 // 64 x FP16 d * scale
#define HTP_TILE_Q5_0_QH       512 // 128 B fifth-bit plane (the Q5_K plane's layout)
#define HTP_TILE_Q5_0_SCALES   640 // 32 x FP16 d
#define HTP_TILE_Q5_1_SCALES   512 // 32 x (FP16 d, FP16 m), as Q4_1
#define HTP_TILE_Q5_1_QH       640 // 128 B fifth-bit plane, as Q5_K

// A K-quant super-block (256 columns) spans this many consecutive tiles along K.
#define HTP_TILE_KQ_TILES_PER_SUPERBLOCK 8

// K columns per tile of a type; 0 when the type has no tiled format.
static inline uint32_t htp_tile_k_cols(enum htp_type type) {
    switch (type) {
        case HTP_TYPE_Q1_0: return HTP_TENSOR_TILE_K_Q1_0;
        case HTP_TYPE_Q2_0: return HTP_TENSOR_TILE_K_Q2_0;
        case HTP_TYPE_Q4_0:
        case HTP_TYPE_Q4_1:
        case HTP_TYPE_Q5_0:
        case HTP_TYPE_Q5_1:
        case HTP_TYPE_Q8_0:
        case HTP_TYPE_IQ4_NL:
        case HTP_TYPE_MXFP4:
        case HTP_TYPE_Q2_K:
        case HTP_TYPE_Q3_K:
        case HTP_TYPE_Q4_K:
        case HTP_TYPE_Q5_K:
        case HTP_TYPE_Q6_K: return HTP_TENSOR_TILE_N_COLS;
        default: return 0;
    }
}

// Bytes per tile of a type; 0 when the type has no tiled format.
static inline uint32_t htp_tile_size(enum htp_type type) {
    switch (type) {
        case HTP_TYPE_Q4_0:   return HTP_TENSOR_TILE_SIZE_Q4_0;
        case HTP_TYPE_Q8_0:   return HTP_TENSOR_TILE_SIZE_Q8_0;
        case HTP_TYPE_IQ4_NL: return HTP_TENSOR_TILE_SIZE_IQ4_NL;
        case HTP_TYPE_MXFP4:  return HTP_TENSOR_TILE_SIZE_MXFP4;
        case HTP_TYPE_Q4_1:   return HTP_TENSOR_TILE_SIZE_Q4_1;
        case HTP_TYPE_Q1_0:   return HTP_TENSOR_TILE_SIZE_Q1_0;
        case HTP_TYPE_Q2_0:   return HTP_TENSOR_TILE_SIZE_Q2_0;
        case HTP_TYPE_Q2_K:   return HTP_TENSOR_TILE_SIZE_Q2_K;
        case HTP_TYPE_Q3_K:   return HTP_TENSOR_TILE_SIZE_Q3_K;
        case HTP_TYPE_Q4_K:   return HTP_TENSOR_TILE_SIZE_Q4_K;
        case HTP_TYPE_Q5_K:   return HTP_TENSOR_TILE_SIZE_Q5_K;
        case HTP_TYPE_Q6_K:   return HTP_TENSOR_TILE_SIZE_Q6_K;
        case HTP_TYPE_Q5_0:   return HTP_TENSOR_TILE_SIZE_Q5_0;
        case HTP_TYPE_Q5_1:   return HTP_TENSOR_TILE_SIZE_Q5_1;
        default: return 0;
    }
}

// Tiles along K (ne0 is always a multiple of K_cols: ggml rows are whole blocks and every
// block size divides, or equals a multiple of, K_cols).
static inline int64_t htp_tile_n_k_tiles(enum htp_type type, int64_t ne0) {
    const uint32_t k = htp_tile_k_cols(type);
    return k ? ne0 / (int64_t) k : 0;
}

// Row-tiles: rows padded up to a multiple of 32.
static inline int64_t htp_tile_n_col_tiles(int64_t ne1) {
    return (ne1 + HTP_TENSOR_TILE_N_ROWS - 1) / HTP_TENSOR_TILE_N_ROWS;
}

static inline int64_t htp_tile_idx(int64_t ct, int64_t kt, int64_t n_k_tiles) {
    return ct * n_k_tiles + kt;
}

// Byte offset of tile (ct, kt) from the start of the matrix.
static inline uint64_t htp_tile_offset(enum htp_type type, int64_t ct, int64_t kt, int64_t n_k_tiles) {
    return (uint64_t) htp_tile_idx(ct, kt, n_k_tiles) * htp_tile_size(type);
}

// Bytes of a tiled [ne0, ne1] matrix, padding rows included.
static inline uint64_t htp_tiled_matrix_size(enum htp_type type, int64_t ne0, int64_t ne1) {
    return (uint64_t) htp_tile_n_col_tiles(ne1) * (uint64_t) htp_tile_n_k_tiles(type, ne0) * htp_tile_size(type);
}

#ifdef __cplusplus
}
#endif
