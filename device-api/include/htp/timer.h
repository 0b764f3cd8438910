// Device API: the session cycle counter. On the vHTP one cycle is one nanosecond of host
// monotonic time (a nominal 1 GHz clock), so cycle counts are comparable across runs.
#pragma once
#include <stdint.h>

#include "htp/api.h"

HTP_DEVICE_API_BEGIN
uint64_t htp_cycles(void);
// One turn of a polling loop (e.g. a fence barrier waiting for a peer); `spins` counts the turns
// so far. On Hexagon a pause; the vHTP yields the host core, and sleeps briefly once the wait
// is long, so that a waiting session does not starve the peer it waits for.
void htp_poll_pause(uint32_t spins);
HTP_DEVICE_API_END
