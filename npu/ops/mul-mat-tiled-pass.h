// One pass of MUL_MAT_TILED's phases (activation prep, then tile dot products over every
// column tile of one weight plane), shared by MUL_MAT_TILED (mul-mat-tiled.cpp: passes over
// the activation planes) and MUL_MAT_ID_TILED (mul-mat-id.cpp: passes over the activation
// rows routed to one expert). Layout: htp-abi/params/mul-mat.h, docs/mul-mat.md.
#pragma once
#include "op-table.h"

namespace htp_ops {
namespace mmt {

// The activation rows one pass works on: [i1_0, i1_0 + n) of plane (i2, i3); or, when
// src1_off is set (MUL_MAT_ID), row j at src1 + src1_off[j], its results at dst + dst_off[j]
// (one descriptor per row: the host plans out_per_row).
struct mm_pass {
    uint32_t         i1_0, n, i2, i3;
    const uint32_t * src1_off;
    const uint32_t * dst_off;
};

// Runs the pass's n (<= p.act_rows_per_pass) activation rows against the tiled weight plane
// at wbase on p's threads; returns an HTP_STATUS_*.
int run_pass(htp_op_context * octx, const htp_mul_mat_tiled_params & p, const mm_pass & c, dma_addr_t wbase);

}  // namespace mmt
}  // namespace htp_ops
