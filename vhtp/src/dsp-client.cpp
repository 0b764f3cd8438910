// The host's half of the DSP processes (dsp-client.h, dsp.h): one per session. Each (NPU,
// session) pair has a link to its process: which sessions it holds, the buffers it was given,
// its watchdog and its restart. Starting a process and its control requests are in
// dsp-process.cpp, the pages all processes share in dsp-common.cpp, what a lost process leaves
// (its loss report, its device-group peers' fences) in dsp-loss.cpp.
#include "dsp-client.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "dsp-common.h"
#include "dsp-loss.h"
#include "dsp-process.h"
#include "dsp.h"
#include "error.h"
#include "htp-abi/htp-abi.h"
#include "msg-queue.h"
#include "npu.h"
#include "session.h"

namespace vhtp {

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
        const int slot = dsp_common_get().take_slot();
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
            dsp_common_get().give_slot((uint32_t) slot);
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
        dsp_common_get().give_slot(s->remote->slot);
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
            const dsp_progress & p = dsp_common_get().shared->progress[s->remote->slot];
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
        if (!dsp_common_get().init(err, err_len)) {  // the page is kept across restarts (fault counters; dsp.h)
            return false;
        }
        dsp_shared * st = dsp_common_get().shared;
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
        pid_t      pid = -1;
        const bool ok  = dsp_spawn(sv[1], dsp_common_get().state_fd, dsp_common_get().board_fd, &pid, err, err_len);
        ::close(sv[1]);
        if (!ok) {
            ::close(sv[0]);
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
        if (npu_page * p = dsp_common_get().page(npu_)) {
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
        return dsp_control_request(sock_, pid_, req, fds, n_fds, rep);
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
        const int pfd      = dsp_common_get().npu_page_fd(s->cfg.device, err, err_len);
        if (pfd == -2) {
            return false;
        }
        const int fds[2] = { q->fd(), pfd };
        dsp_reply rep;
        if (!request(req, fds, pfd >= 0 ? 2 : 1, rep)) {
            int status = 0;
            const bool died = pid_ > 0 && waitpid(pid_, &status, 0) == pid_;
            set_error(err, err_len, "the DSP process %s before the session opened",
                      died && WIFSIGNALED(status) ? ("died of " + dsp_signal_text(WTERMSIG(status))).c_str()
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
        int status = 0;
        if (pid_ > 0) {  // the socket broke: reap it
            kill(pid_, SIGKILL);
            waitpid(pid_, &status, 0);
            reaped(pid_);
            pid_        = -1;
            wait_status = &status;
        }
        loss_text_ = dsp_record_loss(sessions_, proc_, wait_status, why, hung_slot_, hung_ns_);
        hung_slot_ = -1;
        hung_ns_   = 0;
        dsp_release_peers(sessions_, generation_);
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
        // fence slot failed (dsp_release_peers).
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
    return dsp_common_get().page(npu);
}

}  // namespace vhtp
