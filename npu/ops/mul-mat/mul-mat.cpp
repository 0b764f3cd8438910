// MUL_MAT, flat weights, HVX path (layout and phases: htp-abi/params/mul-mat.h,
// docs/mul-mat.md; the phases live in mul-mat-flat.h).
#include "mul-mat-flat.h"
#include "op-table.h"

using namespace htp_ops;

int htp_op_mul_mat(struct htp_op_context * octx) {
    const htp_mul_mat_params & p = octx->params->mul_mat;
    mm_job                     job;
    mm_job_init(job, octx, &p);
    for (uint32_t plane = 0; plane < p.n_planes; plane++) {
        job.c.i3 = htp_fastdiv(plane, &p.div_ne12);
        job.c.i2 = plane - job.c.i3 * p.ne12;
        job.i02  = htp_fastdiv(job.c.i2, &p.div_r2);
        job.i03  = htp_fastdiv(job.c.i3, &p.div_r3);
        for (uint32_t i1 = 0; i1 < p.ne11; i1 += p.act_rows_per_chunk) {
            job.c.i1_0 = i1;
            job.c.n    = p.ne11 - i1 < p.act_rows_per_chunk ? p.ne11 - i1 : p.act_rows_per_chunk;
            const int st = mm_run_chunk(job);
            if (st != HTP_STATUS_OK) {
                return st;
            }
        }
    }
    return HTP_STATUS_OK;
}
