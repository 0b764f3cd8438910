// Device API: data-cache maintenance on shared DDR ranges. Needed on Hexagon before a peer or
// the host reads what HVX wrote through L2. On the vHTP a lone session's memory is coherent and
// these only count; a device-group member's L2 is modelled (vhtp/src/l2-cache.h): its stores
// reach DDR only when cleaned, and a fence signalled with dirty lines is a fault.
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
// Clean and invalidate the whole data cache: cheaper than range by range once the dirty ranges
// are large (HTP_DCACHE_FLUSH_ALL_BYTES; npu/src/mdev.cpp chooses).
void htp_dcache_flush_all(void);
HTP_DEVICE_API_END

// The per-line instructions (dccleana, dcinva, dccleaninva: the line that holds a): on Hexagon
// the SDK's hexagon_protos.h has them; on hosts they are one line's worth of the calls above,
// so a kernel written with them runs against the vHTP's L2 model unchanged.
#if !defined(__hexagon__)
static inline void Q6_dccleana_A(const void * a) {
    htp_dcache_clean(a, 1);
}
static inline void Q6_dcinva_A(const void * a) {
    htp_dcache_invalidate(a, 1);
}
static inline void Q6_dccleaninva_A(const void * a) {
    htp_dcache_clean_invalidate(a, 1);
}
#endif

// Dirty bytes past which a flush of the written ranges becomes one whole-cache flush. Cleaning a
// range costs one line operation per 128 bytes whether or not the line is cached, a whole-cache
// flush one pass over the cache's lines: past about the cache's size the pass is cheaper. The
// figure is of the order of a cDSP's L2 (an estimate, not a measured constant).
#define HTP_DCACHE_FLUSH_ALL_BYTES (1u << 20)
