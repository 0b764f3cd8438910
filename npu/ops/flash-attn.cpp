// FLASH_ATTN_EXT (docs/flash-attn.md; params in htp-abi/params/attention.h). Per tile of q
// rows sharing one K/V head: DMA the Q rows into VTCM, then stream the head's K / V rows
// (and each q row's F16 mask) in chunks of split.rows_per_chunk rows through split.n_bufs slots. Per chunk the K and
// V rows become F32 rows once (shared by the tile's rows); per q row the chunk's scores are
// dot products in HVX, scaled / soft-capped / masked as one or two vectors, and folded into
// the row's accumulator by an online softmax (running max M, running sum S). At the end a
// sink joins M and S, the accumulator is divided by S and DMA'd to dst.
#include "hvx-math.h"
#include "hvx-util.h"
#include "kv-blocks.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

constexpr uint32_t kMaxTile = 12;

uint32_t kv_descs(uint32_t blocks, uint32_t mins, uint32_t qh) {
    return blocks == 0 ? 1 : 3 + (mins != 0) + (qh != 0);
}

struct fa_thread {
    const htp_op_context *        octx;
    const htp_flash_attn_params * p;
    uint32_t                      ith;
    dma_queue *                   q;
    htp_trace *                   tr;
    vtcm_f32_table                sinks;  // the q heads' sinks, in VTCM (has_sinks)

    // The current tile.
    uint32_t ik2, ik3, iq3, j0, nr;
    float    M[kMaxTile], S[kMaxTile];
    // The current chunk's V rows as F32 (vf_rows, vf_step vectors apart) for the row passes.
    const HVX_Vector * vf_rows;
    uint32_t           vf_step;

    dma_addr_t at(uint32_t off) const { return vtcm_at(octx->ctx, p->split, ith, off); }

    void row_coords(uint32_t j, uint32_t & iq1, uint32_t & iq2) const {
        iq1 = htp_fastdiv(j, &p->div_rk2);
        iq2 = ik2 * p->rk2 + (j - iq1 * p->rk2);
    }

    // Pushes the DMA of chunk c (K, V, mask rows) into slot s; returns descriptors or -1.
    int fetch(uint32_t c, uint32_t s) {
        const uint32_t rpc = p->split.rows_per_chunk;
        const uint32_t ic0 = c * rpc;
        const uint32_t n   = p->n_kv - ic0 < rpc ? p->n_kv - ic0 : rpc;
        int            k   = 0;
        const dma_addr_t ka = octx->src[1].data + ic0 * p->k.nb1 + ik2 * p->k.nb2 + ik3 * p->k.nb3;
        const dma_addr_t va = octx->src[2].data + ic0 * p->v.nb1 + ik2 * p->v.nb2 + ik3 * p->v.nb3;
        if (!fetch_kv(p->k_vtcm, s, ka, p->k_type, p->k.nb1, p->k_row_bytes, p->k_blocks, n, k) ||
            !fetch_kv(p->v_vtcm, s, va, p->v_type, p->v.nb1, p->v_row_bytes, p->v_blocks, n, k)) {
            return -1;
        }
        if (p->has_mask) {
            const dma_addr_t mv = at(p->vmask + s * p->mask_slot);
            for (uint32_t r = 0; r < nr; r++) {
                uint32_t iq1, iq2;
                row_coords(j0 + r, iq1, iq2);
                const uint32_t   i2 = iq2 - htp_fastdiv(iq2, &p->mod_mne2) * p->mne2;
                const uint32_t   i3 = iq3 - htp_fastdiv(iq3, &p->mod_mne3) * p->mne3;
                const dma_addr_t ma = octx->src[3].data + iq1 * p->mask.nb1 + i2 * p->mask.nb2 + i3 * p->mask.nb3 + ic0 * 2;
                if (!dma_queue_push_1d(q, mv + r * 128, ma, n * 2)) {
                    return -1;
                }
                k++;
            }
        }
        return k;
    }

