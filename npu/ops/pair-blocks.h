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
//   unit     make_unit(uint32_t pair_idx, uint32_t pair, uint32_t block) const
//   uint32_t fetch(const unit &, uint32_t slot)         -> ticket of its last descriptor
//   void     compute_chunk(const unit &, uint32_t slot)  (HTP_COMPUTE)
//   uint32_t store(const unit &, uint32_t slot)         -> ticket of its last descriptor
// where pair_idx is the pair's index in the thread's range (its state region: pair_idx & 1)
// and pair its row number. A fetch that sets t.failed (a refused index) ends the loop.
#pragma once
#include "dma-tickets.h"
#include "row-stream.h"

namespace htp_ops {

template <class T> static int run_pair_blocks(T & th, row_range rr, uint32_t nb) {
    if (rr.begin >= rr.end) {
        return HTP_STATUS_OK;
    }
    dma_tickets &  t          = th.t;
    const uint32_t n_units    = (rr.end - rr.begin) * nb;
    uint32_t       fetched[2] = { 0, 0 }, stored[2] = { 0, 0 };
    fetched[0] = th.fetch(th.make_unit(0, rr.begin, 0), 0);
    // Unit ui is block ui % nb of pair ui / nb: (pi, bi) now, (nx_pi, nx_bi) the next one,
    // both stepped instead of divided.
    uint32_t pi = 0, bi = 0;
    uint32_t nx_pi = nb == 1 ? 1 : 0, nx_bi = nb == 1 ? 0 : 1;
    for (uint32_t ui = 0; ui < n_units && !t.failed; ui++) {
        const uint32_t slot = ui & 1;
        const uint16_t info = (uint16_t) ui;
        if (ui + 1 < n_units) {  // next unit into the other slot, once its last store is done
            t.wait(stored[slot ^ 1], info);
            fetched[slot ^ 1] = th.fetch(th.make_unit(nx_pi, rr.begin + nx_pi, nx_bi), slot ^ 1);
        }
        const auto u = th.make_unit(pi, rr.begin + pi, bi);
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

}  // namespace htp_ops
