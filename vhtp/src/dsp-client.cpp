// The host's half of the DSP processes (dsp-client.h, dsp.h): one per session.
#include "dsp-client.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "dsp.h"
#include "error.h"
#include "htp-abi/htp-abi.h"
#include "htp-abi/htp-ops.h"
#include "mdev-check.h"
#include "msg-queue.h"
#include "npu.h"
#include "session.h"

extern char ** environ;

namespace vhtp {

struct remote_session {
    uint32_t              slot;
    std::atomic<uint64_t> gen_sent{ 0 };  // the DSP generation its last message went to
    // Its last message's place in a device group (before_send), so that when its process dies
    // the peers, in other processes, stop waiting for it (dsp_link::release_peers).
    int      fence_fd  = -1;  // host descriptor of the fence buffer; -1: not in a group
    uint64_t fence_off = 0;   // byte offset of its own slot in that buffer
    uint32_t batch_seq = 0;   // the batch's first barrier
};

namespace {

uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// GGML_HEXAGON_WATCHDOG: seconds one op may run before its session counts as hung (0: never).
uint64_t watchdog_ns() {
    static const uint64_t ns = [] {
        const char * v = std::getenv("GGML_HEXAGON_WATCHDOG");
        char *       end = nullptr;
        const double s   = v && *v ? std::strtod(v, &end) : 600.0;
        return (v && *v && (*end || s < 0)) ? uint64_t(600) * 1000000000ull : uint64_t(s * 1e9);
    }();
    return ns;
}

// The executable beside this library's file (ggml-vhtp-dsp).
std::string dsp_executable() {
    Dl_info info{};
    std::string dir = ".";
    if (dladdr(reinterpret_cast<void *>(&dsp_executable), &info) && info.dli_fname) {
        char * real = realpath(info.dli_fname, nullptr);
        dir         = real ? real : info.dli_fname;
        free(real);
        const size_t slash = dir.rfind('/');
        dir                = slash == std::string::npos ? "." : dir.substr(0, slash);
    }
    return dir + "/ggml-vhtp-dsp";
}

// The host's environment for the DSP process (GGML_HEXAGON_* included), but for LD_PRELOAD
// entries other than sanitizer runtimes: a preloaded library that loads ggml's backends (as the
// tests' libload-all-backends.so does) would open sessions from inside the DSP.
std::vector<std::string> dsp_environment() {
    std::vector<std::string> env;
    for (char ** e = environ; *e; e++) {
        if (strncmp(*e, "LD_PRELOAD=", 11) != 0) {
            env.emplace_back(*e);
            continue;
        }
        std::string kept, list = *e + 11;
        for (size_t start = 0; start <= list.size();) {
            size_t end = list.find_first_of(": ", start);
            end        = end == std::string::npos ? list.size() : end;
            const std::string lib = list.substr(start, end - start);
            if (lib.find("clang_rt") != std::string::npos || lib.find("libasan") != std::string::npos ||
                lib.find("libtsan") != std::string::npos || lib.find("libubsan") != std::string::npos) {
                kept += (kept.empty() ? "" : ":") + lib;
            }
            start = end + 1;
        }
        if (!kept.empty()) {
            env.push_back("LD_PRELOAD=" + kept);
        }
    }
    return env;
}

std::string signal_text(int sig) {
    const char * abbrev = sigabbrev_np(sig);
    return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// What every DSP process of this host process shares: the state page (dsp.h), the session
// slots in it, and the device groups' board (mdev-check.h), created with the first process; and
// each NPU's page (npu.h), created with the first process of one of its sessions and kept (a
// restarted session's process gets the same one).
class dsp_common {
  public:
    dsp_shared * shared   = nullptr;
    int          state_fd = -1;
    int          board_fd = -1;

    bool init(char * err, size_t err_len) {
        std::lock_guard<std::mutex> lock(mu_);
        if (shared) {
            return true;
        }
        if (board_fd < 0 && !mdev_board_create(&board_fd, err, err_len)) {
            return false;
        }
        state_fd = memfd_create("vhtp-dsp-state", MFD_CLOEXEC);
        if (state_fd < 0 || ftruncate(state_fd, sizeof(dsp_shared)) != 0) {
            set_error(err, err_len, "cannot create the DSP state page: %s", strerror(errno));
            return false;
        }
        void * p = mmap(nullptr, sizeof(dsp_shared), PROT_READ | PROT_WRITE, MAP_SHARED, state_fd, 0);
        if (p == MAP_FAILED) {
            set_error(err, err_len, "cannot map the DSP state page: %s", strerror(errno));
            return false;
        }
        auto * st = new (p) dsp_shared{};
        st->magic = kDspMagic;
        for (uint32_t i = 0; i < kDspMaxProcs; i++) {
            st->crash_slot[i].store(-1);
        }
        shared = st;
        return true;
    }

    // NPU npu's page and its descriptor; -1 (no page) for an index past the NPUs, which the
    // DSP refuses to open with its reason.
    int npu_page_fd(uint32_t npu, char * err, size_t err_len) {
        std::lock_guard<std::mutex> lock(mu_);
        if (npu >= VHTP_MAX_NPUS) {
            return -1;
        }
        if (!pages_[npu]) {
            const int fd = memfd_create("vhtp-npu", MFD_CLOEXEC);
            if (fd < 0 || ftruncate(fd, sizeof(npu_page)) != 0) {
                set_error(err, err_len, "cannot create NPU %u's page: %s", npu, strerror(errno));
                if (fd >= 0) {
                    ::close(fd);
                }
                return -2;
            }
            void * p = mmap(nullptr, sizeof(npu_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (p == MAP_FAILED) {
                set_error(err, err_len, "cannot map NPU %u's page: %s", npu, strerror(errno));
                ::close(fd);
                return -2;
            }
            pages_[npu]    = npu_page_init(p);
            page_fds_[npu] = fd;
        }
        return page_fds_[npu];
    }

    npu_page * page(uint32_t npu) {
        std::lock_guard<std::mutex> lock(mu_);
        return npu < VHTP_MAX_NPUS ? pages_[npu] : nullptr;
    }

    int take_slot() {
        std::lock_guard<std::mutex> lock(mu_);
        for (uint32_t i = 0; i < kDspMaxSessions; i++) {
            if (!used_[i]) {
                used_[i] = true;
                return (int) i;
            }
        }
        return -1;
    }

    void give_slot(uint32_t slot) {
        std::lock_guard<std::mutex> lock(mu_);
        used_[slot] = false;
    }

  private:
    std::mutex mu_;
    bool       used_[kDspMaxSessions] = {};
    npu_page * pages_[VHTP_MAX_NPUS]   = {};
    int        page_fds_[VHTP_MAX_NPUS] = {};
};

dsp_common & common() {
    static dsp_common * c = new dsp_common;  // never destroyed, as the links
    return *c;
}

// One session's DSP process (the session, while open; a link is kept for its (NPU, session
// index) and starts a new process when that session opens again).
class dsp_link {
  public:
    dsp_link(uint32_t proc, uint32_t npu) : proc_(proc), npu_(npu) {}

    std::mutex mu;  // everything below, and the control socket

    bool open_session(vhtp_session * s, char * err, size_t err_len) {
        std::lock_guard<std::mutex> lock(mu);
        if (pid_ <= 0 && !start(err, err_len)) {
            return false;
        }
        const int slot = common().take_slot();
        if (slot < 0) {
            set_error(err, err_len, "the DSP processes host at most %u sessions", kDspMaxSessions);
            stop_if_idle();
            return false;
        }
        auto * r = new remote_session;
        r->slot  = (uint32_t) slot;
        s->remote = r;
        if (!open_in_dsp(s, err, err_len)) {
            s->remote = nullptr;
            delete r;
            common().give_slot((uint32_t) slot);
            stop_if_idle();
            return false;
        }
        sessions_.push_back(s);
        return true;
    }

    // Under mu: closes the session's queue and DSP-side session; false when the DSP is gone.
    bool close_in_dsp(vhtp_session * s) {
        s->current_queue()->close();
        dsp_request req{};
        req.kind = DSP_CLOSE;
        req.slot = s->remote->slot;
        dsp_reply rep;
        return request(req, nullptr, 0, rep);
    }

    void close_session(vhtp_session * s) {
        std::lock_guard<std::mutex> lock(mu);
        close_in_dsp(s);  // a dead DSP has closed it anyway
        common().give_slot(s->remote->slot);
        for (size_t i = 0; i < sessions_.size(); i++) {
            if (sessions_[i] == s) {
                sessions_.erase(sessions_.begin() + (long) i);
                break;
            }
        }
        delete s->remote;
        s->remote = nullptr;
        stop_if_idle();
    }

    bool reset_session(vhtp_session * s, char * err, size_t err_len) {
        std::lock_guard<std::mutex> lock(mu);
        if (!close_in_dsp(s)) {
            restart(nullptr, "the DSP process died");
            return true;  // restart reopened it
        }
        return open_in_dsp(s, err, err_len);
    }

    int before_send(vhtp_session * s, const void * msg, uint32_t len, char * err, size_t err_len) {
        std::lock_guard<std::mutex> lock(mu);
        s->remote->gen_sent.store(generation_, std::memory_order_relaxed);
        s->remote->fence_fd = -1;
        htp_msg_header h;
        if (len < sizeof(h)) {
            return 0;  // malformed: the dispatcher answers it
        }
        memcpy(&h, msg, sizeof(h));
        if (h.magic != HTP_MSG_MAGIC || len < sizeof(h) + uint64_t(h.n_bufs) * sizeof(htp_buf_desc)) {
            return 0;
        }
        if (h.kind != HTP_MSG_OPS) {
            return 0;  // an UNMAP names buffers the DSP holds, or ones it never saw (ignored there)
        }
        const auto * bufs = reinterpret_cast<const htp_buf_desc *>(static_cast<const uint8_t *>(msg) + sizeof(h));
        if (h.mdev_count > 1 && h.mdev_idx < h.mdev_count && h.fence_buf < h.n_bufs) {
            s->remote->fence_fd  = bufs[h.fence_buf].fd;
            s->remote->fence_off = h.fence_offset + uint64_t(h.mdev_idx) * HTP_FENCE_SLOT_SIZE;
            s->remote->batch_seq = h.fence_seq + 1;
        }
        std::vector<int> fds;
        for (uint32_t i = 0; i < h.n_bufs; i++) {
            const int fd = bufs[i].fd;
            struct stat st;
            if (fstat(fd, &st) != 0) {
                continue;  // not a descriptor: the DSP cannot map it either, and says so
            }
            auto it = sent_.find(fd);
            if (it != sent_.end() && it->second == st.st_ino) {
                continue;
            }
            sent_[fd] = st.st_ino;
            fds.push_back(fd);
        }
        for (size_t i = 0; i < fds.size(); i += kDspMaxFds) {
            dsp_request req{};
            req.kind  = DSP_FDS;
            req.n_fds = (uint32_t) std::min<size_t>(kDspMaxFds, fds.size() - i);
            for (uint32_t k = 0; k < req.n_fds; k++) {
                req.fds[k] = fds[i + k];
            }
            dsp_reply rep;
            if (!request(req, &fds[i], req.n_fds, rep)) {
                restart(nullptr, "the DSP process died");
                set_error(err, err_len, "%s", loss_text_.c_str());
                s->last_loss.op_index = -1;
                return VHTP_SESSION_LOST;  // nothing of this message was sent
            }
            if (rep.status != 0) {
                set_error(err, err_len, "%s", rep.err);
                return -1;
            }
        }
        return 0;
    }

    // One slice of waiting is over with no answer: is the DSP still alive and every op within
    // the watchdog? Restarts it when not. Returns the generation now.
    uint64_t check() {
        std::lock_guard<std::mutex> lock(mu);
        if (pid_ <= 0) {
            return generation_;
        }
        int   status = 0;
        pid_t r      = waitpid(pid_, &status, WNOHANG);
        if (r == pid_) {
            reaped(pid_);
            pid_ = -1;
            restart(&status, nullptr);
            return generation_;
        }
        const uint64_t limit = watchdog_ns();
        if (limit == 0) {
            return generation_;
        }
        const uint64_t now = now_ns();
        for (vhtp_session * s : sessions_) {
            const dsp_progress & p = common().shared->progress[s->remote->slot];
            const uint64_t since = p.since_ns.load(std::memory_order_acquire);
            if (p.busy.load(std::memory_order_acquire) && now > since && now - since > limit) {
                kill(pid_, SIGKILL);
                waitpid(pid_, &status, 0);
                reaped(pid_);
                pid_ = -1;
                hung_slot_ = (int32_t) s->remote->slot;
                hung_ns_   = now - since;
                restart(nullptr, nullptr);
                return generation_;
            }
        }
        return generation_;
    }

    uint64_t generation() {
        std::lock_guard<std::mutex> lock(mu);
        return generation_;
    }

    std::string loss_text() {
        std::lock_guard<std::mutex> lock(mu);
        return loss_text_;
    }

    void forget_fd(int fd) {
        std::lock_guard<std::mutex> lock(mu);
        if (pid_ <= 0 || !sent_.erase(fd)) {
            return;
        }
        dsp_request req{};
        req.kind   = DSP_FORGET;
        req.n_fds  = 1;
        req.fds[0] = fd;
        dsp_reply rep;
        request(req, nullptr, 0, rep);
    }

    pid_t pid() {
        std::lock_guard<std::mutex> lock(mu);
        return pid_;
    }

  private:
    const uint32_t              proc_;  // its index: its crash record in the state page
    const uint32_t              npu_;
    pid_t                       pid_  = -1;
    int                         sock_ = -1;
    uint64_t                    generation_ = 1;
    std::vector<vhtp_session *> sessions_;
    std::map<int, ino_t>        sent_;  // host fd -> the inode the DSP holds for it
    int32_t                     hung_slot_ = -1;
    uint64_t                    hung_ns_   = 0;
    std::string                 loss_text_;

    bool start(char * err, size_t err_len) {
        if (!common().init(err, err_len)) {  // the page is kept across restarts (fault counters; dsp.h)
            return false;
        }
        dsp_shared * st = common().shared;
        st->crash_signal[proc_].store(0);
        st->crash_slot[proc_].store(-1);
        for (vhtp_session * s : sessions_) {
            st->progress[s->remote->slot].busy.store(0);
        }
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
            set_error(err, err_len, "cannot create the DSP control socket: %s", strerror(errno));
            return false;
        }
        // The child gets them as descriptors 3 and 4 (dup2 clears CLOEXEC), from copies numbered
        // 10 or more, so that neither dup2 overwrites the other's source.
        const int ctl_hi   = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
        const int state_hi = fcntl(common().state_fd, F_DUPFD_CLOEXEC, 10);
        const int board_hi = fcntl(common().board_fd, F_DUPFD_CLOEXEC, 10);
        ::close(sv[1]);
        const std::string exe = dsp_executable();
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, ctl_hi, 3);
        posix_spawn_file_actions_adddup2(&fa, state_hi, 4);
        posix_spawn_file_actions_adddup2(&fa, board_hi, 5);
        char                a0[] = "ggml-vhtp-dsp";
        char *              argv[] = { a0, nullptr };
        std::vector<std::string> env_store = dsp_environment();
        std::vector<char *> envp;
        for (std::string & e : env_store) {
            envp.push_back(&e[0]);
        }
        envp.push_back(nullptr);
        pid_t     pid = -1;
        const int rc  = ctl_hi < 0 || state_hi < 0 || board_hi < 0 ? errno
                                                   : posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv, envp.data());
        posix_spawn_file_actions_destroy(&fa);
        ::close(ctl_hi);
        ::close(state_hi);
        ::close(board_hi);
        if (rc != 0) {
            ::close(sv[0]);
            set_error(err, err_len, "cannot start the DSP process %s: %s (GGML_HEXAGON_INPROC=1 runs the sessions "
                      "in this process)", exe.c_str(), strerror(rc));
            return false;
        }
        pid_  = pid;
        sock_ = sv[0];
        // A control request is answered at once, but closing a session joins its thread: one
        // stuck in an op never answers, and the DSP is then stopped (request()).
        const timeval tv = { kControlTimeoutS, 0 };
        setsockopt(sock_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        return true;
    }

    static constexpr int kControlTimeoutS = 30;

    // The process `pid` is gone (reaped): what its sessions held of the NPU (VTCM, HVX contexts
    // and tickets, the HMX unit: npu.h) goes back to the NPU's other sessions, and to the
    // session's next process.
    void reaped(pid_t pid) {
        if (npu_page * p = common().page(npu_)) {
            npu_page_release_pid(p, (int32_t) pid);
        }
    }

    // Reaps the DSP, giving it `grace_ms` to exit on its own before SIGKILL.
    void reap(int grace_ms, int * status) {
        for (int waited = 0; waitpid(pid_, status, WNOHANG) == 0; waited += 10) {
            if (waited >= grace_ms) {
                kill(pid_, SIGKILL);
                waitpid(pid_, status, 0);
                break;
            }
            usleep(10000);
        }
        reaped(pid_);
        pid_ = -1;
    }

    void stop_if_idle() {
        if (!sessions_.empty() || pid_ <= 0) {
            return;
        }
        ::close(sock_);  // the DSP's control loop sees the end and exits
        sock_ = -1;
        int status;
        reap(5000, &status);  // a session stuck in an op would keep it from exiting
        sent_.clear();
    }

    // One request and its reply; false when the DSP is gone (the socket broke).
    bool request(const dsp_request & req, const int * fds, uint32_t n_fds, dsp_reply & rep) {
        if (sock_ < 0) {
            return false;
        }
        iovec  iov = { const_cast<dsp_request *>(&req), sizeof(req) };
        msghdr m{};
        m.msg_iov    = &iov;
        m.msg_iovlen = 1;
        std::vector<char> ctl(CMSG_SPACE(sizeof(int) * (n_fds ? n_fds : 1)));
        if (n_fds) {
            m.msg_control    = ctl.data();
            m.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
            cmsghdr * c      = CMSG_FIRSTHDR(&m);
            c->cmsg_level    = SOL_SOCKET;
            c->cmsg_type     = SCM_RIGHTS;
            c->cmsg_len      = CMSG_LEN(sizeof(int) * n_fds);
            memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
        }
        if (sendmsg(sock_, &m, MSG_NOSIGNAL) != (ssize_t) sizeof(req)) {
            return false;
        }
        ssize_t n;
        do {
            n = recv(sock_, &rep, sizeof(rep), 0);
        } while (n < 0 && errno == EINTR);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && pid_ > 0) {
            kill(pid_, SIGKILL);  // no answer within kControlTimeoutS: stuck; the caller restarts it
        }
        return n == (ssize_t) sizeof(rep);
    }

    // Opens s (its slot and config) in the running DSP on a fresh queue.
    bool open_in_dsp(vhtp_session * s, char * err, size_t err_len) {
        auto q = std::make_shared<msg_queue>();
        if (!q->create(VHTP_MAX_MSG_SIZE, VHTP_MAX_RESP_SIZE, err, err_len)) {
            return false;
        }
        dsp_request req{};
        req.kind           = DSP_OPEN;
        req.slot           = s->remote->slot;
        req.proc           = proc_;
        req.open.device    = s->cfg.device;
        req.open.session   = s->cfg.session;
        req.open.n_hvx     = s->cfg.n_hvx;
        req.open.vtcm_size = s->cfg.vtcm_size;
        req.open.flags     = s->cfg.flags;
        snprintf(req.open.lib_path, sizeof(req.open.lib_path), "%s", s->lib_path.c_str());
        req.queue_size     = q->size();
        const int pfd      = common().npu_page_fd(s->cfg.device, err, err_len);
        if (pfd == -2) {
            return false;
        }
        const int fds[2] = { q->fd(), pfd };
        dsp_reply rep;
        if (!request(req, fds, pfd >= 0 ? 2 : 1, rep)) {
            int status = 0;
            const bool died = pid_ > 0 && waitpid(pid_, &status, 0) == pid_;
            set_error(err, err_len, "the DSP process %s before the session opened",
                      died && WIFSIGNALED(status) ? ("died of " + signal_text(WTERMSIG(status))).c_str()
                      : died                      ? ("exited with status " + std::to_string(WEXITSTATUS(status))).c_str()
                                                  : "stopped answering");
            if (died) {
                reaped(pid_);
                pid_ = -1;
            }
            return false;
        }
        if (rep.status != 0) {
            set_error(err, err_len, "%s", rep.err);
            return false;
        }
        s->info = rep.info;
        std::lock_guard<std::mutex> lock(s->queue_mu);
        s->queue = std::move(q);
        return true;
    }

    // The DSP died (wait status, when reaped here) or was killed as hung (hung_slot_): record
    // what happened for every session, start a new DSP and reopen every session in it.
    void restart(const int * wait_status, const char * why) {
        if (pid_ > 0) {  // the socket broke: reap it
            int status = 0;
            kill(pid_, SIGKILL);
            waitpid(pid_, &status, 0);
            reaped(pid_);
            pid_        = -1;
            wait_status = &status;
            record_loss(wait_status, why);
        } else {
            record_loss(wait_status, why);
        }
        release_peers();
        generation_++;
        ::close(sock_);
        sock_ = -1;
        sent_.clear();
        for (vhtp_session * s : sessions_) {
            s->current_queue()->close();  // wakes anyone blocked on the old rings
        }
        char err[512] = "";
        if (!start(err, sizeof(err))) {
            loss_text_ += std::string("; restarting it failed: ") + err;
            return;
        }
        for (vhtp_session * s : sessions_) {
            if (!open_in_dsp(s, err, sizeof(err))) {
                loss_text_ += std::string("; reopening NPU ") + std::to_string(s->cfg.device) + " session " +
                              std::to_string(s->cfg.session) + " failed: " + err;
            }
        }
    }

    // The sessions of the dead process that were in a device group's batch will never signal
    // its barriers again; their peers, in other processes, would wait out the fence timeout.
    // Their fence slots (host memory) get an error status for that batch, as a member that
    // failed writes it (npu/src/mdev.cpp), so the peers stop at once and the batch is replayed.
    void release_peers() {
        for (vhtp_session * s : sessions_) {
            remote_session * r = s->remote;
            if (r->fence_fd < 0 || r->gen_sent.load(std::memory_order_relaxed) != generation_) {
                continue;
            }
            const long     page  = sysconf(_SC_PAGESIZE);
            const uint64_t base  = r->fence_off & ~uint64_t(page - 1);
            const size_t   len   = (size_t) (r->fence_off - base + HTP_FENCE_SLOT_SIZE);
            void *         m     = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fence_fd, (off_t) base);
            if (m == MAP_FAILED) {
                continue;
            }
            auto *         word = reinterpret_cast<uint64_t *>(static_cast<uint8_t *>(m) + (r->fence_off - base));
            const uint64_t w    = __atomic_load_n(word, __ATOMIC_ACQUIRE);
            const uint32_t seq  = (int32_t) ((uint32_t) w - r->batch_seq) >= 0 ? (uint32_t) w : r->batch_seq;
            __atomic_store_n(word, uint64_t(seq) | uint64_t((uint32_t) HTP_STATUS_FENCE_ERROR) << 32, __ATOMIC_RELEASE);
            syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
            munmap(m, len);
            r->fence_fd = -1;
        }
    }

