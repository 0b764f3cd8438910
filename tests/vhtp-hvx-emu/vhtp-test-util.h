// Helpers shared by the vHTP unit tests: a session core bound to the test thread, DDR buffers,
// scoped environment variables and the path of fixture libraries.
#pragma once
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

#include "core.h"
#include "vhtp/vhtp.h"

namespace vhtp_test {

// Sets (or unsets, with nullptr) an environment variable for the scope.
class scoped_env {
  public:
    scoped_env(const char * name, const char * value) : name_(name) {
        if (const char * old = getenv(name)) {
            had_ = true;
            old_ = old;
        }
        if (value) {
            setenv(name, value, 1);
        } else {
            unsetenv(name);
        }
    }
    ~scoped_env() {
        if (had_) {
            setenv(name_.c_str(), old_.c_str(), 1);
        } else {
            unsetenv(name_.c_str());
        }
    }

  private:
    std::string name_, old_;
    bool        had_ = false;
};

inline struct vhtp_device_info profile(uint32_t arch, uint32_t n_hvx = 2, uint64_t vmem = 64ull << 20) {
    std::string v = "v" + std::to_string(arch);
    scoped_env  a("GGML_HEXAGON_ARCH", v.c_str());
    scoped_env  n("GGML_HEXAGON_NHVX", nullptr);
    scoped_env  m("GGML_HEXAGON_VMEM", nullptr);
    struct vhtp_device_info info;
    char err[256];
    EXPECT_EQ(vhtp_device_info(&info, err, sizeof(err)), 0) << err;
    info.n_hvx       = n_hvx;
    info.vmem_budget = vmem;
    return info;
}

// A session core whose device API calls the test thread may make directly.
class core_fixture : public ::testing::Test {
  protected:
    void open(uint32_t arch, uint32_t n_hvx = 2, uint64_t vmem = 64ull << 20) {
        char err[256] = "";
        c = vhtp::core_create(profile(arch, n_hvx, vmem), 0, 0, err, sizeof(err));
        ASSERT_NE(c, nullptr) << err;
        vhtp::bind_thread(c);
    }
    void SetUp() override { open(79); }
    void TearDown() override {
        vhtp::bind_thread(nullptr);
        vhtp::core_destroy(c);
        c = nullptr;
    }
    vhtp::core * c = nullptr;
};

struct ddr_buffer {
    explicit ddr_buffer(uint64_t n) : size(n) {
        char err[256] = "";
        fd = vhtp_ddr_alloc(n, "test", reinterpret_cast<void **>(&host), err, sizeof(err));
        EXPECT_GE(fd, 0) << err;
    }
    ~ddr_buffer() { vhtp_ddr_free(fd, host, size); }
    ddr_buffer(const ddr_buffer &) = delete;
    ddr_buffer & operator=(const ddr_buffer &) = delete;

    int       fd   = -1;
    uint8_t * host = nullptr;
    uint64_t  size = 0;
};

// Libraries are built beside the test executables (bin/).
inline std::string bin_path(const std::string & file) {
    char    buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0) {
        return file;
    }
    buf[n]        = 0;
    std::string s = buf;
    return s.substr(0, s.rfind('/') + 1) + file;
}

// Under ThreadSanitizer, several HVX threads faulting at the same moment crash in TSan's own
// signal delivery (one faulting thread, or ASan/UBSan, recover fine). Tests that make many
// threads fault at once skip there; the plain and ASan builds run them.
inline bool under_tsan() {
#if defined(__SANITIZE_THREAD__)
    return true;
#else
    return false;
#endif
}

}  // namespace vhtp_test
