// Runs one function on each of an op's HVX threads and gathers their status: the job
// struct, worker trampoline and status loop every multi-threaded kernel would otherwise
// write out again. fn(ith) returns an HTP_STATUS_*; run_threads returns the first failure
// (lowest thread index) or HTP_STATUS_OK. fn may capture by reference (no heap involved).
#pragma once
#include "htp-abi/htp-abi.h"
#include "htp/work-queue.h"
#include "op-context.h"

namespace htp_ops {

template <class Fn> struct thread_job {
    const Fn * fn;
    int        status[HTP_MAX_HVX_THREADS];
};

template <class Fn> static void thread_job_worker(unsigned int, unsigned int ith, void * data) {
    thread_job<Fn> * job = (thread_job<Fn> *) data;
    job->status[ith]     = (*job->fn)(ith);
}

template <class Fn> static int run_threads(htp_context * ctx, uint32_t n_threads, const Fn & fn) {
    thread_job<Fn> job;
    job.fn = &fn;
    for (uint32_t i = 0; i < HTP_MAX_HVX_THREADS; i++) {
        job.status[i] = HTP_STATUS_OK;
    }
    work_queue_run(ctx->work_queue, thread_job_worker<Fn>, &job, n_threads);
    for (uint32_t i = 0; i < n_threads && i < HTP_MAX_HVX_THREADS; i++) {
        if (job.status[i] != HTP_STATUS_OK) {
            return job.status[i];
        }
    }
    return HTP_STATUS_OK;
}

}  // namespace htp_ops
