// The hyper-connection ops of deepseek4 and its kin, F32 (ggml-cpu's ops.cpp for the semantics):
// DSV4_HC_PRE (the hc streams of a token folded into one row by per-stream weights or sigmoid
// gates), DSV4_HC_POST (a row spread back into hc streams, mixed with the residual streams by a
// per-token hc x hc matrix) and DSV4_HC_COMB (that matrix: a softmax and Sinkhorn
// normalisation of 16 numbers per token). PRE / POST stream a token's rows through VTCM and
// sum whole rows on HVX in ggml's order (one pass over the row per term); COMB puts tokens in
// vector lanes so its per-token arithmetic is plain lane-wise vector code.
#include "hvx-math.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

// y = a (first term) or y += a: x * w over n_vec vectors.
inline void mul_splat(HVX_Vector * y, const HVX_Vector * x, HVX_Vector w, uint32_t n_vec, uint32_t acc) {
    if (acc) {
        HTP_NO_UNROLL
        for (uint32_t v = 0; v < n_vec; v++) {
            hvx_vmem_store(&y[v], Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(&y[v]), Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&x[v]), w)));
        }
        return;
    }
    HTP_NO_UNROLL
    for (uint32_t v = 0; v < n_vec; v++) {
        hvx_vmem_store(&y[v], Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&x[v]), w));
    }
}

// y (+)= x * sigmoid(g).
inline void mul_gate(HVX_Vector * y, const HVX_Vector * x, const HVX_Vector * g, uint32_t n_vec,
                                  uint32_t acc) {
    HTP_NO_UNROLL
    for (uint32_t v = 0; v < n_vec; v++) {
        const HVX_Vector t = Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&x[v]), sigmoid_sf(hvx_vmem_load(&g[v])));
        hvx_vmem_store(&y[v], acc ? Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(&y[v]), t) : t);
    }
}

// y += x (POST without comb: each stream keeps its own residual).
inline void add_rows(HVX_Vector * y, const HVX_Vector * x, uint32_t n_vec) {
    HTP_NO_UNROLL
    for (uint32_t v = 0; v < n_vec; v++) {
        hvx_vmem_store(&y[v], Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(&y[v]), hvx_vmem_load(&x[v])));
    }
}

// Element i of a VTCM float array, splat (HVX load, then vextract).
inline HVX_Vector splat_elem(const HVX_Vector * a, uint32_t i) {
    return Q6_V_vsplat_R(Q6_R_vextract_VR(hvx_vmem_load(&a[i / 32]), (int32_t) (4 * (i % 32))));
}

struct hc_op : row_op<htp_hc_params> {
    dma_addr_t slot(const htp_vtcm_stream & st, uint32_t s, uint32_t j) const {
        return vtcm_slot(octx->ctx, p->split, ith, st, s) + j * st.row_pitch;
    }

    int fetch(uint32_t r, uint32_t n, uint32_t s) {
        const bool pre = p->kind == HTP_HC_PRE || p->kind == HTP_HC_PRE_GATED;
        int        k   = 0;
        if (!pre) {  // POST: the chunk's x rows at once
            if (!dma_queue_push(q, slot(p->vx, s, 0), octx->src[0].data + r * p->nb_x1, p->vx.row_pitch, p->nb_x1,
                                p->row_bytes, n)) {
                return -1;
            }
            k++;
        }
        for (uint32_t j = 0; j < n; j++) {
            const uint32_t t  = r + j;
            bool           ok = true;
            if (pre) {
                ok = dma_queue_push(q, slot(p->vx, s, j), octx->src[0].data + t * p->nb_x2, p->pitch, p->nb_x1,
                                    p->row_bytes, p->hc);
                ok = ok && (p->kind == HTP_HC_PRE_GATED
                                ? dma_queue_push(q, slot(p->vw, s, j), octx->src[1].data + t * p->nb_w2, p->pitch,
                                                 p->nb_w1, p->row_bytes, p->hc)
                                : dma_queue_push_1d(q, slot(p->vw, s, j), octx->src[1].data + t * p->nb_w1, p->hc * 4));
                k += 2;
            } else {
                ok = dma_queue_push(q, slot(p->vw, s, j), octx->src[1].data + t * p->nb_r2, p->pitch, p->nb_r1,
                                    p->row_bytes, p->hc) &&
                     dma_queue_push_1d(q, slot(p->vs, s, j), octx->src[2].data + t * p->nb_p1, p->hc * 4);
                k += 2;
                if (p->kind == HTP_HC_POST) {
                    ok = ok && dma_queue_push_1d(q, slot(p->vs, s, j) + 128, octx->src[3].data + t * p->nb_c2,
                                                 p->hc * p->hc * 4);
                    k++;
                }
            }
            if (!ok) {
                return -1;
            }
        }
        return k;
    }

