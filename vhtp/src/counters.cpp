// Device API counters.h: the level-2 counters of a session's threads (docs/profiling.md).
// Each HVX thread adds to its own block of its core, so counting takes no lock; the dispatcher
// takes the sums on the session's thread between ops, when the workers are idle (work_queue_run
// has returned and its wait orders their writes before the read).
#include <cstring>

#include "core.h"
#include "fault.h"
#include "htp/counters.h"
#include "htp/trace.h"

namespace vhtp {
__thread uint64_t * tls_counts = nullptr;
}  // namespace vhtp

using vhtp::core;

extern "C" {

HTP_DEVICE_API void htp_counters_enable(int on) {
    core * c = vhtp::tls_core;
    if (!c) {
        return;
    }
    if (on) {
        std::memset(c->counts, 0, sizeof c->counts);
    }
    c->counting.store(on != 0, std::memory_order_release);
    vhtp::tls_counts = on ? c->counts[0].v : nullptr;  // the session's thread runs job 0
}

HTP_DEVICE_API void htp_counters_take(uint64_t out[HTP_CNT_COUNT]) {
    std::memset(out, 0, sizeof(uint64_t) * HTP_CNT_COUNT);
    core * c = vhtp::tls_core;
    if (!c) {
        return;
    }
    for (auto & b : c->counts) {
        for (uint32_t i = 0; i < HTP_CNT_COUNT; i++) {
            if (i == HTP_CNT_VTCM_HWM) {
                out[i] = b.v[i] > out[i] ? b.v[i] : out[i];
            } else {
                out[i] += b.v[i];
            }
        }
    }
    std::memset(c->counts, 0, sizeof c->counts);
}

HTP_DEVICE_API void htp_trace_bind(struct htp_trace_buffer_header * buf, uint16_t opcode) {
    core * c = vhtp::tls_core;
    if (!c) {
        return;
    }
    c->trace_opcode.store(opcode, std::memory_order_relaxed);
    c->trace.store(buf, std::memory_order_release);
}

HTP_DEVICE_API void htp_count_add(uint32_t c, uint64_t n) {
    if (c < HTP_CNT_COUNT) {
        vhtp::count(c, n);
    }
}

}  // extern "C"
