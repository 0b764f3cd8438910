// The row-streaming skeleton every row-wise op shares: the thread's row range, row
// coordinates from host-made fastdiv constants, and the DDR -> DMA -> VTCM -> HVX -> VTCM ->
// DMA -> DDR pipeline with n_bufs buffering (docs/architecture.md, "Kernel").
//
// Queue order for chunks c = 0, 1, ...:  F0 .. F(n-1), W0, Fn, W1, F(n+1), ...
// (F = an op's fetch descriptors for a chunk, W = its write-back descriptors). Iteration c
// pops W(c - n) (freeing dst slot c % n), pops F(c), computes, pushes W(c) and F(c + n);
// the epilogue pops the last n write-backs. Every push has its pop, in order.
#pragma once
#include "htp-abi/htp-types.h"
#include "op-context.h"
#include "mdev-partition.h"
#include "run-threads.h"

// A kernel's per-chunk compute function is named compute_* and kept out of line, so that the
// Hexagon builds have it as a function of its own: tools/ggml-hexagon-inspect.py --func
// '^compute_' selects exactly these (the spills / promotions / divisions gate, docs/tools.md).
#define HTP_COMPUTE __attribute__((noinline))
// A piece of a compute function, always inlined into it (its values stay the caller's registers).
#define HTP_INLINE inline __attribute__((always_inline))

namespace htp_ops {

struct row_pos {
    uint32_t i1, i2, i3;
};

static inline row_pos row_coords(const htp_rows_shape & s, uint32_t r) {
    const uint32_t q = htp_fastdiv(r, &s.div_ne1);
    row_pos        p;
    p.i1 = r - q * s.ne1;
    p.i3 = htp_fastdiv(q, &s.div_ne2);
    p.i2 = q - p.i3 * s.ne2;
    return p;
}

static inline uint32_t row_offset(const htp_rows_strides & st, uint32_t i1, uint32_t i2, uint32_t i3) {
    return i1 * st.nb1 + i2 * st.nb2 + i3 * st.nb3;
}

// Device address of slot `slot` of a stream in thread ith's VTCM.
static inline dma_addr_t vtcm_slot(const htp_context * ctx, const htp_split_params & sp, uint32_t ith,
                                   const htp_vtcm_stream & st, uint32_t slot) {
    return ctx->vtcm_base + ith * sp.vtcm_per_thread + st.offset + slot * st.slot_size;
}

static inline dma_addr_t vtcm_at(const htp_context * ctx, const htp_split_params & sp, uint32_t ith, uint32_t offset) {
    return ctx->vtcm_base + ith * sp.vtcm_per_thread + offset;
}

// The rows of an op this session runs: [row_start, row_start + nrows), rows_per_thread each
// for its HVX threads. Alone that is all of them as the host split them; a member of a device
// group (npu/src/mdev.h) takes its share in whole DMA chunks (mdev-partition.h) and splits that
// over its threads the same way. Workers see only these ranges.
struct op_rows {
    uint32_t row_start;
    uint32_t nrows;
    uint32_t rows_per_thread;
};

static inline op_rows all_rows(const htp_split_params & sp) {
    const op_rows o = { 0, sp.total_rows, sp.rows_per_thread };
    return o;
}

// units_per_chunk: the rows a member's share is a multiple of (device_rows: a DMA chunk).
static inline op_rows device_rows_by(const htp_context * ctx, const htp_split_params & sp, uint32_t units_per_chunk) {
    op_rows o = all_rows(sp);
    if (ctx->mdev.count > 1) {
        const mdev_range r   = mdev_partition(sp.total_rows, units_per_chunk, &ctx->mdev);
        const uint32_t   rpc = units_per_chunk;
        const uint32_t   chunks_per_thread = ((r.count + rpc - 1) / rpc + sp.n_threads - 1) / sp.n_threads;
        o.row_start       = r.start;
        o.nrows           = r.count;
        o.rows_per_thread = chunks_per_thread * rpc;
    }
    return o;
}

static inline op_rows device_rows(const htp_context * ctx, const htp_split_params & sp) {
    return device_rows_by(ctx, sp, sp.rows_per_chunk);
}

// Rows [begin, end) of thread ith.
struct row_range {
    uint32_t begin, end;
};

static inline row_range thread_rows(const op_rows & o, uint32_t ith) {
    row_range rr;
    rr.begin = o.row_start + o.rows_per_thread * ith;
    rr.end   = rr.begin + o.rows_per_thread;
    if (rr.end > o.row_start + o.nrows) {
        rr.end = o.row_start + o.nrows;
    }
    if (rr.begin > rr.end) {
        rr.begin = rr.end;
    }
    return rr;
}

static inline void dma_pop_n(dma_queue * q, htp_trace * tr, uint32_t n, uint16_t info) {
    if (n == 0) {
        return;
    }
    htp_trace_event_start(tr, HTP_TRACE_EVT_DMA, info);
    for (uint32_t i = 0; i < n; i++) {
        dma_queue_pop(q);
    }
    htp_trace_event_stop(tr, HTP_TRACE_EVT_DMA, info);
}

// The usual fetch and write-back of a chunk for ops whose params have `split`, `shape`,
// `src0` / `dst` strides and `vsrc` / `vdst` streams: rows [r, r + n) of src0 into the src
// slot, or of the dst slot into dst, as one 2-D descriptor of row_bytes per row.
template <class P>
static inline int fetch_chunk(const htp_op_context * octx, const P * p, uint32_t ith, dma_queue * q, uint32_t r,
                              uint32_t n, uint32_t slot, uint32_t row_bytes) {
    const row_pos    c = row_coords(p->shape, r);
    const dma_addr_t s = octx->src[0].data + row_offset(p->src0, c.i1, c.i2, c.i3);
    return dma_queue_push(q, vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot), s, p->vsrc.row_pitch, p->src0.nb1,
                          row_bytes, n) ? 1 : -1;
}

