// One pass of MUL_MAT_TILED's phases (activation prep, then tile dot products over every
// column tile of one weight plane), shared by MUL_MAT_TILED (mul-mat-tiled.cpp: passes over
// the activation planes) and MUL_MAT_ID_TILED (mul-mat-id.cpp: passes over the activation
// rows routed to one expert). Layout: htp-abi/params/mul-mat.h, docs/mul-mat.md.
#pragma once
#include "mul-mat-rows.h"
#include "op-table.h"

namespace htp_ops {
namespace mmt {

// Runs the pass's n (<= p.act_rows_per_pass) activation rows against the tiled weight plane
// at wbase on p's threads; returns an HTP_STATUS_*.
int run_pass(htp_op_context * octx, const htp_mul_mat_tiled_params & p, const mm_act_rows & c, dma_addr_t wbase);

}  // namespace mmt
}  // namespace htp_ops
