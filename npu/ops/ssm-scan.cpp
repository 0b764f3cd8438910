// SSM_SCAN F32 (Mamba-1 / Mamba-2 selective scan, K >= 1 states), as ggml-cpu's
// ggml_compute_forward_ssm_scan_f32. A work row is a (lane vector, sequence) pair: 32
// consecutive head rows ii = h * nr + i1 ("lanes"). Its state is gathered transposed into
// VTCM (row k = state k of the 32 lanes: min(nc, 32) descriptors of one-element rows) at the
// pair's first token block, with A laid out per lane the same way. Per token, with vectors over
// the lanes:
//   dtsp = softplus(dt);  xdt = x * dtsp;  dA_k = e^(dtsp * A_k)  (Mamba-2: one A per head)
//   row k:  S_k = S_k * dA_k + B[k] * xdt;  y += S_k * C[k]
// with B[k], C[k] of the lanes' group splat (vextract, no scalar VTCM reads). x, dt (one row
// of 32 lane values per token; a head's dt replicated over its lanes by a zero-stride DMA), B
// and C come per token block, one or a few 2-D descriptors each, two slots so the next block
// loads during the compute; y rows go out per block, the final state scattered back after the
// pair's last block. K > 1 (rollback snapshots, htp_ssm_scan_params n_snap): the state after
// token nt - 1 - j (j = 1 .. K - 1) is copied in VTCM as that token ends and scattered with the
// final state, to dst slot j.
#include "dma-tickets.h"
#include "hvx-math.h"
#include "hvx-util.h"
#include "op-table.h"
#include "pair-blocks.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

struct scan_thread {
    const htp_op_context *      octx;
    const htp_ssm_scan_params * p;
    uint32_t                    ith;
    dma_tickets                 t;

    dma_addr_t at(uint32_t off) const { return vtcm_at(octx->ctx, p->split, ith, off); }

    struct unit : pair_block {
        uint32_t lv, i3;  // lane vector, sequence
    };

    unit make_unit(uint32_t pair, const pair_block & b) const {
        const uint32_t i3 = htp_fastdiv(pair, &p->div_lanes);
        return { b, pair - i3 * p->n_lanes, i3 };
    }

    // One value per head, for the 32 lanes from row ii0: row dst gets src[h * src_step] on the
    // lanes of head h (nr == 1: one descriptor, heads src_step apart; else one zero-stride
    // descriptor per head the vector touches).
    uint32_t per_lane(dma_addr_t dst, dma_addr_t src, uint32_t src_step, uint32_t ii0) {
        if (p->nr == 1) {
            return t.push(dst, src + ii0 * src_step, 4, src_step, 4, 32);
        }
        uint32_t last = t.pushed;
        for (uint32_t a = 0; a < 32;) {
            const uint32_t h   = htp_fastdiv(ii0 + a, &p->div_nr);
            const uint32_t end = (h + 1) * p->nr - ii0;
            const uint32_t b   = end < 32 ? end : 32;
            last               = t.push(dst + a * 4, src + h * src_step, 4, 0, 4, b - a);
            a                  = b;
        }
        return last;
    }

