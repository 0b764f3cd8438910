// Device API memory.h: mapping DDR buffers into the calling session's window, fault status.
#include "htp/memory.h"

#include "core.h"
#include "fault.h"
#include "htp-abi/htp-status.h"

extern "C" {

HTP_DEVICE_API int htp_mem_map(int fd, uint64_t size, int pinned, dma_addr_t * addr) {
    vhtp::core * c = vhtp::tls_core;
    if (!c) {
        return HTP_STATUS_INTERNAL;  // not called from a session thread
    }
    return c->window.map(fd, size, pinned != 0, addr);
}

HTP_DEVICE_API int htp_mem_unmap(int fd) {
    vhtp::core * c = vhtp::tls_core;
    if (!c) {
        return HTP_STATUS_INTERNAL;
    }
    return c->window.unmap(fd);
}

HTP_DEVICE_API int htp_fault_take(void) {
    vhtp::core * c = vhtp::tls_core;
    return c ? c->fault.exchange(HTP_STATUS_OK, std::memory_order_acq_rel) : HTP_STATUS_OK;
}

}  // extern "C"