    // One K or V chunk: rows into the raw slot; quantized rows land densely and are split
    // into dense arrays by kv_blocks_split (npu/ops/kv-blocks.h).
    bool fetch_kv(const htp_fa_kv_layout & l, uint32_t s, dma_addr_t src, uint32_t type, uint32_t nb1,
                  uint32_t row_bytes, uint32_t blocks, uint32_t n, int & k) {
        const dma_addr_t slot = at(l.at + s * l.slot);
        if (!dma_queue_push(q, slot, src, l.pitch, nb1, row_bytes, n)) {
            return false;
        }
        k++;
        if (blocks == 0) {
            return true;
        }
        dma_queue * dq = q;
        return kv_blocks_split([dq](dma_addr_t dst, dma_addr_t sa, uint32_t ds, uint32_t ss, uint32_t rs, uint32_t nr) {
            return dma_queue_push(dq, dst, sa, ds, ss, rs, nr);
        }, slot, l, type, row_bytes, blocks, n, k);
    }

    // BF16 -> F32 for 64 * n_in elements: after vshuff word i holds x[i] (low half) and
    // x[32 + i] (high half); a bf16 is the high half of its f32.
    static void bf16_to_f32_vectors(HVX_Vector * y, const HVX_Vector * x, uint32_t n_in) {
        const HVX_Vector hmask = Q6_V_vsplat_R((int32_t) 0xffff0000);
        for (uint32_t i = 0; i < n_in; i++) {
            const HVX_Vector w = Q6_Vh_vshuff_Vh(hvx_vmem_load(&x[i]));
            hvx_vmem_store(&y[2 * i], Q6_Vw_vasl_VwR(w, 16));
            hvx_vmem_store(&y[2 * i + 1], Q6_V_vand_VV(w, hmask));
        }
    }

    // The chunk's K or V rows as F32 rows; returns the first row and sets the pitch in vectors.
    // Lanes past d are zeroed when zero_tail (K: they meet zeroed Q lanes in the dot product).
    const HVX_Vector * compute_kv_f32(const htp_fa_kv_layout & l, uint32_t s, uint32_t type, uint32_t d, uint32_t blocks,
                                      uint32_t n, bool zero_tail, uint32_t & vpitch) const {
        const dma_addr_t slot = at(l.at + s * l.slot);
        const dma_addr_t fbuf = at(l.f_at);
        const uint32_t   pitch = l.pitch, f_pitch = l.f_pitch;
        HVX_Vector * y;
        if (type == HTP_TYPE_F32) {
            y      = vptr(slot);
            vpitch = pitch / 128;
        } else if (type == HTP_TYPE_F16 || type == HTP_TYPE_BF16) {
            y      = vptr(fbuf);
            vpitch = f_pitch / 128;
            const HVX_Vector * x = vptr(slot);
            for (uint32_t i = 0; i < n; i++) {
                if (type == HTP_TYPE_F16) {
                    f16_to_f32_vectors(y + i * vpitch, x + i * (pitch / 128), (d + 63) / 64);
                } else {
                    bf16_to_f32_vectors(y + i * vpitch, x + i * (pitch / 128), (d + 63) / 64);
                }
            }
        } else {
            y      = vptr(fbuf);
            vpitch = f_pitch / 128;
            kv_blocks_to_f32(y, slot, l, type, 0, n * blocks);
        }
        if (zero_tail && d % 32) {
            const HVX_VectorPred keep = Q6_Q_vsetq_R((int32_t) (d % 32 * 4));
            const uint32_t       last = d / 32;
            for (uint32_t i = 0; i < n; i++) {
                hvx_vmem_store(&y[i * vpitch + last], Q6_V_vmux_QVV(keep, hvx_vmem_load(&y[i * vpitch + last]), Q6_V_vzero()));
            }
        }
        return y;
    }

    float slope(uint32_t h) const {
        if (p->max_bias <= 0.0f) {
            return 1.0f;
        }
        return h < p->n_head_log2 ? __builtin_powf(p->m0, (float) (h + 1)) :
                                    __builtin_powf(p->m1, (float) (2 * (h - p->n_head_log2) + 1));
    }

