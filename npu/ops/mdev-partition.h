// Multi-device partitioning (npu/src/mdev.h): which part of an op's output this member of a
// device group computes. The members write disjoint ranges; who runs what is decided here, on
// the NPU, from the group's index and count and the host's fastdiv of the count.
//
// Rules kept:
// - Outer dims are flattened (total = ne1 * ne2 * ne3 rows) and partitioned once globally, in
//   whole units of units_per_chunk, the remainder to the last member.
// - Too few chunks for the members, or units_per_chunk 0 (the tensor cannot be split safely):
//   member 0 computes everything, the others nothing (single-device fallback).
// - Ranges are stateless: a member's start coordinates come from its row_start alone.
// - Members whose kernels write DDR through HVX / L2 must own whole 128-byte lines: by rows,
//   mdev_rows_per_chunk (128 / gcd(row_bytes, 128) rows per unit, with the contiguity and
//   alignment checks), or by elements of a contiguous tensor, mdev_partition_elements (one
//   line per unit). DMA writes have no such rule, so the row-streaming kernels split in whole
//   DMA chunks (split.rows_per_chunk).
#pragma once
#include "op-context.h"

namespace htp_ops {

struct mdev_range {
    uint32_t start;
    uint32_t count;
};

// The line two members must never share when they write DDR through HVX / L2 (HTP_L2_LINE_SIZE).
static constexpr uint32_t kMdevLine = 128;

static inline uint32_t mdev_gcd(uint32_t a, uint32_t b) {
    while (b) {
        const uint32_t t = a % b;
        a                = b;
        b                = t;
    }
    return a;
}

// t's data starts on a 128-byte line (the spec's htp_tensor_mdev_data_aligned).
static inline bool mdev_data_aligned(const htp_tensor & t) {
    return (t.data & (kMdevLine - 1)) == 0;
}

// t is one dense run of ne0 * ne1 * ne2 * ne3 elements of elem_size bytes, in index order.
static inline bool mdev_is_contiguous(const htp_tensor & t, uint32_t elem_size) {
    return t.nb[0] == elem_size && t.nb[1] == t.ne[0] * elem_size && t.nb[2] == t.ne[1] * t.nb[1] &&
           t.nb[3] == t.ne[2] * t.nb[2];
}

// Rows of t (flattened outer dims: r = i1 + ne1 * (i2 + ne2 * i3)) per partition unit so that
// members given whole units write whole 128-byte lines: 128 / gcd(row_bytes, 128) when rows are
// packed (nb1 == row_bytes), 1 when every row starts on a line (nb1 a multiple of 128). An
// outer dim either continues the rows densely (nb2 == ne1 * nb1, nb3 == ne2 * nb2) or starts
// on a line with a whole number of units per block before it. False (*rows_per_chunk 0: the
// member-0 fallback) when t cannot be split by lines: data not on a line, dim 0 not dense,
// rows overlapping or padded to no line, or an outer stride off the line.
static inline bool mdev_rows_per_chunk(const htp_tensor & t, uint32_t elem_size, uint32_t * rows_per_chunk) {
    *rows_per_chunk          = 0;
    const uint32_t row_bytes = t.ne[0] * elem_size;
    if (!mdev_data_aligned(t) || t.nb[0] != elem_size || row_bytes == 0 || t.nb[1] < row_bytes) {
        return false;
    }
    uint32_t rpc;
    if (t.nb[1] == row_bytes) {
        rpc = kMdevLine / mdev_gcd(row_bytes, kMdevLine);
    } else if (t.nb[1] % kMdevLine == 0) {
        rpc = 1;
    } else {
        return false;
    }
    // span: rows of the current dense block (offsets base + j * nb1). An outer dim may not
    // overlap or permute the one inside it; it either continues the block or starts a new
    // one, on a line, after a whole number of units.
    uint64_t span       = t.ne[1];
    uint64_t inner      = (uint64_t) t.ne[1] * t.nb[1];  // bytes the dims inside dim k span
    bool     block_open = true;
    for (int k = 2; k < 4; k++) {
        if (t.ne[k] == 1) {
            continue;  // its stride is never used
        }
        if (t.nb[k] < inner) {
            return false;
        }
        if (t.nb[k] == inner && block_open) {
            span *= t.ne[k];
        } else if (t.nb[k] % kMdevLine != 0 || span % rpc != 0) {
            return false;
        } else {
            block_open = false;
        }
        inner = (uint64_t) t.ne[k] * t.nb[k];
    }
    *rows_per_chunk = rpc;
    return true;
}

// The element partition of an elementwise op that writes DDR through HVX / L2: the
// ne0 * ne1 * ne2 * ne3 elements of a contiguous, line-aligned t in units of one line
// (128 / elem_size elements). Member 0 alone when t is not contiguous or not aligned, or has
// fewer lines than the group has members.
static inline mdev_range mdev_partition_elements(const htp_tensor & t, uint32_t elem_size, const htp_mdev * m);

static inline mdev_range mdev_partition(uint32_t total_units, uint32_t units_per_chunk, const htp_mdev * m) {
    mdev_range r = { 0, 0 };
    const uint32_t n_chunks = units_per_chunk ? (total_units + units_per_chunk - 1) / units_per_chunk : 0;
    if (n_chunks < m->count) {
        r.count = m->idx == 0 ? total_units : 0;
        return r;
    }
    const uint32_t per_member = htp_fastdiv(n_chunks, &m->count_div) * units_per_chunk;
    r.start = m->idx * per_member;
    r.count = m->idx + 1 == m->count ? total_units - r.start : per_member;
    return r;
}

static inline mdev_range mdev_partition_elements(const htp_tensor & t, uint32_t elem_size, const htp_mdev * m) {
    const uint32_t n    = t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3];
    const bool     ok   = elem_size && kMdevLine % elem_size == 0 && mdev_is_contiguous(t, elem_size) &&
                          mdev_data_aligned(t);
    return mdev_partition(n, ok ? kMdevLine / elem_size : 0, m);
}

}  // namespace htp_ops
