// The transport on the vHTP: each call maps onto the runtime API of vhtp/include/vhtp/vhtp.h.
#include "transport.h"

#include <optional>

#include "host-trace.h"
#include "vhtp/vhtp.h"

static htp_device_profile profile_of(const struct vhtp_device_info & info) {
    return { info.arch,        info.vtcm_size,     info.n_hvx_hw,  info.n_hvx,
             info.n_hmx,       info.dma_field_bits, info.window_size, info.vmem_budget,
             info.dma64_capable != 0, info.dma64 != 0, info.clock_mhz };
}

bool htp_transport_profile(htp_device_profile & profile, std::string & error) {
    struct vhtp_device_info info = {};
    char err[512] = "";
    if (vhtp_device_info(&info, err, sizeof(err)) != 0) {
        error = err[0] ? err : "vhtp_device_info failed";
        return false;
    }
    profile = profile_of(info);
    return true;
}

bool htp_shared_alloc(uint64_t size, const std::string & name, htp_shared_mem & mem, std::string & error) {
    void * base = nullptr;
    char err[256] = "";
    const int fd = vhtp_ddr_alloc(size, name.c_str(), &base, err, sizeof(err));
    if (fd < 0) {
        error = err[0] ? err : "vhtp_ddr_alloc failed";
        return false;
    }
    mem = { fd, (uint8_t *) base, size };
    return true;
}

void htp_shared_free(htp_shared_mem & mem) {
    if (mem.fd >= 0) {
        vhtp_ddr_free(mem.fd, mem.host_ptr, mem.size);
    }
    mem = {};
}

std::unique_ptr<htp_session> htp_session::open(uint32_t npu, uint32_t session, uint32_t n_hvx, uint32_t vtcm_size,
                                               bool poll, bool dma64, const std::string & lib_path,
                                               std::string & error) {
    vhtp_session_config cfg = {};
    cfg.device    = npu;
    cfg.session   = session;
    cfg.n_hvx     = n_hvx;
    cfg.vtcm_size = vtcm_size;
    cfg.lib_path  = lib_path.c_str();
    cfg.flags     = (poll ? (uint32_t) VHTP_SESSION_POLL : 0u) | (dma64 ? (uint32_t) VHTP_SESSION_DMA64 : 0u);
    char err[512] = "";
    vhtp_session * s = vhtp_session_open(&cfg, err, sizeof(err));
    if (!s) {
        error = err[0] ? err : "vhtp_session_open failed";
        return nullptr;
    }
    const htp_device_profile p = profile_of(*vhtp_session_device_info(s));
    return std::unique_ptr<htp_session>(new htp_session(s, p));
}

htp_session::~htp_session() {
    vhtp_session_close(static_cast<vhtp_session *>(handle_));
}

bool htp_session::exchange(const std::vector<uint8_t> & msg, std::vector<uint8_t> & resp, std::string & error) {
    std::vector<std::vector<uint8_t>> resps;
    if (!exchange_all({ this }, { msg }, resps, error)) {
        return false;
    }
    resp = std::move(resps[0]);
    return true;
}

bool htp_session::reset(std::string & error) {
    std::lock_guard<std::mutex> lock(mu_);
    char err[512] = "";
    if (vhtp_session_reset(static_cast<vhtp_session *>(handle_), err, sizeof(err)) != 0) {
        error = err;
        return false;
    }
    return true;
}

bool htp_session::exchange_all(const std::vector<htp_session *> & sessions, const std::vector<std::vector<uint8_t>> & msgs,
                               std::vector<std::vector<uint8_t>> & resps, std::string & error, loss * lost) {
    // Each session carries one exchange at a time; a group's sessions are its own, so taking
    // their locks in member order cannot deadlock.
    std::vector<std::unique_lock<std::mutex>> locks;
    for (htp_session * s : sessions) {
        locks.emplace_back(s->mu_);
    }
    char err[512] = "";
    size_t sent = 0;
    // A lost message: what the runtime says happened, with this batch's op if it was running.
    auto note_loss = [&](vhtp_session * s) {
        if (!lost) {
            return;
        }
        vhtp_session_loss l;
        vhtp_session_last_loss(s, &l);
        lost->lost    = true;
        lost->signal  = l.signal;
        lost->hung_ms = l.hung_ms;
        if (l.op_index >= 0) {
            lost->op_index = l.op_index;
        }
    };
    // PROFILE=3: sending the messages, then waiting for the answers, on the host's track.
    const bool traced = htp_trace_host_on();
    std::optional<htp_host_span> send_span;
    send_span.emplace("send", traced ? "\"messages\":" + std::to_string(sessions.size()) : std::string());
    for (; sent < sessions.size(); sent++) {
        auto * s = static_cast<vhtp_session *>(sessions[sent]->handle_);
        const int rc = vhtp_session_send(s, msgs[sent].data(), (uint32_t) msgs[sent].size(), err, sizeof(err));
        if (rc != 0) {
            error = err;
            if (rc == VHTP_SESSION_LOST) {
                note_loss(s);
            }
            break;
        }
    }
    // Every message sent gets its answer collected, even after a failure, so that no session
    // is left holding a response for the next exchange.
    send_span.reset();
    htp_host_span receive("receive", traced ? "\"answers\":" + std::to_string(sent) : std::string());
    resps.assign(sessions.size(), {});
    bool ok = sent == sessions.size();
    for (size_t i = 0; i < sent; i++) {
        auto * s = static_cast<vhtp_session *>(sessions[i]->handle_);
        resps[i].resize(VHTP_MAX_RESP_SIZE);
        uint32_t len = 0;
        const int rc = vhtp_session_recv(s, resps[i].data(), (uint32_t) resps[i].size(), &len, err, sizeof(err));
        if (rc != 0) {
            if (ok) {
                error = err;
            }
            if (rc == VHTP_SESSION_LOST) {
                note_loss(s);
            }
            ok = false;
            len = 0;
        }
        resps[i].resize(len);
    }
    return ok;
}
