// The SIGSEGV/SIGBUS handler that turns device accesses outside the window into MMU faults.
#include "fault.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

#include "core.h"
#include "htp-abi/htp-status.h"

namespace vhtp {

__thread core *           tls_core     = nullptr;
__thread recovery_point * tls_recovery = nullptr;

namespace {

struct sigaction g_prev_segv;
struct sigaction g_prev_bus;

// Async-signal-safe diagnostics: write(2) only.
void say(const char * msg, uint32_t addr) {
    char buf[128];
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (const char * p = msg; *p && n < sizeof(buf) - 12; ++p) {
        buf[n++] = *p;
    }
    buf[n++] = '0';
    buf[n++] = 'x';
    for (int i = 7; i >= 0; --i) {
        buf[n++] = hex[(addr >> (4 * i)) & 0xf];
    }
    buf[n++] = '\n';
    ssize_t r = write(STDERR_FILENO, buf, n);
    (void) r;
}

void chain(int sig, siginfo_t * si, void * uc) {
    const struct sigaction & prev = sig == SIGBUS ? g_prev_bus : g_prev_segv;
    if (prev.sa_flags & SA_SIGINFO) {
        prev.sa_sigaction(sig, si, uc);
        return;
    }
    if (prev.sa_handler == SIG_DFL || prev.sa_handler == SIG_IGN) {
        // Restore the default action; the faulting instruction re-executes and kills the process
        // the ordinary way (core dump, debugger stop).
        signal(sig, SIG_DFL);
        return;
    }
    prev.sa_handler(sig);
}

void on_fault(int sig, siginfo_t * si, void * uc) {
    core * c = tls_core;
    const uintptr_t a = reinterpret_cast<uintptr_t>(si->si_addr);
    if (c && c->window.contains_host(a)) {
        const uint32_t dev = static_cast<uint32_t>(a - reinterpret_cast<uintptr_t>(c->window.base()));
        if (recovery_point * rp = tls_recovery) {
            c->fault_addr.store(dev, std::memory_order_relaxed);
            record_fault(c, rp->status);
            tls_recovery = nullptr;
            siglongjmp(rp->jb, 1);
        }
        say("vhtp: MMU fault outside any recovery point at device address ", dev);
    }
    chain(sig, si, uc);
}

}  // namespace

void install_fault_handler() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_fault;
        // SA_NODEFER: the signal stays unblocked while we run, so siglongjmp needs no mask restore.
        // SA_ONSTACK: use the thread's alternate stack if the embedding program set one.
        sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, &g_prev_segv);
        sigaction(SIGBUS, &sa, &g_prev_bus);
    });
}

}  // namespace vhtp
