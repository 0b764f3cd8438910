// What the host keeps of a session in a DSP process (remote_session), and what a lost DSP
// process leaves behind: a report of the loss for each of its sessions (what ended the process,
// which session and op: vhtp_session_loss), and the fence slots of its device-group peers, which
// would otherwise wait for it (dsp-client.cpp restarts the process after both).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

struct vhtp_session;

namespace vhtp {

struct remote_session {
    uint32_t              slot;
    std::atomic<uint64_t> gen_sent{ 0 };  // the DSP generation its last message went to
    // Its last message's place in a device group (before_send), so that when its process dies
    // the peers, in other processes, stop waiting for it (dsp_release_peers).
    int      fence_fd  = -1;  // host descriptor of the fence buffer; -1: not in a group
    uint64_t fence_off = 0;   // byte offset of its own slot in that buffer
    uint32_t batch_seq = 0;   // the batch's first barrier
};

// The sessions of the dead process that were in a device group's batch sent in generation
// `generation` will never signal its barriers again: their fence slots get an error status.
void dsp_release_peers(const std::vector<vhtp_session *> & sessions, uint64_t generation);

// Fills each session's last_loss and returns the loss's one-line text: process proc died
// (wait_status, or its crash record in the state page), or was stopped because the op of
// session slot hung_slot (>= 0) ran hung_ns; why, when given, says what else ended it.
std::string dsp_record_loss(const std::vector<vhtp_session *> & sessions, uint32_t proc, const int * wait_status,
                            const char * why, int32_t hung_slot, uint64_t hung_ns);

}  // namespace vhtp
