// The transport on the vHTP: each call maps onto the runtime API of vhtp/include/vhtp/vhtp.h.
#include "transport.h"

#include "vhtp/vhtp.h"

static htp_device_profile profile_of(const struct vhtp_device_info & info) {
    return { info.arch,  info.vtcm_size,   info.n_hvx_hw,    info.n_hvx,
             info.n_hmx, info.dma_field_bits, info.window_size, info.vmem_budget };
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

std::unique_ptr<htp_session> htp_session::open(uint32_t npu, uint32_t session, uint32_t n_hvx,
                                               const std::string & lib_path, std::string & error) {
    vhtp_session_config cfg = {};
    cfg.device   = npu;
    cfg.session  = session;
    cfg.n_hvx    = n_hvx;
    cfg.lib_path = lib_path.c_str();
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
    std::lock_guard<std::mutex> lock(mu_);
    auto * s = static_cast<vhtp_session *>(handle_);
    char err[512] = "";
    if (vhtp_session_send(s, msg.data(), (uint32_t) msg.size(), err, sizeof(err)) != 0) {
        error = err;
        return false;
    }
    resp.resize(VHTP_MAX_RESP_SIZE);
    uint32_t len = 0;
    if (vhtp_session_recv(s, resp.data(), (uint32_t) resp.size(), &len, err, sizeof(err)) != 0) {
        error = err;
        return false;
    }
    resp.resize(len);
    return true;
}
