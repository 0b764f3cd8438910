// Virtual device profiles (docs/vhtp.md, "Device profiles") and their environment variables.
#include <sched.h>

#include <string>

#include "vhtp-test-util.h"

using vhtp_test::scoped_env;

namespace {

struct env_reset {
    scoped_env a{ "GGML_HEXAGON_ARCH", nullptr };
    scoped_env n{ "GGML_HEXAGON_NHVX", nullptr };
    scoped_env m{ "GGML_HEXAGON_VMEM", nullptr };
};

uint32_t cores() {
    cpu_set_t set;
    sched_getaffinity(0, sizeof(set), &set);
    return CPU_COUNT(&set);
}

struct vhtp_device_info info_for(const char * arch) {
    env_reset        r;
    scoped_env       a("GGML_HEXAGON_ARCH", arch);
    struct vhtp_device_info info;
    char             err[256] = "";
    EXPECT_EQ(vhtp_device_info(&info, err, sizeof(err)), 0) << arch << ": " << err;
    return info;
}

}  // namespace

TEST(DeviceInfo, DefaultIsV79) {
    env_reset        r;
    struct vhtp_device_info info;
    ASSERT_EQ(vhtp_device_info(&info, nullptr, 0), 0);
    EXPECT_EQ(info.arch, 79u);
    EXPECT_EQ(info.n_hvx_hw, 6u);
    EXPECT_EQ(info.n_hvx, std::min(6u, cores()));
    EXPECT_EQ(info.vtcm_size, 8u << 20);
    EXPECT_EQ(info.n_hmx, 1u);
    EXPECT_EQ(info.dma_field_bits, 24u);
    EXPECT_EQ(info.window_size, 0xE0000000ull);  // 3.5 GiB
}

TEST(DeviceInfo, Profiles) {
    struct {
        const char * env;
        uint32_t     arch, threads, bits;
        uint64_t     budget_mib;
    } cases[] = {
        { "v73", 73, 4, 16, 3072 },
        { "v75", 75, 4, 24, 3276 },
        { "v79", 79, 6, 24, 3276 },
        { "v81", 81, 8, 24, 3276 },
    };
    for (const auto & c : cases) {
        const struct vhtp_device_info info = info_for(c.env);
        EXPECT_EQ(info.arch, c.arch) << c.env;
        EXPECT_EQ(info.n_hvx_hw, c.threads) << c.env;
        EXPECT_EQ(info.dma_field_bits, c.bits) << c.env;
        EXPECT_EQ(info.vmem_budget, c.budget_mib << 20) << c.env;
        EXPECT_EQ(info.n_hvx, std::min(c.threads, cores())) << c.env;
    }
}

TEST(DeviceInfo, ArchSpellings) {
    EXPECT_EQ(info_for("73").arch, 73u);
    EXPECT_EQ(info_for("V79").arch, 79u);
    EXPECT_EQ(info_for("v81").arch, 81u);
    EXPECT_EQ(info_for("75").arch, 75u);
}

TEST(DeviceInfo, UnknownArchIsAnErrorWithOneLine) {
    for (const char * bad : { "v99", "v7", "79x", "hexagon", "v", "-79" }) {
        env_reset        r;
        scoped_env       a("GGML_HEXAGON_ARCH", bad);
        struct vhtp_device_info info;
        char             err[256] = "";
        EXPECT_EQ(vhtp_device_info(&info, err, sizeof(err)), -1) << bad;
        EXPECT_EQ(std::string(err), "GGML_HEXAGON_ARCH=" + std::string(bad) +
                                        ": unknown Hexagon arch (expected v73, v75, v79 or v81)");
    }
}

TEST(DeviceInfo, NhvxOverride) {
    env_reset        r;
    scoped_env       a("GGML_HEXAGON_ARCH", "v81");
    struct vhtp_device_info info;
    {
        scoped_env n("GGML_HEXAGON_NHVX", "8");
        ASSERT_EQ(vhtp_device_info(&info, nullptr, 0), 0);
        EXPECT_EQ(info.n_hvx, 8u);  // may exceed host cores on request
    }
    {
        scoped_env n("GGML_HEXAGON_NHVX", "1");
        ASSERT_EQ(vhtp_device_info(&info, nullptr, 0), 0);
        EXPECT_EQ(info.n_hvx, 1u);
    }
    {
        scoped_env n("GGML_HEXAGON_NHVX", "0");  // upstream's "all of them"
        ASSERT_EQ(vhtp_device_info(&info, nullptr, 0), 0);
        EXPECT_EQ(info.n_hvx, 8u);
    }
    for (const char * bad : { "9", "two", "3x", "-1" }) {
        scoped_env n("GGML_HEXAGON_NHVX", bad);
        char       err[256] = "";
        EXPECT_EQ(vhtp_device_info(&info, err, sizeof(err)), -1) << bad;
        EXPECT_NE(std::string(err).find("GGML_HEXAGON_NHVX"), std::string::npos) << err;
    }
}

TEST(DeviceInfo, VmemOverride) {
    env_reset        r;
    struct vhtp_device_info info;
    {
        scoped_env m("GGML_HEXAGON_VMEM", "256");
        ASSERT_EQ(vhtp_device_info(&info, nullptr, 0), 0);
        EXPECT_EQ(info.vmem_budget, 256ull << 20);
    }
    {
        scoped_env m("GGML_HEXAGON_VMEM", "0");  // the default budget (upstream measures it then)
        ASSERT_EQ(vhtp_device_info(&info, nullptr, 0), 0);
        EXPECT_EQ(info.vmem_budget, 3276ull << 20);
    }
    for (const char * bad : { "-5", "lots", "4096", "0x" }) {
        scoped_env m("GGML_HEXAGON_VMEM", bad);
        char       err[256] = "";
        EXPECT_EQ(vhtp_device_info(&info, err, sizeof(err)), -1) << bad;
        EXPECT_NE(std::string(err).find("GGML_HEXAGON_VMEM"), std::string::npos) << err;
    }
}
