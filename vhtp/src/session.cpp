// Sessions (session.h): the runtime half that runs an NPU library from a message queue, and the
// host-facing handle of vhtp/vhtp.h, in this process or in the DSP process (dsp-client.cpp).
#include "session.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <thread>

#include "core.h"
#include "dsp-client.h"
#include "dsp.h"
#include "error.h"
#include "fault-inject.h"
#include "fault.h"
#include "htp-abi/htp-abi.h"
#include "htp/session.h"
#include "htp/timer.h"
#include "mdev-check.h"

namespace vhtp {
namespace {

using lib_arch_fn   = uint32_t (*)(void);
using lib_open_fn   = int (*)(const htp_session_info *, void **);
using lib_handle_fn = int (*)(void *, const void *, uint32_t, void *, uint32_t, uint32_t *);
using lib_close_fn  = void (*)(void *);

// *ret = call() (htp_lib_open, htp_lib_handle) under a recovery point; returns false if it took
// an MMU fault.
template <class F> __attribute__((noinline)) bool guarded(F call, int * ret) {
    recovery_point rp(HTP_STATUS_MMU_FAULT);
    if (sigsetjmp(rp.jb, 0) == 0) {
        arm(&rp);
        *ret = call();
        disarm();
        return true;
    }
    disarm();
    return false;
}

uint32_t write_status_response(void * resp, uint32_t cap, int status, uint64_t seq, uint32_t failed_op,
                               uint64_t cycles) {
    htp_batch_response r{};
    r.magic     = HTP_RESP_MAGIC;
    r.status    = status;
    r.seq       = seq;
    r.failed_op = failed_op;
    r.cycles    = cycles;
    if (cap < sizeof(r)) {
        return 0;
    }
    memcpy(resp, &r, sizeof(r));
    return sizeof(r);
}

uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

}  // namespace

struct local_session {
    core *                     core_ = nullptr;
    std::shared_ptr<msg_queue> queue;
    dsp_progress *             progress = nullptr;
    void *                     lib      = nullptr;
    lib_open_fn                lib_open   = nullptr;
    lib_handle_fn              lib_handle = nullptr;
    lib_close_fn               lib_close  = nullptr;
    void *                     lib_ctx    = nullptr;
    std::function<void(void *, uint32_t)> translate;
    std::thread                thread;
    std::promise<int>          opened;  // htp_lib_open's status, from the session thread

