// HVX worker dispatch: a generation counter publishes each job; every worker acknowledges every
// generation (idle ones at once), so job fields are never rewritten while a slow worker reads them.
// Job 0 runs on the calling thread (the session's own thread, always the same one), jobs 1..n-1
// on the pool's threads: a job then wakes one thread fewer, and the caller's core works instead
// of waiting (on a host with two cores, three busy threads per session halved the NPU's speed).
#include "work-queue.h"

#include "core.h"
#include "exposure.h"
#include "fault.h"
#include "futex.h"
#include "htp-abi/htp-status.h"
#include "mdev-check.h"
#include "npu.h"

namespace {
// A worker that faults returns early; the fault is the session's sticky status.
// The caller's own recovery point (its op handler's) is saved and restored around the call.
__attribute__((noinline)) void guarded_call(work_fn fn, unsigned int n, unsigned int ith, void * data) {
    vhtp::recovery_point * const outer = vhtp::tls_recovery;
    vhtp::recovery_point         rp(HTP_STATUS_MMU_FAULT);
    if (sigsetjmp(rp.jb, 0) == 0) {
        vhtp::arm(&rp);
        fn(n, ith, data);
    }
    vhtp::tls_recovery = outer;
}
}  // namespace

work_queue::work_queue(vhtp::core * c, uint32_t n_threads) : core_(c), n_threads_(n_threads) {
    threads_.reserve(n_threads_ - 1);
    for (uint32_t i = 1; i < n_threads_; ++i) {  // job 0 is the caller's
        threads_.emplace_back([this, i] { worker(i); });
    }
}

work_queue::~work_queue() {
    {
        std::lock_guard<std::mutex> lock(run_mu_);
        stop_ = true;
        vhtp::notify(gen_, gen_waiters_);
    }
    for (std::thread & t : threads_) {
        t.join();
    }
}

void work_queue::worker(uint32_t ith) {
    vhtp::bind_thread(core_);
    uint32_t seen = 0;
    for (;;) {
        vhtp::wait_until(gen_, gen_waiters_, [&] { return gen_.load(std::memory_order_acquire) != seen; });
        seen = gen_.load(std::memory_order_acquire);
        if (stop_) {
            break;
        }
        if (ith < n_jobs_) {
            // Level-2 counters (counters.cpp): this job's block while the session counts.
            vhtp::tls_counts = core_->counting.load(std::memory_order_acquire) ? core_->counts[ith].v : nullptr;
            vhtp::exposure_job_begin(core_, ith);
            guarded_call(fn_, n_jobs_, ith, data_);
            vhtp::exposure_job_end(core_, ith);
        }
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            vhtp::wake(pending_, pending_waiters_);
        }
    }
    vhtp::bind_thread(nullptr);
}

void work_queue::run(work_fn fn, void * data, uint32_t n) {
    if (n == 0) {
        return;
    }
    std::lock_guard<std::mutex> lock(run_mu_);
    if (core_->mdev.load(std::memory_order_relaxed)) {
        vhtp::mdev_check_import(core_);  // peers' writes in other processes, before the kernel reads DDR
    }
    fn_     = fn;
    data_   = data;
    n_jobs_ = n < n_threads_ ? n : n_threads_;
    // The job runs on n_jobs_ of the NPU's HVX contexts, shared with its other sessions.
    vhtp::hvx_contexts & hvx = core_->npu->hvx;
    const uint32_t       ctx = n_jobs_;
    hvx.acquire(ctx);
    const uint32_t n_pool = n_threads_ - 1;
    if (n_jobs_ > 1) {
        pending_.store(n_pool, std::memory_order_relaxed);
        vhtp::notify(gen_, gen_waiters_);  // seq_cst bump publishes the job fields
    }
    // Job 0 here, on the session's core binding (a test's thread may have none).
    vhtp::core * const bound = vhtp::tls_core;
    if (bound != core_) {
        vhtp::bind_thread(core_);
    }
    vhtp::exposure_job_begin(core_, 0);
    guarded_call(fn_, n_jobs_, 0, data_);
    vhtp::exposure_job_end(core_, 0);
    if (bound != core_) {
        vhtp::bind_thread(bound);
    }
    if (n_jobs_ > 1) {
        vhtp::wait_until(pending_, pending_waiters_,
                         [this] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    hvx.release(ctx);
}

extern "C" HTP_DEVICE_API void work_queue_run(struct work_queue * wq, work_fn fn, void * data, unsigned int n_threads) {
    vhtp::count(HTP_CNT_HVX_RUNS, 1);  // on the session's thread (level 2: docs/profiling.md "Counters")
    wq->run(fn, data, n_threads);
}