    void record_loss(const int * wait_status, const char * why) {
        dsp_shared * shared_ = common().shared;
        // The wait status, or the process's own crash record when something else ended it
        // (a sanitizer's runtime catches the signal and exits).
        const int32_t sig = wait_status && WIFSIGNALED(*wait_status) ? WTERMSIG(*wait_status)
                                                                     : shared_->crash_signal[proc_].load();
        int32_t slot = hung_slot_ >= 0 ? hung_slot_ : shared_->crash_slot[proc_].load();
        vhtp_session * culprit = nullptr;
        for (vhtp_session * s : sessions_) {
            if ((int32_t) s->remote->slot == slot) {
                culprit = s;
            }
        }
        const dsp_progress * cp = culprit ? &shared_->progress[culprit->remote->slot] : nullptr;
        std::string where = culprit ? "NPU " + std::to_string(culprit->cfg.device) + " session " +
                                          std::to_string(culprit->cfg.session) + ", op " +
                                          std::to_string(cp->op_index.load()) + " of its batch (" +
                                          htp_opcode_name(cp->opcode.load()) + ")"
                                    : std::string("no session's op");
        if (hung_slot_ >= 0) {
            loss_text_ = "an op of " + where + " ran for " + std::to_string(hung_ns_ / 1000000) +
                         " ms, past GGML_HEXAGON_WATCHDOG; the DSP process was stopped";
        } else if (sig) {
            loss_text_ = "the DSP process died of " + signal_text(sig) + " in " + where;
        } else {
            loss_text_ = std::string(why ? why : "the DSP process exited") + " (in " + where + ")";
        }
        for (vhtp_session * s : sessions_) {
            const dsp_progress & p = shared_->progress[s->remote->slot];
            vhtp_session_loss    l{};
            l.signal   = sig;
            l.hung_ms  = hung_slot_ >= 0 ? (uint32_t) (hung_ns_ / 1000000) : 0;
            l.op_index = s == culprit && p.busy.load() ? (int32_t) p.op_index.load() : -1;
            l.opcode   = p.opcode.load();
            l.device   = culprit ? culprit->cfg.device : 0;
            l.session  = culprit ? culprit->cfg.session : 0;
            s->last_loss = l;
        }
        hung_slot_ = -1;
        hung_ns_   = 0;
    }
};

// The links, by (NPU, session index): created on first use, never destroyed (sessions may close
// during exit); g_links in order of creation, each one's index its process index.
std::mutex                                          g_links_mu;
std::map<std::pair<uint32_t, uint32_t>, dsp_link *> g_link_keys;  // under g_links_mu
std::atomic<dsp_link *>                             g_links[kDspMaxProcs];
uint32_t                                            g_n_links = 0;  // under g_links_mu

// nullptr when kDspMaxProcs different (NPU, session) pairs have had a process already.
dsp_link * find_link(uint32_t npu, uint32_t session, bool create) {
    std::lock_guard<std::mutex> lock(g_links_mu);
    auto it = g_link_keys.find({ npu, session });
    if (it != g_link_keys.end()) {
        return it->second;
    }
    if (!create || g_n_links >= kDspMaxProcs) {
        return nullptr;
    }
    dsp_link * l                   = new dsp_link(g_n_links, npu);
    g_link_keys[{ npu, session }] = l;
    g_links[g_n_links++].store(l, std::memory_order_release);
    return l;
}

dsp_link & link(const vhtp_session * s) {
    return *find_link(s->cfg.device, s->cfg.session, false);  // made by dsp_client_open
}

}  // namespace

