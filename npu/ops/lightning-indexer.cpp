// LIGHTNING_INDEXER (DeepSeek sparse attention's indexer), as ggml-cpu's
// ggml_compute_forward_lightning_indexer:
//   dst[ik, t, s] = sum_h max(q[:, h, t, s] . k[:, ik, s], 0) * w[h, t, s] + mask[ik, t, s % nm]
// A work row is a (stream, kv chunk) pair (npu/ops/pair-blocks.h: the chunk plays the part of
// a recurrent op's state, loaded at the pair's first token block and kept for its others). The
// chunk is gathered transposed by DMA (one descriptor of kv_chunk one-element rows per element
// e; F16 / BF16 keys into a staging area that HVX converts), so that with vectors over 32
// keys a head's scores are sum_e q[e] * Kt[e], q[e] splat by vextract. Quantized keys (Q8_0,
// Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL) cannot be gathered by element: their rows land densely and
// are split into arrays (npu/ops/kv-blocks.h, FLASH_ATTN_EXT's); HVX dequantizes 32 keys at a
// time into key-major F32 rows and transposes each 32 x 32 block into Kt. Per token block: q
// (nh rows per token), the weights and mask rows in, the scores out, two slots.
#include "dma-tickets.h"
#include "hvx-math.h"
#include "hvx-util.h"
#include "kv-blocks.h"
#include "op-table.h"
#include "pair-blocks.h"
#include "row-stream.h"
#include "transpose.h"

using namespace htp_ops;

namespace {

struct li_thread {
    const htp_op_context *       octx;
    const htp_lightning_params * p;
    uint32_t                     ith;
    dma_tickets                  t;

    dma_addr_t at(uint32_t off) const { return vtcm_at(octx->ctx, p->split, ith, off); }

    struct unit : pair_block {
        uint32_t s, c, k0, nk;  // sequence, key chunk, its first key, its keys
    };

    unit make_unit(uint32_t pair, const pair_block & b) const {
        const uint32_t s  = htp_fastdiv(pair, &p->div_chunks);
        const uint32_t c  = pair - s * p->n_chunks;
        const uint32_t k0 = c * p->kv_chunk;
        return { b, s, c, k0, p->n_kv - k0 < p->kv_chunk ? p->n_kv - k0 : p->kv_chunk };
    }

    bool quant_k() const { return p->kq.f_pitch != 0; }

    uint32_t fetch(const unit & u, uint32_t slot) {
        uint32_t last = t.pushed;
        if (u.block == 0 && quant_k()) {  // quantized K chunk: nk dense rows, then the splits
            const dma_addr_t src = octx->src[1].data + u.s * p->k.nb3 + u.k0 * p->k.nb2;
            const dma_addr_t st  = at(p->v_k16[u.state]);
            last = t.push(st, src, p->kq.pitch, p->k.nb2, p->kq.pitch, u.nk);
            int nd = 0;
            kv_blocks_split([this, &last](dma_addr_t d, dma_addr_t sa, uint32_t ds, uint32_t ss, uint32_t rs, uint32_t nr) {
                last = t.push(d, sa, ds, ss, rs, nr);
                return !t.failed;
            }, st, p->kq, p->k_type, p->kq.pitch, p->hsk / 32, u.nk, nd);
        } else if (u.block == 0) {  // K chunk, transposed: row e <- element e of keys k0 .. k0 + nk
            const uint32_t   esz = p->k_type == HTP_TYPE_F32 ? 4 : 2;
            const dma_addr_t src = octx->src[1].data + u.s * p->k.nb3 + u.k0 * p->k.nb2;
            const dma_addr_t dst = at(esz == 2 ? p->v_k16[u.state] : p->v_k[u.state]);
            const uint32_t   pit = esz == 2 ? p->k16_pitch : p->k_pitch;
            for (uint32_t e = 0; e < p->hsk; e++) {
                last = t.push(dst + e * pit, src + e * esz, esz, p->k.nb2, esz, u.nk);
            }
        }
        const uint32_t ms = htp_fastmod(u.s, &p->mod_nm);
        for (uint32_t tt = 0; tt < u.nt; tt++) {  // q: the token's nh head rows
            const dma_addr_t qs = octx->src[0].data + u.s * p->q.nb3 + (u.t0 + tt) * p->q.nb2;
            last = t.push(at(p->v_q + slot * p->q_size) + tt * p->nh * p->q_pitch, qs, p->q_pitch, p->q.nb1,
                          p->hsk * 4, p->nh);
        }
        const dma_addr_t ws = octx->src[2].data + u.s * p->w.nb3 + u.t0 * p->w.nb1;
        const dma_addr_t mk = octx->src[3].data + ms * p->m.nb3 + u.t0 * p->m.nb1 + u.k0 * 2;
        last = t.push(at(p->v_w + slot * p->w_size), ws, p->w_pitch, p->w.nb1, p->nh * 4, u.nt);
        last = t.push(at(p->v_m + slot * p->m_size), mk, p->m_pitch, p->m.nb1, u.nk * 2, u.nt);
        return last;
    }

    HTP_COMPUTE void compute_chunk(const unit & u, uint32_t slot) {
        if (u.block == 0 && p->k_type == HTP_TYPE_F16) {
            compute_k<f16_to_f32_vectors>(u.state);
        } else if (u.block == 0 && p->k_type == HTP_TYPE_BF16) {
            compute_k<bf16_to_f32_vectors>(u.state);
        } else if (u.block == 0 && quant_k()) {
            compute_k_quant(u.state, u.nk);
        }
        switch (p->kv_chunk / 64) {
            case 1: compute_tokens<2>(u, slot); break;
            case 2: compute_tokens<4>(u, slot); break;
            case 3: compute_tokens<6>(u, slot); break;
            default: compute_tokens<8>(u, slot); break;
        }
    }

