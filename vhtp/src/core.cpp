// Session core lifetime and thread binding.
#include "core.h"

#include "dma-engine.h"
#include "error.h"
#include "fault.h"
#include "hmx.h"
#include "mdev-check.h"
#include "npu.h"
#include "work-queue.h"

// The host base of the calling thread's session window (device API, memory.h).
HTP_DEVICE_API __thread uint8_t * htp_window_base = nullptr;

namespace vhtp {

core * core_create(const struct vhtp_device_info & info, uint32_t device, uint32_t session, char * err, size_t err_len) {
    if (info.n_hvx == 0 || info.n_hvx > HTP_MAX_HVX_THREADS) {
        set_error(err, err_len, "invalid HVX thread count %u (1..%u)", info.n_hvx, HTP_MAX_HVX_THREADS);
        return nullptr;
    }
    if (info.n_hvx > info.n_hvx_hw) {
        // A job takes one NPU HVX context per worker: more workers than contexts would wait forever.
        set_error(err, err_len, "%u HVX threads exceed the v%u's %u HVX contexts", info.n_hvx, info.arch,
                  info.n_hvx_hw);
        return nullptr;
    }
    vhtp::npu * n = npu_attach(info, device, session, info.vtcm_size, err, err_len);
    if (!n) {
        return nullptr;
    }
    install_fault_handler();
    core * c = new core;
    c->info  = info;
    c->npu   = n;
    if (!c->window.init(info.vmem_budget, info.vtcm_size, info.dma64 != 0, err, err_len)) {
        delete c;
        npu_detach(n, session);
        return nullptr;
    }
    c->dma = new dma_engine(c, info.n_hvx, info.dma_thread != 0);
    c->wq  = new work_queue(c, info.n_hvx);

    htp_session_info & s = c->sinfo;
    s.arch           = info.arch;
    s.n_hvx          = info.n_hvx;
    s.n_hmx          = info.n_hmx;
    s.dma_field_bits = info.dma_field_bits;
    s.vtcm_base      = Window::kVtcmBase;
    s.vtcm_size      = info.vtcm_size;
    s.device         = device;
    s.session        = session;
    s.work_queue     = c->wq;
    for (uint32_t i = 0; i < info.n_hvx; ++i) {
        s.dma[i] = c->dma->queue(i);
    }
    s.hmx = hmx_create(c->window.base(), Window::kVtcmBase, info.vtcm_size, &n->hmx);
    return c;
}

void core_destroy(core * c) {
    if (!c) {
        return;
    }
    delete c->wq;   // joins the workers
    delete c->dma;  // finishes queued descriptors, joins the engine
    mdev_check_forget(c);  // after the engine: no transfer records into it any more
    hmx_destroy(c->sinfo.hmx);
    vhtp::npu * n       = c->npu;
    const uint32_t sess = c->sinfo.session;
    delete c;       // unmaps the window
    npu_detach(n, sess);  // gives the VTCM back, after nothing of the session can use it
}

void bind_thread(core * c) {
    tls_core        = c;
    tls_recovery    = nullptr;  // also makes sure this thread's TLS block exists before any fault
    htp_window_base = c ? c->window.base() : nullptr;
}

}  // namespace vhtp
