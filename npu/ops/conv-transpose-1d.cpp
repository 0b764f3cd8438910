// CONV_TRANSPOSE_1D F32 (p0 = 0, d0 = 1, as ggml requires): dst[oc][il * s0 + k] +=
// sum_ic in[ic][il] * w[ic][oc][k], as ggml-cpu's conv_transpose_1d_f32: each position il's
// sum over ic is added to the dst row in il order. A row is one output channel oc. Each thread
// fetches the input once (start: Cin rows of L floats); per row one 2-D descriptor brings the
// kernel slice (Cin rows of K floats, their tails zeroed once so whole vectors can be summed),
// HVX forms for each il the vectors over k of sum_ic w[ic][k] * in[ic][il] (the input value
// splat from a lane) and adds them to the dst row at il * s0 with unaligned loads and stores
// (the row has a vector of slack), and one descriptor writes the OL values back.
// CONV_TRANSPOSE_2D is that with a loop over input rows (params/sequence.h): a dst row (oy, oc,
// n) fetches, for each input row iy that reaches it (ky = oy - iy * s0 in [0, KH)), that row's
// Cin input rows and the kernel slice of ky, and sums their 1-D convolutions, iy ascending as
// ggml-cpu's ggml_compute_forward_conv_transpose_2d adds them. With an F16 kernel the slice is
// widened to F32 and the input rounded to F16 first (ggml-cpu converts the input to the
// kernel's type; products of F16 values are exact in F32, so the sums are F32 as there).
// COL2IM_1D runs here too (params/sequence.h): the row's L column pieces are fetched as the
// kernel slice is, widened from F16 / BF16 if so, and added at il * s0 without a product; the
// sums are narrowed back to the columns' type and written from value `crop` on.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct conv_t1d_op : row_op<htp_conv_transpose_1d_params> {
    // Before the row stream (start_op, row-stream.h): the kernel slots' row tails zeroed (the
    // fetches write only K values of a row), and CONV_TRANSPOSE_1D's input fetched into v_in.
    int start() {
        HVX_Vector *     w = vptr(vtcm_at(octx->ctx, p->split, ith, p->vw.offset));
        const HVX_Vector z = Q6_V_vzero();
        for (uint32_t i = 0; i < p->vw.slot_size * p->split.n_bufs / 128; i++) {
            hvx_vmem_store(w + i, z);
        }
        if (p->col2im || p->in_rows > 0) {
            return HTP_STATUS_OK;  // no input beside the columns, or input rows fetched per dst row
        }
        htp_trace * tr = &octx->ctx->trace[ith];
        if (!dma_queue_push(q, vtcm_at(octx->ctx, p->split, ith, p->v_in), octx->src[1].data, p->in_pitch, p->in_nb1,
                            p->L * 4, p->Cin)) {
            return HTP_STATUS_DMA_ERROR;
        }
        dma_pop_n(q, tr, 1, (uint16_t) p->Cin);  // info: input rows fetched
        return HTP_STATUS_OK;
    }

    // The input rows iy that reach dst row oy: iy0 .. iy0 + n - 1 (ky = oy - iy * s0 < KH).
    struct in_span {
        uint32_t iy0, n;
    };

    in_span span_of(uint32_t oy) const {
        uint32_t hi = htp_fastdiv(oy, &p->div_s0);
        hi          = hi < p->H - 1 ? hi : p->H - 1;
        const uint32_t lo = oy + 1 >= p->KH ? htp_fastdiv(oy + p->s0 - p->KH, &p->div_s0) : 0;
        return { lo, hi >= lo ? hi - lo + 1 : 0 };
    }

    // One row per chunk (the host plans so): per input row that reaches it, the kernel slice
    // (Cin rows of kernel row ky) and, unless the input is the thread's, that input row's Cin
    // rows; COL2IM_1D: the L column pieces.
    int fetch(uint32_t r, uint32_t, uint32_t slot) {
        const row_pos  c   = row_coords(p->shape, r);
        const uint32_t es  = p->type == HTP_TYPE_F32 ? 4 : 2;
        const dma_addr_t w = vtcm_slot(octx->ctx, p->split, ith, p->vw, slot);
        if (p->col2im) {
            const dma_addr_t cols = octx->src[0].data + c.i2 * p->w_nb1;
            return dma_queue_push(q, w, cols, p->k_pitch, p->w_nb2, p->K * es, p->L) ? 1 : -1;
        }
        const in_span sp = span_of(c.i1);
        for (uint32_t j = 0; j < sp.n; j++) {
            const uint32_t   iy = sp.iy0 + j;
            const dma_addr_t k  = octx->src[0].data + c.i2 * p->w_nb1 + (c.i1 - iy * p->s0) * p->w_nb_ky;
            if (!dma_queue_push(q, w + j * p->Cin * p->k_pitch, k, p->k_pitch, p->w_nb2, p->K * es, p->Cin)) {
                return -1;
            }
            if (p->in_rows > 0 &&
                !dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->vin, slot) + j * p->Cin * p->in_pitch,
                                octx->src[1].data + c.i3 * p->in_nb_img + iy * p->in_nb_row, p->in_pitch, p->in_nb1,
                                p->L * 4, p->Cin)) {
                return -1;
            }
        }
        return (int) (sp.n * (p->in_rows > 0 ? 2 : 1));
    }

    // One input row's Cin rows `in` (pitch nvi vectors) against the kernel slice w (Cin rows of
    // wpv vectors, nvk of them summed) into dst row y.
    HTP_COMPUTE void compute_conv(const HVX_Vector * w, uint32_t wpv, uint32_t nvk, const HVX_Vector * in,
                                  HVX_Vector * y) {
        const uint32_t nvi = p->in_pitch / 128;
        for (uint32_t il = 0; il < p->L; il++) {
            uint8_t *          yo   = (uint8_t *) y + il * p->s0 * 4;
            const HVX_Vector * inl  = in + (il >> 5);
            const int32_t      lane = (int32_t) ((il & 31) * 4);
            for (uint32_t i = 0; i < nvk; i++) {
                HVX_Vector acc = Q6_V_vzero();
                HTP_NO_UNROLL
                for (uint32_t ic = 0; ic < p->Cin; ic++) {
                    const HVX_Vector x = Q6_V_vsplat_R(Q6_R_vextract_VR(hvx_vmem_load(&inl[ic * nvi]), lane));
                    acc = Q6_Vsf_vadd_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&w[ic * wpv + i]), x));
                }
                hvx_vmemu_store(yo + i * 128, Q6_Vsf_vadd_VsfVsf(hvx_vmemu_load(yo + i * 128), acc));
            }
        }
    }

    // n pairs of F32 vectors rounded to F16 and back in place (ggml-cpu's GGML_CPU_FP32_TO_FP16:
    // to nearest even; Vhf_vcvt puts a's lanes even, Wsf_vcvt takes the even ones to lo).
    HTP_COMPUTE void compute_round_f16(HVX_Vector * v, uint32_t n) {
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < n; i++) {
            const HVX_VectorPair w =
                Q6_Wsf_vcvt_Vhf(Q6_Vhf_vcvt_VsfVsf(hvx_vmem_load(&v[2 * i]), hvx_vmem_load(&v[2 * i + 1])));
            hvx_vmem_store(&v[2 * i], Q6_V_lo_W(w));
            hvx_vmem_store(&v[2 * i + 1], Q6_V_hi_W(w));
        }
    }

    // An F16 kernel slice of n vectors widened to F32 (2 n) in v_wide.
    HTP_COMPUTE void compute_widen(HVX_Vector * wide, const HVX_Vector * w, uint32_t n) {
        f16_to_f32_vectors(wide, w, n);
    }

    // CONV_TRANSPOSE_1D / 2D: the 1-D convolutions of the input rows that reach dst row r (a
    // function of its own: its loop only calls the compute pieces, which keep their registers).
    HTP_COMPUTE void compute_conv_rows(uint32_t r, uint32_t slot, HVX_Vector * y) {
        const uint32_t oy   = row_coords(p->shape, r).i1;
        const in_span  sp   = span_of(oy);
        const uint32_t nkv  = p->k_pitch / 128;                       // vectors of a fetched kernel row
        const uint32_t nvk  = p->round_f16 ? (p->K + 31) / 32 : nkv;  // F32 vectors summed per row
        HVX_Vector *   wide = vptr(vtcm_at(octx->ctx, p->split, ith, p->v_wide));
        for (uint32_t j = 0; j < sp.n; j++) {
            const HVX_Vector * w = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vw, slot)) + j * p->Cin * nkv;
            HVX_Vector *       in = p->in_rows > 0 ? vptr(vtcm_slot(octx->ctx, p->split, ith, p->vin, slot)) +
                                                     j * p->Cin * (p->in_pitch / 128)
                                               : vptr(vtcm_at(octx->ctx, p->split, ith, p->v_in));
            if (p->round_f16) {
                compute_widen(wide, w, p->Cin * nkv);
                compute_round_f16(in, p->Cin * p->in_pitch / 256);
                compute_conv(wide, 2 * nkv, nvk, in, y);
            } else {
                compute_conv(w, nkv, nvk, in, y);
            }
        }
    }

    // COL2IM_1D: column piece il (widened to F32 first unless F32) added at il * s0.
    HTP_COMPUTE void compute_col(const HVX_Vector * w, HVX_Vector * y) {
        HVX_Vector *   wide = vptr(vtcm_at(octx->ctx, p->split, ith, p->v_wide));
        const uint32_t nvk  = p->k_pitch / 128;
        const uint32_t nvf  = p->type == HTP_TYPE_F32 ? nvk : 2 * nvk;  // F32 vectors of a piece
        for (uint32_t il = 0; il < p->L; il++) {
            const HVX_Vector * x = w + il * nvk;
            if (p->type == HTP_TYPE_F16) {
                f16_to_f32_vectors(wide, x, nvk);
                x = wide;
            } else if (p->type == HTP_TYPE_BF16) {
                bf16_to_f32_vectors(wide, x, nvk);
                x = wide;
            }
            uint8_t * yo = (uint8_t *) y + il * p->s0 * 4;
            HTP_NO_UNROLL
            for (uint32_t i = 0; i < nvf; i++) {
                hvx_vmemu_store(yo + i * 128, Q6_Vsf_vadd_VsfVsf(hvx_vmemu_load(yo + i * 128), hvx_vmem_load(&x[i])));
            }
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t, uint32_t slot) {
        const HVX_Vector * w = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vw, slot));
        HVX_Vector *       y = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        for (uint32_t i = 0; i < p->vdst.row_pitch / 128; i++) {
            hvx_vmem_store(&y[i], Q6_V_vzero());
        }
        if (!p->col2im) {
            compute_conv_rows(r, slot, y);
            return;
        }
        compute_col(w, y);
        if (p->type == HTP_TYPE_F16) {  // narrowed whole vector pairs; the store crops
            f32_to_f16_vectors(vptr(vtcm_slot(octx->ctx, p->split, ith, p->vout, slot)), y, p->vdst.row_pitch / 256);
        } else if (p->type == HTP_TYPE_BF16) {
            f32_to_bf16_vectors(vptr(vtcm_slot(octx->ctx, p->split, ith, p->vout, slot)), y, p->vdst.row_pitch / 256);
        }
    }

    int store(uint32_t r, uint32_t, uint32_t slot) {
        const row_pos    c  = row_coords(p->shape, r);
        const dma_addr_t d  = octx->dst.data + row_offset(p->dst, c.i1, c.i2, c.i3);
        const uint32_t   es = p->col2im && p->type != HTP_TYPE_F32 ? 2 : 4;  // the convolutions' dst is F32
        const dma_addr_t v  = es == 4 ? vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot)
                                      : vtcm_slot(octx->ctx, p->split, ith, p->vout, slot);
        return dma_queue_push_1d(q, d, v + p->crop * es, p->OL * es) ? 1 : -1;
    }
};

}  // namespace

int htp_op_conv_transpose_1d(struct htp_op_context * octx) {
    return run_rows<conv_t1d_op>(octx, octx->params->conv_transpose_1d);
}
