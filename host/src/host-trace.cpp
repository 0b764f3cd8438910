#include "host-trace.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>

#include "log.h"

namespace {

constexpr uint32_t kTidHost = 1000;  // host threads: 1000, 1001, ... in the order they first record

uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

std::string json_escape(const std::string & s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
        }
        o += (unsigned char) c < 0x20 ? ' ' : c;
    }
    return o;
}

struct span {
    uint32_t    pid, tid;
    std::string name, cat, args;  // args: a JSON object's members, or empty
    uint64_t    b, e;             // CLOCK_MONOTONIC ns
};

// The process's trace: host spans as they end, each device's session events when its recorder
// goes. Written once, when the last recorder goes (the registry's devices at unload).
struct trace_sink {
    std::mutex                                     mu;
    std::atomic<bool>                              on{ false };
    std::string                                    path;
    std::vector<std::string>                       procs{ "host" };  // pid -> name
    std::map<std::pair<uint32_t, uint32_t>, std::string> names;      // (pid, tid) -> track name
    std::vector<span>                              spans;
    uint32_t                                       live = 0, host_threads = 0;
    uint64_t                                       dropped = 0;
    bool                                           written = false;

    void write();
};

trace_sink & sink() {
    static trace_sink * s = new trace_sink;  // never destroyed: recorders reach it at unload
    return *s;
}

thread_local uint32_t    tls_host_tid = 0;
thread_local std::string tls_host_name;

uint32_t host_tid_locked(trace_sink & s) {
    if (!tls_host_tid) {
        tls_host_tid = kTidHost + s.host_threads++;
    }
    auto & n = s.names[{ 0, tls_host_tid }];
    if (!tls_host_name.empty()) {
        n = tls_host_name;
    } else if (n.empty()) {
        n = "host thread " + std::to_string(tls_host_tid - kTidHost);
    }
    return tls_host_tid;
}

// Chrome JSON: per track, begin/end pairs in time order, properly nested (a span that would
// end after its parent is cut at the parent's end, so every track stays balanced).
void trace_sink::write() {
    if (written || spans.empty() || path.empty()) {
        return;
    }
    written = true;
    FILE * f = fopen(path.c_str(), "w");
    if (!f) {
        HTP_LOG_ERROR("cannot write trace %s: %s", path.c_str(), strerror(errno));
        return;
    }
    uint64_t t0 = UINT64_MAX;
    for (const span & s : spans) {
        t0 = std::min(t0, s.b);
    }
    std::map<std::pair<uint32_t, uint32_t>, std::vector<const span *>> tracks;
    for (const span & s : spans) {
        tracks[{ s.pid, s.tid }].push_back(&s);
    }
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    bool first = true;
    auto sep = [&] {
        fprintf(f, first ? "" : ",\n");
        first = false;
    };
    for (uint32_t pid = 0; pid < procs.size(); pid++) {
        sep();
        fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":\"%s\"}}", pid,
                json_escape(procs[pid]).c_str());
        sep();
        fprintf(f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"sort_index\":%u}}", pid, pid);
    }
    for (const auto & [key, name] : names) {
        sep();
        fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s\"}}", key.first,
                key.second, json_escape(name).c_str());
    }
    size_t n_events = 0;
    for (auto & track : tracks) {
        const std::pair<uint32_t, uint32_t> key  = track.first;
        std::vector<const span *> &          list = track.second;
        std::stable_sort(list.begin(), list.end(), [](const span * a, const span * b) {
            return a->b != b->b ? a->b < b->b : a->e > b->e;
        });
        auto emit = [&](const span & s, bool begin, uint64_t t) {
            const uint64_t dt = t - t0;
            sep();
            fprintf(f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"%s\",\"ts\":%" PRIu64 ".%03u,\"pid\":%u,\"tid\":%u",
                    json_escape(s.name).c_str(), s.cat.c_str(), begin ? "B" : "E", dt / 1000, (unsigned) (dt % 1000),
                    key.first, key.second);
            fprintf(f, begin && !s.args.empty() ? ",\"args\":{%s}}" : "}", s.args.c_str());
            n_events++;
        };
        std::vector<std::pair<const span *, uint64_t>> open;  // span, its (possibly cut) end
        for (const span * s : list) {
            while (!open.empty() && open.back().second <= s->b) {
                emit(*open.back().first, false, open.back().second);
                open.pop_back();
            }
            const uint64_t end = open.empty() ? s->e : std::min(s->e, open.back().second);
            emit(*s, true, s->b);
            open.emplace_back(s, std::max(end, s->b));
        }
        while (!open.empty()) {
            emit(*open.back().first, false, open.back().second);
            open.pop_back();
        }
    }
    fprintf(f, "\n]}\n");
    fclose(f);
    HTP_LOG_REQUESTED("wrote %zu trace events to %s (%" PRIu64 " dropped): %zu tracks of %zu processes; "
                      "open it in ui.perfetto.dev", n_events, path.c_str(), dropped, tracks.size(), procs.size());
}

}  // namespace

void htp_trace_host_enable(const std::string & dir) {
    trace_sink &                s = sink();
    std::lock_guard<std::mutex> lock(s.mu);
    s.path = dir + "/ggml-hexagon-trace-" + std::to_string(getpid()) + ".json";
    s.on.store(true, std::memory_order_release);
}

bool htp_trace_host_on() {
    return sink().on.load(std::memory_order_relaxed);
}

void htp_trace_host_thread_name(const std::string & name) {
    tls_host_name = name;
}

void htp_host_span::begin(const char * name, std::string args_json) {
    on_    = true;
    name_  = name;
    args_  = std::move(args_json);
    start_ = now_ns();
}

void htp_host_span::end() {
    const uint64_t              t = now_ns();
    trace_sink &                s = sink();
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.written) {
        return;
    }
    s.spans.push_back({ 0, host_tid_locked(s), name_, "host", args_, start_, t });
}

void htp_trace_sink_retain() {
    trace_sink &                s = sink();
    std::lock_guard<std::mutex> lock(s.mu);
    s.live++;
}

void htp_trace_sink_release(const std::vector<std::pair<std::string, std::vector<htp_trace_span>>> & processes,
                            const std::vector<std::pair<uint32_t, std::string>> & track_names, uint64_t dropped) {
    trace_sink &                s = sink();
    std::lock_guard<std::mutex> lock(s.mu);
    for (const auto & [name, spans] : processes) {
        const uint32_t pid = (uint32_t) s.procs.size();
        s.procs.push_back(name);
        for (const auto & [tid, tname] : track_names) {
            s.names[{ pid, tid }] = tname;
        }
        for (const htp_trace_span & sp : spans) {
            s.spans.push_back({ pid, sp.tid, sp.name, sp.cat, sp.args, sp.b, sp.e });
        }
    }
    s.dropped += dropped;
    if (s.live > 0 && --s.live == 0) {
        s.write();
    }
}
