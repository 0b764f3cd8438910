// SET_ROWS: F32 rows into F32 / F16 / BF16 rows or the quantized rows of htp_quant_row (Q8_0,
// Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, Q1_0, Q2_0, the K-quants, MXFP4, NVFP4, TQ1_0, TQ2_0:
// npu/ops/quantize-row.h), F16 rows into F16 / F32 / BF16 rows or, widened to F32 first, the
// quantized ones. Source rows stream in as chunks; each converted
// row is written back by its own DMAs to the row its I32 / I64 index names (the KV-cache
// update): one for a plain row, one per field for a quantized one.
#include "op-table.h"
#include "quantize-row.h"

using namespace htp_ops;

namespace {

inline bool quantized(uint32_t t) {
    return t != HTP_TYPE_F32 && t != HTP_TYPE_F16 && t != HTP_TYPE_BF16;
}

struct set_rows_op : row_op<htp_set_rows_params> {
    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        return fetch_chunk(octx, p, ith, q, r, n, slot, p->ne0 * (p->src_type == HTP_TYPE_F16 ? 2 : 4));
    }

    // One row loop per (source, destination) type (no type branch per row).
    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     px = p->vsrc.row_pitch / 128;
        const uint32_t     py = p->vdst.row_pitch / 128;
        const uint32_t     n64 = (p->ne0 + 63) / 64;  // pairs of F32 vectors, vectors of F16 / BF16
        if (quantized(p->dst_type)) {
            if (p->src_type == HTP_TYPE_F16) {  // widened in each dst row's F32 scratch, then quantized
                HVX_Vector * w = y + p->quant.v_f32 / 128;
                HTP_NO_UNROLL
                for (uint32_t j = 0; j < n; j++) {
                    f16_to_f32_vectors(w + j * py, x + j * px, n64);
                }
                quantize_rows(p->dst_type, w, py, y, py, n, &p->quant);
            } else {
                quantize_rows(p->dst_type, x, px, y, py, n, &p->quant);
            }
        } else if (p->src_type == HTP_TYPE_F16) {  // F16 rows copied, widened to F32 or rounded to BF16
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < n; j++) {
                if (p->dst_type == HTP_TYPE_F16) {
                    copy_vectors(y + j * py, x + j * px, n64);
                } else if (p->dst_type == HTP_TYPE_F32) {
                    f16_to_f32_vectors(y + j * py, x + j * px, n64);
                } else {
                    f16_to_bf16_vectors(y + j * py, x + j * px, n64);
                }
            }
        } else if (p->dst_type == HTP_TYPE_F16) {
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < n; j++) {
                f32_to_f16_vectors(y + j * py, x + j * px, n64);
            }
        } else if (p->dst_type == HTP_TYPE_BF16) {
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < n; j++) {
                f32_to_bf16_vectors(y + j * py, x + j * px, n64);
            }
        } else {
            const uint32_t n_vec = (p->ne0 + 31) / 32;
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < n; j++) {
                copy_vectors(y + j * py, x + j * px, n_vec);
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c   = row_coords(p->shape, r);  // (i01, i02, i03)
        const uint32_t   i11 = htp_fastmod(c.i2, &p->mod_ne11);
        const uint32_t   i12 = htp_fastmod(c.i3, &p->mod_ne12);
        const dma_addr_t v   = vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot);
        const bool       qz  = quantized(p->dst_type);
        for (uint32_t j = 0; j < n; j++) {
            const dma_addr_t ia  = octx->src[1].data + row_offset(p->idx, c.i1 + j, i11, i12);
            const uint32_t   row = p->idx_i64 ? (uint32_t) *(const int64_t *) htp_va(ia)
                                              : (uint32_t) *(const int32_t *) htp_va(ia);
            const dma_addr_t d   = octx->dst.data + row_offset(p->dst, row, c.i2, c.i3);
            const dma_addr_t s   = v + j * p->vdst.row_pitch;
            if (qz ? !quant_row_store(q, d, s, p->quant) : !dma_queue_push_1d(q, d, s, p->dst_row_bytes)) {
                return -1;
            }
        }
        return (int) (qz ? p->quant.n_fields * n : n);
    }
};

}  // namespace

int htp_op_set_rows(struct htp_op_context * octx) {
    return run_rows<set_rows_op>(octx, octx->params->set_rows);
}
