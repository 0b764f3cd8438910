// Device API: the DMA engine, one strict-FIFO queue per HVX thread.
// A descriptor moves nrows rows of row_size bytes from src to dst (device addresses), stepping
// src_stride / dst_stride bytes between rows. nrows == 1 is a 1-D descriptor (at most 16 MiB,
// strides ignored); nrows > 1 is 2-D and every field must fit the arch's width (v73: 16 bits,
// v75+: 24 bits). Transfers complete asynchronously; pops return them in push order.
// Every push needs its pop; dma_queue_flush() is only for batches pushed without pops.
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "htp/api.h"
#include "htp/memory.h"

struct dma_queue;

HTP_DEVICE_API_BEGIN

// Queue a transfer. Returns false, and records HTP_STATUS_DMA_ERROR for the session, when a
// field exceeds the arch's width or the queue is full (capacity: dma_queue_capacity()).
bool dma_queue_push(struct dma_queue * q, dma_addr_t dst, dma_addr_t src, uint32_t dst_stride,
                    uint32_t src_stride, uint32_t row_size, uint32_t nrows);
// Wait for the oldest queued transfer and return its dst address. A transfer that touched
// an unmapped address completes with nothing copied and the session's fault status set.
// Popping an empty queue returns 0 and records HTP_STATUS_DMA_ERROR.
dma_addr_t dma_queue_pop(struct dma_queue * q);
// Wait for every queued transfer.
void dma_queue_flush(struct dma_queue * q);
// How many transfers may be in flight at once.
uint32_t dma_queue_capacity(const struct dma_queue * q);
// Lets the queue's pending transfers progress while the caller computes: a kernel's inner
// loop may call it once per step (a weight tile). It changes nothing a kernel can observe.
// On hardware the DMA engine runs by itself and this does nothing; on the vHTP the transfers
// run on the HVX thread's own host core at their pop, and this starts reading the source of
// the next transfer not yet run, a slice per call, so that the copy then finds it in cache
// instead of waiting for DRAM (docs/speed.md, "DMA reads while the kernel computes").
#if defined(__hexagon__)
static inline void dma_queue_progress(struct dma_queue * q) {
    (void) q;
}
#else
void dma_queue_progress(struct dma_queue * q);
#endif

HTP_DEVICE_API_END

static inline bool dma_queue_push_1d(struct dma_queue * q, dma_addr_t dst, dma_addr_t src, uint32_t size) {
    return dma_queue_push(q, dst, src, size, size, size, 1);
}