    uint32_t fetch(const unit & u, uint32_t slot) {
        const uint32_t nc   = p->nc;
        const uint32_t ii0  = u.lv * 32;
        uint32_t       last = t.pushed;
        if (u.block == 0) {
            const uint32_t sid = (uint32_t) *(const int32_t *) htp_va(octx->src[6].data + u.i3 * 4);
            if (sid >= p->s_seqs) {
                t.failed = true;  // an ids entry past the state tensor: refused, not read
                return last;
            }
            // S[ii][k] at (ii * nc + k) * 4 -> VTCM row k, lane ii - ii0
            const dma_addr_t src = octx->src[0].data + sid * p->s_nb3 + ii0 * nc * 4;
            const dma_addr_t dst = at(p->v_state[u.state]);
            if (nc <= 32) {
                for (uint32_t k = 0; k < nc; k++) {
                    last = t.push(dst + k * 128, src + k * 4, 4, nc * 4, 4, 32);
                }
            } else {
                for (uint32_t j = 0; j < 32; j++) {
                    last = t.push(dst + j * 4, src + j * nc * 4, 128, 4, 4, nc);
                }
            }
            // A[k, h] at (h * na + k) * 4 -> row k
            const dma_addr_t va = at(p->v_a[u.state]);
            for (uint32_t k = 0; k < p->na; k++) {
                last = per_lane(va + k * 128, octx->src[3].data + k * 4, p->na * 4, ii0);
            }
        }
        const uint32_t   h0  = htp_fastdiv(ii0, &p->div_nr);
        const uint32_t   g   = htp_fastdiv(h0, &p->div_group);
        const dma_addr_t xs  = octx->src[1].data + u.i3 * p->x.nb3 + u.t0 * p->x.nb2 + ii0 * 4;
        const dma_addr_t bs  = octx->src[4].data + u.i3 * p->b.nb3 + u.t0 * p->b.nb2 + g * p->b.nb1;
        const dma_addr_t cs  = octx->src[5].data + u.i3 * p->c.nb3 + u.t0 * p->c.nb2 + g * p->c.nb1;
        const dma_addr_t dts = octx->src[2].data + u.i3 * p->dt_nb2 + u.t0 * p->dt_nb1;
        const dma_addr_t vdt = at(p->v_dt + slot * p->lane_size);
        last = t.push(at(p->v_x + slot * p->lane_size), xs, 128, p->x.nb2, 128, u.nt);
        last = t.push(at(p->v_b + slot * p->bc_size), bs, p->c_pitch, p->b.nb2, p->nc * 4, u.nt);
        last = t.push(at(p->v_c + slot * p->bc_size), cs, p->c_pitch, p->c.nb2, p->nc * 4, u.nt);
        if (p->nr == 1) {  // the 32 heads' dt are adjacent: a row per token
            last = t.push(vdt, dts + ii0 * 4, 128, p->dt_nb1, 128, u.nt);
        } else {
            for (uint32_t tt = 0; tt < u.nt; tt++) {
                last = per_lane(vdt + tt * 128, dts + tt * p->dt_nb1, 4, ii0);
            }
        }
        return last;
    }

    // The block's tokens, one out-of-line compute_token each; after token nt - 1 - j
    // (j = 1 .. n_snap) the state is copied into snapshot j.
    HTP_COMPUTE void compute_chunk(const unit & u, uint32_t slot) {
        HTP_NO_UNROLL
        for (uint32_t tt = 0; tt < u.nt; tt++) {
            if (p->na == 1) {
                compute_token_head_decay(u, slot, tt);
            } else {
                compute_token_state_decay(u, slot, tt);
            }
            const uint32_t j = p->nt - 1 - (u.t0 + tt);
            if (j >= 1 && j <= p->n_snap) {
                copy_vectors(vptr(at(p->v_snap[u.state] + (j - 1) * p->nc * 128)), vptr(at(p->v_state[u.state])), p->nc);
            }
        }
    }

    // softplus(dt) as ggml_compute_softplus_f32: dt > 20 ? dt : log(1 + e^dt).
    static inline HVX_Vector softplus(HVX_Vector d) {
        const HVX_Vector e = exp_sf(sf_min(d, splat_f32(20.0f)));
        return Q6_V_vmux_QVV(sf_gt(d, splat_f32(20.0f)), d, log_sf_normal(Q6_Vsf_vadd_VsfVsf(splat_f32(1.0f), e)));
    }

