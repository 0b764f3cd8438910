// Device API: what the runtime hands an NPU library when it opens a session, and the entry
// points every NPU library (libggml-htp-vNN) exports. The runtime dlopens the library that
// matches the device's HW version, checks htp_lib_arch(), then calls htp_lib_open once,
// htp_lib_handle once per message (on the session thread, in queue order) and htp_lib_close.
#pragma once
#include <stdint.h>

#include "htp/api.h"
#include "htp/memory.h"

#define HTP_MAX_HVX_THREADS 8

struct dma_queue;
struct work_queue;
struct htp_hmx;

struct htp_session_info {
    uint32_t arch;                 // 73, 75, 79 or 81
    uint32_t n_hvx;                // HVX threads this session may use
    uint32_t n_hmx;                // HMX units (1)
    uint32_t dma_field_bits;       // 16 (v73) or 24 (v75+): width of 2-D descriptor fields
    dma_addr_t vtcm_base;          // device address of the session's VTCM
    uint32_t vtcm_size;            // bytes
    uint32_t device;               // physical NPU index (HTPn)
    uint32_t session;              // session index on that NPU
    struct work_queue * work_queue;
    struct dma_queue * dma[HTP_MAX_HVX_THREADS];  // one per HVX thread
    struct htp_hmx * hmx;          // the session's HMX unit (htp/hmx.h), used under htp_hmx_acquire
};

HTP_DEVICE_API_BEGIN
// Where the session is: the dispatcher calls it before each op it runs (op_index: the op's
// place in the message; opcode: enum htp_opcode). The vHTP uses it for hang and crash reports
// (the op a stuck or dead session was in) and for GGML_HEXAGON_FAULT's injections.
HTP_DEVICE_API void htp_session_op_begin(uint32_t op_index, uint32_t opcode);
HTP_DEVICE_API_END

// Entry points of an NPU library (declared here, defined by the library).
HTP_LIB_EXPORT uint32_t htp_lib_arch(void);
HTP_LIB_EXPORT int htp_lib_open(const struct htp_session_info * info, void ** lib_ctx);
HTP_LIB_EXPORT int htp_lib_handle(void * lib_ctx, const void * msg, uint32_t msg_len, void * resp, uint32_t resp_cap,
                                  uint32_t * resp_len);
HTP_LIB_EXPORT void htp_lib_close(void * lib_ctx);
