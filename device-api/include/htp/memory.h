// Device API: the session's 32-bit address window.
// Kernels address DDR and VTCM by 32-bit device addresses (dma_addr_t). A session maps shared
// DDR buffers (named by fd) into its window; htp_va() turns a device address into a pointer
// the core can load from. On real Hexagon the window is the address space itself and htp_va
// is a cast; on the vHTP it adds the base of the host region that backs the window.
// An access outside every mapped range is an MMU fault: the op ends with HTP_STATUS_MMU_FAULT.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "htp/api.h"

typedef uint32_t dma_addr_t;

#if defined(__hexagon__)
static inline void * htp_va(dma_addr_t addr) {
    return (void *) (uintptr_t) addr;
}
#else
// Host base of the calling session's window; set by the vHTP on every thread of a session.
HTP_DEVICE_API extern __thread uint8_t * htp_window_base;
static inline void * htp_va(dma_addr_t addr) {
    return htp_window_base + addr;
}
#endif

HTP_DEVICE_API_BEGIN

// Map a shared DDR buffer into the calling session's window (reference counted per fd).
// Returns an htp_status; *addr receives the device address of byte 0.
int htp_mem_map(int fd, uint64_t size, int pinned, dma_addr_t * addr);
// Drop one reference; the range leaves the window when none remain. Returns an htp_status.
int htp_mem_unmap(int fd);
// Sticky fault status of the calling session (MMU faults, DMA errors), cleared by the read.
int htp_fault_take(void);

HTP_DEVICE_API_END