    // Per chunk: K and V to F32 once, then per q row two out-of-line passes with the online
    // softmax's rescale factor (expf, a call) taken between them, where no vector is live:
    // compute_row_scores leaves the row's 64 scores in vscores, compute_row_update folds them
    // into the row's accumulator.
    HTP_COMPUTE void compute_chunk(uint32_t c, uint32_t s) {
        const uint32_t rpc = p->split.rows_per_chunk;
        const uint32_t ic0 = c * rpc;
        const uint32_t n   = p->n_kv - ic0 < rpc ? p->n_kv - ic0 : rpc;
        uint32_t       kp, vp;
        const HVX_Vector * kf = compute_kv_f32(p->k_vtcm, s, p->k_type, p->dk, p->k_blocks, n, true, kp);
        vf_rows               = compute_kv_f32(p->v_vtcm, s, p->v_type, p->dv, p->v_blocks, n, false, vp);
        vf_step = vp;
        HTP_NO_UNROLL
        for (uint32_t r = 0; r < nr; r++) {
            const float cmax = compute_row_scores(r, s, n, kf, kp);
            if (!(cmax > -3.0e38f)) {
                continue;  // every kv row of the chunk masked out for this q row (or NaN)
            }
            const float mold = M[r];
            const float mnew = cmax > mold ? cmax : mold;
            float       ms   = 1.0f;
            if (mnew > mold) {
                ms = __builtin_expf(mold - mnew);  // 0 while M was -inf
            }
            compute_row_update(r, n, mnew, ms);
        }
    }

