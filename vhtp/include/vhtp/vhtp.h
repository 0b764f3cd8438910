// The vHTP runtime as the host backend sees it: virtual NPU devices, shared DDR buffers and
// sessions with a message queue. This plays the part FastRPC + dspqueue play on a phone; the
// host talks to a session only through messages (htp-abi) and buffers named by fd.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VHTP_API __attribute__((visibility("default")))

// A virtual device profile (docs/vhtp.md, "Device profiles"). The arch comes from GGML_HEXAGON_ARCH
// (v73, v75, v79, v81; default v79).
struct vhtp_device_info {
    uint32_t arch;            // 73, 75, 79, 81
    uint32_t vtcm_size;       // bytes of VTCM of the NPU (of a session: what it got)
    uint32_t n_hvx_hw;        // HVX hardware threads of the arch
    uint32_t n_hvx;           // threads a session runs: GGML_HEXAGON_NHVX, else min(n_hvx_hw, host cores)
    uint32_t n_hmx;           // HMX units per session (1)
    uint32_t dma_field_bits;  // width of 2-D DMA descriptor fields: 16 (v73) or 24
    uint64_t window_size;     // bytes of the session's address window for DDR (~3.5 GiB; of a DMA64 session: 64 GiB)
    uint64_t vmem_budget;     // bytes that may be mapped at once: GGML_HEXAGON_VMEM (MiB), else 3.0/3.2 GiB
                              // (of a DMA64 session: dma64_vmem_budget)
    // 64-bit DMA bases (docs/vhtp.md "A session"): a session opened with VHTP_SESSION_DMA64 has
    // its DDR buffers mapped above 4 GiB (VTCM stays at 0xF0000000), so device addresses are
    // 64-bit and only offsets, strides and sizes are 32-bit.
    uint32_t dma64_capable;      // 1: the arch allows VHTP_SESSION_DMA64 (v81 only)
    uint32_t dma64;              // of a session (vhtp_session_device_info): 1 if opened with VHTP_SESSION_DMA64
    uint64_t dma64_window_size;  // bytes of a DMA64 session's DDR area (64 GiB, above 4 GiB); 0 unless capable
    uint64_t dma64_vmem_budget;  // bytes a DMA64 session may map at once: GGML_HEXAGON_VMEM, else the whole area
    // 1: a DMA engine thread runs descriptors as they are pushed, overlapping the kernels;
    // 0: a descriptor runs when its queue's owner pops or flushes it (same results, as a DMA
    // that takes until the pop). GGML_HEXAGON_DMA_THREAD, else 1 only if the host has a core
    // beyond the session's n_hvx threads: on fewer, the engine's polling slows the HVX threads.
    uint32_t dma_thread;
    // The NPU clock (MHz) of the arch profile: profiles (GGML_HEXAGON_PROFILE) turn the session
    // clock's nanoseconds into cycles with it (docs/profiling.md "Clock").
    uint32_t clock_mhz;
};

// Fills *info for the virtual device profile selected by the environment. Returns 0, or -1
// with a one-line reason in err (e.g. an unknown GGML_HEXAGON_ARCH value).
VHTP_API int vhtp_device_info(struct vhtp_device_info * info, char * err, size_t err_len);

// Shared DDR: a memfd of `size` bytes mapped into the host. Returns the fd (>= 0) and sets
// *host_ptr, or returns -1 with a reason in err. vhtp_ddr_free unmaps and closes.
VHTP_API int  vhtp_ddr_alloc(uint64_t size, const char * name, void ** host_ptr, char * err, size_t err_len);
VHTP_API void vhtp_ddr_free(int fd, void * host_ptr, uint64_t size);

struct vhtp_session;

// Physical NPUs (docs/vhtp.md "Physical NPUs and sessions"): the sessions opened on one NPU
// share its VTCM pool (the profile's vtcm_size), its HMX unit and its n_hvx_hw HVX contexts;
// sessions of different NPUs share nothing. NPU indices are 0 .. VHTP_MAX_NPUS - 1.
#define VHTP_MAX_NPUS     16
#define VHTP_VTCM_GRANULE 4096u  // a session's VTCM request is a positive multiple of this

