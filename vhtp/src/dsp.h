// The DSP processes: where the vHTP's sessions run, apart from the host, one per session
// (docs/vhtp.md "The DSP processes"). As on a phone, where the NPU is another processor that
// FastRPC talks to, a kernel that crashes or hangs takes down its DSP process, never the host:
// the host's half of the runtime (dsp-client.cpp) sees the process die or stop answering, says
// which session and op, gives back what the process held of its NPU (npu.h), starts a new one
// and reopens the session in it; the messages that were in flight are reported lost, for the
// host backend to replay. GGML_HEXAGON_INPROC=1 keeps the sessions in the host process instead
// (debuggers, sanitizers; a crash there is the host's).
//
// One DSP process per session, as a phone gives each session a protection domain of its own.
// The sessions of one NPU share its VTCM pool, HMX unit and HVX contexts through the NPU's page
// (npu.h), a memfd the host creates and hands to each of their processes; its locks are
// process-shared futexes that record their holder, so that a dead process's share is given back
// when the host restarts it. A crash restarts only the session of the dead process; the other
// sessions, of the same NPU or others, run on. A device group's members, in different
// processes, check each other through the board (mdev-board.h), a memfd every DSP process maps.
//
// What crosses between the two processes, and nothing else:
//   - the control socket (AF_UNIX, SOCK_SEQPACKET): open / close a session (with its queue and
//     its NPU's page), pass shared DDR buffers' file descriptors (SCM_RIGHTS) before the first
//     message that names them, and let the DSP close them after the host freed the buffer;
//   - each session's message queue (msg-queue.h), a memfd both map; the DSP rewrites the
//     buffer table of each request from the host's descriptor numbers to its own;
//   - the shared state page below, one for all the DSP processes, which the host keeps across
//     restarts: where each session is (for hang and crash reports), each process's crash
//     record, and the fault-injection counters;
//   - the NPUs' pages (npu.h) and the device groups' board (mdev-board.h).
#pragma once
#include <atomic>
#include <cstdint>

#include "vhtp/vhtp.h"

namespace vhtp {

constexpr uint32_t kDspMaxSessions = 64;  // sessions all DSP processes of a host process host at a time
constexpr uint32_t kDspMaxProcs    = kDspMaxSessions;  // one DSP process per session (npu, session index)
constexpr uint32_t kDspMagic       = 0x50534456;  // "VDSP"

// Where one session is, written by its session thread before each op (htp_session_op_begin)
// and read by the host's watchdog and crash report.
struct dsp_progress {
    std::atomic<uint32_t> busy;         // 1 while a message is being handled
    std::atomic<uint32_t> op_index;     // op of the current message (as the dispatcher counts)
    std::atomic<uint32_t> opcode;
    std::atomic<uint64_t> since_ns;     // CLOCK_MONOTONIC when that op (or the message) began
    std::atomic<uint64_t> msg_seq;      // the message's htp_msg_header.seq
};

struct dsp_shared {
    uint32_t               magic;
    dsp_progress           progress[kDspMaxSessions];  // by session slot (one table for every DSP process)
    // Each DSP process's crash record (by process index, dsp_request.proc), written once by the
    // dying process's signal handler.
    std::atomic<int32_t>   crash_signal[kDspMaxProcs];  // 0: none
    std::atomic<int32_t>   crash_slot[kDspMaxProcs];    // session slot of the crashing thread, -1 if none
    // GGML_HEXAGON_FAULT (fault-inject.h): ops seen by all sessions, and which entries fired;
    // kept by the host across restarts, so an injection fires once per run.
    std::atomic<uint64_t>  ops_seen;
    std::atomic<uint64_t>  faults_fired;
};

// The shared state of this process's sessions: the DSP's page, or a private one in the host
// process (GGML_HEXAGON_INPROC=1, unit tests).
dsp_shared * dsp_state();
// Whether sessions run in the DSP process (GGML_HEXAGON_INPROC unset or 0).
bool dsp_remote();
// In the DSP process: the page the host handed over (dsp-server.cpp).
void dsp_set_state(dsp_shared * shared);
// Whether this process is the DSP process (ggml-vhtp-dsp).
bool dsp_is_this_process();

// Control packets (host -> DSP requests, each answered by one dsp_reply).
enum dsp_kind : uint32_t {
    DSP_OPEN  = 1,  // + SCM_RIGHTS: the session's message queue memfd, then its NPU's page (npu.h)
    DSP_CLOSE = 2,
    DSP_FDS   = 3,  // + SCM_RIGHTS: shared DDR buffers, host fd numbers in fds[]
    DSP_FORGET = 4, // the host freed these buffers: close the DSP's copies
};

constexpr uint32_t kDspMaxFds = 64;  // descriptors per DSP_FDS / DSP_FORGET packet

struct dsp_request {
    uint32_t kind;
    uint32_t slot;                     // session slot (OPEN, CLOSE)
    uint32_t proc;                     // OPEN: the process's index (its crash record)
    struct {                           // OPEN: vhtp_session_config without the pointer
        uint32_t device, session, n_hvx, vtcm_size, flags;
        char     lib_path[1024];
    } open;
    uint32_t n_fds;                    // FDS, FORGET
    int32_t  fds[kDspMaxFds];          // host descriptor numbers
    uint64_t queue_size;               // OPEN: bytes of the message queue memfd
};

struct dsp_reply {
    int32_t                 status;    // 0, or -1 with err
    struct vhtp_device_info info;      // OPEN: the session's profile
    char                    err[512];
};

}  // namespace vhtp
