// GGML_HEXAGON_FAULT: faults injected into the sessions' ops, so that tests can see each kind
// come back to the host and the host recover from it (docs/vhtp.md "Faults and recovery").
//
//   GGML_HEXAGON_FAULT=KIND@N[,KIND@N...]   KIND at the N-th op (1-based) that the sessions of
//                                           this process run, counted over all of them and
//                                           across DSP restarts; each entry fires once
//   GGML_HEXAGON_FAULT=KIND%P               KIND at each op with probability P (0 < P <= 1)
//
// KIND: crash (the DSP process dies of SIGSEGV), hang (the op never ends: the host's watchdog,
// GGML_HEXAGON_WATCHDOG), mmu (a load from an unmapped device address: HTP_STATUS_MMU_FAULT),
// dma (HTP_STATUS_DMA_ERROR), corrupt (the session's answer to that message is garbled). crash
// and hang need the DSP process (not with GGML_HEXAGON_INPROC=1). Each injection prints one
// "vhtp: GGML_HEXAGON_FAULT: ..." line.
#pragma once
#include <cstddef>
#include <cstdint>

namespace vhtp {

struct core;

// Checks GGML_HEXAGON_FAULT; false with a one-line reason when it is malformed (or asks for a
// crash or hang with the sessions in the host process).
bool fault_inject_check(char * err, size_t err_len);
// Called before each op a session runs (htp_session_op_begin): injects what is due.
void fault_inject_op(core * c, uint32_t op_index, uint32_t opcode);
// True once after an injected "corrupt": the session garbles the answer it is writing.
bool fault_inject_take_corrupt(core * c);

}  // namespace vhtp
