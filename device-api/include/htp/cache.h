// Device API: data-cache maintenance on shared DDR ranges. Needed on Hexagon before a peer or
// the host reads what HVX wrote through L2; the vHTP's memory is coherent, so these only count.
#pragma once
#include <stddef.h>

#include "htp/api.h"

HTP_DEVICE_API_BEGIN
void htp_dcache_clean(const void * p, size_t size);             // write dirty lines back
void htp_dcache_invalidate(const void * p, size_t size);        // drop lines (re-read from DDR)
void htp_dcache_clean_invalidate(const void * p, size_t size);  // both
HTP_DEVICE_API_END
