// One pass of MUL_MAT_HMX's phases (activation rows -> FP16 tiles, then every column tile of
// one weight plane dequantized and multiplied on HMX), shared by MUL_MAT_HMX
// (mul-mat-hmx.cpp: passes over chunks of the activation planes) and MUL_MAT_ID_HMX
// (mul-mat-id.cpp: passes over the activation rows routed to one expert).
// Layout: htp-abi/params/mul-mat.h, docs/mul-mat.md "HMX path".
#pragma once
#include "mul-mat-rows.h"
#include "op-table.h"

namespace htp_ops {
namespace mmh {

// HTP_STATUS_OK when p and octx's weight (tiled, or flat for rt_repack: never both) are
// something the pass can run (checked once per op).
int check_params(const htp_op_context * octx, const htp_mul_mat_hmx_params & p);

// Runs the pass's n (<= p.act_rows_per_chunk) activation rows against the weight plane at
// wbase (tiled, or flat rows for rt_repack) on p's threads; returns an HTP_STATUS_*.
int run_pass(htp_op_context * octx, const htp_mul_mat_hmx_params & p, const mm_act_rows & c, dma_addr_t wbase);

}  // namespace mmh
}  // namespace htp_ops
