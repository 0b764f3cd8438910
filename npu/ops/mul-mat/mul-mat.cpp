// MUL_MAT, flat weights, HVX path (layout and phases: htp-abi/params/mul-mat.h,
// docs/mul-mat.md; the phases live in mul-mat-flat.h).
#include "mul-mat-flat.h"
#include "op-table.h"

using namespace htp_ops;

int htp_op_mul_mat(struct htp_op_context * octx) {
    const htp_mul_mat_params & p = octx->params->mul_mat;
    mm_job                     job;
    mm_job_init(job, octx, &p);
    return mm_for_each_chunk(p.act, p.act_rows_per_chunk, [&](const mm_act_rows & c, uint32_t i02, uint32_t i03) {
        job.c   = c;
        job.i02 = i02;
        job.i03 = i03;
        return mm_run_chunk(job);
    });
}
