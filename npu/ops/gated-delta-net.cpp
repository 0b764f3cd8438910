// GATED_DELTA_NET F32. Per (head, sequence) pair the S_v x S_v state S is kept in VTCM with
// row i holding S[i][:] (the DDR state is stored transposed, so it is gathered / scattered by
// S_v descriptors of one-element rows). Per token, with vectors over j:
//   pass 1 (row i):  S[i] *= exp(g)  (g[i] for KDA);  acc += k[i] * S[i]
//   delta = (v - acc) * beta
//   pass 2 (row i):  S[i] += k[i] * delta;             out += q[i] * S[i]
//   attn = out / sqrt(S_v)
// which is ggml-cpu's decay, delta rule, rank-1 update and readout. Tokens come in blocks
// (q, k, v, g, beta: one 2-D descriptor each per block, two slots: the next block loads while
// this one computes); the states of the last K tokens are copied into snapshot buffers and
// scattered to their dst slots after the block. k, q and the gates of a token are read as
// scalars by vextract from their vectors (no scalar VTCM reads, no stack copy).
#include "dma-tickets.h"
#include "hvx-math.h"
#include "hvx-util.h"
#include "op-table.h"
#include "pair-blocks.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct gdn_thread {
    const htp_op_context * octx;
    const htp_gdn_params * p;
    uint32_t               ith;
    dma_tickets            t;

    dma_addr_t at(uint32_t off) const { return vtcm_at(octx->ctx, p->split, ith, off); }

    using unit = head_seq_unit;

    unit make_unit(uint32_t pair, const pair_block & b) const { return head_seq_at(pair, b, &p->div_H, p->H); }

    uint32_t fetch(const unit & u, uint32_t slot) {
        const uint32_t S   = p->S_v;
        uint32_t       last = t.pushed;
        if (u.block == 0) {  // S[i][j] = M[j][i]: column i of the stored matrix into row i
            const dma_addr_t src = octx->src[5].data + u.s * p->state_nb3 + u.h * S * S * 4;
            const dma_addr_t dst = at(p->v_state[u.state]);
            for (uint32_t i = 0; i < S; i++) {
                last = t.push(dst + i * p->pitch, src + i * 4, 4, S * 4, 4, S);
            }
        }
        const uint32_t   iq1 = htp_fastmod(u.h, &p->mod_neq1), ik1 = htp_fastmod(u.h, &p->mod_nek1);
        const uint32_t   iq3 = htp_fastdiv(u.s, &p->div_rq3), ik3 = htp_fastdiv(u.s, &p->div_rk3);
        const dma_addr_t qs  = octx->src[0].data + iq3 * p->q.nb3 + u.t0 * p->q.nb2 + iq1 * p->q.nb1;
        const dma_addr_t ks  = octx->src[1].data + ik3 * p->k.nb3 + u.t0 * p->k.nb2 + ik1 * p->k.nb1;
        const dma_addr_t vs  = octx->src[2].data + u.s * p->v.nb3 + u.t0 * p->v.nb2 + u.h * p->v.nb1;
        const dma_addr_t gs  = octx->src[3].data + u.s * p->g.nb3 + u.t0 * p->g.nb2 + u.h * p->g.nb1;
        const dma_addr_t bs  = octx->src[4].data + u.s * p->beta.nb3 + u.t0 * p->beta.nb2 + u.h * p->beta.nb1;
        last = t.push(at(p->v_q + slot * p->q_size), qs, p->pitch, p->q.nb2, S * 4, u.nt);
        last = t.push(at(p->v_k + slot * p->k_size), ks, p->pitch, p->k.nb2, S * 4, u.nt);
        last = t.push(at(p->v_v + slot * p->v_size), vs, p->pitch, p->v.nb2, S * 4, u.nt);
        last = t.push(at(p->v_g + slot * p->g_size), gs, p->g_pitch, p->g.nb2, p->kda ? S * 4 : 4, u.nt);
        last = t.push(at(p->v_beta + slot * p->beta_size), bs, 4, p->beta.nb2, 4, u.nt);
        return last;
    }

    // The block's tokens, one out-of-line compute_token each; the scalar gate's e^g (expf, a
    // call) is taken here, where no vector is live. NV = vectors per state row, a template
    // argument so that the per-row accumulators are registers, not a stack array.
    HTP_COMPUTE void compute_chunk(const unit & u, uint32_t slot) {
        compute_tokens_nv(*this, p->pitch / 128, u, slot);
    }

    template <uint32_t NV> HTP_COMPUTE void compute_tokens(const unit & u, uint32_t slot) {
        if (p->kda) {  // a loop each: a flag kept across the calls would be a predicate, spilled
            HTP_NO_UNROLL
            for (uint32_t tt = 0; tt < u.nt; tt++) {
                compute_token<NV>(u, slot, tt, 1.0f);
            }
            return;
        }
        const HVX_Vector * G = vptr(at(p->v_g + slot * p->g_size));
        HTP_NO_UNROLL
        for (uint32_t tt = 0; tt < u.nt; tt++) {
            compute_token<NV>(u, slot, tt, __builtin_expf(lane_f32(hvx_vmem_load(&G[tt / 32]), tt % 32)));
        }
    }

    // Token tt: pass 1, pass 2, readout, snapshot. k[i], q[i] and the gates are vextract'ed
    // from their VTCM vectors; KDA's e^g per row waits in the token's output row (free until
    // the readout).
    template <uint32_t NV> HTP_COMPUTE void compute_token(const unit & u, uint32_t slot, uint32_t tt, float eg) {
        const uint32_t     S     = p->S_v;
        HVX_Vector *       W     = vptr(at(p->v_state[u.state]));
        const HVX_Vector * krow  = vptr(at(p->v_k + slot * p->k_size)) + tt * NV;
        const HVX_Vector * qrow  = vptr(at(p->v_q + slot * p->q_size)) + tt * NV;
        const HVX_Vector * vrow  = vptr(at(p->v_v + slot * p->v_size)) + tt * NV;
        const HVX_Vector * Bt    = vptr(at(p->v_beta + slot * p->beta_size));
        HVX_Vector *       orow  = vptr(at(p->v_attn + slot * p->attn_size)) + tt * NV;
        const bool         kda   = p->kda != 0;
        if (kda) {
            const HVX_Vector * grow = vptr(at(p->v_g + slot * p->g_size)) + tt * NV;
            for (uint32_t m = 0; m < NV; m++) {
                hvx_vmem_store(&orow[m], exp_sf(hvx_vmem_load(&grow[m])));
            }
        }
        const float beta = lane_f32(hvx_vmem_load(&Bt[tt / 32]), tt % 32);
        HVX_Vector  acc[NV];
        for (uint32_t m = 0; m < NV; m++) {
            acc[m] = Q6_V_vzero();
        }
        // pass 1: decay and S^T k
        HVX_Vector * w = W;
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < S; i++) {
            const HVX_Vector e  = splat_f32(kda ? lane_f32(hvx_vmem_load(&orow[i / 32]), i % 32) : eg);
            const HVX_Vector ki = splat_f32(lane_f32(hvx_vmem_load(&krow[i / 32]), i % 32));
            for (uint32_t m = 0; m < NV; m++) {
                const HVX_Vector x = Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&w[m]), e);
                hvx_vmem_store(&w[m], x);
                acc[m]             = Q6_Vsf_vadd_VsfVsf(acc[m], Q6_Vsf_vmpy_VsfVsf(x, ki));
            }
            w += NV;
        }
        HVX_Vector       delta[NV];
        const HVX_Vector vbeta = splat_f32(beta);
        for (uint32_t m = 0; m < NV; m++) {
            delta[m] = Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vsub_VsfVsf(hvx_vmem_load(&vrow[m]), acc[m]), vbeta);
            acc[m]   = Q6_V_vzero();
        }
        // pass 2: rank-1 update and readout
        w = W;
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < S; i++) {
            const HVX_Vector ki = splat_f32(lane_f32(hvx_vmem_load(&krow[i / 32]), i % 32));
            const HVX_Vector qi = splat_f32(lane_f32(hvx_vmem_load(&qrow[i / 32]), i % 32));
            for (uint32_t m = 0; m < NV; m++) {
                const HVX_Vector x = Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(&w[m]), Q6_Vsf_vmpy_VsfVsf(ki, delta[m]));
                hvx_vmem_store(&w[m], x);
                acc[m]             = Q6_Vsf_vadd_VsfVsf(acc[m], Q6_Vsf_vmpy_VsfVsf(x, qi));
            }
            w += NV;
        }
        const HVX_Vector vscale = splat_f32(p->scale);
        for (uint32_t m = 0; m < NV; m++) {
            hvx_vmem_store(&orow[m], Q6_Vsf_vmpy_VsfVsf(acc[m], vscale));
        }
        const uint32_t target = p->T - 1 - (u.t0 + tt);  // snapshot slot: 0 = the last token
        if (target < p->K) {
            HVX_Vector * snaps = vptr(at(p->v_snap + slot * p->snap_size));
            copy_vectors(snaps + target * S * NV, W, S * NV);
        }
    }

    uint32_t store(const unit & u, uint32_t slot) {
        const uint32_t   S    = p->S_v;
        const dma_addr_t attn = octx->dst.data + ((u.s * p->T + u.t0) * p->H + u.h) * S * 4;
        uint32_t         last = t.push(attn, at(p->v_attn + slot * p->attn_size), p->H * S * 4, p->pitch, S * 4, u.nt);
        for (uint32_t tt = 0; tt < u.nt; tt++) {
            const uint32_t target = p->T - 1 - (u.t0 + tt);
            if (target >= p->K) {
                continue;
            }
            const dma_addr_t d = octx->dst.data +
                                 (p->attn_elems + target * p->snap_elems + (u.s * p->H + u.h) * S * S) * 4;
            const dma_addr_t s = at(p->v_snap + slot * p->snap_size) + target * S * p->pitch;
            for (uint32_t i = 0; i < S; i++) {  // row i of VTCM -> column i of the stored matrix
                last = t.push(d + i * 4, s + i * p->pitch, S * 4, 4, 4, S);
            }
        }
        return last;
    }

    int run(row_range rr) { return run_pair_blocks(*this, rr, { p->n_blocks, p->tok_block, p->T }); }
};

}  // namespace

int htp_op_gated_delta_net(struct htp_op_context * octx) {
    // The block streams are a double buffer (slot = unit & 1): the host plans and lays out
    // split.n_bufs = 2 slots, and a plan of any other depth is refused, not run on 2.
    if (octx->params->gdn.split.n_bufs != 2) {
        return HTP_STATUS_BAD_PARAMS;
    }
    return run_ticket_threads<gdn_thread>(octx, &octx->params->gdn);
}
