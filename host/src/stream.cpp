// The device stream's worker (stream.h).
#include "stream.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "host-trace.h"

// Which streams are busy right now, across devices: each change of the set credits the time
// since the last change to every busy stream, as overlap when more than one was busy.
struct htp_stream_activity {
    std::mutex                                     mu;
    std::vector<htp_stream *>                      busy;
    std::chrono::steady_clock::time_point          since = std::chrono::steady_clock::now();

    void change(htp_stream * s, bool starts) {
        std::lock_guard<std::mutex> lock(mu);
        const auto     now = std::chrono::steady_clock::now();
        const uint64_t dt  = (uint64_t) std::chrono::duration_cast<std::chrono::nanoseconds>(now - since).count();
        since              = now;
        for (htp_stream * b : busy) {
            b->busy_ns_ += dt;
            if (busy.size() > 1) {
                b->overlap_ns_ += dt;
            }
        }
        if (starts) {
            busy.push_back(s);
        } else {
            busy.erase(std::remove(busy.begin(), busy.end(), s), busy.end());
        }
    }
};

static htp_stream_activity & activity() {
    static auto * a = new htp_stream_activity;  // never destroyed: streams outlive static destruction order
    return *a;
}

htp_stream::~htp_stream() {
    {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return done_ == submitted_; });
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

uint64_t htp_stream::enqueue(work_fn work, bool busy) {
    std::unique_lock<std::mutex> lock(mu_);
    // Work only ever waits for work queued before it, so the queue always drains.
    cv_.wait(lock, [this] { return queue_.size() < max_queued_; });
    if (!thread_.joinable()) {
        thread_ = std::thread([this] { run(); });
    }
    queue_.push_back({ std::move(work), busy });
    cv_.notify_all();
    return ++submitted_;
}

uint64_t htp_stream::submitted() const {
    std::lock_guard<std::mutex> lock(mu_);
    return submitted_;
}

void htp_stream::wait(uint64_t ticket) {
    std::unique_lock<std::mutex> lock(mu_);
    if (done_ >= ticket) {
        return;
    }
    lock.unlock();
    // PROFILE=3: the wait on the waiting thread's track (the host, or another device's stream).
    htp_host_span span("wait", htp_trace_host_on() ? "\"for\":\"" + name_ + " stream\",\"ticket\":" + std::to_string(ticket)
                                                   : std::string());
    lock.lock();
    cv_.wait(lock, [&] { return done_ >= ticket; });
}

ggml_status htp_stream::take_status() {
    std::lock_guard<std::mutex> lock(mu_);
    const ggml_status st = status_;
    status_              = GGML_STATUS_SUCCESS;
    return st;
}

uint64_t htp_stream::overlap_ns() const {
    std::lock_guard<std::mutex> lock(activity().mu);
    return overlap_ns_;
}

uint64_t htp_stream::busy_ns() const {
    std::lock_guard<std::mutex> lock(activity().mu);
    return busy_ns_;
}

void htp_stream::run() {
    htp_trace_host_thread_name(name_ + " stream");
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
        cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) {
            return;  // stop_, with nothing left
        }
        item it = std::move(queue_.front());
        queue_.pop_front();
        cv_.notify_all();  // room for enqueue
        const bool skip = status_ != GGML_STATUS_SUCCESS;
        lock.unlock();
        if (it.busy) {
            activity().change(this, true);
        }
        const ggml_status st = it.fn(skip);
        if (it.busy) {
            activity().change(this, false);
        }
        lock.lock();
        if (st != GGML_STATUS_SUCCESS && status_ == GGML_STATUS_SUCCESS) {
            status_ = st;
        }
        done_++;
        cv_.notify_all();
    }
}