template <class P>
static inline int store_chunk(const htp_op_context * octx, const P * p, uint32_t ith, dma_queue * q, uint32_t r,
                              uint32_t n, uint32_t slot, uint32_t row_bytes) {
    const row_pos    c = row_coords(p->shape, r);
    const dma_addr_t d = octx->dst.data + row_offset(p->dst, c.i1, c.i2, c.i3);
    return dma_queue_push(q, d, vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot), p->dst.nb1, p->vdst.row_pitch,
                          row_bytes, n) ? 1 : -1;
}

// The members every row op starts with (run_rows fills them), and the usual fetch and
// write-back of a chunk of rows of ne0 floats, for ops whose params have ne0 (an op with other
// rows defines its own fetch / store, which hide these).
template <class P> struct row_op {
    const htp_op_context * octx;
    const P *              p;
    uint32_t               ith;
    dma_queue *            q;

    int fetch(uint32_t r, uint32_t n, uint32_t slot) { return fetch_chunk(octx, p, ith, q, r, n, slot, p->ne0 * 4); }

    int store(uint32_t r, uint32_t n, uint32_t slot) { return store_chunk(octx, p, ith, q, r, n, slot, p->ne0 * 4); }
};

// Runs the pipeline over rows [rr.begin, rr.end) in chunks of sp.rows_per_chunk rows.
// Op provides (r = first row, n = rows in the chunk, slot = buffer slot):
//   int  fetch(r, n, slot)   push DDR -> VTCM descriptors; returns how many, or -1
//   void compute_chunk(r, n, slot) HVX work from the src slot(s) into the dst slot (HTP_COMPUTE)
//   int  store(r, n, slot)   push VTCM -> DDR descriptors; returns how many, or -1
template <class Op> static int stream_rows(dma_queue * q, htp_trace * tr, const htp_split_params & sp, row_range rr, Op & op) {
    if (rr.begin >= rr.end) {
        return HTP_STATUS_OK;
    }
    const uint32_t rpc     = sp.rows_per_chunk;
    const uint32_t n_bufs  = sp.n_bufs;
    uint32_t       fetched[16];  // descriptors pushed for the chunk held in each slot
    uint32_t       stored[16];

    // Prologue: prime up to n_bufs chunks.
    uint32_t next_r    = rr.begin;  // first row not yet fetched
    uint32_t n_primed  = 0;
    for (; n_primed < n_bufs && next_r < rr.end; n_primed++) {
        const uint32_t n = rr.end - next_r < rpc ? rr.end - next_r : rpc;
        const int      k = op.fetch(next_r, n, n_primed);
        if (k < 0) {
            dma_queue_flush(q);
            return HTP_STATUS_DMA_ERROR;
        }
        fetched[n_primed] = (uint32_t) k;
        next_r += n;
    }

    uint32_t slot  = 0;
    uint32_t chunk = 0;
    for (uint32_t r = rr.begin; r < rr.end; chunk++) {
        const uint32_t n    = rr.end - r < rpc ? rr.end - r : rpc;
        const uint16_t info = (uint16_t) chunk;
        if (chunk >= n_bufs) {
            dma_pop_n(q, tr, stored[slot], info);  // W(chunk - n_bufs): dst slot is free again
        }
        dma_pop_n(q, tr, fetched[slot], info);     // F(chunk): src slot is filled

        htp_trace_event_start(tr, HTP_TRACE_EVT_HVX_COMP, info);
        op.compute_chunk(r, n, slot);
        htp_trace_event_stop(tr, HTP_TRACE_EVT_HVX_COMP, info);

        const int ks = op.store(r, n, slot);
        if (ks < 0) {
            dma_queue_flush(q);
            return HTP_STATUS_DMA_ERROR;
        }
        stored[slot] = (uint32_t) ks;

        if (next_r < rr.end) {  // F(chunk + n_bufs) into the src slot just consumed
            const uint32_t nn = rr.end - next_r < rpc ? rr.end - next_r : rpc;
            const int      kf = op.fetch(next_r, nn, slot);
            if (kf < 0) {
                dma_queue_flush(q);
                return HTP_STATUS_DMA_ERROR;
            }
            fetched[slot] = (uint32_t) kf;
            next_r += nn;
        }
        r += n;
        if (++slot == n_bufs) {
            slot = 0;
        }
    }

    // Epilogue: the last min(chunk, n_bufs) write-backs, oldest first.
    const uint32_t n_left = chunk < n_bufs ? chunk : n_bufs;
    uint32_t       s      = chunk < n_bufs ? 0 : slot;  // slot of chunk - n_left
    for (uint32_t i = 0; i < n_left; i++) {
        dma_pop_n(q, tr, stored[s], (uint16_t) (chunk - n_left + i));
        if (++s == n_bufs) {
            s = 0;
        }
    }
    return HTP_STATUS_OK;
}

