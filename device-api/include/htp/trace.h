// Device API: trace events. A kernel brackets compute and DMA waits:
//   htp_trace_event_start(tr, HTP_TRACE_EVT_HVX_COMP, (uint16_t) chunk);
//   ...
//   htp_trace_event_stop(tr, HTP_TRACE_EVT_HVX_COMP, (uint16_t) chunk);
// Events land in a shared DDR trace buffer the host supplied with the batch; a writer with no
// buffer (tracing off) costs one branch.
#pragma once
#include <stdint.h>

#include "htp-abi/htp-trace-format.h"
#include "htp/timer.h"

struct htp_trace {
    struct htp_trace_buffer_header * buf;  // NULL when tracing is off
    uint8_t  thread;                       // HVX thread index, 0xff for the dispatcher
    uint16_t opcode;                       // op being run
};

static inline void htp_trace_record(struct htp_trace * tr, uint16_t type, uint16_t info, uint8_t phase) {
    if (!tr || !tr->buf) {
        return;
    }
    struct htp_trace_buffer_header * h = tr->buf;
    const uint32_t slot = __atomic_fetch_add(&h->count, 1, __ATOMIC_RELAXED);
    if (slot >= h->capacity) {
        __atomic_fetch_add(&h->dropped, 1, __ATOMIC_RELAXED);
        return;
    }
    struct htp_trace_event * e = (struct htp_trace_event *) (h + 1) + slot;
    e->cycles = htp_cycles();
    e->type   = type;
    e->info   = info;
    e->thread = tr->thread;
    e->phase  = phase;
    e->opcode = tr->opcode;
}

static inline void htp_trace_event_start(struct htp_trace * tr, uint16_t type, uint16_t info) {
    htp_trace_record(tr, type, info, HTP_TRACE_START);
}

static inline void htp_trace_event_stop(struct htp_trace * tr, uint16_t type, uint16_t info) {
    htp_trace_record(tr, type, info, HTP_TRACE_STOP);
}

#ifdef __cplusplus
extern "C" {
#endif
// The runtime's own events (the DMA engine's transfers, HTP_TRACE_EVT_DMA_XFER) go to `buf`
// under `opcode` from now on (NULL: none). The dispatcher calls it with each op's trace.
void htp_trace_bind(struct htp_trace_buffer_header * buf, uint16_t opcode);
#ifdef __cplusplus
}
#endif
