// The vHTP's multi-device ownership checker: what real hardware punishes silently (on a phone
// these bugs show up as garbage text) is a fault status here. Per member of a device group
// (htp_fence_register, device-api/include/htp/fence.h) it turns on the member's L2 model
// (l2-cache.h) and collects the DDR ranges the member wrote since its last fence signal: by
// DMA (the bytes), and through L2 (the whole 128-byte lines its cleans wrote back). At each
// signal (the clean of its own fence slot) it checks
//   - that the member's L2 holds no dirty line (every store was cleaned to DDR),
//   - that none of the member's DMA queues still holds a transfer (pushed, not popped), and
//   - that no other member wrote any of the same bytes for the same barrier (same sequence);
//     a line written through L2 counts whole, since its write-back rewrites all 128 bytes,
// and records HTP_STATUS_OWNERSHIP for the member with one stderr line naming the buffer (by
// inode), the range and both members. Every write of a member (DMA, L2 write-back) also makes
// its lines stale in each peer's L2 model until the peer invalidates them (l2-cache.h): a core
// access to a stale line is the fault fault.cpp reports. GGML_HEXAGON_MDEV_CHECK=0 turns it off (and the L2
// model with it: memory is coherent again).
//
// Members may run in different processes (one DSP process per session, docs/vhtp.md "The DSP
// processes"). What they share then is the board (mdev-board.h): each member publishes its merged writes at
// each signal (the overlap check reads its peers' lists for the same barrier under the
// board's process-shared lock) and appends every write to its ring as it happens; a peer in
// another process imports the ring's records as stale marks at its next invalidate, kernel
// launch or fence wait (mdev_check_import). Peers in one process still mark each other at
// once.
#pragma once
#include <cstddef>
#include <cstdint>

#include "l2-cache.h"

namespace vhtp {

struct core;
struct mdev_member;

// Registers the calling session's own fence slot (host address) as member idx of count.
void mdev_check_register(core * c, const void * own_slot, uint32_t idx, uint32_t count);
// A DMA transfer of the session wrote rows of row_size bytes at dst, dst_stride apart.
void mdev_check_dma_write(core * c, uint64_t dst, uint32_t dst_stride, uint32_t row_size, uint32_t nrows);
// Where the session's L2 write-backs go (l2_cache::clean): recorded as the member's writes.
l2_cache::sink mdev_check_l2_sink(core * c);
// The session cleaned [p, p + size): when that is its own fence slot, the member signalled.
void mdev_check_clean(core * c, const void * p, size_t size);
// The session is about to answer a message: lines still dirty in its L2 would never reach the
// host (on a session that joined a group once and now runs alone, say). Reports them like a
// signal with dirty lines, writes them back, and records HTP_STATUS_OWNERSHIP.
void mdev_check_answer(core * c);
// The session's index in its device group (0 when in none); async-signal-safe.
uint32_t mdev_check_member_idx(const core * c);
// Marks in c's L2 model the lines its group's peers in other processes wrote since c last
// looked (their rings on the board). Called before every invalidate (so a mark never lands
// after the invalidate that should clear it), at each kernel launch and in fence waits: a
// member past a barrier imports its peers' writes before its kernels touch DDR.
void mdev_check_import(core * c);
// Drops the session's state (core_destroy).
void mdev_check_forget(core * c);

}  // namespace vhtp
