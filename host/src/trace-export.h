// GGML_HEXAGON_PROFILE=3 (docs/tracing.md): the NPU side of the process's trace
// (host-trace.h). Each session of each device is a process of its own in it ("HTP0", or
// "HTP0/m0", "HTP0/m1", ... for a group's members) with a track per HVX thread, the
// dispatcher's, HMX, fences, L2 flushes and a DMA queue track per HVX thread.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "host-trace.h"
#include "htp-abi/htp-abi.h"
#include "transport.h"

// The NPU side of one device: a shared DDR buffer with one region per session (member), each
// an htp_trace_buffer_header and its events (htp-trace-format.h), that member m's messages
// name by trace_offset (region_offset(m)).
class htp_trace_recorder {
  public:
    // capacity: events one message may record per session (GGML_HEXAGON_OPTRACE per HVX
    // thread, and the dispatcher's share).
    htp_trace_recorder(std::string device_name, uint32_t n_members, uint32_t capacity);
    ~htp_trace_recorder();  // hands the events to the process's trace (written when the last goes)

    bool init_buffer(std::string & error);
    int fd() const { return mem_.fd; }
    uint64_t size() const { return mem_.size; }
    uint64_t region_offset(uint32_t member) const { return member * region_; }
    // Resets every region before a batch is sent.
    void arm();
    // Copies the events of the finished batch out of every region.
    void collect();

  private:
    std::string device_name_;
    uint32_t n_members_;
    uint32_t capacity_;
    uint64_t region_ = 0;
    htp_shared_mem mem_;
    std::vector<std::vector<htp_trace_event>> events_;  // per member
    uint64_t dropped_ = 0;
    std::mutex mu_;
};
