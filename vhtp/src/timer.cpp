// Device API timer.h: a nominal 1 GHz cycle counter (1 cycle = 1 ns of monotonic time).
#include "htp/timer.h"

#include <time.h>

extern "C" HTP_DEVICE_API uint64_t htp_cycles(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

