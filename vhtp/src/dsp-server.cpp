// The DSP process's side (dsp.h): the control loop that opens and closes sessions and takes
// the host's shared DDR buffers, the translation of each request's buffer table to this
// process's descriptors, and the crash record a dying process leaves for the host.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <atomic>
#include <map>
#include <mutex>

#include "core.h"
#include "dsp.h"
#include "error.h"
#include "fault.h"
#include "htp-abi/htp-abi.h"
#include "mdev-board.h"
#include "npu.h"
#include "session.h"

namespace vhtp {
namespace {

constexpr int kControlFd = 3;  // where the host's posix_spawn put them (dsp-client.cpp)
constexpr int kStateFd   = 4;
constexpr int kBoardFd   = 5;

std::atomic<int32_t> g_proc{ -1 };  // this process's index (its crash record; its first open's)
npu_page *           g_pages[VHTP_MAX_NPUS];  // the NPUs' pages (npu.h) the host handed over, mapped

std::mutex           g_fds_mu;
std::map<int, int>   g_fds;  // host descriptor -> ours
local_session *      g_sessions[kDspMaxSessions];

// Request buffer tables name the host's descriptors; the library maps ours. One it never got
// becomes INT_MIN, which no mapping has (an UNMAP of it is a no-op, a map of it fails).
void translate(void * msg, uint32_t len) {
    htp_msg_header h;
    if (len < sizeof(h)) {
        return;
    }
    memcpy(&h, msg, sizeof(h));
    if (h.magic != HTP_MSG_MAGIC || len < sizeof(h) + uint64_t(h.n_bufs) * sizeof(htp_buf_desc)) {
        return;
    }
    auto * bufs = reinterpret_cast<htp_buf_desc *>(static_cast<uint8_t *>(msg) + sizeof(h));
    std::lock_guard<std::mutex> lock(g_fds_mu);
    for (uint32_t i = 0; i < h.n_bufs; i++) {
        auto it     = g_fds.find(bufs[i].fd);
        bufs[i].fd  = it == g_fds.end() ? INT_MIN : it->second;
    }
}

// Fatal signals: note which session's thread died for the host, then die the ordinary way.
void on_fatal(int sig, siginfo_t *, void *) {
    dsp_shared * st = dsp_state();
    int32_t      slot = -1;
    if (core * c = tls_core; c && c->progress) {
        slot = (int32_t) (c->progress - st->progress);
    }
    const int32_t proc = g_proc.load();
    int32_t       none = 0;
    if (proc >= 0 && proc < (int32_t) kDspMaxProcs && st->crash_signal[proc].compare_exchange_strong(none, sig)) {
        st->crash_slot[proc].store(slot);
    }
    signal(sig, SIG_DFL);  // returning re-executes the fault (or abort raises again): the process dies
}

void install_fatal_handlers() {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fatal;
    sa.sa_flags     = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int sig : { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT }) {
        sigaction(sig, &sa, nullptr);
    }
    install_fault_handler();  // the vHTP's MMU-fault handler runs first and chains to ours
}

// Receives one request and the descriptors that came with it; false when the host is gone.
bool receive(dsp_request & req, int * fds, uint32_t * n_fds) {
    iovec  iov = { &req, sizeof(req) };
    char   ctl[CMSG_SPACE(sizeof(int) * kDspMaxFds)];
    msghdr m{};
    m.msg_iov        = &iov;
    m.msg_iovlen     = 1;
    m.msg_control    = ctl;
    m.msg_controllen = sizeof(ctl);
    ssize_t n;
    do {
        n = recvmsg(kControlFd, &m, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n != (ssize_t) sizeof(req)) {
        return false;
    }
    *n_fds = 0;
    for (cmsghdr * c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            const uint32_t k = (uint32_t) ((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            memcpy(fds + *n_fds, CMSG_DATA(c), sizeof(int) * k);
            *n_fds += k;
        }
    }
    return true;
}

// Before a descriptor is closed or replaced: the host sent this request after its sessions'
// answers, and each session thread stored busy = 0 (a release, session.cpp) after its last use
// of the descriptor and before its answer. That order passes through the host process, where
// a race checker (ThreadSanitizer) cannot follow it; these acquires make it visible here.
void sessions_quiet() {
    for (uint32_t i = 0; i < kDspMaxSessions; i++) {
        if (g_sessions[i]) {
            (void) dsp_state()->progress[i].busy.load(std::memory_order_acquire);
        }
    }
}

void handle(const dsp_request & req, int * fds, uint32_t n_fds, dsp_reply & rep) {
    switch (req.kind) {
        case DSP_OPEN: {
            if (req.slot >= kDspMaxSessions || g_sessions[req.slot] || n_fds < 1 || n_fds > 2) {
                set_error(rep.err, sizeof(rep.err), "DSP: bad open request (slot %u)", req.slot);
                break;
            }
            // The NPU's page: the host sends none for an index past the NPUs (npu_attach says so).
            if (n_fds == 2 && req.open.device < VHTP_MAX_NPUS && !g_pages[req.open.device]) {
                void * m = mmap(nullptr, sizeof(npu_page), PROT_READ | PROT_WRITE, MAP_SHARED, fds[1], 0);
                if (m == MAP_FAILED || static_cast<npu_page *>(m)->magic != kNpuPageMagic) {
                    set_error(rep.err, sizeof(rep.err), "DSP: cannot map NPU %u's page", req.open.device);
                    break;
                }
                g_pages[req.open.device] = static_cast<npu_page *>(m);
                npu_use_page(req.open.device, g_pages[req.open.device]);
            }
            auto q = std::make_shared<msg_queue>();
            if (!q->attach(fds[0], req.queue_size, rep.err, sizeof(rep.err))) {
                break;
            }
            fds[0] = -1;
            vhtp_session_config cfg{};
            cfg.device    = req.open.device;
            cfg.session   = req.open.session;
            cfg.n_hvx     = req.open.n_hvx;
            cfg.vtcm_size = req.open.vtcm_size;
            cfg.flags     = req.open.flags;
            cfg.lib_path  = req.open.lib_path;
            int32_t unset = -1;
            g_proc.compare_exchange_strong(unset, (int32_t) req.proc);
            dsp_progress * p = &dsp_state()->progress[req.slot];
            p->busy.store(0);
            g_sessions[req.slot] = local_open(cfg, q, p, translate, &rep.info, rep.err, sizeof(rep.err));
            rep.status           = g_sessions[req.slot] ? 0 : -1;
            return;
        }
        case DSP_CLOSE:
            if (req.slot < kDspMaxSessions && g_sessions[req.slot]) {
                local_close(g_sessions[req.slot], true);
                g_sessions[req.slot] = nullptr;
            }
            rep.status = 0;
            return;
        case DSP_FDS: {
            if (n_fds != req.n_fds || n_fds > kDspMaxFds) {
                set_error(rep.err, sizeof(rep.err), "DSP: %u descriptors came for %u", n_fds, req.n_fds);
                break;
            }
            sessions_quiet();
            std::lock_guard<std::mutex> lock(g_fds_mu);
            for (uint32_t i = 0; i < n_fds; i++) {
                auto it = g_fds.find(req.fds[i]);
                if (it != g_fds.end()) {
                    close(it->second);  // the host reused the number for another buffer
                }
                g_fds[req.fds[i]] = fds[i];
                fds[i]            = -1;
            }
            rep.status = 0;
            return;
        }
        case DSP_FORGET: {
            sessions_quiet();
            std::lock_guard<std::mutex> lock(g_fds_mu);
            for (uint32_t i = 0; i < req.n_fds && i < kDspMaxFds; i++) {
                auto it = g_fds.find(req.fds[i]);
                if (it != g_fds.end()) {
                    close(it->second);
                    g_fds.erase(it);
                }
            }
            rep.status = 0;
            return;
        }
        default:
            set_error(rep.err, sizeof(rep.err), "DSP: unknown request %u", req.kind);
            break;
    }
    rep.status = -1;
}

}  // namespace
}  // namespace vhtp

// The DSP process's main (vhtp/dsp/main.cpp): serves the host until it closes the control
// socket, or dies with it.
extern "C" VHTP_API int vhtp_dsp_main(void) {
    using namespace vhtp;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) {
        return 1;  // the host is already gone
    }
    void * page = mmap(nullptr, sizeof(dsp_shared), PROT_READ | PROT_WRITE, MAP_SHARED, kStateFd, 0);
    if (page == MAP_FAILED || static_cast<dsp_shared *>(page)->magic != kDspMagic) {
        fprintf(stderr, "vhtp: DSP process: no state page from the host (run by libggml-vhtp.so, not by hand)\n");
        return 2;
    }
    dsp_set_state(static_cast<dsp_shared *>(page));
    if (!mdev_board_attach(kBoardFd)) {
        fprintf(stderr, "vhtp: DSP process: no device-group board from the host\n");
        return 2;
    }
    install_fatal_handlers();
    dsp_request req;
    int         fds[kDspMaxFds];
    uint32_t    n_fds = 0;
    while (receive(req, fds, &n_fds)) {
        dsp_reply rep{};
        handle(req, fds, n_fds, rep);
        for (uint32_t i = 0; i < n_fds; i++) {
            if (fds[i] >= 0) {
                close(fds[i]);  // descriptors a failed request did not keep
            }
        }
        if (send(kControlFd, &rep, sizeof(rep), MSG_NOSIGNAL) != (ssize_t) sizeof(rep)) {
            break;
        }
    }
    for (local_session *& s : g_sessions) {
        if (s) {
            local_close(s, true);
            s = nullptr;
        }
    }
    return 0;
}