// op.start(), for an op that has one: its set-up before the thread's row stream (the DMA
// queue is empty then), returning an htp_status; nothing for the others.
template <class Op> static inline auto start_op(Op & op, int) -> decltype(op.start()) {
    return op.start();
}

template <class Op> static inline int start_op(Op &, long) {
    return HTP_STATUS_OK;
}

// An op struct has the members of row_op (most derive from it), fetch / compute_chunk / store
// (above) and optionally start (start_op). Runs Op over `rows` (run_rows: this session's,
// device_rows) on p.split.n_threads HVX threads; returns the first thread's failure.
template <class Op, class Params> static int run_rows_of(htp_op_context * octx, const Params & p, const op_rows & rows) {
    htp_context * ctx = octx->ctx;
    return run_threads(ctx, p.split.n_threads, [&](uint32_t ith) {
        Op op   = {};
        op.octx = octx;
        op.p    = &p;
        op.ith  = ith;
        op.q    = ctx->dma[ith];
        if (const int rc = start_op(op, 0)) {
            return rc;
        }
        return stream_rows(ctx->dma[ith], &ctx->trace[ith], p.split, thread_rows(rows, ith), op);
    });
}

template <class Op, class Params> static int run_rows(htp_op_context * octx, const Params & p) {
    return run_rows_of<Op>(octx, p, device_rows(octx->ctx, p.split));
}

}  // namespace htp_ops