    // One token's rows, its passes inlined (a leaf: the chunk loop keeps only its counters across
    // the call, and no pass call keeps the token's pointers in callee-saved registers).
    HTP_COMPUTE void compute_token(uint32_t s, uint32_t j) const {
        const uint32_t     n_vec = (p->n_embd + 31) / 32;
        const uint32_t     pv    = p->pitch / 128;
        const uint32_t     hc    = p->hc;
        const HVX_Vector * x     = vptr(slot(p->vx, s, j));
        const HVX_Vector * w     = vptr(slot(p->vw, s, j));
        HVX_Vector *       y     = vptr(slot(p->vdst, s, j));
        if (p->kind == HTP_HC_PRE) {
            for (uint32_t h = 0; h < hc; h++) {
                mul_splat(y, x + h * pv, splat_elem(w, h), n_vec, h);
            }
            mul_splat(y, y, splat_f32(p->scale), n_vec, 0);
        } else if (p->kind == HTP_HC_PRE_GATED) {
            for (uint32_t h = 0; h < hc; h++) {
                mul_gate(y, x + h * pv, w + h * pv, n_vec, h);
            }
            mul_splat(y, y, splat_f32(p->scale), n_vec, 0);
        } else {
            const HVX_Vector * sm = vptr(slot(p->vs, s, j));  // post at 0, comb at 128
            for (uint32_t d = 0; d < hc; d++) {
                HVX_Vector * yd = y + d * pv;
                mul_splat(yd, x, splat_elem(sm, d), n_vec, 0);
                if (p->kind == HTP_HC_POST_ID) {
                    add_rows(yd, w + d * pv, n_vec);
                    continue;
                }
                for (uint32_t src = 0; src < hc; src++) {
                    mul_splat(yd, w + src * pv, splat_elem(sm + 1, d + hc * src), n_vec, 1);
                }
            }
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t s) {
        for (uint32_t j = 0; j < n; j++) {
            compute_token(s, j);
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t s) {
        if (p->kind == HTP_HC_PRE || p->kind == HTP_HC_PRE_GATED) {
            return dma_queue_push(q, octx->dst.data + r * p->nb_d1, slot(p->vdst, s, 0), p->nb_d1, p->vdst.row_pitch,
                                  p->row_bytes, n) ? 1 : -1;
        }
        for (uint32_t j = 0; j < n; j++) {
            if (!dma_queue_push(q, octx->dst.data + (r + j) * p->nb_d2, slot(p->vdst, s, j), p->nb_d1, p->pitch,
                                p->row_bytes, p->hc)) {
                return -1;
            }
        }
        return (int) n;
    }
};

// COMB: 16 vectors c[d + 4 s], lane = token.
constexpr uint32_t kHc = 4;

// e^(c - max) over d of each source's 4 entries (the softmax's numerators), in place.
HTP_COMPUTE void compute_comb_exp(HVX_Vector * c) {
    HTP_NO_UNROLL
    for (uint32_t s = 0; s < kHc; s++) {
        HVX_Vector *     g = c + kHc * s;
        const HVX_Vector m = sf_max(sf_max(hvx_vmem_load(&g[0]), hvx_vmem_load(&g[1])),
                                    sf_max(hvx_vmem_load(&g[2]), hvx_vmem_load(&g[3])));
        HTP_NO_UNROLL
        for (uint32_t d = 0; d < kHc; d++) {
            hvx_vmem_store(&g[d], exp_sf(Q6_Vsf_vsub_VsfVsf(hvx_vmem_load(&g[d]), m)));
        }
    }
}

// The softmax's division, plus eps: c / sum_d(c) + eps per source.
HTP_COMPUTE void compute_comb_softmax(HVX_Vector * c, float eps_f) {
    const HVX_Vector eps = splat_f32(eps_f);
    HTP_NO_UNROLL
    for (uint32_t s = 0; s < kHc; s++) {
        HVX_Vector *     g   = c + kHc * s;
        const HVX_Vector sum = Q6_Vsf_vadd_VsfVsf(
            Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(&g[0]), hvx_vmem_load(&g[1])), hvx_vmem_load(&g[2])),
            hvx_vmem_load(&g[3]));
        const HVX_Vector inv = div_sf(splat_f32(1.0f), sum);
        HTP_NO_UNROLL
        for (uint32_t d = 0; d < kHc; d++) {
            hvx_vmem_store(&g[d], Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&g[d]), inv), eps));
        }
    }
}

