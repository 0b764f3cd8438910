// Device API: the session cycle counter. On the vHTP one cycle is one nanosecond of host
// monotonic time (a nominal 1 GHz clock), so cycle counts are comparable across runs.
#pragma once
#include <stdint.h>

#include "htp/api.h"

HTP_DEVICE_API_BEGIN
uint64_t htp_cycles(void);
HTP_DEVICE_API_END
