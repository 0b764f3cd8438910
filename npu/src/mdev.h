// Multi-device (mdev): the sessions of a device group (GGML_HEXAGON_DEVICES=HTP0[0-1]) each get
// the same batch and run every op on their own slice of its output. This file holds what the
// dispatcher needs for that: the group's place in the context, the barrier on the fence slots
// (one 128-byte line per member in shared DDR) and the flush of what an op wrote.
//
// Fence protocol (per barrier, sequence number seq = ++fence_seq):
//   write own slot:  store seq and status as one 64-bit word, syncht, clean+invalidate the line
//   read a peer:     clean+invalidate the line, syncht, load the word (seq and status together)
//   wait until every peer's seq has reached ours ((int32_t)(peer - seq) >= 0, so the count may
//   wrap), or a peer not yet arrived reports an error in this batch (then return that error at
//   once; every missing peer is read each round), or the wait exceeds HTP_FENCE_TIMEOUT_CYCLES
//   (HTP_STATUS_FENCE_ERROR: a peer never arrived).
#pragma once
#include <stdint.h>

#include "htp-abi/htp-abi.h"
#include "htp/htp-device.h"

// How long a barrier waits for a peer before it gives up (cycles; 1 GHz nominal on the vHTP).
#define HTP_FENCE_TIMEOUT_CYCLES (60ull * 1000 * 1000 * 1000)

// A DDR range an op wrote (its dst).
struct htp_dirty_range {
    dma_addr_t addr;
    uint32_t   bytes;
};

struct htp_mdev {
    uint32_t           idx;         // this session's index in the group
    uint32_t           count;       // members (1: single device; nothing below is used)
    struct htp_fastdiv count_div;   // host-made fastdiv of count (partition helpers)
    dma_addr_t         fence_base;  // device address of slot 0
    uint32_t           fence_seq;   // last sequence number used
    uint32_t           batch_seq;   // the batch's first barrier: older peer errors are stale
    struct htp_dirty_range peer_written;  // what the peers wrote in the op before (its whole dst)
};

// Sets up the group for one batch from the message header (count 1 when alone), with nothing
// written by the peers yet. Returns an
// htp_status (BAD_MESSAGE for an inconsistent header).
int htp_mdev_begin_batch(struct htp_mdev * m, const struct htp_msg_header * h, dma_addr_t fence_buf_addr);

// Signals this member's arrival with `status` and, when that is OK, waits for every peer.
// Returns HTP_STATUS_OK, a peer's error, or HTP_STATUS_FENCE_ERROR on timeout.
int htp_mdev_barrier(struct htp_mdev * m, struct htp_trace * tr, int status, uint16_t info);

// The dirty-tensor flush (spec: htp_dcache_flush_dirty_tensors): cleans what an op wrote out of
// this session's cache so peers and the host read it from DDR: range by range, or the whole
// cache at once when the ranges add up to more than HTP_DCACHE_FLUSH_ALL_BYTES
// (device-api/include/htp/cache.h). Kernels write DDR by DMA today, which needs no clean: this
// keeps the rule for HVX/L2 stores (the vHTP's L2 model checks it, vhtp/src/l2-cache.h).
// Trace event L2FLUSH, info: bit 15 set for a whole-cache flush, bits 0..14 the ranges' KiB
// (rounded up, at most 0x7fff).
void htp_mdev_flush(const struct htp_dirty_range * r, uint32_t n, struct htp_trace * tr);

#define HTP_L2FLUSH_INFO_ALL 0x8000u

// After a barrier: drops what this session's cache may hold of ranges its peers wrote (an op's
// whole dst: the peers' slices of it), so that a core (scalar or HVX) load of them reads DDR.
// Range by range, or the whole cache once they add up to more than HTP_DCACHE_FLUSH_ALL_BYTES.
// Kernels read DDR by DMA mostly, which needs no invalidate; the core's reads (row ids,
// positions, expert ids, ...) do. The vHTP faults a core read of a line a peer wrote since this
// member last invalidated it (docs/vhtp.md "Stale reads").
void htp_mdev_invalidate(const struct htp_dirty_range * r, uint32_t n);

// The dispatcher's group steps (npu/src/dispatcher.cpp). Each does nothing for a single
// session (count 1) but return `status` (or OK) as it came.

// The trace buffer the message names is shared by the group's members (one atomic event count).
void htp_mdev_share_trace(const struct htp_mdev * m, void * trace_buf);

// Before op `i` (dst: the range it writes): the pre-op barrier, at which every member has
// finished and flushed the previous op (so this op's inputs are in DDR) and a member that failed
// (`status` not OK) stops the others. The runtime may judge the previous op's writes at this
// signal (the vHTP's ownership checker): a fault now is that op's, and *failed becomes i - 1.
// Then what the peers wrote in the previous op is dropped from this session's cache, and this
// op's dst becomes what they will have written. Returns the status to run the op with.
int htp_mdev_before_op(struct htp_mdev * m, struct htp_trace * tr, int status, uint32_t i,
                       struct htp_dirty_range dst, uint32_t * failed);

// Whether this member runs an op's kernel: an op that splits its output runs on every member,
// one that cannot (HTP_OP_LIST's mdev column: `split` 0) on member 0 alone.
static inline int htp_mdev_runs_op(const struct htp_mdev * m, int split) {
    return m->count == 1 || m->idx == 0 || split;
}

// After this member ran an op that ended with `status`: when OK, cleans what it wrote (dst) out
// of the cache, so that the peers and the host read it from DDR.
void htp_mdev_after_op(struct htp_mdev * m, struct htp_trace * tr, int status, struct htp_dirty_range dst);

// This member stops the batch with `status` (not OK) at barrier `info`: the peers see it at that
// barrier and stop too. After an op (`after_op` 1) the whole cache is dropped, so that whatever
// the peers wrote before they stopped is read from DDR.
void htp_mdev_fail(struct htp_mdev * m, struct htp_trace * tr, int status, uint16_t info, int after_op);

// The batch barrier after the last of n_ops ops: no member answers before every member's last op
// is in DDR; the ownership checker's verdict on that op is taken, and what the peers wrote in it
// is dropped from the cache (the next message's ops may read it). Returns an htp_status.
int htp_mdev_end_batch(struct htp_mdev * m, struct htp_trace * tr, uint32_t n_ops);