    void serve();
    void handle_one(void * msg, uint32_t len);
};

void local_session::handle_one(void * msg, uint32_t len) {
    void *   resp = nullptr;
    uint32_t cap  = 0;
    if (!queue->response_slot(&resp, &cap)) {
        return;  // closing
    }
    if (translate) {
        translate(msg, len);
    }
    uint64_t seq = 0;
    if (len >= sizeof(htp_msg_header)) {
        htp_msg_header h;
        memcpy(&h, msg, sizeof(h));
        if (h.magic == HTP_MSG_MAGIC) {
            seq = h.seq;
        }
    }
    if (progress) {
        progress->op_index.store(0, std::memory_order_relaxed);
        progress->msg_seq.store(seq, std::memory_order_relaxed);
        progress->since_ns.store(now_ns(), std::memory_order_relaxed);
        progress->busy.store(1, std::memory_order_release);
    }
    const uint64_t t0       = htp_cycles();
    uint32_t       resp_len = 0;
    int            ret      = 0;
    uint32_t       out      = 0;
    if (!guarded([&] { return lib_handle(lib_ctx, msg, len, resp, cap, &resp_len); }, &ret)) {
        // The library faulted mid-message: the runtime answers for it, so the host never hangs,
        // naming the op it was in.
        htp_fault_take();
        const uint32_t op = progress ? progress->op_index.load(std::memory_order_relaxed) : 0;
        out = write_status_response(resp, cap, HTP_STATUS_MMU_FAULT, seq, op, htp_cycles() - t0);
    } else {
        mdev_check_answer(core_);  // no dirty L2 line may outlive the message (mdev-check.h)
        const int sticky = htp_fault_take();
        out              = std::min(resp_len, cap);
        if (out == 0 && (ret != 0 || sticky != 0)) {
            out = write_status_response(resp, cap, ret != 0 ? ret : sticky, seq, 0, htp_cycles() - t0);
        } else if (sticky != 0 && out >= sizeof(htp_batch_response)) {
            // A fault the library did not collect must not turn into a silent success.
            htp_batch_response r;
            memcpy(&r, resp, sizeof(r));
            if (r.magic == HTP_RESP_MAGIC && r.status == HTP_STATUS_OK) {
                r.status = sticky;
                memcpy(resp, &r, sizeof(r));
            }
        }
    }
    if (fault_inject_take_corrupt(core_) && out >= 8) {
        reinterpret_cast<uint8_t *>(resp)[0] ^= 0x5a;  // GGML_HEXAGON_FAULT=corrupt: a garbled magic
        reinterpret_cast<uint8_t *>(resp)[7] ^= 0xa5;
    }
    if (progress) {
        progress->busy.store(0, std::memory_order_release);
    }
    queue->push_response(out);
}

void local_session::serve() {
    bind_thread(core_);
    int ret = 0;
    if (!guarded([&] { return lib_open(&core_->sinfo, &lib_ctx); }, &ret)) {
        ret = HTP_STATUS_MMU_FAULT;
    }
    htp_fault_take();
    opened.set_value(ret);
    if (ret != 0) {
        bind_thread(nullptr);
        return;
    }
    const void * msg = nullptr;
    uint32_t     len = 0;
    while (queue->next_request(&msg, &len)) {
        handle_one(const_cast<void *>(msg), len);  // the request slot is ours until popped
        queue->pop_request();
    }
    lib_close(lib_ctx);
    bind_thread(nullptr);
}

local_session * local_open(const vhtp_session_config & cfg, std::shared_ptr<msg_queue> q, dsp_progress * progress,
                           std::function<void(void *, uint32_t)> translate, struct vhtp_device_info * info_out, char * err,
                           size_t err_len) {
    if (!cfg.lib_path || !*cfg.lib_path) {
        set_error(err, err_len, "vhtp_session_open: no NPU library path");
        return nullptr;
    }
    const uint32_t known_flags = VHTP_SESSION_POLL | VHTP_SESSION_DMA64;
    if (cfg.flags & ~known_flags) {
        set_error(err, err_len, "vhtp_session_open: unknown flags 0x%x", cfg.flags & ~known_flags);
        return nullptr;
    }
    struct vhtp_device_info info;
    if (vhtp_device_info(&info, err, err_len) != 0) {
        return nullptr;
    }
    if (cfg.flags & VHTP_SESSION_DMA64) {
        if (!info.dma64_capable) {
            set_error(err, err_len, "NPU %u: a v%u has no 64-bit DMA bases (VHTP_SESSION_DMA64 needs v81)", cfg.device,
                      info.arch);
            return nullptr;
        }
        info.dma64       = 1;
        info.window_size = info.dma64_window_size;
        info.vmem_budget = info.dma64_vmem_budget;
    }
    if (cfg.n_hvx != 0) {
        info.n_hvx      = std::min({ cfg.n_hvx, info.n_hvx_hw, static_cast<uint32_t>(HTP_MAX_HVX_THREADS) });
        info.dma_thread = default_dma_thread(info.n_hvx);
    }
    if (cfg.vtcm_size != 0) {
        info.vtcm_size = cfg.vtcm_size;  // what the session asks of its NPU's pool (core_create checks)
    }

    // Load and check the library first: a wrong or broken library is the likeliest failure.
    void * lib = dlopen(cfg.lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        set_error(err, err_len, "cannot load NPU library %s: %s", cfg.lib_path, dlerror());
        return nullptr;
    }
    const char * const names[] = { "htp_lib_arch", "htp_lib_open", "htp_lib_handle", "htp_lib_close" };
    void *             syms[4];
    for (int i = 0; i < 4; ++i) {
        syms[i] = dlsym(lib, names[i]);
        if (!syms[i]) {
            set_error(err, err_len, "NPU library %s does not export %s", cfg.lib_path, names[i]);
            dlclose(lib);
            return nullptr;
        }
    }
    register_fault_library(syms[1]);
    const uint32_t lib_arch = reinterpret_cast<lib_arch_fn>(syms[0])();
    if (lib_arch != info.arch) {
        set_error(err, err_len, "NPU library %s is built for v%u but the device is v%u (GGML_HEXAGON_ARCH)",
                  cfg.lib_path, lib_arch, info.arch);
        dlclose(lib);
        return nullptr;
    }

    local_session * s = new local_session;
    s->lib            = lib;
    s->queue          = std::move(q);
    s->progress       = progress;
    s->translate      = std::move(translate);
    s->lib_open       = reinterpret_cast<lib_open_fn>(syms[1]);
    s->lib_handle     = reinterpret_cast<lib_handle_fn>(syms[2]);
    s->lib_close      = reinterpret_cast<lib_close_fn>(syms[3]);
    s->core_          = core_create(info, cfg.device, cfg.session, err, err_len);
    if (!s->core_) {
        dlclose(lib);
        delete s;
        return nullptr;
    }
    s->core_->progress = progress;

    std::future<int> result = s->opened.get_future();
    s->thread               = std::thread([s] { s->serve(); });
    const int status         = result.get();
    if (status != 0) {
        set_error(err, err_len, "htp_lib_open of %s failed: %s (%d)", cfg.lib_path, htp_status_name(status), status);
        s->thread.join();
        core_destroy(s->core_);
        dlclose(lib);
        delete s;
        return nullptr;
    }
    *info_out = info;
    return s;
}

void local_close(local_session * s, bool close_queue) {
    if (!s) {
        return;
    }
    if (close_queue) {
        s->queue->close();
    }
    s->thread.join();  // the session thread calls htp_lib_close on its way out
    core_destroy(s->core_);
    dlclose(s->lib);
    delete s;
}

namespace {

// The progress slots of this process's in-process sessions (the DSP's are the host's to give).
dsp_progress * inproc_progress_slot() {
    static std::atomic<uint32_t> next{ 0 };
    return &dsp_state()->progress[next.fetch_add(1, std::memory_order_relaxed) % kDspMaxSessions];
}

// Opens s's runtime half in this process on a fresh queue.
bool open_here(vhtp_session * s, char * err, size_t err_len) {
    auto q = std::make_shared<msg_queue>();
    if (!q->create(VHTP_MAX_MSG_SIZE, VHTP_MAX_RESP_SIZE, err, err_len)) {
        return false;
    }
    s->local = local_open(s->cfg, q, inproc_progress_slot(), nullptr, &s->info, err, err_len);
    if (!s->local) {
        return false;
    }
    std::lock_guard<std::mutex> lock(s->queue_mu);
    s->queue = std::move(q);
    return true;
}

}  // namespace
}  // namespace vhtp

