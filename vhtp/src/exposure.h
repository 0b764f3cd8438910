// Level 2: what a thread's DMA pipeline cannot overlap (docs/profiling.md "Counters",
// "Estimated device time"). Per queue (its owner thread is its only user):
//   - a descriptor is exposed when its thread did no HVX or HMX work between its push and its
//     pop: the thread waited for it with nothing beside it (a pipeline's first fetch, its last
//     write-back, every transfer of a kernel that pushes and at once pops);
//   - an HVX instruction is exposed when its thread ran it with no inbound descriptor (into
//     VTCM) pending: the DMA had nothing to fetch beside it (a pipeline's last chunk, a dispatch
//     that computes only). Counted from a dispatch's start to its end (work_queue_run's jobs;
//     work outside them is not classified), by differences of the thread's own HVX counts at
//     the moments the pending count leaves and reaches 0.
// Everything here runs only while the session counts (tls_counts set).
#pragma once
#include <cstdint>

#include "core.h"
#include "dma-engine.h"

namespace vhtp {

inline uint64_t hvx_work(const uint64_t * b) {
    return b[HTP_CNT_HVX_ALU] + b[HTP_CNT_HVX_MPY] + b[HTP_CNT_HVX_PERMUTE] + b[HTP_CNT_HVX_LDST] +
           b[HTP_CNT_HVX_OTHER];
}

inline uint64_t unit_work(const uint64_t * b) {
    return hvx_work(b) + b[HTP_CNT_HMX_TILES];
}

// A descriptor pushed on q (d.work set here); inbound: it writes into VTCM.
inline void exposure_push(dma_queue * q, dma_queue::desc & d, bool inbound) {
    uint64_t * b = tls_counts;
    if (!b) {
        return;
    }
    d.work = unit_work(b);
    if (inbound && q->inbound++ == 0 && q->in_job) {
        b[HTP_CNT_HVX_EXPOSED] += hvx_work(b) - q->idle_since;
    }
}

// Descriptor d of q popped (or flushed).
inline void exposure_pop(dma_queue * q, const dma_queue::desc & d, bool inbound) {
    uint64_t * b = tls_counts;
    if (!b) {
        return;
    }
    if (unit_work(b) == d.work) {
        b[HTP_CNT_DMA_EXPOSED_DESC] += 1;
        b[HTP_CNT_DMA_EXPOSED_BYTES] += (uint64_t) d.row_size * (d.nrows ? d.nrows : 1);
    }
    if (inbound && q->inbound > 0 && --q->inbound == 0) {
        q->idle_since = hvx_work(b);
    }
}

// Job ith of a dispatch starts or ends on its thread (work-queue.cpp): dma-engine.cpp.
void exposure_job_begin(core * c, uint32_t ith);
void exposure_job_end(core * c, uint32_t ith);

// A dispatch's job starts (pending: the inbound descriptors q still holds) or ends on q's thread.
inline void exposure_begin(dma_queue * q, uint32_t pending) {
    if (const uint64_t * b = tls_counts) {
        q->inbound    = pending;
        q->idle_since = hvx_work(b);
        q->in_job     = true;
    }
}

inline void exposure_end(dma_queue * q) {
    if (uint64_t * b = tls_counts) {
        const uint64_t now = hvx_work(b);
        if (q->inbound == 0) {
            b[HTP_CNT_HVX_EXPOSED] += now - q->idle_since;
        }
        q->idle_since = now;
        q->in_job     = false;
    }
}

}  // namespace vhtp
