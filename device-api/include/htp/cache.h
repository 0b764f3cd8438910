// Device API: data-cache maintenance on shared DDR ranges. Needed on Hexagon before a peer or
// the host reads what HVX wrote through L2; the vHTP's memory is coherent, so these only count.
#pragma once
#include <stddef.h>

#include "htp/api.h"

// syncht: every store of this thread reaches memory before any later one (the fence protocol
// orders its slot stores with it). On hosts the vHTP's memory is coherent: a full fence.
static inline void htp_sync_ht(void) {
#if defined(__hexagon__)
    __asm__ __volatile__("syncht" ::: "memory");
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

HTP_DEVICE_API_BEGIN
void htp_dcache_clean(const void * p, size_t size);             // write dirty lines back
void htp_dcache_invalidate(const void * p, size_t size);        // drop lines (re-read from DDR)
void htp_dcache_clean_invalidate(const void * p, size_t size);  // both
HTP_DEVICE_API_END
