#include "trace-export.h"

#include <algorithm>
#include <map>

#include "log.h"

namespace {

const char * htp_trace_type_name(uint16_t type) {
    switch (type) {
        case HTP_TRACE_EVT_OP:       return "op";
        case HTP_TRACE_EVT_HVX_COMP: return "hvx";
        case HTP_TRACE_EVT_HMX_COMP: return "hmx";
        case HTP_TRACE_EVT_DMA:      return "dma-wait";
        case HTP_TRACE_EVT_FENCE:    return "fence";
        case HTP_TRACE_EVT_L2FLUSH:  return "l2flush";
        case HTP_TRACE_EVT_QUANT:    return "quantize";
        case HTP_TRACE_EVT_DEQUANT:  return "dequantize";
        case HTP_TRACE_EVT_OUTPUT:   return "output";
        case HTP_TRACE_EVT_DMA_XFER: return "dma";
        default:                     return "event";
    }
}

// Track ids inside a session's process (docs/tracing.md "Tracks").
constexpr uint32_t kTidDispatcher = 100, kTidHmx = 200, kTidFence = 201, kTidL2 = 202, kTidDma = 300;
constexpr uint32_t kTidHost = 1000;  // host-trace.cpp: host threads from here

uint32_t track_of(const htp_trace_event & e) {
    switch (e.type) {
        case HTP_TRACE_EVT_HMX_COMP: return kTidHmx;  // one HMX unit, taken under its lock: no overlap
        case HTP_TRACE_EVT_FENCE:    return kTidFence;
        case HTP_TRACE_EVT_L2FLUSH:  return kTidL2;
        case HTP_TRACE_EVT_DMA_XFER: return kTidDma + (e.thread >= HTP_TRACE_DMA_THREAD ? e.thread - HTP_TRACE_DMA_THREAD : 0);
        default:                     return e.thread == 0xff ? kTidDispatcher : e.thread;
    }
}

std::string track_name(uint32_t tid) {
    if (tid == kTidDispatcher) {
        return "dispatcher";
    }
    if (tid == kTidHmx) {
        return "HMX";
    }
    if (tid == kTidFence) {
        return "fences";
    }
    if (tid == kTidL2) {
        return "L2 flush";
    }
    if (tid >= kTidDma && tid < kTidHost) {
        return "DMA queue " + std::to_string(tid - kTidDma);
    }
    return "HVX " + std::to_string(tid);
}

}  // namespace

htp_trace_recorder::htp_trace_recorder(std::string device_name, uint32_t n_members, uint32_t capacity) :
    device_name_(std::move(device_name)),
    n_members_(n_members ? n_members : 1),
    capacity_(capacity),
    events_(n_members_) {
    htp_trace_sink_retain();
}

// Every member's session events become slices of a process of its own; the process's trace
// is written when the last device's recorder goes.
htp_trace_recorder::~htp_trace_recorder() {
    std::vector<std::pair<std::string, std::vector<htp_trace_span>>> procs;
    std::map<uint32_t, std::string>                                   names = { { kTidDispatcher, "dispatcher" } };
    for (uint32_t m = 0; m < n_members_; m++) {
        procs.emplace_back(n_members_ == 1 ? device_name_ : device_name_ + "/m" + std::to_string(m),
                           std::vector<htp_trace_span>());
        std::vector<htp_trace_span> &  spans = procs.back().second;
        std::vector<htp_trace_event> & ev    = events_[m];
        // Slots are taken in completion order of the atomic increment, not strictly by time.
        std::stable_sort(ev.begin(), ev.end(),
                         [](const htp_trace_event & a, const htp_trace_event & b) { return a.cycles < b.cycles; });
        // Events that did not fit the buffer were dropped one by one, so a start may have lost
        // its stop (closed at the track's last time) or the reverse (skipped).
        std::map<uint32_t, std::vector<const htp_trace_event *>> open;
        std::map<uint32_t, uint64_t>                             last;
        auto add = [&](const htp_trace_event & b, uint32_t tid, uint64_t end) {
            std::string args = "\"info\":" + std::to_string(b.info);
            if (b.type == HTP_TRACE_EVT_DMA_XFER) {
                const uint64_t bytes = b.info & 0x8000u ? (uint64_t) (b.info & 0x7fffu) * 1024 : b.info;
                args += ",\"bytes\":" + std::to_string(bytes);
            }
            spans.push_back({ tid, std::string(htp_trace_type_name(b.type)) + " " + htp_opcode_name(b.opcode),
                              htp_trace_type_name(b.type), args, b.cycles, end });
            names[tid] = track_name(tid);
        };
        for (const htp_trace_event & e : ev) {
            const uint32_t tid   = track_of(e);
            auto &         stack = open[tid];
            last[tid]            = e.cycles;
            if (e.phase == HTP_TRACE_START) {
                stack.push_back(&e);
            } else if (!stack.empty() && stack.back()->type == e.type) {
                add(*stack.back(), tid, e.cycles);
                stack.pop_back();
            }
        }
        for (auto & track : open) {
            for (const htp_trace_event * e : track.second) {
                add(*e, track.first, last[track.first]);
            }
        }
    }
    htp_trace_sink_release(procs, std::vector<std::pair<uint32_t, std::string>>(names.begin(), names.end()), dropped_);
    htp_shared_free(mem_);
}

bool htp_trace_recorder::init_buffer(std::string & error) {
    region_ = (sizeof(htp_trace_buffer_header) + (uint64_t) capacity_ * sizeof(htp_trace_event) + 63) / 64 * 64;
    return htp_shared_alloc(region_ * n_members_, "htp-trace", mem_, error);
}

void htp_trace_recorder::arm() {
    for (uint32_t m = 0; m < n_members_; m++) {
        auto * h     = (htp_trace_buffer_header *) (mem_.host_ptr + region_offset(m));
        h->magic     = HTP_TRACE_MAGIC;
        h->capacity  = capacity_;
        h->count     = 0;
        h->dropped   = 0;
    }
}

void htp_trace_recorder::collect() {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint32_t m = 0; m < n_members_; m++) {
        const auto *   h = (const htp_trace_buffer_header *) (mem_.host_ptr + region_offset(m));
        const uint32_t n = h->count < h->capacity ? h->count : h->capacity;
        const auto *   e = (const htp_trace_event *) (h + 1);
        events_[m].insert(events_[m].end(), e, e + n);
        dropped_ += h->dropped;
    }
}
