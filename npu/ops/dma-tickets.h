// DMA with tickets, for ops whose chunks need many descriptors (gathers, transposes): every
// push gets a ticket number; wait(t) pops in FIFO order until ticket t has completed. A push
// that would exceed HTP_DMA_INFLIGHT_MAX first pops the oldest transfer (which the op waits
// for later anyway), so any number of descriptors per chunk keeps the queue within bounds
// and every push still has exactly one pop.
#pragma once
#include "htp-abi/htp-abi.h"
#include "op-context.h"
#include "row-stream.h"

namespace htp_ops {

struct dma_tickets {
    dma_queue * q;
    htp_trace * tr;
    uint32_t    pushed;  // tickets handed out (ticket of the last push = pushed)
    uint32_t    popped;  // transfers popped
    bool        failed;

    void init(dma_queue * queue, htp_trace * trace) {
        q      = queue;
        tr     = trace;
        pushed = 0;
        popped = 0;
        failed = false;
    }

    // Queue one transfer (nrows == 1: 1-D); returns its ticket.
    uint32_t push(dma_addr_t dst, dma_addr_t src, uint32_t dst_stride, uint32_t src_stride, uint32_t row_size,
                  uint32_t nrows) {
        if (pushed - popped >= HTP_DMA_INFLIGHT_MAX) {
            dma_queue_pop(q);
            popped++;
        }
        if (!dma_queue_push(q, dst, src, dst_stride, src_stride, row_size, nrows)) {
            failed = true;
            return popped;  // nothing queued; waiting for it is a no-op
        }
        return ++pushed;
    }

    // Waits (traced) until n more pushes fit within HTP_DMA_INFLIGHT_MAX, for ops that want
    // that wait in the trace rather than push() popping the oldest transfer unseen.
    void room(uint32_t n, uint16_t info) {
        if (pushed - popped + n > HTP_DMA_INFLIGHT_MAX) {
            wait(pushed + n - HTP_DMA_INFLIGHT_MAX, info);
        }
    }

    // Pops until transfer number t (and all before it) completed.
    void wait(uint32_t t, uint16_t info) {
        if (popped >= t) {
            return;
        }
        htp_trace_event_start(tr, HTP_TRACE_EVT_DMA, info);
        while (popped < t) {
            dma_queue_pop(q);
            popped++;
        }
        htp_trace_event_stop(tr, HTP_TRACE_EVT_DMA, info);
    }

    void drain(uint16_t info) { wait(pushed, info); }
};

// The chunk pipeline of a ticket op over rows [rr.begin, rr.end) in chunks of rows_per_chunk:
// n_bufs gather slots and dst slots, T providing (r = first row, n = rows, slot):
//   uint32_t gather(r, n, slot)   push the chunk's DDR -> VTCM descriptors; returns the last ticket
//   void compute_chunk(n, slot)   HVX from the gather slot into the dst slot (HTP_COMPUTE)
//   uint32_t store(r, n, slot)    push the dst slot's write-back; returns its ticket
// Chunk c waits for its gathers and for the store of chunk c - n_bufs (its dst slot), computes,
// stores, and gathers chunk c + n_bufs into the slot it just read; the end drains the stores.
template <class T> static int ticket_stream(T & th, const htp_split_params & sp, row_range rr) {
    const uint32_t rpc = sp.rows_per_chunk;
    const uint32_t nb  = sp.n_bufs;
    uint32_t       gathered[16];
    uint32_t       stored[16];
    for (uint32_t i = 0; i < 16; i++) {
        gathered[i] = 0;
        stored[i]   = 0;
    }
    uint32_t next_r = rr.begin;
    for (uint32_t s = 0; s < nb && next_r < rr.end; s++) {  // prologue
        const uint32_t n = rr.end - next_r < rpc ? rr.end - next_r : rpc;
        gathered[s]      = th.gather(next_r, n, s);
        next_r += n;
    }
    htp_trace *    tr   = th.t.tr;
    uint32_t       slot = 0, chunk = 0;
    for (uint32_t r = rr.begin; r < rr.end; chunk++) {
        const uint32_t n    = rr.end - r < rpc ? rr.end - r : rpc;
        const uint16_t info = (uint16_t) chunk;
        th.t.wait(gathered[slot], info);
        th.t.wait(stored[slot], info);  // dst slot free again (chunk - n_bufs written)
        htp_trace_event_start(tr, HTP_TRACE_EVT_HVX_COMP, info);
        th.compute_chunk(n, slot);
        htp_trace_event_stop(tr, HTP_TRACE_EVT_HVX_COMP, info);
        stored[slot] = th.store(r, n, slot);
        if (next_r < rr.end) {  // the gather slot just consumed takes chunk + n_bufs
            const uint32_t nn = rr.end - next_r < rpc ? rr.end - next_r : rpc;
            gathered[slot]    = th.gather(next_r, nn, slot);
            next_r += nn;
        }
        r += n;
        if (++slot == nb) {
            slot = 0;
        }
    }
    th.t.drain((uint16_t) (chunk - 1));  // the last chunks' stores
    return th.t.failed ? HTP_STATUS_DMA_ERROR : HTP_STATUS_OK;
}

// Runs an op whose per-thread state is a struct T { octx, p, ith, dma_tickets t, ... } with
// int run(row_range) over this session's rows of p->split (device_rows; one T per HVX thread,
// on that thread's stack).
template <class T, class Params> static int run_ticket_threads(htp_op_context * octx, const Params * p) {
    htp_context * ctx  = octx->ctx;
    const op_rows rows = device_rows(ctx, p->split);
    return run_threads(ctx, p->split.n_threads, [&](uint32_t ith) {
        T th;
        th.octx = octx;
        th.p    = p;
        th.ith  = ith;
        th.t.init(ctx->dma[ith], &ctx->trace[ith]);
        return th.run(thread_rows(rows, ith));
    });
}

}  // namespace htp_ops
