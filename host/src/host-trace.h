// GGML_HEXAGON_PROFILE=3 (docs/tracing.md): the process's one Chrome-JSON trace,
// ggml-hexagon-trace-<pid>.json, that the Perfetto UI (ui.perfetto.dev) opens. Process 0
// ("host") holds the host's own tracks, one per host thread (graph compute, batch send and
// receive, waits on queued work); trace-export.cpp adds each session of each device as a
// process of its own. Every time is the host's CLOCK_MONOTONIC in nanoseconds (the vHTP's
// cycle counter is that clock), so devices, members and the host line up.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

// Turns the trace on (registry, PROFILE=3); otherwise a span costs one relaxed load.
void htp_trace_host_enable(const std::string & dir);
bool htp_trace_host_on();
void htp_trace_host_thread_name(const std::string & name);  // the calling thread's track name

// A span covers its scope on the calling thread's host track. args_json: members of the
// event's args object ("\"seq\":3"), or empty.
class htp_host_span {
  public:
    htp_host_span(const char * name, std::string args_json = "") {
        if (htp_trace_host_on()) {
            begin(name, std::move(args_json));
        }
    }
    ~htp_host_span() {
        if (on_) {
            end();
        }
    }
    htp_host_span(const htp_host_span &)             = delete;
    htp_host_span & operator=(const htp_host_span &) = delete;

  private:
    void        begin(const char * name, std::string args_json);
    void        end();
    bool        on_ = false;
    std::string name_, args_;
    uint64_t    start_ = 0;
};

// A finished slice of a device's session (trace-export.cpp).
struct htp_trace_span {
    uint32_t    tid;
    std::string name, cat, args;
    uint64_t    b, e;  // CLOCK_MONOTONIC ns
};
// A device's recorder exists (retain) until it hands its sessions' processes over (release
// with them); the file is written when the last one does.
void htp_trace_sink_retain();
void htp_trace_sink_release(const std::vector<std::pair<std::string, std::vector<htp_trace_span>>> & processes,
                            const std::vector<std::pair<uint32_t, std::string>> & track_names, uint64_t dropped);
