// RWKV_WKV6, RWKV_WKV7, GATED_LINEAR_ATTN F32: the linear-attention recurrences of
// ggml-cpu's ggml_compute_forward_rwkv_wkv6_f32 / _rwkv_wkv7_f32 / _gla_f32, one (head,
// sequence) pair per work row. The pair's S x S state stays in VTCM from its first token block
// to its last (npu/ops/pair-blocks.h); per token, with vectors over the state row (NV vectors
// of 32 floats, a template argument so that accumulators stay in registers):
//   WKV6 (row i = S[i][:]):  kv = v * k[i];  out += (S[i] + kv * u[i]) * r[i];  S[i] = S[i] * w[i] + kv
//   GLA  (row i = S[i][:]):  S[i] = S[i] * g[i] + v * k[i];  out += S[i] * (q[i] * scale)
//   WKV7 (row j = S[:][j], over the value index):
//        pass 1: sa = sum_j a[j] * S[:][j]
//        pass 2: S[:][j] = S[:][j] * w[j] + v * k[j] + sa * b[j];  out += S[:][j] * r[j]
// The per-row scalars (k[i], r[i], ...) are vextract'ed from their token's VTCM vectors (no
// scalar VTCM reads). Inputs come per token block (one 2-D descriptor per stream, two slots),
// output rows go out per block, the final state after the pair's last block.
#include "dma-tickets.h"
#include "hvx-util.h"
#include "op-table.h"
#include "pair-blocks.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

enum wkv_kind { WKV6, WKV7, GLA };

// ggml's sources of each kind: the per-token input streams in the order the kernel reads them,
// then the state.
template <int KIND> struct wkv_srcs;
template <> struct wkv_srcs<WKV6> {  // k, v, r, tf, td, state: streams k v r td; u = tf (src 3)
    static constexpr uint32_t n_in = 4, state = 5;
    static uint32_t src(uint32_t i) { return i == 3 ? 4 : i; }
};
template <> struct wkv_srcs<WKV7> {  // r, w, k, v, a, b, state
    static constexpr uint32_t n_in = 6, state = 6;
    static uint32_t src(uint32_t i) { return i; }
};
template <> struct wkv_srcs<GLA> {  // k, v, q, g, state
    static constexpr uint32_t n_in = 4, state = 4;
    static uint32_t src(uint32_t i) { return i; }
};

