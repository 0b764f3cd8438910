#include "trace-export.h"

#include <algorithm>
#include <map>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "log.h"


static const char * htp_trace_type_name(uint16_t type) {
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
        default:                     return "event";
    }
}

htp_trace_recorder::htp_trace_recorder(std::string device_name, uint32_t device_index, std::string path,
                                       uint32_t capacity) :
    device_name_(std::move(device_name)),
    device_index_(device_index),
    path_(std::move(path)),
    capacity_(capacity) {}

htp_trace_recorder::~htp_trace_recorder() {
    write_file();
    htp_shared_free(mem_);
}

bool htp_trace_recorder::init_buffer(std::string & error) {
    const uint64_t size = sizeof(htp_trace_buffer_header) + (uint64_t) capacity_ * sizeof(htp_trace_event);
    return htp_shared_alloc(size, "htp-trace", mem_, error);
}

void htp_trace_recorder::arm() {
    auto * h     = (htp_trace_buffer_header *) mem_.host_ptr;
    h->magic     = HTP_TRACE_MAGIC;
    h->capacity  = capacity_;
    h->count     = 0;
    h->dropped   = 0;
}

void htp_trace_recorder::collect() {
    std::lock_guard<std::mutex> lock(mu_);
    const auto * h = (const htp_trace_buffer_header *) mem_.host_ptr;
    const uint32_t n = h->count < h->capacity ? h->count : h->capacity;
    const auto * e = (const htp_trace_event *) (h + 1);
    events_.insert(events_.end(), e, e + n);
    dropped_ += h->dropped;
}

// Chrome JSON trace events: B/E pairs per thread; timestamps in microseconds (1 cycle = 1 ns).
void htp_trace_recorder::write_file() {
    std::lock_guard<std::mutex> lock(mu_);
    if (written_ || events_.empty()) {
        return;
    }
    written_ = true;
    FILE * f = fopen(path_.c_str(), "w");
    if (!f) {
        HTP_LOG_ERROR("%s: cannot write trace %s: %s", device_name_.c_str(), path_.c_str(), strerror(errno));
        return;
    }
    // Slots are taken in completion order of the atomic increment, not strictly by time.
    std::stable_sort(events_.begin(), events_.end(),
                     [](const htp_trace_event & a, const htp_trace_event & b) { return a.cycles < b.cycles; });
    const uint64_t t0 = events_.front().cycles;
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":\"%s\"}}", device_index_,
            device_name_.c_str());
    // Events that did not fit the buffer were dropped one by one, so a start may have lost its
    // stop (closed at the track's last time) or the reverse (skipped): every track stays balanced.
    std::map<unsigned, std::vector<const htp_trace_event *>> open;
    uint64_t last = 0;
    auto emit = [&](const htp_trace_event & e, bool begin, uint64_t cycles) {
        const unsigned tid = e.thread == 0xff ? 100u : e.thread;
        const uint64_t dt  = cycles >= t0 ? cycles - t0 : 0;
        fprintf(f, ",\n{\"name\":\"%s %s\",\"cat\":\"%s\",\"ph\":\"%s\",\"ts\":%" PRIu64 ".%03u,\"pid\":%u,\"tid\":%u",
                htp_trace_type_name(e.type), htp_opcode_name(e.opcode), htp_trace_type_name(e.type), begin ? "B" : "E",
                dt / 1000, (unsigned) (dt % 1000), device_index_, tid);
        fprintf(f, ",\"args\":{\"info\":%u}}", e.info);
    };
    for (const htp_trace_event & e : events_) {
        auto & stack = open[e.thread];
        last         = e.cycles;
        if (e.phase == HTP_TRACE_START) {
            stack.push_back(&e);
            emit(e, true, e.cycles);
        } else if (!stack.empty() && stack.back()->type == e.type) {
            stack.pop_back();
            emit(e, false, e.cycles);
        }
    }
    for (auto & [thread, stack] : open) {
        while (!stack.empty()) {
            emit(*stack.back(), false, last);
            stack.pop_back();
        }
    }
    for (unsigned t = 0; t < 8; t++) {
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"HVX %u\"}}",
                device_index_, t, t);
    }
    fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":100,\"args\":{\"name\":\"dispatcher\"}}",
            device_index_);
    fprintf(f, "\n]}\n");
    fclose(f);
    HTP_LOG_REQUESTED("%s: wrote %zu trace events to %s (%" PRIu64 " dropped); open it in ui.perfetto.dev",
                 device_name_.c_str(), events_.size(), path_.c_str(), dropped_);
}