    // Scores x of kv rows lo .. lo + 31: * scale, soft-capped, + slope * mask, -inf past n.
    HVX_Vector finish_scores(HVX_Vector x, HVX_Vector mk, HVX_Vector vscale, HVX_Vector vslope, uint32_t n,
                             uint32_t lo) const {
        x = Q6_Vsf_vmpy_VsfVsf(x, vscale);
        if (p->softcap != 0.0f) {
            x = Q6_Vsf_vmpy_VsfVsf(tanh_sf(x), splat_f32(p->softcap));
        }
        if (p->has_mask) {
            x = Q6_Vsf_vadd_VsfVsf(x, Q6_Vsf_vmpy_VsfVsf(mk, vslope));
        }
        if (n <= lo) {
            x = Q6_V_vsplat_R((int32_t) 0xff800000);
        } else if (n < lo + 32) {
            x = Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) ((n - lo) * 4)), x, Q6_V_vsplat_R((int32_t) 0xff800000));
        }
        return x;
    }

    // Scores of q row r against the chunk's n K rows, scaled, soft-capped and masked, into
    // vscores (lanes past n: -inf); returns their max (-inf: the row skips the chunk).
    HTP_COMPUTE float compute_row_scores(uint32_t r, uint32_t s, uint32_t n, const HVX_Vector * kf, uint32_t kp) const {
        const HVX_Vector ninf = Q6_V_vsplat_R((int32_t) 0xff800000);
        const uint32_t   nvk  = (p->dk + 31) / 32;
        // Mask first (lanes past the chunk -inf): a row whose chunk is all -inf skips the
        // chunk, and -inf entries skip their dot product (the CPU skips them too).
        HVX_Vector mk0 = Q6_V_vzero(), mk1 = Q6_V_vzero();
        if (p->has_mask) {
            const HVX_VectorPair m = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(hvx_vmem_load(&vptr(at(p->vmask + s * p->mask_slot))[r])));
            mk0                    = Q6_V_lo_W(m);
            mk1                    = Q6_V_hi_W(m);
            if (n < 32) {
                mk0 = Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (n * 4)), mk0, ninf);
            }
            if (n <= 32) {
                mk1 = ninf;
            } else if (n < 64) {
                mk1 = Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) ((n - 32) * 4)), mk1, ninf);
            }
            const float mmax = lane0_f32(reduce_max_sf(sf_max(mk0, mk1)));
            if (!(mmax > -3.0e38f)) {
                return -__builtin_inff();
            }
        }
        // The n dot products, 32 per vector, their lane sums formed by the fold tree
        // (hvx-util.h): vscores[2 + l] holds the tree's pending operand of step l, vscores[7 + l]
        // its mask. A masked-out entry, and any past n, scores 0 (the mask or n decides it below).
        const HVX_Vector * qr  = vptr(at(p->vq + r * p->q_pitch));
        HVX_Vector *       out = vptr(at(p->vscores));
        for (uint32_t h = 0; h < 2; h++) {
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < 32 && n > 32 * h; j++) {
                const uint32_t i = 32 * h + (__builtin_bitreverse32(j) >> 27);
                HVX_Vector     d = Q6_V_vzero();
                if (i < n && (!p->has_mask || lane_f32(h ? mk1 : mk0, i % 32) > -3.0e38f)) {
                    const HVX_Vector * kr = kf + i * kp;
                    d                     = Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&qr[0]), hvx_vmem_load(&kr[0]));
                    HTP_NO_UNROLL
                    for (uint32_t t = 1; t < nvk; t++) {
                        d = Q6_Vsf_vadd_VsfVsf(d, Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&qr[t]), hvx_vmem_load(&kr[t])));
                    }
                }
                uint32_t l = 0;
                HTP_NO_UNROLL
                for (; j & (1u << l); l++) {
                    d = fold_pair_sf(hvx_vmem_load(&out[2 + l]), d, hvx_vmem_load(&out[7 + l]), (int32_t) (64u >> l));
                }
                hvx_vmem_store(&out[l < 5 ? 2 + l : h], d);
            }
        }
        uint32_t iq1, iq2;
        row_coords(j0 + r, iq1, iq2);
        const HVX_Vector vslope = splat_f32(slope(iq2));
        const HVX_Vector vscale = splat_f32(p->scale);
        out[0]                  = finish_scores(out[0], mk0, vscale, vslope, n, 0);  // straight code, no loop:
        out[1]                  = finish_scores(out[1], mk1, vscale, vslope, n, 32); // tanh's constants stay put
        return lane0_f32(reduce_max_sf(sf_max(out[0], out[1])));
    }

    // The online softmax step of q row r: p = e^(score - mnew), S = S * ms + sum p, the
    // accumulator times ms (when the max grew) plus sum p * V.
    HTP_COMPUTE void compute_row_update(uint32_t r, uint32_t n, float mnew, float ms) {
        const uint32_t     vp = vf_step;
        const uint32_t   nvv  = (p->dv + 31) / 32;
        HVX_Vector *     sv   = vptr(at(p->vscores));
        const HVX_Vector vmax = splat_f32(mnew);
        const HVX_Vector p0   = exp_sf(Q6_Vsf_vsub_VsfVsf(hvx_vmem_load(&sv[0]), vmax));
        const HVX_Vector p1   = exp_sf(Q6_Vsf_vsub_VsfVsf(hvx_vmem_load(&sv[1]), vmax));
        const float      psum = lane0_f32(reduce_sum_sf(Q6_Vsf_vadd_VsfVsf(p0, p1)));
        HVX_Vector *     acc  = vptr(at(p->vacc + r * p->acc_pitch));
        const float      mold = M[r];
        if (mnew > mold) {
            S[r] = S[r] * ms;
            if (mold > -3.0e38f) {  // else acc is still 0
                const HVX_Vector vms = splat_f32(ms);
                HTP_NO_UNROLL
                for (uint32_t t = 0; t < nvv; t++) {
                    hvx_vmem_store(&acc[t], Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&acc[t]), vms));
                }
            }
            M[r] = mnew;
        }
        S[r] += psum;
        const HVX_Vector * vr = vf_rows;
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < n; i++, vr += vp) {
            const float pi = lane_f32(i < 32 ? p0 : p1, i % 32);
            if (pi == 0.0f) {
                continue;
            }
            const HVX_Vector pv = splat_f32(pi);
            HTP_NO_UNROLL
            for (uint32_t t = 0; t < nvv; t++) {
                hvx_vmem_store(&acc[t], Q6_Vsf_vadd_VsfVsf(hvx_vmem_load(&acc[t]), Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&vr[t]), pv)));
            }
        }
    }

    // Sink, 1 / S, write-back of the tile's rows. Returns descriptors pushed or -1.
    int finish() {
        const uint32_t nvv = (p->dv + 31) / 32;
        for (uint32_t r = 0; r < nr; r++) {
            uint32_t iq1, iq2;
            row_coords(j0 + r, iq1, iq2);
            HVX_Vector * acc = vptr(at(p->vacc + r * p->acc_pitch));
            float        m = M[r], sum = S[r], ms = 1.0f;
            if (p->has_sinks) {
                const float sk = sinks.get(iq2);
                if (sk > m) {
                    ms  = __builtin_expf(m - sk);
                    sum = sum * ms + 1.0f;
                } else {
                    sum += __builtin_expf(sk - m);
                }
            }
            const HVX_Vector inv = splat_f32(sum == 0.0f ? 0.0f : ms / sum);
            for (uint32_t t = 0; t < nvv; t++) {
                hvx_vmem_store(&acc[t], Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&acc[t]), inv));
            }
        }
        for (uint32_t r = 0; r < nr; r++) {
            uint32_t iq1, iq2;
            row_coords(j0 + r, iq1, iq2);
            const dma_addr_t d = octx->dst.data + iq2 * p->dst.nb1 + iq1 * p->dst.nb2 + iq3 * p->dst.nb3;
            if (!dma_queue_push_1d(q, d, at(p->vacc + r * p->acc_pitch), p->dv * 4)) {
                return -1;
            }
        }
        return (int) nr;
    }

    int run_tile(uint32_t t, uint32_t & pending_out) {
        const uint32_t g  = htp_fastdiv(t, &p->div_tpg);
        const uint32_t tt = t - g * p->tiles_per_group;
        iq3               = htp_fastdiv(g, &p->div_nek2);
        ik2               = g - iq3 * p->nek2;
        ik3               = htp_fastdiv(iq3, &p->div_rk3);
        j0                = tt * p->tile_rows;
        nr                = p->rows_per_group - j0 < p->tile_rows ? p->rows_per_group - j0 : p->tile_rows;
        const uint16_t info = (uint16_t) t;

        // Q rows of the tile.
        for (uint32_t r = 0; r < nr; r++) {
            uint32_t iq1, iq2;
            row_coords(j0 + r, iq1, iq2);
            const dma_addr_t qa = octx->src[0].data + iq1 * p->q.nb1 + iq2 * p->q.nb2 + iq3 * p->q.nb3;
            if (!dma_queue_push_1d(q, at(p->vq + r * p->q_pitch), qa, p->dk * 4)) {
                return HTP_STATUS_DMA_ERROR;
            }
        }
        // Prime the n_bufs K/V slots.
        const uint32_t n_chunks = p->n_kv_chunks;
        const uint32_t n_bufs   = p->split.n_bufs;
        uint32_t       fetched[16];
        for (uint32_t c = 0; c < n_bufs && c < n_chunks; c++) {
            const int k = fetch(c, c);
            if (k < 0) {
                return HTP_STATUS_DMA_ERROR;
            }
            fetched[c] = (uint32_t) k;
        }
        dma_pop_n(q, tr, pending_out, info);  // the previous tile's rows are out: vacc is free
        pending_out = 0;
        dma_pop_n(q, tr, nr, info);           // Q rows

        htp_trace_event_start(tr, HTP_TRACE_EVT_HVX_COMP, info);
        const uint32_t nvq = (p->dk + 63) / 64 * 2;
        const uint32_t nvv = (p->dv + 31) / 32;
        for (uint32_t r = 0; r < nr; r++) {
            HVX_Vector * qr = vptr(at(p->vq + r * p->q_pitch));
            if (p->dk % 32) {
                hvx_vmem_store(&qr[p->dk / 32], Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (p->dk % 32 * 4)), hvx_vmem_load(&qr[p->dk / 32]), Q6_V_vzero()));
            }
            for (uint32_t v = (p->dk + 31) / 32; v < nvq; v++) {
                hvx_vmem_store(&qr[v], Q6_V_vzero());
            }
            HVX_Vector * acc = vptr(at(p->vacc + r * p->acc_pitch));
            for (uint32_t v = 0; v < nvv; v++) {
                hvx_vmem_store(&acc[v], Q6_V_vzero());
            }
            M[r] = -__builtin_inff();
            S[r] = 0.0f;
        }
        htp_trace_event_stop(tr, HTP_TRACE_EVT_HVX_COMP, info);

        for (uint32_t c = 0, s = 0; c < n_chunks; c++) {  // chunk c in slot s = c % n_bufs
            dma_pop_n(q, tr, fetched[s], info);
            htp_trace_event_start(tr, HTP_TRACE_EVT_HVX_COMP, info);
            compute_chunk(c, s);
            htp_trace_event_stop(tr, HTP_TRACE_EVT_HVX_COMP, info);
            if (c + n_bufs < n_chunks) {
                const int k = fetch(c + n_bufs, s);
                if (k < 0) {
                    return HTP_STATUS_DMA_ERROR;
                }
                fetched[s] = (uint32_t) k;
            }
            if (++s == n_bufs) {
                s = 0;
            }
        }
        htp_trace_event_start(tr, HTP_TRACE_EVT_HVX_COMP, info);
        const int ko = finish();
        htp_trace_event_stop(tr, HTP_TRACE_EVT_HVX_COMP, info);
        if (ko < 0) {
            return HTP_STATUS_DMA_ERROR;
        }
        pending_out = (uint32_t) ko;
        return HTP_STATUS_OK;
    }
};

