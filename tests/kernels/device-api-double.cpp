// TEST DOUBLE of the device API for kernel tests without the vHTP runtime: one flat host
// buffer is the session window, DMA copies synchronously at push time (checking the arch's
// 2-D field widths, the 16 MiB 1-D limit and queue capacity), and work_queue_run calls the
// worker for each ith in turn. Nothing here is used outside tests/.
#include "device-api-double.h"
#include "htp-abi/htp-status.h"
#include "htp/counters.h"
#include "htp/hmx.h"

#include <cstdlib>
#include <cstring>
#include <thread>

__thread uint8_t * htp_window_base = nullptr;

namespace test_double {
uint32_t g_dma_field_bits = 16;
int      g_fault          = 0;
uint64_t g_window_size    = 0;
std::atomic<uint64_t> g_cycles{ 0 };
uint64_t g_cycles_per_pause = 0;
std::atomic<uint64_t> g_dcache_cleans{ 0 };
std::atomic<uint64_t> g_dcache_flush_alls{ 0 };
}  // namespace test_double

struct dma_queue {
    uint32_t   pending[test_double::kQueueCapacity];
    uint32_t   head = 0, tail = 0;
    uint64_t   pushes = 0;
};

namespace test_double {

dma_queue * new_queue() {
    return new dma_queue();
}

void delete_queue(dma_queue * q) {
    delete q;
}

uint32_t queue_depth(const dma_queue * q) {
    return q->head - q->tail;
}

uint64_t queue_pushes(const dma_queue * q) {
    return q->pushes;
}

}  // namespace test_double

extern "C" {

bool dma_queue_push(struct dma_queue * q, dma_addr_t dst, dma_addr_t src, uint32_t dst_stride, uint32_t src_stride,
                    uint32_t row_size, uint32_t nrows) {
    using namespace test_double;
    const uint64_t lim = 1ull << g_dma_field_bits;
    if (q->head - q->tail >= kQueueCapacity || nrows == 0) {
        g_fault = 7;
        return false;
    }
    if (nrows == 1 ? row_size > (16u << 20)
                   : (row_size >= lim || nrows >= lim || dst_stride >= lim || src_stride >= lim)) {
        g_fault = 7;
        return false;
    }
    const uint64_t s_end = nrows == 1 ? (uint64_t) src + row_size : (uint64_t) src + (uint64_t) src_stride * (nrows - 1) + row_size;
    const uint64_t d_end = nrows == 1 ? (uint64_t) dst + row_size : (uint64_t) dst + (uint64_t) dst_stride * (nrows - 1) + row_size;
    if (src == 0 || dst == 0 || s_end > g_window_size || d_end > g_window_size) {
        g_fault = 6;
    } else {
        for (uint32_t r = 0; r < nrows; r++) {
            std::memmove(htp_window_base + dst + (uint64_t) r * dst_stride, htp_window_base + src + (uint64_t) r * src_stride,
                         row_size);
        }
    }
    q->pending[q->head % kQueueCapacity] = dst;
    q->head++;
    q->pushes++;
    return true;
}

dma_addr_t dma_queue_pop(struct dma_queue * q) {
    if (q->head == q->tail) {
        test_double::g_fault = 7;
        return 0;
    }
    return q->pending[q->tail++ % test_double::kQueueCapacity];
}

void dma_queue_flush(struct dma_queue * q) {
    q->tail = q->head;
}

uint32_t dma_queue_capacity(const struct dma_queue *) {
    return test_double::kQueueCapacity;
}

void dma_queue_progress(struct dma_queue *) {}

void work_queue_run(struct work_queue *, work_fn fn, void * data, unsigned int n_threads) {
    for (unsigned int i = 0; i < n_threads; i++) {
        fn(n_threads, i, data);
    }
}

uint64_t htp_cycles(void) {
    return test_double::g_cycles.load();
}

// A fence wait lets the other test threads run and moves the fake clock on (timeouts).
void htp_fence_wait(const volatile uint32_t *, uint32_t, uint64_t) {
    test_double::g_cycles += test_double::g_cycles_per_pause;
    std::this_thread::yield();
}
void htp_fence_wake(const volatile uint32_t *) {}

void htp_fence_register(const void *, uint32_t, uint32_t) {}
void htp_fence_coherent(const void *) {}

// The double's memory is the host's: coherent, nothing to clean (the calls are counted).
void htp_dcache_clean(const void *, size_t) {
    test_double::g_dcache_cleans++;
}
void htp_dcache_invalidate(const void *, size_t) {}
void htp_dcache_clean_invalidate(const void *, size_t) {}
void htp_dcache_flush_all(void) {
    test_double::g_dcache_flush_alls++;
}

// HMX is not modelled here (MUL_MAT_HMX is tested on the vHTP): every call fails.
int htp_hmx_acquire(struct htp_hmx *) { return HTP_STATUS_INTERNAL; }
int htp_hmx_release(struct htp_hmx *) { return HTP_STATUS_INTERNAL; }
int htp_hmx_clear(struct htp_hmx *) { return HTP_STATUS_INTERNAL; }
int htp_hmx_mma_entry(struct htp_hmx *, uint32_t, dma_addr_t, dma_addr_t) { return HTP_STATUS_INTERNAL; }
int htp_hmx_store_entry(struct htp_hmx *, uint32_t, dma_addr_t, dma_addr_t) { return HTP_STATUS_INTERNAL; }

// The kernels run on the fixed fake window (test_double::window): there are no fds to map.
// (The dispatcher, which maps buffers, is linked with the kernels but tested on the vHTP.)
int htp_mem_map(int, uint64_t, int, dma_addr_t *) { return HTP_STATUS_MAP_FAILED; }
int htp_mem_unmap(int) { return HTP_STATUS_MAP_FAILED; }
void htp_session_op_begin(uint32_t, uint32_t) {}

// Level-2 counters are the vHTP's (tests/vhtp-hvx-emu): the double counts nothing.
void htp_counters_enable(int) {}
void htp_counters_take(uint64_t out[HTP_CNT_COUNT]) {
    std::memset(out, 0, sizeof(uint64_t) * HTP_CNT_COUNT);
}
void htp_count_add(uint32_t, uint64_t) {}
void htp_trace_bind(struct htp_trace_buffer_header *, uint16_t) {}

int htp_fault_take(void) {
    const int f = test_double::g_fault;
    test_double::g_fault = 0;
    return f;
}

}  // extern "C"

uint8_t * test_double::window(uint64_t bytes) {
    static uint8_t * base = [bytes] {
        uint8_t * p = static_cast<uint8_t *>(std::aligned_alloc(4096, bytes));
        std::memset(p, 0, bytes);
        g_window_size = bytes;
        return p;
    }();
    htp_window_base = base;  // thread-local: set for the calling thread
    return base;
}
