// SCALE of F32 or BF16 rows: y = x * scale (+ bias when has_bias). BF16 rows are widened to
// F32 in registers, 64 elements at a time, and narrowed back (ggml_compute_forward_scale_bf16).
#include "hvx-util.h"
#include "hvx-vmem.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct scale_op : row_op<htp_scale_params> {
    // Rows are BF16 or F32: the row_op's fetch/store with the row's own size.
    uint32_t row_bytes() const { return p->ne0 * (p->bf16 ? 2 : 4); }

    int fetch(uint32_t r, uint32_t n, uint32_t slot) { return fetch_chunk(octx, p, ith, q, r, n, slot, row_bytes()); }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     n_vec = (p->ne0 + 31) / 32;
        const HVX_Vector   vs    = splat_f32(p->scale);
        const HVX_Vector   vb    = splat_f32(p->bias);
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * x = x0 + j * (p->vsrc.row_pitch / 128);
            HVX_Vector *       y = y0 + j * (p->vdst.row_pitch / 128);
            if (p->bf16) {
                HTP_NO_UNROLL
                for (uint32_t i = 0; i < (p->ne0 + 63) / 64; i++) {
                    const HVX_VectorPair w  = bf16_to_f32_pair(hvx_vmem_load(x + i));
                    HVX_Vector           lo = Q6_Vsf_vmpy_VsfVsf(Q6_V_lo_W(w), vs);
                    HVX_Vector           hi = Q6_Vsf_vmpy_VsfVsf(Q6_V_hi_W(w), vs);
                    if (p->has_bias) {
                        lo = Q6_Vsf_vadd_VsfVsf(lo, vb);
                        hi = Q6_Vsf_vadd_VsfVsf(hi, vb);
                    }
                    hvx_vmem_store(y + i, f32_to_bf16_vector(lo, hi));
                }
            } else if (p->has_bias) {
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

    int store(uint32_t r, uint32_t n, uint32_t slot) { return store_chunk(octx, p, ith, q, r, n, slot, row_bytes()); }
};

}  // namespace

int htp_op_scale(struct htp_op_context * octx) {
    return run_rows<scale_op>(octx, octx->params->scale);
}
