// GGML_HEXAGON_VTCM_CHECK: the core's plain loads and stores must not reach VTCM (htp/core-check.h).
// The VTCM check build of an NPU library calls htp_core_access before each scalar access;
// an access to the session's VTCM fails the op as an MMU fault does (fault.h), with one line
// that names the access, the op and the code that made it.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "core.h"
#include "dsp.h"
#include "fault.h"
#include "htp-abi/htp-ops.h"
#include "htp-abi/htp-status.h"
#include "htp/core-check.h"

namespace vhtp {
namespace {

[[noreturn]] void vtcm_access_fault(core * c, uint64_t dev, uint32_t bytes, bool store, const void * pc) {
    // The first fault of the session only (later ones, on other HVX threads too, follow from it):
    // the thread that records the status prints the line.
    int expected = 0;
    if (c->fault.compare_exchange_strong(expected, HTP_STATUS_MMU_FAULT, std::memory_order_acq_rel)) {
        char where[96];
        fault_pc_text(reinterpret_cast<uintptr_t>(pc), where, sizeof(where));
        char op[64] = "";
        if (const dsp_progress * p = c->progress; p && p->busy.load(std::memory_order_relaxed)) {
            snprintf(op, sizeof(op), " in op %u (%s)", p->op_index.load(std::memory_order_relaxed),
                     htp_opcode_name(p->opcode.load(std::memory_order_relaxed)));
        }
        char line[384];
        const int n = snprintf(line, sizeof(line),
                               "vhtp: VTCM check: NPU %u session %u: scalar %s of %u bytes at VTCM address 0x%08llx%s, "
                               "pc %s (kernels reach VTCM by HVX, DMA or HMX only: docs/vhtp.md \"VTCM check\")\n",
                               c->sinfo.device, c->sinfo.session, store ? "store" : "load", bytes,
                               (unsigned long long) dev, op, where);
        ssize_t w = write(STDERR_FILENO, line, n > 0 && size_t(n) < sizeof(line) ? size_t(n) : sizeof(line) - 1);
        (void) w;
    }
    c->fault_addr.store(dev, std::memory_order_relaxed);
    if (recovery_point * rp = tls_recovery) {
        tls_recovery = nullptr;
        siglongjmp(rp->jb, 1);
    }
    // Kernels run inside a recovery point (the message handler's, an HVX worker's); anything
    // else is the runtime's own bug.
    static const char msg[] = "vhtp: VTCM check: the access was outside any recovery point\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
    (void) w;
    abort();
}

}  // namespace
}  // namespace vhtp

extern "C" HTP_DEVICE_API void htp_core_access(const void * p, uint32_t bytes, uint32_t store, const void * pc) {
    vhtp::core * c = vhtp::tls_core;
    if (!c) {
        return;  // not a session's thread: host code, nothing to check
    }
    // Device address of the access; an address below the window wraps to a huge value.
    const uint64_t dev = reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(c->window.base());
    const uint64_t vtcm = vhtp::Window::kVtcmBase;
    if (dev + bytes <= vtcm || dev >= vtcm + c->window.vtcm_size()) {
        return;
    }
    vhtp::vtcm_access_fault(c, dev, bytes, store != 0, pc);
}
