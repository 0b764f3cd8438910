// DMA: descriptor validation at push (field widths of the arch), execution on the engine thread
// (every byte must be mapped DDR or VTCM of the session), FIFO completion for pops.
#include "dma-engine.h"
#include "mdev-check.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core.h"
#include "exposure.h"
#include "fault.h"
#include "futex.h"
#include "htp-abi/htp-status.h"
#include "htp/timer.h"
#include "htp/trace.h"
#include "window.h"

namespace vhtp {

namespace {
constexpr uint64_t kMax1D = 16ull << 20;  // bytes a 1-D descriptor may move

// Bytes spanned by nrows rows of row_size, stride apart (64-bit: malformed input must not wrap).
uint64_t extent(uint32_t row_size, uint32_t nrows, uint32_t stride) {
    if (nrows == 0 || row_size == 0) {
        return 0;
    }
    if (nrows == 1) {
        return row_size;
    }
    return static_cast<uint64_t>(nrows - 1) * stride + row_size;
}

// One row of a transfer. Rows that do not overlap (every transfer a kernel makes) are copied
// 128 bytes per step through AVX2 registers: on the 2-core AMD host of docs/speed.md this loop
// moved DDR -> VTCM-sized rings faster than glibc's memmove (its AVX-512 variant) in a micro
// loop of 1088-byte rows, and the copies are most of a generated token's time. Overlapping rows
// keep memmove's semantics.
inline void copy_row(uint8_t * dst, const uint8_t * src, size_t n) {
    if (n < 128 || (dst < src + n && src < dst + n)) {
        memmove(dst, src, n);
        return;
    }
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 32));
        const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 64));
        const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 96));
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i), a);
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i + 32), b);
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i + 64), c);
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i + 96), e);
    }
    for (; i + 32 <= n; i += 32) {
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i)));
    }
    if (i < n) {
        memcpy(dst + i, src + i, n - i);
    }
}

// The copy runs under its own recovery point: a buffer unmapped while its transfer was in
// flight (a kernel bug) must end as a DMA error, not kill the process.
// It may also run on an HVX thread that pops its own pending transfer (see dma_queue_pop), so
// the caller's recovery point is saved and restored rather than cleared.
__attribute__((noinline)) void guarded_copy(uint8_t * base, const dma_queue::desc & d) {
    recovery_point * const outer = tls_recovery;
    recovery_point rp(HTP_STATUS_DMA_ERROR);
    if (sigsetjmp(rp.jb, 0) == 0) {
        arm(&rp);
        if (d.nrows == 1 || (d.dst_stride == d.row_size && d.src_stride == d.row_size)) {
            copy_row(base + d.dst, base + d.src, static_cast<size_t>(d.row_size) * d.nrows);
        } else {
            for (uint32_t r = 0; r < d.nrows; ++r) {
                copy_row(base + d.dst + static_cast<uint64_t>(r) * d.dst_stride,
                         base + d.src + static_cast<uint64_t>(r) * d.src_stride, d.row_size);
            }
        }
    }
    tls_recovery = outer;
}
}  // namespace

dma_engine::dma_engine(core * c, uint32_t n_queues, bool threaded) :
    core_(c),
    n_queues_(n_queues),
    threaded_(threaded) {
    const bool prefetch = default_dma_prefetch();
    for (uint32_t i = 0; i < n_queues_; ++i) {
        queues_[i].engine   = this;
        queues_[i].prefetch = prefetch;
    }
    if (threaded_) {
        thread_ = std::thread([this] { run(); });
    }
}

dma_engine::~dma_engine() {
    if (!threaded_) {
        for (uint32_t i = 0; i < n_queues_; ++i) {
            while (step(queues_[i])) {
            }
        }
        return;
    }
    stop_.store(true, std::memory_order_release);
    notify();
    thread_.join();
}

void dma_engine::notify() {
    if (threaded_) {
        vhtp::notify(work_seq_, work_waiters_);
    }
}

