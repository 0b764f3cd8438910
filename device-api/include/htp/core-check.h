// Device API (hosts only): the vHTP's check of a kernel's scalar memory accesses.
//
// The spec's kernel rule "VTCM is reached by DMA, HVX and HMX, never by scalar loads or stores"
// is checked by a machine in the VTCM check build of an NPU library
// (libggml-htp-vNN-vtcmcheck.so, npu/CMakeLists.txt; loaded under GGML_HEXAGON_VTCM_CHECK=1).
// That build compiles every kernel with clang's load/store hooks
// (-fsanitize-coverage=trace-loads,trace-stores): each load or store of 1, 2, 4, 8 or 16 bytes
// calls a hook (npu/check/vtcm-check-hooks.cpp), which calls htp_core_access. An HVX vector
// load or store (128 or 256 bytes) gets no hook; DMA and HMX run in the vHTP, which is not
// instrumented. So only the core's plain accesses reach htp_core_access.
//
// htp_core_access returns when `p` is not in the calling thread's session VTCM. Otherwise it
// prints one `vhtp: VTCM check: ...` line (the access, the device address, the op, the pc as
// LIB+0xOFFSET), records HTP_STATUS_MMU_FAULT for the session and unwinds to the recovery point
// of the HVX worker or message handler, as an MMU fault does (docs/vhtp.md "VTCM check").
#pragma once
#include <stdint.h>

#include "htp/api.h"

#if !defined(__hexagon__)
HTP_DEVICE_API_BEGIN
HTP_DEVICE_API void htp_core_access(const void * p, uint32_t bytes, uint32_t store, const void * pc);
HTP_DEVICE_API_END
#endif
