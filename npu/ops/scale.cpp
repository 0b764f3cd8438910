// SCALE F32: y = x * scale (+ bias when has_bias).
#include "hvx-util.h"
#include "hvx-vmem.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct scale_op : row_op<htp_scale_params> {
    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     n_vec = (p->ne0 + 31) / 32;
        const HVX_Vector   vs    = splat_f32(p->scale);
        const HVX_Vector   vb    = splat_f32(p->bias);
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * x = x0 + j * (p->vsrc.row_pitch / 128);
            HVX_Vector *       y = y0 + j * (p->vdst.row_pitch / 128);
            if (p->has_bias) {
                for (uint32_t i = 0; i < n_vec; i++) {
                    hvx_vmem_store(y + i, Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(x + i), vs), vb));
                }
            } else {
                for (uint32_t i = 0; i < n_vec; i++) {
                    hvx_vmem_store(y + i, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(x + i), vs));
                }
            }
        }
    }
};

}  // namespace

int htp_op_scale(struct htp_op_context * octx) {
    return run_rows<scale_op>(octx, octx->params->scale);
}
