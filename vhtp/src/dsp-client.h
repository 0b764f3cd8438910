// The host's half of the DSP processes (dsp.h), one per NPU: starts each with the first session
// of its NPU, opens sessions in it, hands it the shared DDR buffers a message names, and
// watches it while the host waits for an answer. When a process dies or an op outruns
// GGML_HEXAGON_WATCHDOG, it starts a new one for that NPU, reopens that NPU's sessions there
// and reports their messages in flight as lost (VHTP_SESSION_LOST), with what happened in each
// session's vhtp_session_loss; the other NPUs' processes are not touched.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

struct vhtp_session;

namespace vhtp {

class msg_queue;

bool dsp_client_open(vhtp_session * s, char * err, size_t err_len);
void dsp_client_close(vhtp_session * s);
bool dsp_client_reset(vhtp_session * s, char * err, size_t err_len);
// Before s's message goes into its queue: the DSP process gets the buffers it names that it
// does not hold yet. 0, -1 with a reason, or VHTP_SESSION_LOST.
int dsp_client_before_send(vhtp_session * s, const void * msg, uint32_t len, char * err, size_t err_len);
// Waits for s's answer in q: 0 (in *data, *len), -1 with a reason, or VHTP_SESSION_LOST.
int dsp_client_wait(vhtp_session * s, const std::shared_ptr<msg_queue> & q, const void ** data, uint32_t * len,
                    char * err, size_t err_len);
// The pid of NPU npu's DSP process, -1 when none runs (tests: one process per NPU).
int dsp_client_pid(uint32_t npu);
// The host freed shared DDR buffer fd (vhtp_ddr_free): the DSP process closes its copy.
void dsp_client_forget_fd(int fd);

}  // namespace vhtp
