// CPY / CONT / DUP between F32, F16 and BF16, between F32 and I32 (ggml-cpu's casts: I32 -> F32
// rounds to nearest, F32 -> I32 truncates toward zero, for |x| < 2^31), I32 to I32 (copied as
// bytes), F32 / F16 / BF16 rows quantized (npu/ops/quantize-row.h) into the blocks of a
// contiguous dst, and quantized rows into the same type as F16 or byte (I8) units. Row r is
// src's row r in its shape and dst's row r in dst_shape. Rows of a strided source are gathered
// element by element with a 2-D DMA (row size = element size, src stride = nb0); a strided
// destination is scattered the same way. HVX converts between the two VTCM buffers.
#include "op-table.h"
#include "quantize-row.h"

using namespace htp_ops;

namespace {

inline uint32_t type_size(uint32_t t) {
    return t == HTP_TYPE_F16 || t == HTP_TYPE_BF16 ? 2 : t == HTP_TYPE_I8 ? 1 : 4;
}

inline bool quantized(uint32_t t) {
    return t != HTP_TYPE_F32 && t != HTP_TYPE_F16 && t != HTP_TYPE_BF16 && t != HTP_TYPE_I32 && t != HTP_TYPE_I8;
}

// Integer words as floats, rounded once: x = hi * 2^16 + lo with both halves exact as floats.
HTP_COMPUTE void compute_i32_to_f32(HVX_Vector * y, const HVX_Vector * x, uint32_t n_vec) {
    const HVX_Vector mask = Q6_V_vsplat_R(0xffff);
    const HVX_Vector k16  = splat_f32(65536.0f);
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n_vec; i++) {
        const HVX_Vector v  = hvx_vmem_load(x + i);
        const HVX_Vector hi = int_to_sf_small(Q6_Vw_vasr_VwR(v, 16));
        const HVX_Vector lo = int_to_sf_small(Q6_V_vand_VV(v, mask));
        hvx_vmem_store(y + i, Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(hi, k16), lo));
    }
}

// trunc(v) as integer words for |v| < 2^22: v + 1.5 * 2^23 rounds v to an integer in the low
// mantissa bits, stepped back toward zero where the rounding went away from it.
static inline HVX_Vector trunc_small(HVX_Vector v) {
    const HVX_Vector     t    = Q6_Vsf_vadd_VsfVsf(v, splat_f32(12582912.0f));
    const HVX_Vector     r    = Q6_Vsf_vsub_VsfVsf(t, splat_f32(12582912.0f));
    HVX_Vector           n    = Q6_Vw_vsub_VwVw(t, Q6_V_vsplat_R(0x4b400000));
    const HVX_VectorPred neg  = Q6_Q_vcmp_gt_VwVw(Q6_V_vzero(), v);  // sign bit set
    const HVX_VectorPred up   = Q6_Q_and_QQ(Q6_Q_not_Q(neg), sf_gt(r, v));
    const HVX_VectorPred down = Q6_Q_and_QQ(neg, sf_gt(v, r));
    n = Q6_V_vmux_QVV(up, Q6_Vw_vsub_VwVw(n, Q6_V_vsplat_R(1)), n);
    return Q6_V_vmux_QVV(down, Q6_Vw_vadd_VwVw(n, Q6_V_vsplat_R(1)), n);
}

// Floats truncated to integer words (|x| < 2^31): hi = trunc(x / 2^16), then the exact rest.
HTP_COMPUTE void compute_f32_to_i32(HVX_Vector * y, const HVX_Vector * x, uint32_t n_vec) {
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < n_vec; i++) {
        const HVX_Vector v  = hvx_vmem_load(x + i);
        const HVX_Vector hi = trunc_small(Q6_Vsf_vmpy_VsfVsf(v, splat_f32(1.0f / 65536.0f)));
        const HVX_Vector lo = Q6_Vsf_vsub_VsfVsf(v, Q6_Vsf_vmpy_VsfVsf(int_to_sf_small(hi), splat_f32(65536.0f)));
        hvx_vmem_store(y + i, Q6_Vw_vadd_VwVw(Q6_Vw_vasl_VwR(hi, 16), trunc_small(lo)));
    }
}

