// Dispatch of the repack API to the per-format operations; row ranges, padding, stacks.
#include <vector>

#include "repack-internal.h"

using namespace htp_repack;

// Valid matrix: ne0 a positive multiple of both the flat block and K_cols.
static const format_ops * check_matrix(enum htp_type type, int64_t ne0, int64_t ne1) {
    const format_ops * ops = find_ops(type);
    if (!ops || ne0 <= 0 || ne1 <= 0) {
        return nullptr;
    }
    if (ne0 % ops->flat_block_k != 0 || ne0 % htp_tile_k_cols(type) != 0) {
        return nullptr;
    }
    return ops;
}

static uint8_t * row_tile(void * tiled, enum htp_type type, int64_t ct, int64_t n_k_tiles) {
    return (uint8_t *) tiled + htp_tile_offset(type, ct, 0, n_k_tiles);
}

bool htp_repack_supported(enum htp_type type) { return find_ops(type) != nullptr; }

bool htp_repack_lossless(enum htp_type type) {
    const format_ops * ops = find_ops(type);
    return ops && ops->lossless;
}

uint32_t htp_repack_flat_block_k(enum htp_type type) {
    const format_ops * ops = find_ops(type);
    return ops ? ops->flat_block_k : 0;
}

size_t htp_repack_flat_row_size(enum htp_type type, int64_t ne0) {
    const format_ops * ops = find_ops(type);
    if (!ops || ne0 <= 0 || ne0 % ops->flat_block_k != 0) {
        return 0;
    }
    return (size_t) (ne0 / ops->flat_block_k) * ops->flat_block_size;
}

bool htp_repack_fill_padding(enum htp_type type, void * dst_tiled, int64_t ne0, int64_t ne1) {
    const format_ops * ops = check_matrix(type, ne0, ne1);
    if (!ops) {
        return false;
    }
    const int64_t n_k_tiles = htp_tile_n_k_tiles(type, ne0);
    const int64_t ct        = htp_tile_n_col_tiles(ne1) - 1;
    const int     r_first   = (int) (ne1 - ct * HTP_TENSOR_TILE_N_ROWS);
    if (r_first == HTP_TENSOR_TILE_N_ROWS) {
        return true;
    }
    const std::vector<uint8_t> zero_row(htp_repack_flat_row_size(type, ne0), 0);
    for (int r = r_first; r < HTP_TENSOR_TILE_N_ROWS; r++) {
        ops->pack_row(row_tile(dst_tiled, type, ct, n_k_tiles), r, zero_row.data(), n_k_tiles);
    }
    return true;
}

// What repacking or un-repacking rows [row0, row1) of one [ne0, ne1] matrix needs: the format's
// row functions (null when the matrix or the range is not one it takes), tiles along K and
// the flat row size.
struct rows_job {
    const format_ops * ops;
    int64_t            n_k_tiles;
    size_t             row_size;
};

static rows_job rows_job_of(enum htp_type type, int64_t ne0, int64_t ne1, int64_t row0, int64_t row1) {
    const format_ops * ops = check_matrix(type, ne0, ne1);
    if (!ops || row0 < 0 || row1 > ne1 || row0 > row1) {
        return { nullptr, 0, 0 };
    }
    return { ops, htp_tile_n_k_tiles(type, ne0), htp_repack_flat_row_size(type, ne0) };
}

bool htp_repack_rows(enum htp_type type, void * dst_tiled, const void * src_flat, int64_t ne0, int64_t ne1,
                     int64_t row0, int64_t row1) {
    const auto [ops, n_k_tiles, row_size] = rows_job_of(type, ne0, ne1, row0, row1);
    if (!ops) {
        return false;
    }
    const uint8_t * src = (const uint8_t *) src_flat;
    for (int64_t row = row0; row < row1; row++) {
        const int64_t ct = row / HTP_TENSOR_TILE_N_ROWS;
        ops->pack_row(row_tile(dst_tiled, type, ct, n_k_tiles), (int) (row % HTP_TENSOR_TILE_N_ROWS),
                      src + (size_t) (row - row0) * row_size, n_k_tiles);
    }
    if (row1 == ne1 && row1 > row0) {
        htp_repack_fill_padding(type, dst_tiled, ne0, ne1);
    }
    return true;
}

