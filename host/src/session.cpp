#include "session.h"

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
    return std::unique_ptr<htp_session>(new htp_session(s));
}

htp_session::~htp_session() {
    vhtp_session_close(s_);
}

bool htp_session::exchange(const std::vector<uint8_t> & msg, std::vector<uint8_t> & resp, std::string & error) {
    std::lock_guard<std::mutex> lock(mu_);
    char err[512] = "";
    if (vhtp_session_send(s_, msg.data(), (uint32_t) msg.size(), err, sizeof(err)) != 0) {
        error = err;
        return false;
    }
    resp.resize(VHTP_MAX_RESP_SIZE);
    uint32_t len = 0;
    if (vhtp_session_recv(s_, resp.data(), (uint32_t) resp.size(), &len, err, sizeof(err)) != 0) {
        error = err;
        return false;
    }
    resp.resize(len);
    return true;
}
