// Status codes shared by the host, the vHTP runtime and the NPU library.
// 0 is success; anything else travels back to the host as an error, never as a silent result.
#pragma once

enum htp_status {
    HTP_STATUS_OK = 0,
    HTP_STATUS_BAD_MESSAGE = 1,      // malformed op batch (magic, version, sizes)
    HTP_STATUS_UNSUPPORTED_OP = 2,   // opcode or type combination the NPU library does not implement
    HTP_STATUS_BAD_PARAMS = 3,       // kernel_params inconsistent with the tensors
    HTP_STATUS_NO_MEMORY = 4,        // the session window or VTCM could not fit a request
    HTP_STATUS_MAP_FAILED = 5,       // a buffer fd could not be mapped into the session window
    HTP_STATUS_MMU_FAULT = 6,        // an access outside every mapped range of the session window
    HTP_STATUS_DMA_ERROR = 7,        // a DMA descriptor exceeded the arch's field widths or the window
    HTP_STATUS_FENCE_ERROR = 8,      // a multi-device peer reported an error at a barrier
    HTP_STATUS_INTERNAL = 9,         // a bug on the NPU side
    HTP_STATUS_OWNERSHIP = 10,       // multi-device: two members wrote the same bytes in one op, or a
                                     // member signalled its fence with DMA transfers in flight
};

static inline const char * htp_status_name(int s) {
    switch (s) {
        case HTP_STATUS_OK:             return "ok";
        case HTP_STATUS_BAD_MESSAGE:    return "bad message";
        case HTP_STATUS_UNSUPPORTED_OP: return "unsupported op";
        case HTP_STATUS_BAD_PARAMS:     return "bad kernel params";
        case HTP_STATUS_NO_MEMORY:      return "out of memory";
        case HTP_STATUS_MAP_FAILED:     return "buffer map failed";
        case HTP_STATUS_MMU_FAULT:      return "MMU fault (access outside mapped ranges)";
        case HTP_STATUS_DMA_ERROR:      return "DMA error";
        case HTP_STATUS_FENCE_ERROR:    return "fence error";
        case HTP_STATUS_OWNERSHIP:      return "multi-device ownership violation (see the vhtp line above)";
        default:                        return "internal error";
    }
}
