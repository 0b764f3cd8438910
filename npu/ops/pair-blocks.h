// The stream of the recurrent ops (SSM_SCAN, GATED_DELTA_NET, RWKV_WKV6 / WKV7,
// GATED_LINEAR_ATTN): a thread's rows are (pair, sequence)-like pairs, each a run of n_blocks
// token blocks, whose state stays in VTCM from the pair's first block to its last. A unit is
// block b of pair p, unit ui = p * n_blocks + b; its per-block streams sit in slot ui & 1 (a
// double buffer, split.n_bufs = 2), its state in region p & 1 (so the next pair's state can
// load while this pair's last block computes).
//
// Per unit: the next unit's fetch is queued into the other slot once that slot's last store
// is done, this unit's fetch is waited for, compute_chunk runs (traced as HVX_COMP), and its
// store is queued; the epilogue drains the last stores. Every push has its pop
// (dma-tickets.h). The op's thread struct T (run_ticket_threads) provides
//   unit     make_unit(uint32_t pair, const pair_block & b) const
//   uint32_t fetch(const unit &, uint32_t slot)         -> ticket of its last descriptor
//   void     compute_chunk(const unit &, uint32_t slot)  (HTP_COMPUTE)
//   uint32_t store(const unit &, uint32_t slot)         -> ticket of its last descriptor
// where pair is the pair's row number and b its block (pair_block below); a unit derives from
// pair_block and adds the op's split of the pair. A fetch that sets t.failed (a refused index)
// ends the loop.
#pragma once
#include "dma-tickets.h"
#include "row-stream.h"

namespace htp_ops {

// How a pair's tokens are cut: n_blocks blocks of tok_block tokens, n_tok in all.
struct pair_tokens {
    uint32_t n_blocks, tok_block, n_tok;
};

// A unit's place in its pair, the same for every pair op: block `block` covers tokens
// [t0, t0 + nt); `state` is the pair's state region (its index in the thread's range & 1).
struct pair_block {
    uint32_t block, t0, nt, state;
};

static inline pair_block pair_block_at(const pair_tokens & pt, uint32_t pair_idx, uint32_t block) {
    const uint32_t t0 = block * pt.tok_block;
    return { block, t0, pt.n_tok - t0 < pt.tok_block ? pt.n_tok - t0 : pt.tok_block, pair_idx & 1 };
}

// The unit of the ops whose pairs are (head, sequence) pairs, pair = s * H + h
// (GATED_DELTA_NET, the linear-attention ops).
struct head_seq_unit : pair_block {
    uint32_t h, s;
};

static inline head_seq_unit head_seq_at(uint32_t pair, const pair_block & b, const struct htp_fastdiv * div_H, uint32_t H) {
    const uint32_t s = htp_fastdiv(pair, div_H);
    return { b, pair - s * H, s };
}

template <class T> static int run_pair_blocks(T & th, row_range rr, const pair_tokens & pt) {
    if (rr.begin >= rr.end) {
        return HTP_STATUS_OK;
    }
    dma_tickets &  t          = th.t;
    const uint32_t nb         = pt.n_blocks;
    const uint32_t n_units    = (rr.end - rr.begin) * nb;
    uint32_t       fetched[2] = { 0, 0 }, stored[2] = { 0, 0 };
    fetched[0] = th.fetch(th.make_unit(rr.begin, pair_block_at(pt, 0, 0)), 0);
    // Unit ui is block ui % nb of pair ui / nb: (pi, bi) now, (nx_pi, nx_bi) the next one,
    // both stepped instead of divided.
    uint32_t pi = 0, bi = 0;
    uint32_t nx_pi = nb == 1 ? 1 : 0, nx_bi = nb == 1 ? 0 : 1;
    for (uint32_t ui = 0; ui < n_units && !t.failed; ui++) {
        const uint32_t slot = ui & 1;
        const uint16_t info = (uint16_t) ui;
        if (ui + 1 < n_units) {  // next unit into the other slot, once its last store is done
            t.wait(stored[slot ^ 1], info);
            fetched[slot ^ 1] = th.fetch(th.make_unit(rr.begin + nx_pi, pair_block_at(pt, nx_pi, nx_bi)), slot ^ 1);
        }
        const auto u = th.make_unit(rr.begin + pi, pair_block_at(pt, pi, bi));
        pi           = nx_pi;
        bi           = nx_bi;
        if (++nx_bi == nb) {
            nx_bi = 0;
            nx_pi++;
        }
        t.wait(fetched[slot], info);
        htp_trace_event_start(&th.octx->ctx->trace[th.ith], HTP_TRACE_EVT_HVX_COMP, info);
        th.compute_chunk(u, slot);
        htp_trace_event_stop(&th.octx->ctx->trace[th.ith], HTP_TRACE_EVT_HVX_COMP, info);
        stored[slot] = th.store(u, slot);
    }
    t.drain((uint16_t) (n_units - 1));  // the last units' stores
    return t.failed ? HTP_STATUS_DMA_ERROR : HTP_STATUS_OK;
}

// th.compute_tokens<NV>(u, slot) for NV = nv vectors a state row (1 to 8; any other: 8), so
// that each NV's per-row accumulators are registers.
template <class T, class U> static inline void compute_tokens_nv(T & th, uint32_t nv, const U & u, uint32_t slot) {
    switch (nv) {
        case 1: th.template compute_tokens<1>(u, slot); break;
        case 2: th.template compute_tokens<2>(u, slot); break;
        case 3: th.template compute_tokens<3>(u, slot); break;
        case 4: th.template compute_tokens<4>(u, slot); break;
        case 5: th.template compute_tokens<5>(u, slot); break;
        case 6: th.template compute_tokens<6>(u, slot); break;
        case 7: th.template compute_tokens<7>(u, slot); break;
        default: th.template compute_tokens<8>(u, slot); break;
    }
}

}  // namespace htp_ops
