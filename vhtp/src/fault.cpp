// The SIGSEGV/SIGBUS handler that turns device accesses outside the window into MMU faults.
#include "fault.h"

#include <dlfcn.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "core.h"
#include "mdev-check.h"
#include "htp-abi/htp-status.h"

namespace vhtp {

__thread core *           tls_core     = nullptr;
__thread recovery_point * tls_recovery = nullptr;

namespace {

struct sigaction g_prev_segv;
struct sigaction g_prev_bus;

// The NPU libraries loaded in this process: load address and file name (basename), for the
// fault handler. Entries are only added, each published by the release store of the count.
struct fault_library {
    uintptr_t base;
    char      name[64];
};
constexpr int       k_max_libraries = 16;
fault_library       g_libraries[k_max_libraries];
std::atomic<int>    g_n_libraries{ 0 };
std::mutex          g_libraries_mutex;

// Async-signal-safe diagnostics: write(2) only.
struct line_buf {
    char   buf[512];
    size_t n = 0;

    void str(const char * s) {
        for (; *s && n < sizeof(buf) - 1; ++s) {
            buf[n++] = *s;
        }
    }
    void hex(uint64_t v, int digits) {
        static const char hexd[] = "0123456789abcdef";
        str("0x");
        for (int i = digits - 1; i >= 0 && n < sizeof(buf) - 1; --i) {
            buf[n++] = hexd[(v >> (4 * i)) & 0xf];
        }
    }
    void flush() {
        buf[n++] = '\n';
        ssize_t r = write(STDERR_FILENO, buf, n);
        (void) r;
    }
};

uintptr_t fault_pc(void * uc) {
#if defined(__x86_64__)
    return static_cast<uintptr_t>(static_cast<ucontext_t *>(uc)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    return static_cast<uintptr_t>(static_cast<ucontext_t *>(uc)->uc_mcontext.pc);
#else
    (void) uc;
    return 0;
#endif
}

// ", pc LIB+0xOFF": the pc as an offset in the NPU library it lies in (the nearest load
// address below it), else the raw pc.
void pc_part(line_buf & l, uintptr_t pc) {
    if (!pc) {
        return;
    }
    const fault_library * best = nullptr;
    for (int i = 0, n = g_n_libraries.load(std::memory_order_acquire); i < n; ++i) {
        if (g_libraries[i].base <= pc && (!best || g_libraries[i].base > best->base)) {
            best = &g_libraries[i];
        }
    }
    l.str(", pc ");
    if (best && pc - best->base < (uintptr_t(1) << 28)) {
        l.str(best->name);
        l.str("+");
        l.hex(pc - best->base, 8);
    } else {
        l.hex(pc, 16);
    }
}

// "vhtp: MMU fault <what> device address 0x..., pc LIB+0xOFF"
void say(const char * what, uint64_t addr, uintptr_t pc) {
    line_buf l;
    l.str("vhtp: MMU fault ");
    l.str(what);
    l.str("device address ");
    l.hex(addr, addr >> 32 ? 16 : 8);  // 64-bit only in DMA64 windows
    pc_part(l, pc);
    l.flush();
}

// The name of the buffer mapped at addr (its memfd's name, from /proc/self/fd) into name, and
// addr's offset in it and its size; false when nothing is mapped there. Async-signal-safe.
bool buffer_name(const core * c, uint64_t addr, char (&name)[128], const char ** shown, uint64_t * off,
                 uint64_t * size) {
    int fd = -1;
    if (!c->window.buffer_at(addr, &fd, size, off)) {
        return false;
    }
    char link[32] = "/proc/self/fd/";
    {
        char   digits[12];
        int    n = 0;
        for (unsigned v = static_cast<unsigned>(fd); n == 0 || v; v /= 10) {
            digits[n++] = static_cast<char>('0' + v % 10);
        }
        size_t k = strlen(link);
        while (n > 0 && k < sizeof(link) - 1) {
            link[k++] = digits[--n];
        }
        link[k] = 0;
    }
    ssize_t n = readlink(link, name, sizeof(name) - 1);
    name[n > 0 ? n : 0] = 0;
    *shown = name;
    if (strncmp(*shown, "/memfd:", 7) == 0) {
        *shown += 7;
    }
    if (char * del = strstr(name, " (deleted)")) {
        *del = 0;
    }
    if (!**shown) {
        *shown = "?";
    }
    return true;
}

// A core access to a DMA64 session's weights above 4 GiB (window.h): one line naming the
// buffer (its memfd's name, from /proc/self/fd) and the offset in it. False when nothing is
// mapped there (an ordinary MMU fault).
bool say_dma_only(const core * c, const char * what, uint64_t addr, uintptr_t pc) {
    char         name[128];
    const char * shown = nullptr;
    uint64_t     size = 0, off = 0;
    if (!buffer_name(c, addr, name, &shown, &off, &size)) {
        return false;
    }
    line_buf l;
    l.str("vhtp: MMU fault ");
    l.str(what);
    l.str("device address ");
    l.hex(addr, 16);
    pc_part(l, pc);
    l.str(": a core access to the DMA64-only buffer '");
    l.str(shown);
    l.str("' (byte ");
    l.hex(off, off >> 32 ? 16 : 8);
    l.str(" of ");
    l.hex(size, size >> 32 ? 16 : 8);
    l.str("): above 4 GiB only DMA reaches DDR (docs/vhtp.md \"64-bit DMA bases\")");
    l.flush();
    return true;
}

void dec(line_buf & l, uint32_t v) {
    char digits[12];
    int  n = 0;
    for (; n == 0 || v; v /= 10) {
        digits[n++] = static_cast<char>('0' + v % 10);
    }
    while (n > 0) {
        const char d[2] = { digits[--n], 0 };
        l.str(d);
    }
}

// A group member's core access to a line a peer wrote since the member last invalidated it
// (l2-cache.h "Stale lines"): one line naming the address, buffer, member and peer.
void say_stale(const core * c, uint64_t addr, uint32_t writer, uintptr_t pc) {
    char         name[128];
    const char * shown = "?";
    uint64_t     size = 0, off = 0;
    const bool   known = buffer_name(c, addr, name, &shown, &off, &size);
    const uint32_t me  = mdev_check_member_idx(c);
    line_buf       l;
    l.str("vhtp: stale line: NPU ");
    dec(l, c->sinfo.device);
    l.str(" session ");
    dec(l, c->sinfo.session);
    l.str(" (member ");
    dec(l, me);
    l.str(") accessed device address ");
    l.hex(addr, addr >> 32 ? 16 : 8);
    if (known) {
        l.str(" (line ");
        l.hex(off & ~uint64_t(127), off >> 32 ? 16 : 8);
        l.str(" of buffer '");
        l.str(shown);
        l.str("')");
    }
    pc_part(l, pc);
    l.str(", which member ");
    dec(l, writer);
    l.str(" wrote since member ");
    dec(l, me);
    l.str(" last invalidated it: its L2 may hold the old line (docs/vhtp.md \"Stale reads\")");
    l.flush();
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
        const uint64_t dev = static_cast<uint64_t>(a - reinterpret_cast<uintptr_t>(c->window.base()));
        // A device-group member's first store to a cached page (l2-cache.h): the page is made
        // writable and the store re-executes.
        l2_cache * l2 = c->window.l2();
        if (sig == SIGSEGV && l2) {
            // A page with a line a peer wrote since this member invalidated it: an access to
            // that line is reported (the first fault of the message only) and fails the op;
            // either way the page is open now and the access re-executes.
            uint32_t writer = 0;
            const l2_cache::stale_result r = l2->stale_access(dev, &writer);
            if (r == l2_cache::kStale) {
                int expected = 0;
                if (c->fault.compare_exchange_strong(expected, HTP_STATUS_OWNERSHIP, std::memory_order_acq_rel)) {
                    say_stale(c, dev, writer, fault_pc(uc));
                }
                return;
            }
            if (r == l2_cache::kOpened || l2->write_fault(dev)) {
                return;
            }
        }
        const uintptr_t pc = fault_pc(uc);
        if (recovery_point * rp = tls_recovery) {
            c->fault_addr.store(dev, std::memory_order_relaxed);
            // Only the first fault of a session is said: later ones are its consequences. The
            // fault is recorded first (record_fault, core.h), so of two HVX threads faulting at
            // once only the one whose record wins prints.
            int expected = 0;
            if (c->fault.compare_exchange_strong(expected, rp->status, std::memory_order_acq_rel) &&
                !(c->window.dma_only(dev) && say_dma_only(c, "at ", dev, pc))) {
                say("at ", dev, pc);
            }
            tls_recovery = nullptr;
            siglongjmp(rp->jb, 1);
        }
        if (!(c->window.dma_only(dev) && say_dma_only(c, "outside any recovery point at ", dev, pc))) {
            say("outside any recovery point at ", dev, pc);
        }
    }
    chain(sig, si, uc);
}

}  // namespace

void fault_pc_text(uintptr_t pc, char * out, size_t n) {
    const fault_library * best = nullptr;
    for (int i = 0, k = g_n_libraries.load(std::memory_order_acquire); i < k; ++i) {
        if (g_libraries[i].base <= pc && (!best || g_libraries[i].base > best->base)) {
            best = &g_libraries[i];
        }
    }
    if (best && pc - best->base < (uintptr_t(1) << 28)) {
        snprintf(out, n, "%s+0x%08llx", best->name, (unsigned long long) (pc - best->base));
    } else {
        snprintf(out, n, "0x%016llx", (unsigned long long) pc);
    }
}

void register_fault_library(const void * symbol_in_library) {
    Dl_info di;
    if (!dladdr(symbol_in_library, &di) || !di.dli_fbase) {
        return;
    }
    std::lock_guard<std::mutex> lock(g_libraries_mutex);
    const int n = g_n_libraries.load(std::memory_order_relaxed);
    const uintptr_t base = reinterpret_cast<uintptr_t>(di.dli_fbase);
    for (int i = 0; i < n; ++i) {
        if (g_libraries[i].base == base) {
            return;
        }
    }
    if (n == k_max_libraries) {
        return;
    }
    const char * name = di.dli_fname ? di.dli_fname : "?";
    if (const char * slash = strrchr(name, '/')) {
        name = slash + 1;
    }
    g_libraries[n].base = base;
    snprintf(g_libraries[n].name, sizeof(g_libraries[n].name), "%s", name);
    g_n_libraries.store(n + 1, std::memory_order_release);
}

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
