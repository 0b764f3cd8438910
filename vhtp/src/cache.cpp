// Device API cache.h. A session alone has coherent memory: the calls only count. A device-group
// member has an L2 model (l2-cache.h): the calls write its dirty lines back to DDR, and a
// clean+invalidate of the member's own fence slot is its fence signal, which mdev-check.h checks.
#include "htp/cache.h"

#include "cache.h"
#include "core.h"
#include "fault.h"
#include "mdev-check.h"

#include <atomic>

namespace {
std::atomic<uint64_t> g_clean{ 0 };
std::atomic<uint64_t> g_invalidate{ 0 };
std::atomic<uint64_t> g_clean_invalidate{ 0 };
std::atomic<uint64_t> g_flush_all{ 0 };

// The calling session's L2 model, or nullptr (no session, or no model: nothing to do).
vhtp::core * cached_core() {
    vhtp::core * c = vhtp::tls_core;
    return c && c->window.l2() ? c : nullptr;
}

void l2_range(vhtp::core * c, const void * p, size_t size, bool invalidate) {
    if (c->window.contains_host(reinterpret_cast<uintptr_t>(p))) {
        const uint64_t addr = static_cast<uint64_t>(static_cast<const uint8_t *>(p) - c->window.base());
        c->window.l2_clean(addr, size, invalidate, vhtp::mdev_check_l2_sink(c));
    }
}
}  // namespace

namespace vhtp {
cache_counts cache_counters() {
    return { g_clean.load(std::memory_order_relaxed), g_invalidate.load(std::memory_order_relaxed),
             g_clean_invalidate.load(std::memory_order_relaxed), g_flush_all.load(std::memory_order_relaxed) };
}
}  // namespace vhtp

extern "C" {
HTP_DEVICE_API void htp_dcache_clean(const void * p, size_t size) {
    vhtp::count(HTP_CNT_L2_OPS, 1);
    vhtp::count(HTP_CNT_L2_BYTES, size);
    g_clean.fetch_add(1, std::memory_order_relaxed);
    if (vhtp::core * c = cached_core()) {
        l2_range(c, p, size, false);
    }
}
HTP_DEVICE_API void htp_dcache_invalidate(const void * p, size_t size) {
    vhtp::count(HTP_CNT_L2_OPS, 1);
    vhtp::count(HTP_CNT_L2_BYTES, size);
    g_invalidate.fetch_add(1, std::memory_order_relaxed);
    if (vhtp::core * c = cached_core()) {
        vhtp::mdev_check_import(c);  // the peers' marks first, so that this clears them
        l2_range(c, p, size, true);  // the model writes dirty lines back first: it never drops data
    }
}
HTP_DEVICE_API void htp_dcache_clean_invalidate(const void * p, size_t size) {
    vhtp::count(HTP_CNT_L2_OPS, 1);
    vhtp::count(HTP_CNT_L2_BYTES, size);
    g_clean_invalidate.fetch_add(1, std::memory_order_relaxed);
    vhtp::core * c = vhtp::tls_core;
    if (c && c->window.l2()) {
        vhtp::mdev_check_import(c);
        l2_range(c, p, size, true);
    }
    if (c && c->mdev.load(std::memory_order_relaxed)) {
        vhtp::mdev_check_clean(c, p, size);  // a device-group member's fence signal?
    }
}
HTP_DEVICE_API void htp_dcache_flush_all(void) {
    vhtp::count(HTP_CNT_L2_OPS, 1);
    vhtp::count(HTP_CNT_L2_BYTES, HTP_DCACHE_FLUSH_ALL_BYTES);
    g_flush_all.fetch_add(1, std::memory_order_relaxed);
    if (vhtp::core * c = cached_core()) {
        vhtp::mdev_check_import(c);
        c->window.l2_clean_all(vhtp::mdev_check_l2_sink(c));
    }
}
}
