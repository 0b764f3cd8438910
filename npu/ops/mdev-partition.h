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
// - Members whose kernels write DDR through HVX / L2 must own whole 128-byte lines
//   (units_per_chunk = 128 / gcd(row_bytes, 128) rows); DMA writes have no such rule, so the
//   row-streaming kernels split in whole DMA chunks (split.rows_per_chunk).
#pragma once
#include "op-context.h"

namespace htp_ops {

struct mdev_range {
    uint32_t start;
    uint32_t count;
};

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

}  // namespace htp_ops