bool dma_engine::has_work() const {
    for (uint32_t i = 0; i < n_queues_; ++i) {
        if (queues_[i].next.load(std::memory_order_relaxed) != queues_[i].head.load(std::memory_order_acquire)) {
            return true;
        }
    }
    return false;
}

void dma_engine::execute(const dma_queue::desc & d) {
    const uint64_t n_src = extent(d.row_size, d.nrows, d.src_stride);
    const uint64_t n_dst = extent(d.row_size, d.nrows, d.dst_stride);
    if (n_src == 0) {
        return;  // an empty transfer: completes with nothing to move
    }
    if (!core_->window.contains(d.src, n_src) || !core_->window.contains(d.dst, n_dst)) {
        record_fault(core_, HTP_STATUS_DMA_ERROR);
        return;
    }
    guarded_copy(core_->window.dma_base(), d);  // DMA bypasses a group member's L2 (l2-cache.h)
    if (core_->mdev.load(std::memory_order_relaxed)) {
        mdev_check_dma_write(core_, d.dst, d.dst_stride, d.row_size, d.nrows);
    }
}

bool dma_engine::step(dma_queue & q) {
    bool idle = false;
    if (!q.busy.compare_exchange_strong(idle, true, std::memory_order_acquire)) {
        return false;  // the engine or the queue's owner is executing it right now
    }
    const uint32_t n   = q.next.load(std::memory_order_relaxed);
    const bool     did = n != q.head.load(std::memory_order_acquire);
    if (did) {
        // PROFILE=3: the transfer on its queue's DMA track (queues run their descriptors in
        // order, one at a time: the track's slices never overlap).
        htp_trace tr = { core_->trace.load(std::memory_order_acquire),
                         (uint8_t) (HTP_TRACE_DMA_THREAD + (uint32_t) (&q - queues_)),
                         core_->trace_opcode.load(std::memory_order_relaxed) };
        const dma_queue::desc & d = q.ring[n % dma_queue::kCapacity];
        const uint16_t info = tr.buf ? htp_trace_dma_info((uint64_t) (d.nrows ? d.nrows : 1) * d.row_size) : 0;
        htp_trace_event_start(&tr, HTP_TRACE_EVT_DMA_XFER, info);
        execute(d);
        htp_trace_event_stop(&tr, HTP_TRACE_EVT_DMA_XFER, info);
        q.next.store(n + 1, std::memory_order_relaxed);
        q.done.store(n + 1, std::memory_order_release);
    }
    q.busy.store(false, std::memory_order_release);
    if (did) {
        wake(q.done, q.done_waiters);
    }
    return did;
}

void dma_engine::run() {
    bind_thread(core_);
    for (;;) {
        // One descriptor per queue per pass: HVX threads are served fairly, each queue in order.
        bool did = false;
        for (uint32_t i = 0; i < n_queues_; ++i) {
            did |= step(queues_[i]);
        }
        if (did) {
            continue;
        }
        if (stop_.load(std::memory_order_acquire)) {
            break;
        }
        wait_until(work_seq_, work_waiters_,
                   [this] { return has_work() || stop_.load(std::memory_order_acquire); });
    }
    bind_thread(nullptr);
}

}  // namespace vhtp

using vhtp::core;

namespace {
bool in_vtcm(const core * c, dma_addr_t a) {
    return a >= vhtp::Window::kVtcmBase && a < (dma_addr_t) vhtp::Window::kVtcmBase + c->info.vtcm_size;
}

// Level-2 counters of one descriptor (vhtp::count): bytes by direction, and how far into VTCM
// it reaches.
void count_push(const core * c, dma_addr_t dst, dma_addr_t src, uint32_t dst_stride, uint32_t src_stride,
                uint32_t row_size, uint32_t nrows) {
    const uint64_t rows  = nrows ? nrows : 1;
    const uint64_t bytes = rows * row_size;
    vhtp::count(HTP_CNT_DMA_DESC, 1);
    vhtp::count(in_vtcm(c, dst) ? HTP_CNT_DMA_IN_BYTES : HTP_CNT_DMA_OUT_BYTES, bytes);
    if (in_vtcm(c, dst)) {
        vhtp::count(HTP_CNT_VTCM_HWM, dst - vhtp::Window::kVtcmBase + (rows - 1) * dst_stride + row_size);
    }
    if (in_vtcm(c, src)) {
        vhtp::count(HTP_CNT_VTCM_HWM, src - vhtp::Window::kVtcmBase + (rows - 1) * src_stride + row_size);
    }
}

uint64_t now_ns() {
    return vhtp::tls_counts ? htp_cycles() : 0;
}
}  // namespace