struct cpy_op : row_op<htp_cpy_params> {
    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c  = row_coords(p->shape, r);
        const dma_addr_t s  = octx->src[0].data + row_offset(p->src, c.i1, c.i2, c.i3);
        const dma_addr_t v  = vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot);
        const uint32_t   es = type_size(p->src_type);
        const bool       ok = p->src_gather ? dma_queue_push(q, v, s, es, p->src_nb0, es, p->ne0)  // n == 1
                                            : dma_queue_push(q, v, s, p->vsrc.row_pitch, p->src.nb1, p->ne0 * es, n);
        return ok ? 1 : -1;
    }

    // n rows quantized: F16 / BF16 rows widened into each dst row's F32 scratch first.
    HTP_COMPUTE void compute_quant_chunk(const HVX_Vector * x0, HVX_Vector * y0, uint32_t n) {
        const uint32_t px = p->vsrc.row_pitch / 128, py = p->vdst.row_pitch / 128;
        if (p->src_type == HTP_TYPE_F32) {
            quantize_rows(p->dst_type, x0, px, y0, py, n, &p->quant);
            return;
        }
        HVX_Vector *   w   = y0 + p->quant.v_f32 / 128;
        const uint32_t n64 = (p->ne0 + 63) / 64;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < n; j++) {
            if (p->src_type == HTP_TYPE_F16) {
                f16_to_f32_vectors(w + j * py, x0 + j * px, n64);
            } else {
                bf16_to_f32_vectors(w + j * py, x0 + j * px, n64);
            }
        }
        quantize_rows(p->dst_type, w, py, y0, py, n, &p->quant);
    }

    // n rows converted to or from BF16 (through F32, rounded as GGML_FP32_TO_BF16 /
    // GGML_FP32_TO_FP16): one row loop per type pair.
    HTP_COMPUTE void compute_bf16_chunk(const HVX_Vector * x0, HVX_Vector * y0, uint32_t n) {
        const uint32_t px = p->vsrc.row_pitch / 128, py = p->vdst.row_pitch / 128;
        const uint32_t n64 = (p->ne0 + 63) / 64;
        void (*conv)(HVX_Vector *, const HVX_Vector *, uint32_t) =
            p->src_type == HTP_TYPE_F32   ? f32_to_bf16_vectors :
            p->src_type == HTP_TYPE_F16   ? f16_to_bf16_vectors :
            p->dst_type == HTP_TYPE_F32   ? bf16_to_f32_vectors : bf16_to_f16_vectors;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < n; j++) {
            conv(y0 + j * py, x0 + j * px, n64);
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        if (quantized(p->dst_type)) {
            compute_quant_chunk(x0, y0, n);
            return;
        }
        if (p->src_type != p->dst_type && (p->src_type == HTP_TYPE_BF16 || p->dst_type == HTP_TYPE_BF16)) {
            compute_bf16_chunk(x0, y0, n);
            return;
        }
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * x = x0 + j * (p->vsrc.row_pitch / 128);
            HVX_Vector *       y = y0 + j * (p->vdst.row_pitch / 128);
            if (p->src_type == p->dst_type) {
                copy_vectors(y, x, (p->ne0 * type_size(p->src_type) + 127) / 128);
            } else if (p->src_type == HTP_TYPE_I32) {
                compute_i32_to_f32(y, x, (p->ne0 + 31) / 32);
            } else if (p->dst_type == HTP_TYPE_I32) {
                compute_f32_to_i32(y, x, (p->ne0 + 31) / 32);
            } else if (p->src_type == HTP_TYPE_F32) {
                f32_to_f16_vectors(y, x, (p->ne0 + 63) / 64);
            } else {
                f16_to_f32_vectors(y, x, (p->ne0 + 63) / 64);
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c  = row_coords(p->dst_shape, r);
        const dma_addr_t d  = octx->dst.data + row_offset(p->dst, c.i1, c.i2, c.i3);
        const dma_addr_t v  = vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot);
        if (quantized(p->dst_type)) {  // each row's fields into its blocks (a chunk stays in one plane)
            for (uint32_t j = 0; j < n; j++) {
                if (!quant_row_store(q, d + j * p->dst.nb1, v + j * p->vdst.row_pitch, p->quant)) {
                    return -1;
                }
            }
            return (int) (p->quant.n_fields * n);
        }
        const uint32_t   es = type_size(p->dst_type);
        const bool       ok = p->dst_scatter ? dma_queue_push(q, d, v, p->dst_nb0, es, es, p->ne0)  // n == 1
                                             : dma_queue_push(q, d, v, p->dst.nb1, p->vdst.row_pitch, p->ne0 * es, n);
        return ok ? 1 : -1;
    }
};

}  // namespace

int htp_op_cpy(struct htp_op_context * octx) {
    return run_rows<cpy_op>(octx, octx->params->cpy);
}