template <int KIND> struct wkv_thread {
    using srcs = wkv_srcs<KIND>;
    const htp_op_context * octx;
    const htp_wkv_params * p;
    uint32_t               ith;
    dma_tickets            t;

    dma_addr_t at(uint32_t off) const { return vtcm_at(octx->ctx, p->split, ith, off); }

    dma_addr_t in_slot(uint32_t i, uint32_t slot) const { return at(p->v_in + (2 * i + slot) * p->blk_size); }

    using unit = head_seq_unit;

    unit make_unit(uint32_t pair, const pair_block & b) const { return head_seq_at(pair, b, &p->div_H, p->H); }

    uint32_t fetch(const unit & u, uint32_t slot) {
        const uint32_t S    = p->S;
        uint32_t       last = t.pushed;
        if (u.block == 0) {
            const dma_addr_t src = octx->src[srcs::state].data + u.s * p->state_nb + u.h * S * S * 4;
            const dma_addr_t dst = at(p->v_state[u.state]);
            if (KIND == WKV7) {  // row j of VTCM <- column j of the stored S[i][j]
                for (uint32_t j = 0; j < S; j++) {
                    last = t.push(dst + j * p->pitch, src + j * 4, 4, S * 4, 4, S);
                }
            } else {
                last = t.push(dst, src, p->pitch, S * 4, S * 4, S);
            }
            if (KIND == WKV6) {  // time_faaaa [S, H]: the head's row
                last = t.push(at(p->v_u[u.state]), octx->src[3].data + u.h * S * 4, S * 4, S * 4, S * 4, 1);
            }
        }
        // token t0 of sequence s, head h: ((s * T + t0) * H + h) * S floats into the inputs
        const uint32_t off = (u.s * p->T + u.t0) * p->tok_nb + u.h * S * 4;
        for (uint32_t i = 0; i < srcs::n_in; i++) {
            last = t.push(in_slot(i, slot), octx->src[srcs::src(i)].data + off, p->pitch, p->tok_nb, S * 4, u.nt);
        }
        return last;
    }

    HTP_COMPUTE void compute_chunk(const unit & u, uint32_t slot) {
        compute_tokens_nv(*this, p->pitch / 128, u, slot);
    }

    template <uint32_t NV> HTP_COMPUTE void compute_tokens(const unit & u, uint32_t slot) {
        HTP_NO_UNROLL
        for (uint32_t tt = 0; tt < u.nt; tt++) {
            if (KIND == WKV7) {
                compute_token_wkv7<NV>(slot, u.state, tt);
            } else {
                compute_token_rows<NV>(u, slot, tt);
            }
        }
    }

    const HVX_Vector * in_row(uint32_t i, uint32_t slot, uint32_t tt, uint32_t nv) const {
        return vptr(in_slot(i, slot)) + tt * nv;
    }

    // The token's output row: its NV accumulators.
    template <uint32_t NV> void put_out_row(uint32_t slot, uint32_t tt, const HVX_Vector (&acc)[NV]) const {
        HVX_Vector * o = vptr(at(p->v_out + slot * p->blk_size)) + tt * NV;
        for (uint32_t m = 0; m < NV; m++) {
            hvx_vmem_store(&o[m], acc[m]);
        }
    }

    // WKV6 and GLA: state row i = S[i][:], streams k, v, then r, w (time_decay; u per state
    // row) for WKV6, q, g for GLA.
    template <uint32_t NV> HTP_COMPUTE void compute_token_rows(const unit & u, uint32_t slot, uint32_t tt) {
        const HVX_Vector * K  = in_row(0, slot, tt, NV);
        const HVX_Vector * V  = in_row(1, slot, tt, NV);
        const HVX_Vector * X  = in_row(2, slot, tt, NV);  // r (WKV6), q (GLA)
        const HVX_Vector * D  = in_row(3, slot, tt, NV);  // w (WKV6), g (GLA): the decay
        const HVX_Vector * U  = vptr(at(p->v_u[u.state]));
        HVX_Vector *       st = vptr(at(p->v_state[u.state]));
        HVX_Vector         acc[NV];
        for (uint32_t m = 0; m < NV; m++) {
            acc[m] = Q6_V_vzero();
        }
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < p->S; i++) {
            const HVX_Vector ki = splat_f32(lane_f32(hvx_vmem_load(&K[i / 32]), i % 32));
            const HVX_Vector di = splat_f32(lane_f32(hvx_vmem_load(&D[i / 32]), i % 32));
            if constexpr (KIND == WKV6) {
                const HVX_Vector ri = splat_f32(lane_f32(hvx_vmem_load(&X[i / 32]), i % 32));
                const HVX_Vector ui = splat_f32(lane_f32(hvx_vmem_load(&U[i / 32]), i % 32));
                for (uint32_t m = 0; m < NV; m++) {
                    const HVX_Vector kv = Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&V[m]), ki);
                    const HVX_Vector s  = hvx_vmem_load(&st[m]);
                    const HVX_Vector tv = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(kv, ui), s);
                    acc[m]              = Q6_Vsf_vadd_VsfVsf(acc[m], Q6_Vsf_vmpy_VsfVsf(tv, ri));
                    hvx_vmem_store(&st[m], Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(s, di), kv));
                }
            } else {
                const HVX_Vector qi = splat_f32(lane_f32(hvx_vmem_load(&X[i / 32]), i % 32) * p->scale);
                for (uint32_t m = 0; m < NV; m++) {
                    const HVX_Vector s = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&st[m]), di),
                                                            Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&V[m]), ki));
                    hvx_vmem_store(&st[m], s);
                    acc[m]             = Q6_Vsf_vadd_VsfVsf(acc[m], Q6_Vsf_vmpy_VsfVsf(s, qi));
                }
            }
            st += NV;
        }
        put_out_row<NV>(slot, tt, acc);
    }

    // streams r, w, k, v, a, b; state row j = S[:][j].
    template <uint32_t NV> HTP_COMPUTE void compute_token_wkv7(uint32_t slot, uint32_t state, uint32_t tt) {
        const HVX_Vector * R  = in_row(0, slot, tt, NV);
        const HVX_Vector * W  = in_row(1, slot, tt, NV);
        const HVX_Vector * K  = in_row(2, slot, tt, NV);
        const HVX_Vector * V  = in_row(3, slot, tt, NV);
        const HVX_Vector * A  = in_row(4, slot, tt, NV);
        const HVX_Vector * B  = in_row(5, slot, tt, NV);
        HVX_Vector *       st = vptr(at(p->v_state[state]));
        HVX_Vector         sa[NV];
        for (uint32_t m = 0; m < NV; m++) {
            sa[m] = Q6_V_vzero();
        }
        // pass 1: sa = S a
        const HVX_Vector * sr = st;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < p->S; j++) {
            const HVX_Vector aj = splat_f32(lane_f32(hvx_vmem_load(&A[j / 32]), j % 32));
            for (uint32_t m = 0; m < NV; m++) {
                sa[m] = Q6_Vsf_vadd_VsfVsf(sa[m], Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&sr[m]), aj));
            }
            sr += NV;
        }
        // pass 2: update and readout
        HVX_Vector acc[NV];
        for (uint32_t m = 0; m < NV; m++) {
            acc[m] = Q6_V_vzero();
        }
        HVX_Vector * sw = st;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < p->S; j++) {
            const HVX_Vector wj = splat_f32(lane_f32(hvx_vmem_load(&W[j / 32]), j % 32));
            const HVX_Vector kj = splat_f32(lane_f32(hvx_vmem_load(&K[j / 32]), j % 32));
            const HVX_Vector bj = splat_f32(lane_f32(hvx_vmem_load(&B[j / 32]), j % 32));
            const HVX_Vector rj = splat_f32(lane_f32(hvx_vmem_load(&R[j / 32]), j % 32));
            for (uint32_t m = 0; m < NV; m++) {
                const HVX_Vector x = Q6_Vsf_vadd_VsfVsf(
                    Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&sw[m]), wj),
                                       Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&V[m]), kj)),
                    Q6_Vsf_vmpy_VsfVsf(sa[m], bj));
                hvx_vmem_store(&sw[m], x);
                acc[m] = Q6_Vsf_vadd_VsfVsf(acc[m], Q6_Vsf_vmpy_VsfVsf(x, rj));
            }
            sw += NV;
        }
        put_out_row<NV>(slot, tt, acc);
    }

    uint32_t store(const unit & u, uint32_t slot) {
        const uint32_t   S    = p->S;
        const dma_addr_t out  = octx->dst.data + (u.s * p->T + u.t0) * p->tok_nb + u.h * S * 4;
        uint32_t         last = t.push(out, at(p->v_out + slot * p->blk_size), p->tok_nb, p->pitch, S * 4, u.nt);
        if (u.block + 1 == p->n_blocks) {  // the final state
            const dma_addr_t d   = octx->dst.data + p->out_bytes + u.s * p->state_nb + u.h * S * S * 4;
            const dma_addr_t src = at(p->v_state[u.state]);
            if (KIND == WKV7) {  // row j of VTCM -> column j
                for (uint32_t j = 0; j < S; j++) {
                    last = t.push(d + j * 4, src + j * p->pitch, S * 4, 4, 4, S);
                }
            } else {
                last = t.push(d, src, S * 4, p->pitch, S * 4, S);
            }
        }
        return last;
    }

    int run(row_range rr) { return run_pair_blocks(*this, rr, { p->n_blocks, p->tok_block, p->T }); }
};

template <int KIND> static int run_wkv(htp_op_context * octx) {
    // The block streams are a double buffer (slot = unit & 1), as the host plans them.
    if (octx->params->wkv.split.n_bufs != 2) {
        return HTP_STATUS_BAD_PARAMS;
    }
    return run_ticket_threads<wkv_thread<KIND>>(octx, &octx->params->wkv);
}

}  // namespace

int htp_op_rwkv_wkv6(struct htp_op_context * octx) {
    return run_wkv<WKV6>(octx);
}

int htp_op_rwkv_wkv7(struct htp_op_context * octx) {
    return run_wkv<WKV7>(octx);
}

int htp_op_gated_linear_attn(struct htp_op_context * octx) {
    return run_wkv<GLA>(octx);
}