    // The staged F16 / BF16 chunk -> F32 rows (kv_chunk / 64 vectors in, twice as many out, per
    // row), by TO_F32 (hvx-util.h).
    template <void (*TO_F32)(HVX_Vector *, const HVX_Vector *, uint32_t)> HTP_COMPUTE void compute_k(uint32_t state) {
        const uint32_t nv16 = p->kv_chunk / 64;
        HTP_NO_UNROLL
        for (uint32_t e = 0; e < p->hsk; e++) {
            TO_F32(vptr(at(p->v_k[state] + e * p->k_pitch)), vptr(at(p->v_k16[state] + e * p->k16_pitch)), nv16);
        }
    }

    // The staged quantized chunk -> F32 rows of Kt: per group of 32 keys, their hsk / 32 blocks
    // each dequantized key-major into kq.f_at (key r's block j in vector r * nbk + j),
    // then block column j (32 keys x 32 elements) transposed into rows 32j .. 32j + 31 of Kt,
    // vector g. A last group past nk converts stale blocks into lanes the scores never store.
    HTP_COMPUTE void compute_k_quant(uint32_t state, uint32_t nk) {
        HTP_NO_UNROLL
        for (uint32_t g = 0; g < (nk + 31) / 32; g++) {
            compute_k_group(state, g);
        }
    }

    // Group g (keys 32g .. 32g + 31) of compute_k_quant.
    HTP_COMPUTE void compute_k_group(uint32_t state, uint32_t g) {
        const uint32_t nbk = p->hsk / 32;
        HVX_Vector *   kf  = vptr(at(p->kq.f_at));
        kv_blocks_to_f32(kf, at(p->v_k16[state]), p->kq, p->k_type, 32 * g * nbk, 32 * nbk);
        HVX_Vector *   kt  = vptr(at(p->v_k[state])) + g;
        const uint32_t kp  = p->k_pitch / 128;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < nbk; j++) {
            compute_transpose_32x32(kt + 32 * j * kp, kp, kf + j, nbk);
        }
    }

    template <uint32_t NV> HTP_COMPUTE void compute_tokens(const unit & u, uint32_t slot) {
        HTP_NO_UNROLL
        for (uint32_t tt = 0; tt < u.nt; tt++) {
            compute_token<NV>(u.state, slot, tt);
        }
    }

    // One token: per head the scores of the chunk's keys (NV vectors of 32), relu'd, weighted and
    // summed over heads; then the mask (F16 -> F32) added.
    template <uint32_t NV> HTP_COMPUTE void compute_token(uint32_t state, uint32_t slot, uint32_t tt) {
        const HVX_Vector * Kt = vptr(at(p->v_k[state]));
        const HVX_Vector * W  = vptr(at(p->v_w + slot * p->w_size + tt * p->w_pitch));
        const uint32_t     qv = p->q_pitch / 128;
        const HVX_Vector * Q  = vptr(at(p->v_q + slot * p->q_size + tt * p->nh * p->q_pitch));
        const HVX_Vector   z  = Q6_V_vzero();
        HVX_Vector         score[NV];
        for (uint32_t m = 0; m < NV; m++) {
            score[m] = z;
        }
        HTP_NO_UNROLL
        for (uint32_t h = 0; h < p->nh; h++) {
            HVX_Vector acc[NV];
            for (uint32_t m = 0; m < NV; m++) {
                acc[m] = z;
            }
            const HVX_Vector * kr = Kt;
            HTP_NO_UNROLL
            for (uint32_t e = 0; e < p->hsk; e++) {
                const HVX_Vector qe = splat_f32(lane_f32(Q[e / 32], e % 32));
                for (uint32_t m = 0; m < NV; m++) {
                    acc[m] = Q6_Vsf_vadd_VsfVsf(acc[m], Q6_Vsf_vmpy_VsfVsf(qe, kr[m]));
                }
                kr += NV;
            }
            const HVX_Vector wh = splat_f32(lane_f32(W[h / 32], h % 32));
            for (uint32_t m = 0; m < NV; m++) {
                score[m] = Q6_Vsf_vadd_VsfVsf(score[m], Q6_Vsf_vmpy_VsfVsf(sf_max(acc[m], z), wh));
            }
            Q += qv;
        }
        const HVX_Vector * M = vptr(at(p->v_m + slot * p->m_size + tt * p->m_pitch));
        HVX_Vector *       o = vptr(at(p->v_out + slot * p->out_size + tt * p->k_pitch));
        for (uint32_t m = 0; m < NV; m += 2) {
            const HVX_VectorPair mf = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(M[m / 2]));
            o[m]                    = Q6_Vsf_vadd_VsfVsf(score[m], Q6_V_lo_W(mf));
            o[m + 1]                = Q6_Vsf_vadd_VsfVsf(score[m + 1], Q6_V_hi_W(mf));
        }
    }

    uint32_t store(const unit & u, uint32_t slot) {
        const dma_addr_t d = octx->dst.data + u.s * p->d.nb3 + u.t0 * p->d.nb1 + u.k0 * 4;
        return t.push(d, at(p->v_out + slot * p->out_size), p->d.nb1, p->k_pitch, u.nk * 4, u.nt);
    }

    int run(row_range rr) { return run_pair_blocks(*this, rr, { p->n_blocks, p->tok_block, p->n_tok }); }
};

}  // namespace

int htp_op_lightning_indexer(struct htp_op_context * octx) {
    // The block streams are a double buffer (slot = unit & 1), as the host plans them.
    if (octx->params->lightning.split.n_bufs != 2) {
        return HTP_STATUS_BAD_PARAMS;
    }
    return run_ticket_threads<li_thread>(octx, &octx->params->lightning);
}