    // Mamba-2: one decay per head, e^(dtsp * A) once per token.
    HTP_COMPUTE void compute_token_head_decay(const unit & u, uint32_t slot, uint32_t tt) {
        HVX_Vector *       S    = vptr(at(p->v_state[u.state]));
        const HVX_Vector * brow = vptr(at(p->v_b + slot * p->bc_size + tt * p->c_pitch));
        const HVX_Vector * crow = vptr(at(p->v_c + slot * p->bc_size + tt * p->c_pitch));
        const HVX_Vector   dtsp = softplus(hvx_vmem_load(vptr(at(p->v_dt + slot * p->lane_size + tt * 128))));
        const HVX_Vector   xdt  = Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(vptr(at(p->v_x + slot * p->lane_size + tt * 128))), dtsp);
        const HVX_Vector   dA   = exp_sf(Q6_Vsf_vmpy_VsfVsf(dtsp, hvx_vmem_load(vptr(at(p->v_a[u.state])))));
        HVX_Vector         acc  = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t k = 0; k < p->nc; k++) {
            const HVX_Vector bk = splat_f32(lane_f32(hvx_vmem_load(&brow[k / 32]), k % 32));
            const HVX_Vector ck = splat_f32(lane_f32(hvx_vmem_load(&crow[k / 32]), k % 32));
            const HVX_Vector s  = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&S[k]), dA), Q6_Vsf_vmpy_VsfVsf(bk, xdt));
            hvx_vmem_store(&S[k], s);
            acc                 = Q6_Vsf_vadd_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(s, ck));
        }
        hvx_vmem_store(vptr(at(p->v_y + slot * p->lane_size + tt * 128)), acc);
    }

    // Mamba-1: a decay per state, e^(dtsp * A_k) per row k.
    HTP_COMPUTE void compute_token_state_decay(const unit & u, uint32_t slot, uint32_t tt) {
        HVX_Vector *       S    = vptr(at(p->v_state[u.state]));
        const HVX_Vector * Ar   = vptr(at(p->v_a[u.state]));
        const HVX_Vector * brow = vptr(at(p->v_b + slot * p->bc_size + tt * p->c_pitch));
        const HVX_Vector * crow = vptr(at(p->v_c + slot * p->bc_size + tt * p->c_pitch));
        const HVX_Vector   dtsp = softplus(hvx_vmem_load(vptr(at(p->v_dt + slot * p->lane_size + tt * 128))));
        const HVX_Vector   xdt  = Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(vptr(at(p->v_x + slot * p->lane_size + tt * 128))), dtsp);
        HVX_Vector         acc  = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t k = 0; k < p->nc; k++) {
            const HVX_Vector bk = splat_f32(lane_f32(hvx_vmem_load(&brow[k / 32]), k % 32));
            const HVX_Vector ck = splat_f32(lane_f32(hvx_vmem_load(&crow[k / 32]), k % 32));
            const HVX_Vector dA = exp_sf(Q6_Vsf_vmpy_VsfVsf(dtsp, hvx_vmem_load(&Ar[k])));
            const HVX_Vector s  = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&S[k]), dA), Q6_Vsf_vmpy_VsfVsf(bk, xdt));
            hvx_vmem_store(&S[k], s);
            acc                 = Q6_Vsf_vadd_VsfVsf(acc, Q6_Vsf_vmpy_VsfVsf(s, ck));
        }
        hvx_vmem_store(vptr(at(p->v_y + slot * p->lane_size + tt * 128)), acc);
    }

    uint32_t store(const unit & u, uint32_t slot) {
        const uint32_t   nc   = p->nc;
        const uint32_t   ii0  = u.lv * 32;
        const dma_addr_t y    = octx->dst.data + ((u.i3 * p->nt + u.t0) * p->lanes_total + ii0) * 4;
        uint32_t         last = t.push(y, at(p->v_y + slot * p->lane_size), p->lanes_total * 4, 128, 128, u.nt);
        if (u.block + 1 == p->n_blocks) {  // the final state and the snapshots taken (slots j < nt)
            last = scatter_state(0, at(p->v_state[u.state]), u.i3, ii0);
            for (uint32_t j = 1; j <= p->n_snap && j < p->nt; j++) {
                last = scatter_state(j, at(p->v_snap[u.state] + (j - 1) * nc * 128), u.i3, ii0);
            }
        }
        return last;
    }

    // A state in VTCM (row k = state k of the 32 lanes) -> dst slot j: S[ii][k].
    uint32_t scatter_state(uint32_t j, dma_addr_t src, uint32_t i3, uint32_t ii0) {
        const uint32_t   nc   = p->nc;
        const dma_addr_t d    = octx->dst.data + p->y_bytes + (j * p->n_seqs + i3) * p->s_nb3 + ii0 * nc * 4;
        uint32_t         last = t.pushed;
        if (nc <= 32) {
            for (uint32_t k = 0; k < nc; k++) {
                last = t.push(d + k * 4, src + k * 128, nc * 4, 4, 4, 32);
            }
        } else {
            for (uint32_t r = 0; r < 32; r++) {
                last = t.push(d + r * nc * 4, src + r * 4, 4, 128, 4, nc);
            }
        }
        return last;
    }

    int run(row_range rr) { return run_pair_blocks(*this, rr, { p->n_blocks, p->tok_block, p->nt }); }
};

}  // namespace

int htp_op_ssm_scan(struct htp_op_context * octx) {
    // The block streams are a double buffer (slot = unit & 1), as the host plans them.
    if (octx->params->ssm_scan.split.n_bufs != 2) {
        return HTP_STATUS_BAD_PARAMS;
    }
    return run_ticket_threads<scan_thread>(octx, &octx->params->ssm_scan);
}
