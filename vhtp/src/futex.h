// Futex-based waiting for the runtime's queues. Waits spin briefly first, because DMA pops and
// work dispatch sit on kernels' hot path, and then sleep in the kernel, because the host has few
// cores and an idle thread must not burn one. Wakers make a syscall only when someone sleeps.
#pragma once
#include <immintrin.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <ctime>
#include <cstdint>

namespace vhtp {

// About 10-40 us of polling on current x86 cores before a waiter goes to sleep.
constexpr int kSpinIters = 1000;

inline void cpu_relax() {
    _mm_pause();
}

// `shared` selects process-shared futexes (the message queue lives in a memfd that another
// process may map); everything else uses the cheaper private ones.
inline void futex_wait(std::atomic<uint32_t> * word, uint32_t expected, bool shared) {
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, expected,
            nullptr, nullptr, 0);
}

inline void futex_wake_all(std::atomic<uint32_t> * word, bool shared) {
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, INT_MAX,
            nullptr, nullptr, 0);
}

// Blocks until ready() holds. `word` must change (and then wake() be called) after any state
// change that can make ready() true; `waiters` counts sleepers so wakers can skip the syscall.
template <class Ready>
inline void wait_until(std::atomic<uint32_t> & word, std::atomic<uint32_t> & waiters, Ready ready,
                       bool shared = false) {
    for (int i = 0; i < kSpinIters; ++i) {
        if (ready()) {
            return;
        }
        cpu_relax();
    }
    for (;;) {
        const uint32_t seen = word.load(std::memory_order_seq_cst);
        if (ready()) {
            return;
        }
        waiters.fetch_add(1, std::memory_order_seq_cst);
        if (!ready()) {
            futex_wait(&word, seen, shared);
        }
        waiters.fetch_sub(1, std::memory_order_seq_cst);
    }
}

// As wait_until, but gives up after about timeout_ms (sleeping in slices of at most that):
// returns whether ready() holds. For waits that must notice something else meanwhile (the
// host's wait for a DSP process that may have died: dsp-client.cpp).
template <class Ready>
inline bool wait_until_for(std::atomic<uint32_t> & word, std::atomic<uint32_t> & waiters, Ready ready, bool shared,
                           uint32_t timeout_ms) {
    for (int i = 0; i < kSpinIters; ++i) {
        if (ready()) {
            return true;
        }
        cpu_relax();
    }
    const uint32_t seen = word.load(std::memory_order_seq_cst);
    if (ready()) {
        return true;
    }
    struct timespec ts = { (time_t) (timeout_ms / 1000), (long) (timeout_ms % 1000) * 1000000L };
    waiters.fetch_add(1, std::memory_order_seq_cst);
    if (!ready()) {
        syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, seen, &ts,
                nullptr, 0);
    }
    waiters.fetch_sub(1, std::memory_order_seq_cst);
    return ready();
}

// Polls until ready() holds, never sleeping (a session's VHTP_SESSION_POLL: the host's
// GGML_HEXAGON_OPPOLL=1). Every kYieldIters polls it offers the core to other runnable threads
// (sched_yield keeps this thread runnable, so it is still polling, not sleeping): on a host with
// fewer cores than threads the NPU's own threads must get to finish the work being waited for.
constexpr int kYieldIters = 256;

template <class Ready> inline void spin_until(Ready ready) {
    for (int i = 1;; ++i) {
        if (ready()) {
            return;
        }
        if (i % kYieldIters == 0) {
            sched_yield();
        } else {
            cpu_relax();
        }
    }
}

// Call after changing `word` itself. The fence orders that change before the read of `waiters`
// (Dekker with the waiter's increment-then-recheck): without it a release store can still sit
// in this core's store buffer while the waiter checks the word and sleeps, and with this core
// reading waiters == 0 nobody wakes it. That lost wake-up was seen as generation stalling for
// seconds per token on a loaded 2-vCPU VM.
inline void wake(std::atomic<uint32_t> & word, std::atomic<uint32_t> & waiters, bool shared = false) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (waiters.load(std::memory_order_seq_cst) != 0) {
        futex_wake_all(&word, shared);
    }
}

// Call after changing state that lives elsewhere: bumps `word` so sleepers notice, then wakes.
inline void notify(std::atomic<uint32_t> & word, std::atomic<uint32_t> & waiters, bool shared = false) {
    word.fetch_add(1, std::memory_order_seq_cst);
    wake(word, waiters, shared);
}

}  // namespace vhtp
