// Sessions: the host-facing handle (vhtp_session, vhtp/vhtp.h) and its runtime half, the
// local_session: a session core with its NPU library, fed from the message queue by a session
// thread (the thread FastRPC would run htp_lib_handle on). A local_session runs in the host
// process (GGML_HEXAGON_INPROC=1) or in the DSP process (dsp.h), which the handle then reaches
// through dsp-client.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "msg-queue.h"
#include "vhtp/vhtp.h"

namespace vhtp {

struct dsp_progress;
struct local_session;
struct remote_session;

// Opens the runtime half of a session on queue `q` (the handle's, or the host's memfd attached
// in the DSP process). progress: where the session reports its current op (dsp.h). translate,
// if set, rewrites each request in place before the library sees it (the DSP process: host
// file descriptors -> its own). Fills *info with the session's profile. nullptr with a reason.
local_session * local_open(const vhtp_session_config & cfg, std::shared_ptr<msg_queue> q, dsp_progress * progress,
                           std::function<void(void *, uint32_t)> translate, struct vhtp_device_info * info, char * err,
                           size_t err_len);
// Stops the session thread (the queue must be closed first, or be closed here: close_queue)
// and releases the core and the library.
void local_close(local_session * s, bool close_queue);

}  // namespace vhtp

struct vhtp_session {
    struct vhtp_device_info info{};
    vhtp_session_config     cfg{};  // as opened (lib_path points at lib_path below): for reset
    std::string             lib_path;
    bool                    poll = false;  // VHTP_SESSION_POLL: recv polls instead of sleeping

    vhtp::local_session *  local  = nullptr;  // GGML_HEXAGON_INPROC=1: in this process
    vhtp::remote_session * remote = nullptr;  // else in the DSP process (dsp-client.cpp)

    // The host's side of the message queue; replaced when the session restarts (a reader keeps
    // its own reference meanwhile).
    std::mutex                       queue_mu;
    std::shared_ptr<vhtp::msg_queue> queue;

    std::mutex send_mu, recv_mu;  // host threads may share a session: one ring user at a time
    std::mutex count_mu;
    uint64_t   outstanding = 0;   // messages sent and not yet received
    struct vhtp_session_loss last_loss{};

    std::shared_ptr<vhtp::msg_queue> current_queue() {
        std::lock_guard<std::mutex> lock(queue_mu);
        return queue;
    }
};
