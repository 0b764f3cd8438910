// The runtime half of a session: window + VTCM, DMA engine, HVX worker pool, the sticky fault
// status and the physical NPU whose VTCM, HMX and HVX contexts it shares (npu.h). A
// vhtp_session adds the NPU library and the message queue on top; unit tests use a core
// directly. Every thread that runs device code for a session is bound to its core.
#pragma once
#include <atomic>
#include <cstdint>

#include "htp-abi/htp-abi.h"
#include "htp/session.h"
#include "vhtp/vhtp.h"
#include "window.h"

struct work_queue;

namespace vhtp {

class dma_engine;
struct dsp_progress;
struct npu;
struct mdev_member;

struct core {
    struct vhtp_device_info    info;  // n_hvx is this session's thread count, vtcm_size its VTCM
    vhtp::npu *         npu = nullptr;  // its physical NPU
    Window              window;
    std::atomic<int>    fault{ 0 };            // sticky htp_status, first error wins
    std::atomic<uint64_t> fault_addr{ 0 };     // device address of the last MMU fault (diagnostics)
    dma_engine *        dma = nullptr;
    struct work_queue * wq  = nullptr;
    htp_session_info    sinfo{};
    std::atomic<mdev_member *> mdev{ nullptr };  // set while a device-group member (mdev-check.h)
    struct dsp_progress * progress = nullptr;    // where the session is (dsp.h), set by its vhtp_session
    std::atomic<bool> corrupt_answer{ false };   // GGML_HEXAGON_FAULT=corrupt@N fired (fault-inject.h)
    // Level-2 counters (device API counters.h): one block per HVX thread (job index; 0 is the
    // session's own thread), used while `counting`.
    std::atomic<bool> counting{ false };
    struct alignas(64) counter_block {
        uint64_t v[HTP_CNT_COUNT];
    };
    counter_block counts[HTP_MAX_HVX_THREADS] = {};
    // PROFILE=3: where the DMA engine records its transfers (htp_trace_bind), and the op's opcode.
    std::atomic<struct htp_trace_buffer_header *> trace{ nullptr };
    std::atomic<uint16_t> trace_opcode{ 0 };
};

// The calling thread's counter block while its session counts, else nullptr (counters.cpp).
extern __thread uint64_t * tls_counts;

// Adds n to counter c of the calling thread (HTP_CNT_VTCM_HWM: keeps the largest).
inline void count(uint32_t c, uint64_t n) {
    uint64_t * b = tls_counts;
    if (__builtin_expect(b != nullptr, 0)) {
        if (c == HTP_CNT_VTCM_HWM) {
            b[c] = n > b[c] ? n : b[c];
        } else {
            b[c] += n;
        }
    }
}

// Creates session `session` of NPU `device` for `info`: info.n_hvx threads (at most the arch's
// n_hvx_hw), info.vtcm_size bytes of the NPU's VTCM, and (info.dma64) the DMA64 window with
// info.vmem_budget. Returns nullptr with a reason in err.
core * core_create(const struct vhtp_device_info & info, uint32_t device, uint32_t session, char * err, size_t err_len);
void   core_destroy(core * c);

// Makes the calling thread a thread of `c` (nullptr: of no session): sets htp_window_base and
// the session the device API and the fault handler act on.
void bind_thread(core * c);

// vhtp_device_info.dma_thread for a session of n_hvx threads (GGML_HEXAGON_DMA_THREAD, else
// whether the host has a core beyond them; device-info.cpp).
uint32_t default_dma_thread(uint32_t n_hvx);

// Whether dma_queue_progress prefetches pending transfers' sources (GGML_HEXAGON_DMA_PREFETCH,
// default on; device-info.cpp validates it).
bool default_dma_prefetch();

// Records a fault for the session unless one is already pending. Async-signal-safe.
inline void record_fault(core * c, int status) {
    int expected = 0;
    c->fault.compare_exchange_strong(expected, status, std::memory_order_acq_rel);
}

}  // namespace vhtp