bool dsp_client_open(vhtp_session * s, char * err, size_t err_len) {
    dsp_link * l = find_link(s->cfg.device, s->cfg.session, true);
    if (!l) {
        set_error(err, err_len, "the DSP processes serve at most %u different (NPU, session) pairs", kDspMaxProcs);
        return false;
    }
    return l->open_session(s, err, err_len);
}

void dsp_client_close(vhtp_session * s) {
    link(s).close_session(s);
}

bool dsp_client_reset(vhtp_session * s, char * err, size_t err_len) {
    return link(s).reset_session(s, err, err_len);
}

int dsp_client_before_send(vhtp_session * s, const void * msg, uint32_t len, char * err, size_t err_len) {
    return link(s).before_send(s, msg, len, err, err_len);
}

int dsp_client_wait(vhtp_session * s, const std::shared_ptr<msg_queue> & q, const void ** data, uint32_t * len,
                    char * err, size_t err_len) {
    dsp_link & l = link(s);
    for (;;) {
        const uint64_t gen = s->remote->gen_sent.load(std::memory_order_relaxed);
        if (gen != l.generation()) {
            break;  // the DSP that had our message is gone
        }
        const int got = q->peek_response_for(data, len, s->poll, 100);
        if (got == 1) {
            return 0;
        }
        if (got < 0 && gen == l.generation()) {
            set_error(err, err_len, "session is closed");
            return -1;
        }
        if (l.check() != gen) {
            break;
        }
        // The other NPUs' processes too: a device-group peer of this session may have died, and
        // this session's op waits at a barrier for it until its process is restarted and its
        // fence slot failed (release_peers).
        for (std::atomic<dsp_link *> & o : g_links) {
            dsp_link * other = o.load(std::memory_order_acquire);
            if (other && other != &l) {
                other->check();
            }
        }
    }
    std::lock_guard<std::mutex> count(s->count_mu);
    s->outstanding = 0;  // every message in flight went with the old DSP
    set_error(err, err_len, "%s", l.loss_text().c_str());
    return VHTP_SESSION_LOST;
}

void dsp_client_forget_fd(int fd) {
    for (std::atomic<dsp_link *> & l : g_links) {
        if (dsp_link * p = l.load(std::memory_order_acquire)) {
            p->forget_fd(fd);
        }
    }
}

int dsp_client_pid(uint32_t npu, uint32_t session) {
    dsp_link * l = find_link(npu, session, false);
    return l ? (int) l->pid() : -1;
}

npu_page * dsp_client_npu_page(uint32_t npu) {
    return common().page(npu);
}

}  // namespace vhtp
