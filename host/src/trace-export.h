// Collects trace events the NPU wrote (GGML_HEXAGON_PROFILE=3) and writes them as a Chrome
// JSON trace that the Perfetto UI (ui.perfetto.dev) opens: one process per device, one track
// per HVX thread, plus the dispatcher's track.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "htp-abi/htp-abi.h"
#include "transport.h"

class htp_trace_recorder {
  public:
    // capacity: events one message may record (GGML_HEXAGON_OPTRACE per HVX thread, and the
    // dispatcher's share).
    htp_trace_recorder(std::string device_name, uint32_t device_index, std::string path, uint32_t capacity);
    ~htp_trace_recorder();  // writes the file

    // Shared DDR the NPU writes events into (part of every traced message).
    bool init_buffer(std::string & error);
    int fd() const { return mem_.fd; }
    uint64_t size() const { return mem_.size; }
    // Resets the buffer before a message is sent.
    void arm();
    // Copies the events of the finished message out of the buffer.
    void collect();
    void write_file();
    const std::string & path() const { return path_; }

  private:
    std::string device_name_;
    uint32_t device_index_;
    std::string path_;
    uint32_t capacity_;
    htp_shared_mem mem_;  // the trace buffer the sessions write (htp_trace_buffer_header + events)
    std::vector<htp_trace_event> events_;
    uint64_t dropped_ = 0;
    bool written_ = false;
    std::mutex mu_;
};
