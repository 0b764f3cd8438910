// The NPU-side message handler: validates a message, maps its buffers into the session window
// (prep), runs each op through the op table and writes the response.
#pragma once
#include "op-context.h"

#define HTP_MAX_MAPPINGS 1024

// A buffer the dispatcher holds mapped in the session window. Pinned buffers (KV cache,
// compute buffers) stay until the host frees them; weights are delayed mappings: mapped when a
// batch names them, given up (most recently used first: graphs walk their weights in the same
// order every token) when another batch needs the room.
struct htp_mapping {
    int32_t    fd;    // -1: free slot
    dma_addr_t addr;  // device address of byte 0
    uint64_t   size;
    uint64_t   last_batch;  // the batch that last named it (eviction order)
    uint32_t   pinned;
};

// What the window cost during one message (reported in htp_batch_response).
struct htp_window_stats {
    uint32_t n_maps;
    uint32_t n_unmaps;
    uint64_t bytes_mapped;
};

struct htp_dispatcher {
    struct htp_context      ctx;
    struct htp_mapping      maps[HTP_MAX_MAPPINGS];
    uint64_t                batch;   // messages handled (the clock of last_batch)
    struct htp_window_stats stats;   // of the current message
};

void htp_dispatcher_init(struct htp_dispatcher * d, const struct htp_session_info * info);
// Unmaps everything still mapped.
void htp_dispatcher_release(struct htp_dispatcher * d);
// Handles one message; always writes a response (status inside). Returns the response length.
uint32_t htp_dispatcher_handle(struct htp_dispatcher * d, const uint8_t * msg, uint32_t msg_len, uint8_t * resp,
                               uint32_t resp_cap);
