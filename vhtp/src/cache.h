// Counters of the device API's cache maintenance calls. A lone session's memory is coherent, so
// there the calls do nothing but count (a device-group member's go to its L2 model,
// l2-cache.h); the counts let tests and profiles see that kernels flush where they must.
#pragma once
#include <cstdint>

namespace vhtp {

struct cache_counts {
    uint64_t clean;
    uint64_t invalidate;
    uint64_t clean_invalidate;
    uint64_t flush_all;  // htp_dcache_flush_all: the whole cache
};

cache_counts cache_counters();  // process-wide totals

}  // namespace vhtp
