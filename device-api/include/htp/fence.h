// Device API: a session's place in a device group (npu/src/mdev.h). On Hexagon the fence slots
// are plain shared memory and this is a no-op; the vHTP uses it to check the group's rules at
// every fence signal (a clean of the session's own slot): no DMA transfer still in flight, and
// no DDR byte written by DMA in the same op by two members (docs/multi-device.md).
#pragma once
#include <stdint.h>

#include "htp/api.h"

HTP_DEVICE_API_BEGIN
// own_slot: this member's fence line; idx / count: its index and the group's size. Called
// once per batch, before the batch's first barrier.
void htp_fence_register(const void * own_slot, uint32_t idx, uint32_t count);
// The DDR buffer that holds p is shared by the group's members through atomics, as the fence
// slots are (the trace buffer, whose event counter every member bumps): on Hexagon a no-op (such
// memory is meant uncached); the vHTP keeps it out of its L2 model, coherent.
void htp_fence_coherent(const void * p);

// Waiting for a peer's fence slot: returns when *word may no longer be `seen`, or after about
// max_cycles (the caller re-reads and decides). On Hexagon a pause; the vHTP sleeps in the host
// kernel (a shared futex on the slot's page), so a waiting session leaves the host cores to the
// peer it waits for. htp_fence_wake wakes the waiters of *word after a store to it.
void htp_fence_wait(const volatile uint32_t * word, uint32_t seen, uint64_t max_cycles);
void htp_fence_wake(const volatile uint32_t * word);
HTP_DEVICE_API_END
