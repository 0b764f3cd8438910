// Counters of the device API's cache maintenance calls. vHTP memory is coherent, so the calls
// do nothing, but counting them lets tests and profiles see that kernels flush where they must.
#pragma once
#include <cstdint>

namespace vhtp {

struct cache_counts {
    uint64_t clean;
    uint64_t invalidate;
    uint64_t clean_invalidate;
};

cache_counts cache_counters();  // process-wide totals

}  // namespace vhtp