extern "C" {

VHTP_API struct vhtp_session * vhtp_session_open(const struct vhtp_session_config * cfg, char * err, size_t err_len) {
    if (!cfg || !cfg->lib_path || !*cfg->lib_path) {
        vhtp::set_error(err, err_len, "vhtp_session_open: no NPU library path");
        return nullptr;
    }
    if (!vhtp::fault_inject_check(err, err_len)) {
        return nullptr;
    }
    if (vhtp::dsp_is_this_process()) {  // a host library loaded into the DSP must not start another
        vhtp::set_error(err, err_len, "vhtp_session_open: not from inside the DSP process");
        return nullptr;
    }
    vhtp_session * s = new vhtp_session;
    s->lib_path      = cfg->lib_path;
    s->cfg           = *cfg;
    s->cfg.lib_path  = s->lib_path.c_str();
    s->poll          = (cfg->flags & VHTP_SESSION_POLL) != 0;
    s->last_loss.op_index = -1;
    const bool ok = vhtp::dsp_remote() ? vhtp::dsp_client_open(s, err, err_len) : vhtp::open_here(s, err, err_len);
    if (!ok) {
        delete s;
        return nullptr;
    }
    return s;
}

VHTP_API void vhtp_session_close(struct vhtp_session * s) {
    if (!s) {
        return;
    }
    if (s->remote) {
        vhtp::dsp_client_close(s);
    } else {
        vhtp::local_close(s->local, true);
    }
    delete s;
}

VHTP_API const struct vhtp_device_info * vhtp_session_device_info(const struct vhtp_session * s) {
    return &s->info;
}

VHTP_API int vhtp_session_send(struct vhtp_session * s, const void * msg, uint32_t len, char * err, size_t err_len) {
    if (len > VHTP_MAX_MSG_SIZE) {
        vhtp::set_error(err, err_len, "message of %u bytes exceeds the queue's %u", len, VHTP_MAX_MSG_SIZE);
        return -1;
    }
    std::lock_guard<std::mutex> lock(s->send_mu);
    if (s->remote) {
        // The buffers the message names reach the DSP process first (dsp-client.cpp).
        const int st = vhtp::dsp_client_before_send(s, msg, len, err, err_len);
        if (st != 0) {
            return st;
        }
    }
    {
        std::lock_guard<std::mutex> count(s->count_mu);
        s->outstanding++;
    }
    if (!s->current_queue()->send(msg, len)) {
        std::lock_guard<std::mutex> count(s->count_mu);
        s->outstanding--;
        vhtp::set_error(err, err_len, "session is closed");
        return -1;
    }
    return 0;
}

VHTP_API int vhtp_session_recv(struct vhtp_session * s, void * resp, uint32_t cap, uint32_t * len, char * err,
                               size_t err_len) {
    std::lock_guard<std::mutex> lock(s->recv_mu);
    {
        std::lock_guard<std::mutex> count(s->count_mu);
        if (s->outstanding == 0) {
            // Waiting would block forever: each message yields exactly one response.
            vhtp::set_error(err, err_len, "no message awaits a response");
            return -1;
        }
    }
    std::shared_ptr<vhtp::msg_queue> q    = s->current_queue();
    const void *                     data = nullptr;
    uint32_t                         n    = 0;
    if (s->remote) {
        // Waits in slices, watching the DSP process meanwhile (dsp-client.cpp).
        const int st = vhtp::dsp_client_wait(s, q, &data, &n, err, err_len);
        if (st != 0) {
            return st;
        }
    } else if (!q->peek_response(&data, &n, s->poll)) {
        vhtp::set_error(err, err_len, "session is closed");
        return -1;
    }
    if (len) {
        *len = n;
    }
    if (n > cap) {
        // Left in the queue: the caller may retry with a buffer of *len bytes.
        vhtp::set_error(err, err_len, "response of %u bytes exceeds the buffer's %u", n, cap);
        return -1;
    }
    memcpy(resp, data, n);
    q->pop_response();
    std::lock_guard<std::mutex> count(s->count_mu);
    s->outstanding--;
    return 0;
}

VHTP_API void vhtp_session_last_loss(const struct vhtp_session * s, struct vhtp_session_loss * loss) {
    *loss = s->last_loss;
}

VHTP_API int vhtp_session_reset(struct vhtp_session * s, char * err, size_t err_len) {
    std::lock_guard<std::mutex> send(s->send_mu);
    std::lock_guard<std::mutex> recv(s->recv_mu);
    {
        std::lock_guard<std::mutex> count(s->count_mu);
        if (s->outstanding != 0) {
            vhtp::set_error(err, err_len, "vhtp_session_reset: %llu messages are in flight",
                            (unsigned long long) s->outstanding);
            return -1;
        }
    }
    if (s->remote) {
        return vhtp::dsp_client_reset(s, err, err_len) ? 0 : -1;
    }
    vhtp::local_close(s->local, true);
    s->local = nullptr;
    return vhtp::open_here(s, err, err_len) ? 0 : -1;
}

}  // extern "C"
