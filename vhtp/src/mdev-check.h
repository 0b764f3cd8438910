// The vHTP's multi-device ownership checker: what real hardware punishes silently (on a phone
// these bugs show up as garbage text) is a fault status here. Per member of a device group
// (htp_fence_register, device-api/include/htp/fence.h) it collects the DDR ranges its DMA
// wrote since its last fence signal; at each signal (the clean of its own fence slot) it checks
//   - that none of the member's DMA queues still holds a transfer (pushed, not popped), and
//   - that no other member wrote any of the same bytes for the same barrier (same sequence),
// and records HTP_STATUS_OWNERSHIP for the member with one stderr line naming the buffer (by
// inode), the byte range and both members. GGML_HEXAGON_MDEV_CHECK=0 turns it off.
#pragma once
#include <cstddef>
#include <cstdint>

namespace vhtp {

struct core;
struct mdev_member;

// Registers the calling session's own fence slot (host address) as member idx of count.
void mdev_check_register(core * c, const void * own_slot, uint32_t idx, uint32_t count);
// A DMA transfer of the session wrote rows of row_size bytes at dst, dst_stride apart.
void mdev_check_dma_write(core * c, uint64_t dst, uint32_t dst_stride, uint32_t row_size, uint32_t nrows);
// The session cleaned [p, p + size): when that is its own fence slot, the member signalled.
void mdev_check_clean(core * c, const void * p, size_t size);
// Drops the session's state (core_destroy).
void mdev_check_forget(core * c);

}  // namespace vhtp
