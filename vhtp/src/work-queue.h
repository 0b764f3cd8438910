// The session's HVX worker pool (struct work_queue of the device API). Worker ith is always the
// same host thread, so per-thread resources such as dma[ith] have a single user.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "htp/work-queue.h"

namespace vhtp {
struct core;
}

struct work_queue {
    work_queue(vhtp::core * c, uint32_t n_threads);
    ~work_queue();
    work_queue(const work_queue &) = delete;
    work_queue & operator=(const work_queue &) = delete;

    void run(work_fn fn, void * data, uint32_t n);
    uint32_t size() const { return n_threads_; }

  private:
    void worker(uint32_t ith);

    vhtp::core * core_;
    uint32_t     n_threads_;
    std::mutex   run_mu_;  // one job at a time

    // The job; written by run() before gen_ is bumped, read by workers after they see the bump.
    work_fn  fn_     = nullptr;
    void *   data_   = nullptr;
    uint32_t n_jobs_ = 0;
    bool     stop_   = false;

    std::atomic<uint32_t> gen_{ 0 };      // job generation: the workers' futex word
    std::atomic<uint32_t> gen_waiters_{ 0 };
    std::atomic<uint32_t> pending_{ 0 };  // workers yet to finish this generation: run()'s futex word
    std::atomic<uint32_t> pending_waiters_{ 0 };

    std::vector<std::thread> threads_;
};
