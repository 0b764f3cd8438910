// MUL_MAT_ID (mixture of experts), flat weights, HVX path (htp-abi/params/mul-mat.h,
// docs/mul-mat.md). The routing runs here: the ids are read once to check them and mark the
// used experts; then per used expert its (slot, token) pairs are gathered into chunks of
// activation rows that go through MUL_MAT's two phases (mul-mat-flat.h) against that
// expert's weights only, each row's results scattered to its dst row.
#include "mul-mat-flat.h"

using namespace htp_ops;

namespace {

struct id_reader {
    const htp_op_context *        octx;
    const htp_mul_mat_id_params * p;

    int32_t at(uint32_t i, uint32_t t) const {
        return *(const int32_t *) htp_va(octx->src[2].data + t * p->ids_nb1 + i * 4);
    }
};

}  // namespace

int htp_op_mul_mat_id(struct htp_op_context * octx) {
    const htp_mul_mat_id_params & pid = octx->params->mul_mat_id;
    const htp_mul_mat_params &    p   = pid.mm;
    if (octx->n_src < 3 || pid.n_as > HTP_MM_ID_MAX_EXPERTS || p.act_rows_per_chunk > HTP_MM_MAX_ACT_ROWS) {
        return HTP_STATUS_BAD_PARAMS;
    }
    const id_reader ids = { octx, &pid };

    // Pass 1: validate and mark the used experts.
    uint32_t used[HTP_MM_ID_MAX_EXPERTS / 32];
    for (uint32_t w = 0; w < (pid.n_as + 31) / 32; w++) {
        used[w] = 0;
    }
    for (uint32_t t = 0; t < pid.n_tokens; t++) {
        for (uint32_t i = 0; i < pid.n_ids; i++) {
            const int32_t e = ids.at(i, t);
            if (e < 0 || (uint32_t) e >= pid.n_as) {
                return HTP_STATUS_BAD_PARAMS;
            }
            used[e / 32] |= 1u << (e % 32);
        }
    }

    // Pass 2: per used expert, chunks of its routed rows.
    mm_job   job;
    uint32_t src1_off[HTP_MM_MAX_ACT_ROWS];
    uint32_t dst_off[HTP_MM_MAX_ACT_ROWS];
    mm_job_init(job, octx, &p);
    job.c.i1_0     = 0;
    job.c.i2       = 0;
    job.c.i3       = 0;
    job.c.src1_off = src1_off;
    job.c.dst_off  = dst_off;
    job.i03        = 0;
    for (uint32_t e = 0; e < pid.n_as; e++) {
        if (!(used[e / 32] & (1u << (e % 32)))) {
            continue;
        }
        job.i02    = e;
        uint32_t n = 0;
        for (uint32_t t = 0; t < pid.n_tokens; t++) {
            for (uint32_t i = 0; i < pid.n_ids; i++) {
                if ((uint32_t) ids.at(i, t) != e) {
                    continue;
                }
                const uint32_t i11 = i - htp_fastdiv(i, &pid.div_ne11) * p.ne11;
                src1_off[n]        = i11 * p.src1.nb1 + t * p.src1.nb2;
                dst_off[n]         = i * p.dst.nb1 + t * p.dst.nb2;
                if (++n == p.act_rows_per_chunk) {
                    job.c.n      = n;
                    const int st = mm_run_chunk(job);
                    if (st != HTP_STATUS_OK) {
                        return st;
                    }
                    n = 0;
                }
            }
        }
        if (n) {
            job.c.n      = n;
            const int st = mm_run_chunk(job);
            if (st != HTP_STATUS_OK) {
                return st;
            }
        }
    }
    return HTP_STATUS_OK;
}
