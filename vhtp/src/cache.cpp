// Device API cache.h: no-ops that count (see cache.h); a clean+invalidate of a device-group
// member's own fence slot is its fence signal, which mdev-check.h checks.
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
}  // namespace

namespace vhtp {
cache_counts cache_counters() {
    return { g_clean.load(std::memory_order_relaxed), g_invalidate.load(std::memory_order_relaxed),
             g_clean_invalidate.load(std::memory_order_relaxed) };
}
}  // namespace vhtp

extern "C" {
HTP_DEVICE_API void htp_dcache_clean(const void *, size_t) {
    g_clean.fetch_add(1, std::memory_order_relaxed);
}
HTP_DEVICE_API void htp_dcache_invalidate(const void *, size_t) {
    g_invalidate.fetch_add(1, std::memory_order_relaxed);
}
HTP_DEVICE_API void htp_dcache_clean_invalidate(const void * p, size_t size) {
    g_clean_invalidate.fetch_add(1, std::memory_order_relaxed);
    vhtp::core * c = vhtp::tls_core;
    if (c && c->mdev.load(std::memory_order_relaxed)) {
        vhtp::mdev_check_clean(c, p, size);  // a device-group member's fence signal?
    }
}
}
