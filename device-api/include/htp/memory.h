// Device API: the session's address window.
// Kernels address DDR and VTCM by device addresses (dma_addr_t). A session maps shared DDR
// buffers (named by fd) into its window; htp_va() turns a device address into a pointer the
// core can load from. On real Hexagon the window is the address space itself and htp_va is a
// cast; on the vHTP it adds the base of the host region that backs the window.
// An access outside every mapped range is an MMU fault: the op ends with HTP_STATUS_MMU_FAULT.
//
// Addresses and offsets (spec: "Use dma_addr_t only for DMA base and final addresses"):
//   - dma_addr_t is a 64-bit device address. It holds a tensor's base address, a VTCM base,
//     and the final address of one DMA transfer or vector access. Nothing else is a dma_addr_t,
//     and no address (nor a difference of two) is ever stored in a uint32_t.
//   - Byte offsets, strides and sizes stay 32-bit (uint32_t): a final address is always
//     base + 32-bit offset. A tensor and VTCM are each below 4 GiB (a tensor's strides are
//     32-bit); a buffer may be larger, the dispatcher forms each tensor's base in 64 bits.
//     Only bases may lie above 4 GiB (v81 sessions with 64-bit DMA bases, GGML_HEXAGON_DMA64:
//     the vHTP maps DDR buffers above 4 GiB there, so a kernel that truncates an address
//     faults).
//   - On real Hexagon (v73..v81 cDSP, a 32-bit core) htp_va() may only be given 32-bit
//     addresses: VTCM and DDR mapped into the 32-bit window. A 64-bit DDR base is for the DMA
//     engine alone (the core cannot load from it), so a kernel that reads such a buffer with
//     HVX must bring it to VTCM by DMA first.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "htp/api.h"

typedef uint64_t dma_addr_t;

#if defined(__hexagon__)
static inline void * htp_va(dma_addr_t addr) {
    return (void *) (uintptr_t) addr;  // 32-bit addresses only (see above)
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
// Returns an htp_status; *addr receives the device address of byte 0 (above 4 GiB in a
// session with 64-bit DMA bases).
int htp_mem_map(int fd, uint64_t size, int pinned, dma_addr_t * addr);
// Drop one reference; the range leaves the window when none remain. Returns an htp_status.
int htp_mem_unmap(int fd);
// Sticky fault status of the calling session (MMU faults, DMA errors), cleared by the read.
int htp_fault_take(void);

HTP_DEVICE_API_END