// Thread ith's query tiles (of this session's, `tiles`): every n_threads-th from the ith. Tiles
// run along the query positions, and under a causal mask a later position attends to more kv
// rows: contiguous halves gave one of two threads a quarter of the work and three quarters to
// the other (pp512: the first thread idle for half of FLASH_ATTN_EXT). Interleaved, each thread
// gets positions all along. The tiles and their results are the same either way.
int fa_run_thread(htp_op_context * octx, const op_rows & tiles, uint32_t ith, uint32_t n_threads) {
    htp_context * ctx = octx->ctx;
    const auto *  p   = &octx->params->flash_attn;
    fa_thread     th;
    th.octx = octx;
    th.p    = p;
    th.ith  = ith;
    th.q    = ctx->dma[ith];
    th.tr   = &ctx->trace[ith];
    const uint32_t  end     = tiles.row_start + tiles.nrows;
    uint32_t        last    = tiles.row_start + ith;  // the thread's last tile, for the trace
    uint32_t        pending = 0;
    fold_masks(vptr(th.at(p->vscores)) + 7);  // compute_row_scores' fold tree masks
    int             st      = HTP_STATUS_OK;
    // The sinks before the first tile (the queue is empty): a model weight, DMA only on a v81.
    if (p->has_sinks && !th.sinks.load(th.q, th.at(p->vsinks), octx->src[4].data, p->rk2 * p->nek2 * 4)) {
        st = HTP_STATUS_DMA_ERROR;
    }
    // rows_per_thread tiles at most (the host's ceil(tiles / n_threads): the same count as a
    // contiguous split), the last thread's last turn maybe past the end.
    for (uint32_t k = 0; k < tiles.rows_per_thread && st == HTP_STATUS_OK; k++) {
        const uint32_t t = tiles.row_start + ith + k * n_threads;
        if (t >= end) {
            break;
        }
        st   = th.run_tile(t, pending);
        last = t;
    }
    if (st != HTP_STATUS_OK) {
        dma_queue_flush(th.q);
    } else {
        dma_pop_n(th.q, th.tr, pending, (uint16_t) last);  // the last tile's rows
    }
    return st;
}

}  // namespace

