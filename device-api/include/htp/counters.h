// Device API: the level-2 counters (enum htp_counter in htp-abi.h, GGML_HEXAGON_PROFILE=2).
// The dispatcher turns counting on for a message with HTP_MSG_FLAG_COUNTERS and takes each op's
// sums after it; DMA, HMX and cache calls are counted by the runtime (vhtp/src/counters.cpp).
// HVX instructions only in libggml-htp-vNN-counters.so (built with HTP_COUNTERS=1,
// npu/CMakeLists.txt; the host loads it at level 2 alone): each emulated intrinsic there checks
// htp_counting and counts its class, and so do the kernels' vector loads and stores
// (npu/ops/hvx-vmem.h). With HTP_COUNTERS=0 neither has a count in it.
#pragma once
#include <stdint.h>

#include "htp-abi/htp-abi.h"
#include "htp/api.h"

// HTP_COUNTERS=1: the counting variant's objects (npu/CMakeLists.txt); others (the plain NPU
// libraries, bench/hvx-micro) count no HVX instruction.
#ifndef HTP_COUNTERS
#    define HTP_COUNTERS 0
#endif

HTP_DEVICE_API_BEGIN
// Counting on (1) or off (0) for the calling session's threads; on zeroes their counts.
void htp_counters_enable(int on);
// The calling session's counts since the last take (summed over its threads; HTP_CNT_VTCM_HWM
// is the largest), then zero again.
void htp_counters_take(uint64_t out[HTP_CNT_COUNT]);
// Adds n to counter c (enum htp_counter) of the calling thread; HTP_CNT_VTCM_HWM keeps the
// largest n. Nothing while its session does not count.
void htp_count_add(uint32_t c, uint64_t n);
#if !defined(__hexagon__) && HTP_COUNTERS
// Non-zero while one of the NPU library's sessions runs a message that counts (hidden: one per
// library; npu/src/dispatcher.cpp).
extern __attribute__((visibility("hidden"))) int htp_counting;
#endif
HTP_DEVICE_API_END

#if !defined(__hexagon__) && HTP_COUNTERS
#    define HTP_COUNT(c, n)                                                                   \
        do {                                                                                  \
            if (__builtin_expect(__atomic_load_n(&htp_counting, __ATOMIC_RELAXED) != 0, 0)) { \
                htp_count_add((c), (n));                                                      \
            }                                                                                 \
        } while (0)
#else
#    define HTP_COUNT(c, n) ((void) 0)
#endif
