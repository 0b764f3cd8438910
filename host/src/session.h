// One vHTP session seen from the host: the message transport (FastRPC + dspqueue on a phone).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vhtp/vhtp.h"

class htp_session {
  public:
    // Opens session `session` on NPU `npu`, loading the NPU library at lib_path.
    static std::unique_ptr<htp_session> open(uint32_t npu, uint32_t session, uint32_t n_hvx, const std::string & lib_path,
                                             std::string & error);
    ~htp_session();

    // Sends one message and waits for its response (one exchange at a time per session).
    bool exchange(const std::vector<uint8_t> & msg, std::vector<uint8_t> & resp, std::string & error);

    const struct vhtp_device_info & info() const { return *vhtp_session_device_info(s_); }

  private:
    explicit htp_session(vhtp_session * s) : s_(s) {}
    vhtp_session * s_;
    std::mutex     mu_;
};