int htp_op_flash_attn_ext(struct htp_op_context * octx) {
    const htp_flash_attn_params & p = octx->params->flash_attn;
    if (p.tile_rows == 0 || p.tile_rows > kMaxTile || p.split.rows_per_chunk == 0 || p.split.rows_per_chunk > 64 ||
        p.split.n_bufs == 0 || p.split.n_bufs > 16 || p.n_kv == 0 || p.split.n_threads == 0) {
        return HTP_STATUS_BAD_PARAMS;
    }
    // DMA in flight at most: 2 tiles' rows (write-back, Q) + n_bufs chunks of K, V and mask rows.
    const uint32_t kv_d = kv_descs(p.k_blocks, p.k_vtcm.mins, p.k_vtcm.qh) + kv_descs(p.v_blocks, p.v_vtcm.mins, p.v_vtcm.qh);
    if ((2 + p.split.n_bufs) * p.tile_rows + p.split.n_bufs * kv_d > dma_queue_capacity(octx->ctx->dma[0])) {
        return HTP_STATUS_BAD_PARAMS;
    }
    // Rows are query tiles (each writes only its own output rows, by DMA): a device group's
    // members take whole tiles (split.rows_per_chunk is the kv chunk, not a unit of rows).
    const op_rows tiles = device_rows_by(octx->ctx, p.split, 1);
    const uint32_t n_threads = p.split.n_threads;
    return run_threads(octx->ctx, n_threads, [octx, &tiles, n_threads](uint32_t ith) {
        return fa_run_thread(octx, tiles, ith, n_threads);
    });
}
