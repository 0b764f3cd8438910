// A device's stream: the in-order queue of work its backend hands to the NPU when the backend
// runs asynchronously (pipeline parallelism, docs/multi-device.md "Layer split"). One worker
// thread per device takes the work in order; tickets count what was queued, so an event is a
// (stream, ticket) pair that another stream or the host can wait for.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "ggml.h"

class htp_stream {
  public:
    // Work runs on the stream's thread. `skip`: an earlier piece of work failed; the work
    // must not touch the NPU (its inputs are wrong) and only clean up or mark its outputs.
    using work_fn = std::function<ggml_status(bool skip)>;

    // max_queued (GGML_HEXAGON_OPQUEUE): enqueue blocks while that much work is waiting.
    // name: the device's, for the stream thread's PROFILE=3 track ("HTP0 stream").
    explicit htp_stream(uint32_t max_queued, std::string name = "") :
        max_queued_(max_queued ? max_queued : 1),
        name_(std::move(name)) {}
    ~htp_stream();  // finishes the queued work, then stops the thread

    // Queues work; returns its ticket, the count of queued work once it is done. `busy`: the
    // work keeps an NPU busy (counted in busy_ns / overlap_ns; a wait for another stream is not).
    uint64_t enqueue(work_fn work, bool busy = true);
    // The ticket of the last work queued (0: none yet).
    uint64_t submitted() const;
    // Blocks until every piece of work up to `ticket` has run.
    void wait(uint64_t ticket);
    void synchronize() { wait(submitted()); }
    // GGML_STATUS_SUCCESS, or the failure of queued work since the last call (then cleared,
    // so that the caller hears of one failure once and later work runs again).
    ggml_status take_status();

    // Nanoseconds the stream's work spent while another stream was also working (a pipeline's
    // overlap), and in all: the evidence that layer split overlaps the devices.
    uint64_t overlap_ns() const;
    uint64_t busy_ns() const;

  private:
    void run();

    uint32_t                max_queued_;
    std::string             name_;
    mutable std::mutex      mu_;
    std::condition_variable cv_;       // work queued, or work done
    struct item {
        work_fn fn;
        bool    busy;
    };
    std::deque<item>        queue_;
    uint64_t                submitted_ = 0, done_ = 0;
    ggml_status             status_    = GGML_STATUS_SUCCESS;
    bool                    stop_      = false;
    std::thread             thread_;   // started with the first work
    uint64_t                overlap_ns_ = 0, busy_ns_ = 0;  // under the activity lock (stream.cpp)
    friend struct htp_stream_activity;
};
