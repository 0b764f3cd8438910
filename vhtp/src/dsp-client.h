// The host's half of the DSP processes (dsp.h), one per session: starts one when a session
// opens, with its NPU's page (npu.h), hands it the shared DDR buffers a message names, and
// watches it while the host waits for an answer. When a process dies or an op outruns
// GGML_HEXAGON_WATCHDOG, it gives back what the process held of the NPU, starts a new one for
// that session, reopens it there and reports its messages in flight as lost
// (VHTP_SESSION_LOST), with what happened in its vhtp_session_loss; the other sessions'
// processes, of the same NPU or others, are not touched.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

struct vhtp_session;

namespace vhtp {

class msg_queue;
struct npu_page;

bool dsp_client_open(vhtp_session * s, char * err, size_t err_len);
void dsp_client_close(vhtp_session * s);
bool dsp_client_reset(vhtp_session * s, char * err, size_t err_len);
// Before s's message goes into its queue: the DSP process gets the buffers it names that it
// does not hold yet. 0, -1 with a reason, or VHTP_SESSION_LOST.
int dsp_client_before_send(vhtp_session * s, const void * msg, uint32_t len, char * err, size_t err_len);
// Waits for s's answer in q: 0 (in *data, *len), -1 with a reason, or VHTP_SESSION_LOST.
int dsp_client_wait(vhtp_session * s, const std::shared_ptr<msg_queue> & q, const void ** data, uint32_t * len,
                    char * err, size_t err_len);
// The pid of the DSP process of NPU npu's session `session`, -1 when none runs (tests).
int dsp_client_pid(uint32_t npu, uint32_t session);
// NPU npu's page (npu.h), nullptr before any session of it opened out of process (tests).
npu_page * dsp_client_npu_page(uint32_t npu);
// The host freed shared DDR buffer fd (vhtp_ddr_free): the DSP process closes its copy.
void dsp_client_forget_fd(int fd);

}  // namespace vhtp