struct vhtp_session_config {
    uint32_t device;        // physical NPU index (HTPn), < VHTP_MAX_NPUS
    uint32_t session;       // session index on that NPU (one open session per index)
    uint32_t n_hvx;         // 0: the device default
    const char * lib_path;  // NPU library to load (libggml-htp-vNN.so); its htp_lib_arch() must match
    uint32_t vtcm_size;     // bytes of the NPU's VTCM this session takes; 0: the profile's whole VTCM
    uint32_t flags;         // enum vhtp_session_flags
};

enum vhtp_session_flags {
    // vhtp_session_recv polls for the response instead of sleeping on a futex once a short spin
    // finds nothing (the host's GGML_HEXAGON_OPPOLL=1). The waiting thread keeps its core: it
    // answers sooner after the NPU finishes, at the price of a busy CPU for the whole wait (it
    // yields the core to other runnable threads now and then, but never sleeps).
    VHTP_SESSION_POLL = 1u << 0,
    // 64-bit DMA bases (the host's GGML_HEXAGON_DMA64; v81 only, vhtp_device_info.dma64_capable):
    // the session's window is 68 GiB and its DDR buffers are mapped above 4 GiB, so a kernel
    // that keeps an address in 32 bits faults (HTP_STATUS_MMU_FAULT / DMA_ERROR) instead of
    // working by luck. Its profile reports the DMA64 window_size and vmem_budget.
    VHTP_SESSION_DMA64 = 1u << 1,
};

// Opens a session: takes its VTCM from the NPU's pool, reserves its address window, starts its
// HVX threads and DMA engine, loads the NPU library and calls htp_lib_open. Returns NULL with a
// one-line reason in err (e.g. "NPU 0: session 1 asks for 8 MiB of VTCM, 0 KiB left (session 0
// holds 8 MiB)"). Closing the session gives its VTCM back.
VHTP_API struct vhtp_session * vhtp_session_open(const struct vhtp_session_config * cfg, char * err, size_t err_len);
VHTP_API void vhtp_session_close(struct vhtp_session * s);
// The session's profile; vtcm_size is the VTCM the session got.
VHTP_API const struct vhtp_device_info * vhtp_session_device_info(const struct vhtp_session * s);

// The session message queue (FIFO, in shared memory). send copies the message into the queue
// (blocks while the queue is full); recv blocks for the next response and copies it out
// (sleeping, or polling with VHTP_SESSION_POLL).
// Each message yields exactly one response. Both return 0, or -1 with a reason in err, or
// VHTP_SESSION_LOST: the session's process (the DSP, docs/vhtp.md "The DSP processes") died or
// one of its ops ran past GGML_HEXAGON_WATCHDOG; the runtime has started a new one and
// reopened the session, and the messages in flight are lost (send them again).
// vhtp_session_last_loss says what happened.
#define VHTP_SESSION_LOST (-2)
VHTP_API int vhtp_session_send(struct vhtp_session * s, const void * msg, uint32_t len, char * err, size_t err_len);
VHTP_API int vhtp_session_recv(struct vhtp_session * s, void * resp, uint32_t cap, uint32_t * len, char * err,
                               size_t err_len);

struct vhtp_session_loss {
    int32_t  signal;    // the signal the DSP process died of, 0 if it did not
    uint32_t hung_ms;   // how long the stuck op had run when the watchdog stopped it, 0 if none
    int32_t  op_index;  // the op of this session's lost message that was running, -1 if none of its
                        // own (the fault was another session's, or between ops)
    uint32_t opcode;    // with op_index >= 0
    uint32_t device, session;  // the session (NPU, index) whose op died or hung
};
// What ended the session's last lost message (all zeros and op_index -1 before any loss).
VHTP_API void vhtp_session_last_loss(const struct vhtp_session * s, struct vhtp_session_loss * loss);

// Restarts a session, as a phone restarts a protection domain after a fault: the runtime state
// (its mappings, VTCM, queues, pending DMA) starts afresh; shared DDR buffers are untouched.
// No message may be in flight. Returns 0, or -1 with a reason.
VHTP_API int vhtp_session_reset(struct vhtp_session * s, char * err, size_t err_len);

// A DSP process's main (one per session), for the ggml-vhtp-dsp executable that the runtime
// starts beside this library (docs/vhtp.md "The DSP processes"); not for hosts.
VHTP_API int vhtp_dsp_main(void);

// Largest message / response the queue carries.
#define VHTP_MAX_MSG_SIZE  (4u << 20)
#define VHTP_MAX_RESP_SIZE (256u << 10)

#ifdef __cplusplus
}
#endif
