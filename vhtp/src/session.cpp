// vhtp_session: an NPU library loaded on a session core, fed by the message queue from a
// dedicated session thread (the thread FastRPC would run htp_lib_handle on).
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <mutex>
#include <string>
#include <thread>

#include "core.h"
#include "error.h"
#include "fault.h"
#include "htp-abi/htp-abi.h"
#include "htp/session.h"
#include "htp/timer.h"
#include "mdev-check.h"
#include "msg-queue.h"
#include "vhtp/vhtp.h"

namespace {

using lib_arch_fn   = uint32_t (*)(void);
using lib_open_fn   = int (*)(const htp_session_info *, void **);
using lib_handle_fn = int (*)(void *, const void *, uint32_t, void *, uint32_t, uint32_t *);
using lib_close_fn  = void (*)(void *);

// Calls htp_lib_handle under a recovery point; returns false if it took an MMU fault.
__attribute__((noinline)) bool guarded_handle(lib_handle_fn handle, void * ctx, const void * msg, uint32_t len,
                                              void * resp, uint32_t cap, uint32_t * resp_len, int * ret) {
    vhtp::recovery_point rp(HTP_STATUS_MMU_FAULT);
    if (sigsetjmp(rp.jb, 0) == 0) {
        vhtp::arm(&rp);
        *ret = handle(ctx, msg, len, resp, cap, resp_len);
        vhtp::disarm();
        return true;
    }
    vhtp::disarm();
    return false;
}

__attribute__((noinline)) bool guarded_open(lib_open_fn open, const htp_session_info * info, void ** ctx, int * ret) {
    vhtp::recovery_point rp(HTP_STATUS_MMU_FAULT);
    if (sigsetjmp(rp.jb, 0) == 0) {
        vhtp::arm(&rp);
        *ret = open(info, ctx);
        vhtp::disarm();
        return true;
    }
    vhtp::disarm();
    return false;
}

uint32_t write_status_response(void * resp, uint32_t cap, int status, uint64_t seq, uint64_t cycles) {
    htp_batch_response r{};
    r.magic  = HTP_RESP_MAGIC;
    r.status = status;
    r.seq    = seq;
    r.cycles = cycles;
    if (cap < sizeof(r)) {
        return 0;
    }
    memcpy(resp, &r, sizeof(r));
    return sizeof(r);
}

}  // namespace

struct vhtp_session {
    struct vhtp_device_info info{};
    vhtp::core *     core = nullptr;
    vhtp::msg_queue  queue;
    void *           lib  = nullptr;
    std::string      lib_path;
    lib_open_fn      lib_open   = nullptr;
    lib_handle_fn    lib_handle = nullptr;
    lib_close_fn     lib_close  = nullptr;
    void *           lib_ctx    = nullptr;
    std::thread      thread;
    std::mutex       send_mu, recv_mu;  // host threads may share a session: one ring user at a time
    uint64_t         outstanding = 0;   // messages sent and not yet received (under both locks' protocol)
    bool             poll = false;      // VHTP_SESSION_POLL: recv polls instead of sleeping
    std::mutex       count_mu;
    std::promise<int> opened;  // htp_lib_open's status, from the session thread

    void serve();
    void handle_one(const void * msg, uint32_t len);
};

