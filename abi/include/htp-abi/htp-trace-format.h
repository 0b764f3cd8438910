// Trace event record written by the NPU side into a shared DDR trace buffer that the host
// turns into a Perfetto (Chrome JSON) trace when GGML_HEXAGON_PROFILE=3.
#pragma once
#include <stdint.h>

enum htp_trace_event_type {
    HTP_TRACE_EVT_OP = 0,       // a whole op, recorded by the dispatcher (info = op index in batch)
    HTP_TRACE_EVT_HVX_COMP = 1, // vector compute
    HTP_TRACE_EVT_HMX_COMP = 2, // matrix unit compute
    HTP_TRACE_EVT_DMA = 3,      // waiting on / polling a DMA transfer
    HTP_TRACE_EVT_FENCE = 4,    // multi-device barrier
    HTP_TRACE_EVT_L2FLUSH = 5,  // cache cleaning
    HTP_TRACE_EVT_QUANT = 6,    // on-the-fly activation quantization
    HTP_TRACE_EVT_DEQUANT = 7,  // weights unpacked into the compute form (flat rows, HMX FP16 tiles)
    HTP_TRACE_EVT_OUTPUT = 8,   // results leave the accumulators: written out, write-back queued
    HTP_TRACE_EVT_DMA_XFER = 9, // one DMA descriptor moving its bytes (recorded by the DMA engine;
                                // thread = HTP_TRACE_DMA_THREAD + queue; info: htp_trace_dma_info)
    HTP_TRACE_EVT_COUNT
};

enum htp_trace_phase { HTP_TRACE_START = 0, HTP_TRACE_STOP = 1 };

struct htp_trace_event {
    uint64_t cycles;   // session cycle counter when the event happened
    uint16_t type;     // enum htp_trace_event_type
    uint16_t info;     // op-chosen progress value (row, chunk, token, op index)
    uint8_t  thread;   // HVX thread index; 0xff = session (dispatcher) thread
    uint8_t  phase;    // enum htp_trace_phase
    uint16_t opcode;   // the op being run (enum htp_opcode)
};

// A trace buffer is this header followed by `capacity` events. Writers reserve slots with an
// atomic increment of `count`; events past capacity are dropped and counted in `dropped`.
struct htp_trace_buffer_header {
    uint32_t magic;     // HTP_TRACE_MAGIC
    uint32_t capacity;  // events the buffer holds
    uint32_t count;     // events written (atomic)
    uint32_t dropped;   // events that did not fit (atomic)
};

#define HTP_TRACE_MAGIC 0x43525448u /* "HTRC" */

// DMA_XFER events: `thread` is this plus the HVX thread whose queue the descriptor is in.
#define HTP_TRACE_DMA_THREAD 0x80u

// DMA_XFER's info: bytes below 32 KiB; else bit 15 and KiB (rounded up, at most 0x7fff).
static inline uint16_t htp_trace_dma_info(uint64_t bytes) {
    if (bytes < 0x8000u) {
        return (uint16_t) bytes;
    }
    const uint64_t kib = (bytes + 1023) / 1024;
    return (uint16_t) (0x8000u | (kib < 0x7fffu ? kib : 0x7fffu));
}
