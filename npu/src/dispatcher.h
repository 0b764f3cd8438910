// The NPU-side message handler: validates a message, maps its buffers into the session window
// (prep), runs each op through the op table and writes the response.
#pragma once
#include "op-context.h"

#define HTP_MAX_MAPPINGS 1024

struct htp_mapping {
    int32_t    fd;    // -1: free slot
    dma_addr_t addr;  // device address of byte 0
    uint64_t   size;
};

struct htp_dispatcher {
    struct htp_context ctx;
    struct htp_mapping maps[HTP_MAX_MAPPINGS];
};

void htp_dispatcher_init(struct htp_dispatcher * d, const struct htp_session_info * info);
// Unmaps everything still mapped.
void htp_dispatcher_release(struct htp_dispatcher * d);
// Handles one message; always writes a response (status inside). Returns the response length.
uint32_t htp_dispatcher_handle(struct htp_dispatcher * d, const uint8_t * msg, uint32_t msg_len, uint8_t * resp,
                               uint32_t resp_cap);
