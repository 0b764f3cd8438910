// MUL_MAT_ID (mixture of experts) kernels (htp-abi/params/mul-mat.h, docs/mul-mat.md): the
// routing (mul-mat-id.h) gathers each used expert's (slot, token) pairs into chunks of
// activation rows; a chunk runs through a MUL_MAT path's phases against that expert's weights
// only, each row's results scattered to its dst row.
//   MUL_MAT_ID:       flat weights, the flat HVX path's phases (mul-mat-flat.h).
//   MUL_MAT_ID_TILED: a tiled expert stack, the tiled HVX path's pass (mul-mat-tiled-pass.h).
//   MUL_MAT_ID_HMX:   a tiled expert stack, the HMX path's pass (mul-mat-hmx-pass.h).
#include "mul-mat-flat.h"
#include "mul-mat-hmx-pass.h"
#include "mul-mat-id.h"
#include "mul-mat-tiled-pass.h"

using namespace htp_ops;

int htp_op_mul_mat_id(struct htp_op_context * octx) {
    const htp_mul_mat_id_params & pid = octx->params->mul_mat_id;
    const htp_mul_mat_params &    p   = pid.mm;
    if (p.act_rows_per_chunk > HTP_MM_MAX_ACT_ROWS) {
        return HTP_STATUS_BAD_PARAMS;
    }
    mm_job   job;
    uint32_t src1_off[HTP_MM_MAX_ACT_ROWS];
    uint32_t dst_off[HTP_MM_MAX_ACT_ROWS];
    mm_job_init(job, octx, &p);
    job.i03 = 0;
    return mm_id_route(octx, pid.route, p.act, p.act_rows_per_chunk, src1_off, dst_off,
                       [&](uint32_t e, const mm_act_rows & c) {
                           job.i02 = e;
                           job.c   = c;
                           return mm_run_chunk(job);
                       });
}

int htp_op_mul_mat_id_tiled(struct htp_op_context * octx) {
    const htp_mul_mat_id_tiled_params & pid = octx->params->mul_mat_id_tiled;
    const htp_mul_mat_tiled_params &    p   = pid.mm;
    if (p.act_rows_per_pass > HTP_MMT_MAX_ACT_ROWS || !p.out_per_row) {
        return HTP_STATUS_BAD_PARAMS;
    }
    uint32_t src1_off[HTP_MMT_MAX_ACT_ROWS];
    uint32_t dst_off[HTP_MMT_MAX_ACT_ROWS];
    return mm_id_route(octx, pid.route, p.act, p.act_rows_per_pass, src1_off, dst_off,
                       [&](uint32_t e, const mm_act_rows & c) {
                           return mmt::run_pass(octx, p, c, octx->src[0].data + e * p.w_nb2);
                       });
}

int htp_op_mul_mat_id_hmx(struct htp_op_context * octx) {
    const htp_mul_mat_id_hmx_params & pid = octx->params->mul_mat_id_hmx;
    const htp_mul_mat_hmx_params &    p   = pid.mm;
    if (p.act_rows_per_chunk > HTP_MMH_MAX_ACT_ROWS || p.rt_repack) {
        return HTP_STATUS_BAD_PARAMS;
    }
    const int ok = mmh::check_params(octx, p);
    if (ok != HTP_STATUS_OK) {
        return ok;
    }
    uint32_t src1_off[HTP_MMH_MAX_ACT_ROWS];
    uint32_t dst_off[HTP_MMH_MAX_ACT_ROWS];
    return mm_id_route(octx, pid.route, p.act, p.act_rows_per_chunk, src1_off, dst_off,
                       [&](uint32_t e, const mm_act_rows & c) {
                           return mmh::run_pass(octx, p, c, octx->src[0].data + (dma_addr_t) e * p.wnb2);
                       });
}
