// Starting a DSP process (ggml-vhtp-dsp, beside this library) and the requests of its control
// socket (dsp.h): what dsp-client.cpp's links do with the process itself, apart from which
// sessions it holds and what happens when it is lost.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "dsp.h"

namespace vhtp {

// Starts the DSP process with the control socket's end ctl_fd, the state page state_fd and the
// board board_fd as its descriptors 3, 4 and 5, and the host's environment (less preloads
// that would load ggml's backends); its pid in *pid, or false with a reason.
bool dsp_spawn(int ctl_fd, int state_fd, int board_fd, pid_t * pid, char * err, size_t err_len);

// One request (with n_fds descriptors passed along) on control socket sock and its reply; false
// when the DSP is gone (the socket broke) or did not answer within the socket's timeout (then
// the process pid is killed: the caller restarts it).
bool dsp_control_request(int sock, pid_t pid, const dsp_request & req, const int * fds, uint32_t n_fds,
                         dsp_reply & rep);

// "SIGSEGV", or "signal N" for a signal without a name.
std::string dsp_signal_text(int sig);

}  // namespace vhtp
