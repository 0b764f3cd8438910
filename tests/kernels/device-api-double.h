// TEST DOUBLE of the device API (see device-api-double.cpp).
#pragma once
#include <atomic>
#include <cstdint>

#include "htp/htp-device.h"

namespace test_double {
constexpr uint32_t kQueueCapacity = 64;
extern uint32_t    g_dma_field_bits;  // 16 (v73) or 24
extern int         g_fault;           // first DMA error / MMU fault status, 0 if none
extern uint64_t    g_window_size;     // bytes of the window at htp_window_base
extern std::atomic<uint64_t> g_cycles;    // what htp_cycles() returns (0 unless a test moves it)
extern uint64_t    g_cycles_per_pause;    // added to g_cycles by every htp_fence_wait()
extern std::atomic<uint64_t> g_dcache_cleans;      // htp_dcache_clean calls
extern std::atomic<uint64_t> g_dcache_flush_alls;  // htp_dcache_flush_all calls
dma_queue *        new_queue();
void               delete_queue(dma_queue * q);
uint32_t           queue_depth(const dma_queue * q);
uint64_t           queue_pushes(const dma_queue * q);

// The fake session window: `bytes` zeroed bytes, allocated on the first call (page aligned) and
// installed as htp_window_base / g_window_size; later calls return the same window.
uint8_t * window(uint64_t bytes);
}  // namespace test_double
