// Helpers for tests that open sessions on the fixture NPU library (fixtures/fixture_npu.cpp) and
// talk to it with the commands of fixtures/fixture-protocol.h.
#pragma once
#include <cstring>
#include <string>
#include <vector>

#include "fixtures/fixture-protocol.h"
#include "htp-abi/htp-abi.h"
#include "vhtp-test-util.h"

namespace vhtp_test {

inline const std::string & fixture_lib() {
    static const std::string path = bin_path("libfixture_npu.so");
    return path;
}

// The profile session tests run on: v79, 2 HVX threads, a 64 MiB budget.
class session_env {
  public:
    scoped_env arch{ "GGML_HEXAGON_ARCH", "v79" };
    scoped_env nhvx{ "GGML_HEXAGON_NHVX", "2" };
    scoped_env vmem{ "GGML_HEXAGON_VMEM", "64" };
};

inline vhtp_session * open_session(uint32_t device = 0, uint32_t session = 0, const std::string & lib = fixture_lib(),
                                   std::string * why = nullptr, uint32_t vtcm_size = 0, uint32_t flags = 0) {
    vhtp_session_config cfg{ device, session, 0, lib.c_str(), vtcm_size, flags };
    char                err[512] = "";
    vhtp_session *      s        = vhtp_session_open(&cfg, err, sizeof(err));
    if (why) {
        *why = err;
    }
    return s;
}

struct reply {
    htp_batch_response   hdr{};
    std::vector<uint8_t> payload;
};

inline reply call(vhtp_session * s, uint32_t op, uint64_t a = 0, uint32_t b = 0) {
    fixture_cmd cmd{ op, b, a };
    char        err[256] = "";
    EXPECT_EQ(vhtp_session_send(s, &cmd, sizeof(cmd), err, sizeof(err)), 0) << err;
    std::vector<uint8_t> buf(4096);
    uint32_t             len = 0;
    EXPECT_EQ(vhtp_session_recv(s, buf.data(), uint32_t(buf.size()), &len, err, sizeof(err)), 0) << err;
    reply r;
    EXPECT_GE(len, sizeof(r.hdr));
    memcpy(&r.hdr, buf.data(), sizeof(r.hdr));
    EXPECT_EQ(r.hdr.magic, HTP_RESP_MAGIC);
    r.payload.assign(buf.begin() + sizeof(r.hdr), buf.begin() + len);
    return r;
}

template <class T> T payload_as(const reply & r) {
    T v{};
    EXPECT_GE(r.payload.size(), sizeof(T));
    memcpy(&v, r.payload.data(), sizeof(T));
    return v;
}

}  // namespace vhtp_test