void vhtp::exposure_job_begin(core * c, uint32_t ith) {
    if (!tls_counts) {
        return;
    }
    dma_queue *    q       = c->dma->queue(ith);
    uint32_t       pending = 0;
    const uint32_t head    = q->head.load(std::memory_order_relaxed);
    for (uint32_t i = q->tail; i != head; ++i) {
        pending += in_vtcm(c, q->ring[i % dma_queue::kCapacity].dst) ? 1 : 0;
    }
    exposure_begin(q, pending);
}

void vhtp::exposure_job_end(core * c, uint32_t ith) {
    if (tls_counts) {
        exposure_end(c->dma->queue(ith));
    }
}

extern "C" {

HTP_DEVICE_API bool dma_queue_push(struct dma_queue * q, dma_addr_t dst, dma_addr_t src, uint32_t dst_stride,
                                   uint32_t src_stride, uint32_t row_size, uint32_t nrows) {
    core * c = q->engine->owner();
    const uint32_t head = q->head.load(std::memory_order_relaxed);
    if (head - q->tail >= dma_queue::kCapacity) {
        vhtp::record_fault(c, HTP_STATUS_DMA_ERROR);
        return false;
    }
    if (nrows <= 1) {
        if (row_size > vhtp::kMax1D) {
            vhtp::record_fault(c, HTP_STATUS_DMA_ERROR);
            return false;
        }
        dst_stride = src_stride = row_size;  // ignored for 1-D
    } else {
        const uint32_t bits  = c->info.dma_field_bits;
        const uint64_t limit = 1ull << bits;
        if (row_size >= limit || nrows >= limit || src_stride >= limit || dst_stride >= limit) {
            vhtp::record_fault(c, HTP_STATUS_DMA_ERROR);
            return false;
        }
    }
    dma_queue::desc d{ dst, src, dst_stride, src_stride, row_size, nrows, 0 };
    if (vhtp::tls_counts) {
        count_push(c, dst, src, dst_stride, src_stride, row_size, nrows);
        vhtp::exposure_push(q, d, in_vtcm(c, dst));
    }
    q->ring[head % dma_queue::kCapacity] = d;
    q->head.store(head + 1, std::memory_order_release);
    q->engine->notify();
    return true;
}

HTP_DEVICE_API dma_addr_t dma_queue_pop(struct dma_queue * q) {
    if (q->tail == q->head.load(std::memory_order_relaxed)) {
        vhtp::record_fault(q->engine->owner(), HTP_STATUS_DMA_ERROR);
        return 0;
    }
    const uint64_t t0   = now_ns();
    const uint32_t want = q->tail + 1;
    auto ready = [q, want] { return static_cast<int32_t>(q->done.load(std::memory_order_acquire) - want) >= 0; };
    // A popper whose transfer has not run yet runs it (and those before it) itself: on a host
    // with few cores, waking the engine thread for every transfer costs more than the copy.
    // Only when the engine holds the queue does the popper wait for it.
    while (!ready()) {
        if (!q->engine->step(*q)) {
            vhtp::wait_until(q->done, q->done_waiters, ready);
        }
    }
    const dma_queue::desc & d   = q->ring[q->tail % dma_queue::kCapacity];
    const dma_addr_t        dst = d.dst;
    if (t0) {
        vhtp::count(HTP_CNT_DMA_WAIT_NS, htp_cycles() - t0);
        vhtp::exposure_pop(q, d, in_vtcm(q->engine->owner(), dst));
    }
    q->tail = want;
    return dst;
}

HTP_DEVICE_API void dma_queue_flush(struct dma_queue * q) {
    const uint64_t t0   = now_ns();
    const uint32_t head = q->head.load(std::memory_order_relaxed);
    auto ready = [q, head] { return q->done.load(std::memory_order_acquire) == head; };
    while (!ready()) {
        if (!q->engine->step(*q)) {
            vhtp::wait_until(q->done, q->done_waiters, ready);
        }
    }
    if (t0) {
        vhtp::count(HTP_CNT_DMA_WAIT_NS, htp_cycles() - t0);
        for (uint32_t i = q->tail; i != head; ++i) {
            const dma_queue::desc & d = q->ring[i % dma_queue::kCapacity];
            vhtp::exposure_pop(q, d, in_vtcm(q->engine->owner(), d.dst));
        }
    }
    q->tail = head;
}

HTP_DEVICE_API uint32_t dma_queue_capacity(const struct dma_queue * /*q*/) {
    return dma_queue::kCapacity;
}

// Prefetches (hints: they never fault, so a descriptor the engine will refuse costs nothing
// but the hint) the next kPrefetchSlice bytes of the oldest pending transfers' DDR sources.
// Without it a transfer's copy waits on DRAM while the core's arithmetic units idle, and the
// kernel's compute after the pop leaves the memory idle; spread over the kernel's steps, the
// reads of the next transfer overlap its compute. A burst of the whole next transfer at the
// pop did not help (the core has few outstanding misses: the burst's hints were dropped).
// Transfers from VTCM (write-backs) are skipped: their source is in cache already.
HTP_DEVICE_API void dma_queue_progress(struct dma_queue * q) {
    if (!q->prefetch) {
        return;
    }
    constexpr uint64_t kPrefetchSlice = 2048;  // about two weight tiles a call
    constexpr uint64_t kLine          = 64;
    const uint32_t     head           = q->head.load(std::memory_order_relaxed);
    const uint32_t     next           = q->next.load(std::memory_order_relaxed);
    uint32_t           i              = q->pf_idx;
    if (static_cast<int32_t>(next - i) > 0 || static_cast<int32_t>(i - head) > 0) {
        i         = next;  // the engine ran past it (or the queue was reset): start at the next one
        q->pf_off = 0;
    }
    const uint8_t * base   = q->engine->owner()->window.dma_base();
    uint64_t        budget = kPrefetchSlice;
    for (; i != head && budget > 0; ++i, q->pf_off = 0) {
        const dma_queue::desc & d = q->ring[i % dma_queue::kCapacity];
        if (d.src >= vhtp::Window::kVtcmBase && d.src < static_cast<uint64_t>(vhtp::Window::kVtcmBase) + vhtp::Window::kVtcmSize) {
            continue;
        }
        const uint64_t row   = d.row_size;
        const uint64_t total = row * (d.nrows ? d.nrows : 1);
        const bool     flat  = d.nrows <= 1 || d.src_stride == d.row_size;
        while (q->pf_off < total && budget > 0) {
            const uint64_t r  = flat ? 0 : q->pf_off / row;
            const uint64_t c  = flat ? q->pf_off : q->pf_off - r * row;
            const uint64_t n  = std::min(budget, (flat ? total : row) - c);
            const uint8_t * p = base + d.src + r * d.src_stride + c;
            for (uint64_t x = 0; x < n; x += kLine) {
                _mm_prefetch(reinterpret_cast<const char *>(p + x), _MM_HINT_T1);
            }
            q->pf_off += n;
            budget -= n;
        }
        if (q->pf_off < total) {
            break;  // the slice ended inside this descriptor
        }
    }
    q->pf_idx = i;
}

}  // extern "C"
