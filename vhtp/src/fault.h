// MMU faults: a device access outside the mapped ranges of a session window traps (SIGSEGV or
// SIGBUS on the PROT_NONE reservation). On a session thread inside a recovery point the fault
// becomes a sticky status of the session and control jumps back to the recovery point; any other
// fault goes to the handler that was installed before ours.
//
// A recovery point must be set up in the frame that calls the faulting code:
//     vhtp::recovery_point rp(HTP_STATUS_MMU_FAULT);
//     if (sigsetjmp(rp.jb, 0) == 0) { vhtp::arm(&rp); call(); }
//     vhtp::disarm();
// (savemask 0: the handler runs with SA_NODEFER, so no signal mask needs restoring, and arming
// costs no syscall.) Code jumped out of does not run its destructors: as on hardware, an op that
// faulted is abandoned, and its results are garbage.
#pragma once
#include <csetjmp>
#include <cstddef>
#include <cstdint>

namespace vhtp {

struct core;

struct recovery_point {
    explicit recovery_point(int s) : status(s) {}
    sigjmp_buf jb;
    int        status;  // what the fault records for the session
};

// The calling thread's session (set by bind_thread) and armed recovery point.
extern __thread core *           tls_core;
extern __thread recovery_point * tls_recovery;

inline void arm(recovery_point * rp) {
    tls_recovery = rp;
}
inline void disarm() {
    tls_recovery = nullptr;
}

// Installs the SIGSEGV/SIGBUS handler (once per process).
void install_fault_handler();

// Registers a loaded NPU library (its load address and file name, from dladdr) so that a
// fault's program counter is printed as NAME+0xOFFSET, which
// `tools/ggml-hexagon-inspect.py --lib LIB --addr2line NAME+0xOFFSET` resolves to a source line.
void register_fault_library(const void * symbol_in_library);

// Writes pc as NAME+0xOFFSET in the registered NPU library it lies in (else the raw pc) into
// out. Not async-signal-safe (snprintf): for faults found outside a signal handler (core-check.cpp).
void fault_pc_text(uintptr_t pc, char * out, size_t n);

}  // namespace vhtp
