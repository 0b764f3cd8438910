// The session's DMA engine: one strict-FIFO queue per HVX thread (struct dma_queue of the device
// API) and one engine thread that executes descriptors asynchronously, in push order per queue.
// Each queue is single-producer: the HVX thread that owns it pushes and pops.
#pragma once
#include <atomic>
#include <cstdint>
#include <thread>

#include "htp/dma-queue.h"
#include "htp/session.h"

namespace vhtp {
struct core;
class dma_engine;
}  // namespace vhtp

struct dma_queue {
    static constexpr uint32_t kCapacity = 64;

    struct desc {
        dma_addr_t dst, src;  // 64-bit device addresses; the rest are 32-bit fields
        uint32_t   dst_stride, src_stride, row_size, nrows;
        uint64_t   work;  // level 2: the pushing thread's HVX + HMX work at the push (exposure.h)
    };

    vhtp::dma_engine * engine = nullptr;
    desc               ring[kCapacity];

    // Counters grow forever (and wrap); slot = counter % kCapacity.
    alignas(64) std::atomic<uint32_t> head{ 0 };  // pushed (producer)
    alignas(64) std::atomic<uint32_t> done{ 0 };  // completed (engine), also the pop futex word
    std::atomic<uint32_t> done_waiters{ 0 };
    alignas(64) uint32_t tail = 0;                 // popped (producer only)
    std::atomic<uint32_t> next{ 0 };               // next to execute (whoever holds `busy`)
    std::atomic<bool>     busy{ false };           // held while a descriptor of this queue executes

    // dma_queue_progress (producer only): the descriptor whose source is being prefetched and
    // the bytes of it already asked for; prefetch off (GGML_HEXAGON_DMA_PREFETCH=0).
    uint32_t pf_idx = 0;
    uint64_t pf_off = 0;
    bool     prefetch = true;

    // Level 2 (exposure.h, producer only): inbound descriptors (into VTCM) pending, the
    // owner's HVX instructions when that count last fell to 0, and whether a dispatch's job runs.
    uint32_t inbound    = 0;
    uint64_t idle_since = 0;
    bool     in_job     = false;
};

namespace vhtp {

class dma_engine {
  public:
    // threaded: an engine thread runs descriptors as they are pushed (transfers overlap the
    // pushing thread's compute). Without it a descriptor runs when its queue's owner pops or
    // flushes it: on a host with no core to spare for the engine, its polling only slows the
    // HVX threads down.
    dma_engine(core * c, uint32_t n_queues, bool threaded);
    ~dma_engine();
    dma_engine(const dma_engine &) = delete;
    dma_engine & operator=(const dma_engine &) = delete;

    dma_queue * queue(uint32_t i) { return &queues_[i]; }
    core *      owner() const { return core_; }
    // Tells the engine thread a descriptor was queued (no syscall unless it sleeps).
    void        notify();
    bool        threaded() const { return threaded_; }
    // Executes q's oldest pending descriptor unless another thread is executing one of q's;
    // true when it ran one. Called by the engine thread and by a queue's owner in pop.
    bool        step(dma_queue & q);

  private:
    void run();
    bool has_work() const;
    void execute(const dma_queue::desc & d);

    core *                core_;
    uint32_t              n_queues_;
    dma_queue             queues_[HTP_MAX_HVX_THREADS];
    std::atomic<uint32_t> work_seq_{ 0 };  // bumped by every push: the engine's futex word
    std::atomic<uint32_t> work_waiters_{ 0 };
    std::atomic<bool>     stop_{ false };
    bool                  threaded_;
    std::thread           thread_;
};

}  // namespace vhtp