// Each group of 4 entries (stride `step` vectors, groups `gstep` apart) scaled by
// 1 / (eps + its sum): step 4, gstep 1 normalises the columns (fixed d), step 1, gstep 4 the rows.
HTP_COMPUTE void compute_comb_norm(HVX_Vector * c, float eps_f, uint32_t step, uint32_t gstep) {
    const HVX_Vector eps = splat_f32(eps_f);
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < kHc; i++) {
        HVX_Vector * g   = c + i * gstep;
        HVX_Vector   sum = eps;
        for (uint32_t k = 0; k < kHc; k++) {
            sum = Q6_Vsf_vadd_VsfVsf(sum, hvx_vmem_load(&g[k * step]));
        }
        const HVX_Vector inv = div_sf(splat_f32(1.0f), sum);
        for (uint32_t k = 0; k < kHc; k++) {
            hvx_vmem_store(&g[k * step], Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&g[k * step]), inv));
        }
    }
}

struct hc_comb_op : row_op<htp_hc_comb_params> {
    // scale and base DMA-ed to vconst, then scale[2] and base[8 ..] splat into the 17 vectors
    // after them (at vconst + 256), once per thread before its row stream (start_op,
    // row-stream.h): the compute reads them from VTCM.
    int start() {
        const dma_addr_t at = vtcm_at(octx->ctx, p->split, ith, p->vconst);
        if (!dma_queue_push_1d(q, at, octx->src[1].data, p->scale_bytes) ||
            !dma_queue_push_1d(q, at + 128, octx->src[2].data, p->base_bytes)) {
            dma_queue_flush(q);
            return HTP_STATUS_DMA_ERROR;
        }
        dma_queue_pop(q);
        dma_queue_pop(q);
        HVX_Vector * v = vptr(at);
        hvx_vmem_store(&v[2], splat_elem(v, 2));  // scale[2]
        for (uint32_t i = 0; i < kHc * kHc; i++) {
            hvx_vmem_store(&v[3 + i], splat_elem(v + 1, 2 * kHc + i));
        }
        return HTP_STATUS_OK;
    }

    int fetch(uint32_t r, uint32_t n, uint32_t s) {
        const dma_addr_t v   = vtcm_slot(octx->ctx, p->split, ith, p->vx, s);
        const dma_addr_t src = octx->src[0].data + r * p->nb_m1 + 2 * kHc * 4;
        for (uint32_t i = 0; i < kHc * kHc; i++) {  // entry i of n tokens -> lanes 0..n-1 of vector i
            if (!dma_queue_push(q, v + i * 128, src + i * 4, 4, p->nb_m1, 4, n)) {
                return -1;
            }
        }
        return (int) (kHc * kHc);
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t, uint32_t s) {
        const HVX_Vector * x   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vx, s));
        HVX_Vector *       c   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, s));
        const HVX_Vector * k   = vptr(vtcm_at(octx->ctx, p->split, ith, p->vconst)) + 2;  // scale, base splats
        const float        eps = p->eps;
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < kHc * kHc; i++) {
            hvx_vmem_store(&c[i], Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&x[i]), hvx_vmem_load(&k[0])),
                                                     hvx_vmem_load(&k[1 + i])));
        }
        compute_comb_exp(c);
        compute_comb_softmax(c, eps);
        compute_comb_norm(c, eps, kHc, 1);
        for (uint32_t it = 1; it < p->n_iter; it++) {
            compute_comb_norm(c, eps, 1, kHc);
            compute_comb_norm(c, eps, kHc, 1);
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t s) {
        const dma_addr_t v = vtcm_slot(octx->ctx, p->split, ith, p->vdst, s);
        const dma_addr_t d = octx->dst.data + r * p->nb_d2;
        for (uint32_t i = 0; i < kHc * kHc; i++) {
            if (!dma_queue_push(q, d + i * 4, v + i * 128, p->nb_d2, 4, 4, n)) {
                return -1;
            }
        }
        return (int) (kHc * kHc);
    }
};

}  // namespace

int htp_op_dsv4_hc_comb(struct htp_op_context * octx) {
    return run_rows<hc_comb_op>(octx, octx->params->hc_comb);
}

int htp_op_dsv4_hc(struct htp_op_context * octx) {
    return run_rows<hc_op>(octx, octx->params->hc);
}