void vhtp_session::handle_one(const void * msg, uint32_t len) {
    void *   resp = nullptr;
    uint32_t cap  = 0;
    if (!queue.response_slot(&resp, &cap)) {
        return;  // closing
    }
    uint64_t seq = 0;
    if (len >= sizeof(htp_msg_header)) {
        htp_msg_header h;
        memcpy(&h, msg, sizeof(h));
        if (h.magic == HTP_MSG_MAGIC) {
            seq = h.seq;
        }
    }
    const uint64_t t0       = htp_cycles();
    uint32_t       resp_len = 0;
    int            ret      = 0;
    uint32_t       out      = 0;
    if (!guarded_handle(lib_handle, lib_ctx, msg, len, resp, cap, &resp_len, &ret)) {
        // The library faulted mid-message: the runtime answers for it, so the host never hangs.
        htp_fault_take();
        out = write_status_response(resp, cap, HTP_STATUS_MMU_FAULT, seq, htp_cycles() - t0);
    } else {
        vhtp::mdev_check_answer(core);  // no dirty L2 line may outlive the message (mdev-check.h)
        const int sticky = htp_fault_take();
        out              = std::min(resp_len, cap);
        if (out == 0 && (ret != 0 || sticky != 0)) {
            out = write_status_response(resp, cap, ret != 0 ? ret : sticky, seq, htp_cycles() - t0);
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
    queue.push_response(out);
}

void vhtp_session::serve() {
    vhtp::bind_thread(core);
    int ret = 0;
    if (!guarded_open(lib_open, &core->sinfo, &lib_ctx, &ret)) {
        ret = HTP_STATUS_MMU_FAULT;
    }
    htp_fault_take();
    opened.set_value(ret);
    if (ret != 0) {
        vhtp::bind_thread(nullptr);
        return;
    }
    const void * msg = nullptr;
    uint32_t     len = 0;
    while (queue.next_request(&msg, &len)) {
        handle_one(msg, len);
        queue.pop_request();
    }
    lib_close(lib_ctx);
    vhtp::bind_thread(nullptr);
}

extern "C" {

VHTP_API struct vhtp_session * vhtp_session_open(const struct vhtp_session_config * cfg, char * err, size_t err_len) {
    if (!cfg || !cfg->lib_path || !*cfg->lib_path) {
        vhtp::set_error(err, err_len, "vhtp_session_open: no NPU library path");
        return nullptr;
    }
    const uint32_t known_flags = VHTP_SESSION_POLL | VHTP_SESSION_DMA64;
    if (cfg->flags & ~known_flags) {
        vhtp::set_error(err, err_len, "vhtp_session_open: unknown flags 0x%x", cfg->flags & ~known_flags);
        return nullptr;
    }
    struct vhtp_device_info info;
    if (vhtp_device_info(&info, err, err_len) != 0) {
        return nullptr;
    }
    if (cfg->flags & VHTP_SESSION_DMA64) {
        if (!info.dma64_capable) {
            vhtp::set_error(err, err_len, "NPU %u: a v%u has no 64-bit DMA bases (VHTP_SESSION_DMA64 needs v81)",
                            cfg->device, info.arch);
            return nullptr;
        }
        info.dma64       = 1;
        info.window_size = info.dma64_window_size;
        info.vmem_budget = info.dma64_vmem_budget;
    }
    if (cfg->n_hvx != 0) {
        info.n_hvx      = std::min({ cfg->n_hvx, info.n_hvx_hw, static_cast<uint32_t>(HTP_MAX_HVX_THREADS) });
        info.dma_thread = vhtp::default_dma_thread(info.n_hvx);
    }
    if (cfg->vtcm_size != 0) {
        info.vtcm_size = cfg->vtcm_size;  // what the session asks of its NPU's pool (core_create checks)
    }

    // Load and check the library first: a wrong or broken library is the likeliest failure.
    void * lib = dlopen(cfg->lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        vhtp::set_error(err, err_len, "cannot load NPU library %s: %s", cfg->lib_path, dlerror());
        return nullptr;
    }
    const char * const names[] = { "htp_lib_arch", "htp_lib_open", "htp_lib_handle", "htp_lib_close" };
    void *             syms[4];
    for (int i = 0; i < 4; ++i) {
        syms[i] = dlsym(lib, names[i]);
        if (!syms[i]) {
            vhtp::set_error(err, err_len, "NPU library %s does not export %s", cfg->lib_path, names[i]);
            dlclose(lib);
            return nullptr;
        }
    }
    vhtp::register_fault_library(syms[1]);
    const uint32_t lib_arch = reinterpret_cast<lib_arch_fn>(syms[0])();
    if (lib_arch != info.arch) {
        vhtp::set_error(err, err_len, "NPU library %s is built for v%u but the device is v%u (GGML_HEXAGON_ARCH)",
                        cfg->lib_path, lib_arch, info.arch);
        dlclose(lib);
        return nullptr;
    }

    vhtp_session * s = new vhtp_session;
    s->info          = info;
    s->lib           = lib;
    s->lib_path      = cfg->lib_path;
    s->poll          = (cfg->flags & VHTP_SESSION_POLL) != 0;
    s->lib_open      = reinterpret_cast<lib_open_fn>(syms[1]);
    s->lib_handle    = reinterpret_cast<lib_handle_fn>(syms[2]);
    s->lib_close     = reinterpret_cast<lib_close_fn>(syms[3]);
    s->core          = vhtp::core_create(info, cfg->device, cfg->session, err, err_len);
    if (!s->core || !s->queue.create(VHTP_MAX_MSG_SIZE, VHTP_MAX_RESP_SIZE, err, err_len)) {
        vhtp::core_destroy(s->core);
        dlclose(lib);
        delete s;
        return nullptr;
    }

    std::future<int> result = s->opened.get_future();
    s->thread               = std::thread([s] { s->serve(); });
    const int status         = result.get();
    if (status != 0) {
        vhtp::set_error(err, err_len, "htp_lib_open of %s failed: %s (%d)", cfg->lib_path, htp_status_name(status),
                        status);
        s->thread.join();
        vhtp::core_destroy(s->core);
        dlclose(lib);
        delete s;
        return nullptr;
    }
    return s;
}

VHTP_API void vhtp_session_close(struct vhtp_session * s) {
    if (!s) {
        return;
    }
    s->queue.close();
    s->thread.join();  // the session thread calls htp_lib_close on its way out
    vhtp::core_destroy(s->core);
    dlclose(s->lib);
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
    {
        std::lock_guard<std::mutex> count(s->count_mu);
        s->outstanding++;
    }
    if (!s->queue.send(msg, len)) {
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
    const void * data = nullptr;
    uint32_t     n    = 0;
    if (!s->queue.peek_response(&data, &n, s->poll)) {
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
    s->queue.pop_response();
    std::lock_guard<std::mutex> count(s->count_mu);
    s->outstanding--;
    return 0;
}

}  // extern "C"