bool htp_unrepack_rows(enum htp_type type, void * dst_flat, const void * src_tiled, int64_t ne0, int64_t ne1,
                       int64_t row0, int64_t row1) {
    const auto [ops, n_k_tiles, row_size] = rows_job_of(type, ne0, ne1, row0, row1);
    if (!ops) {
        return false;
    }
    uint8_t * dst = (uint8_t *) dst_flat;
    for (int64_t row = row0; row < row1; row++) {
        const int64_t ct = row / HTP_TENSOR_TILE_N_ROWS;
        ops->unpack_row(dst + (size_t) (row - row0) * row_size,
                        row_tile(const_cast<void *>(src_tiled), type, ct, n_k_tiles),
                        (int) (row % HTP_TENSOR_TILE_N_ROWS), n_k_tiles);
    }
    return true;
}

// Splits the flat row range [row0, row1) of a stack of [ne0, ne1] matrices at matrix edges.
template <typename F> static bool for_each_matrix(int64_t ne1, int64_t row0, int64_t row1, F && f) {
    if (ne1 <= 0 || row0 < 0 || row0 > row1) {
        return false;
    }
    for (int64_t r = row0; r < row1;) {
        const int64_t mat = r / ne1;
        const int64_t end = (mat + 1) * ne1 < row1 ? (mat + 1) * ne1 : row1;
        if (!f(mat, r - mat * ne1, end - mat * ne1, r - row0)) {
            return false;
        }
        r = end;
    }
    return true;
}

bool htp_repack_rows_stacked(enum htp_type type, void * dst_tiled, const void * src_flat, int64_t ne0, int64_t ne1,
                             int64_t row0, int64_t row1) {
    const uint64_t mat_size = htp_tiled_matrix_size(type, ne0, ne1);
    const size_t   row_size = htp_repack_flat_row_size(type, ne0);
    return mat_size && for_each_matrix(ne1, row0, row1, [&](int64_t mat, int64_t r0, int64_t r1, int64_t done) {
        return htp_repack_rows(type, (uint8_t *) dst_tiled + mat * mat_size,
                               (const uint8_t *) src_flat + (size_t) done * row_size, ne0, ne1, r0, r1);
    });
}

bool htp_unrepack_rows_stacked(enum htp_type type, void * dst_flat, const void * src_tiled, int64_t ne0, int64_t ne1,
                               int64_t row0, int64_t row1) {
    const uint64_t mat_size = htp_tiled_matrix_size(type, ne0, ne1);
    const size_t   row_size = htp_repack_flat_row_size(type, ne0);
    return mat_size && for_each_matrix(ne1, row0, row1, [&](int64_t mat, int64_t r0, int64_t r1, int64_t done) {
        return htp_unrepack_rows(type, (uint8_t *) dst_flat + (size_t) done * row_size,
                                 (const uint8_t *) src_tiled + mat * mat_size, ne0, ne1, r0, r1);
    });
}

bool htp_repack_tile_to_f16(enum htp_type type, const void * src_tiled, int64_t ne0, int64_t ne1, int64_t ct,
                            int64_t kt, uint16_t * out) {
    const format_ops * ops = check_matrix(type, ne0, ne1);
    const int64_t      n_k_tiles = htp_tile_n_k_tiles(type, ne0);
    if (!ops || ct < 0 || ct >= htp_tile_n_col_tiles(ne1) || kt < 0 || kt >= n_k_tiles) {
        return false;
    }
    ops->tile_to_f16(row_tile(const_cast<void *>(src_tiled), type, ct, n_k_tiles), kt, out);
    return true;
}
