// GGML_HEXAGON_DEVICES parsing (every accepted form and the one-line errors) and the other
// variables of host/src/config.cpp: upstream's values keep the device, a bad feature value is
// one warning and its default, a bad device value one error.
#include <gtest/gtest.h>

#include <cstdlib>

#include "config.h"
#include "device-list.h"
#include "mul-mat/mul-mat-paths.h"

static std::vector<htp_device_spec> parse_ok(const char * v, std::vector<std::string> * warnings = nullptr) {
    std::vector<htp_device_spec> out;
    std::string err;
    std::vector<std::string> w;
    EXPECT_TRUE(htp_parse_device_list(v, out, err, w)) << v << ": " << err;
    if (warnings) {
        *warnings = w;
    } else {
        EXPECT_TRUE(w.empty()) << v << ": " << (w.empty() ? "" : w[0]);
    }
    return out;
}

static std::string parse_err(const char * v) {
    std::vector<htp_device_spec> out;
    std::string err;
    std::vector<std::string> w;
    EXPECT_FALSE(htp_parse_device_list(v, out, err, w)) << v;
    EXPECT_EQ(err.find('\n'), std::string::npos);
    return err;
}

TEST(DeviceList, DefaultIsHtp0) {
    auto d = parse_ok(nullptr);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].name, "HTP0");
    EXPECT_EQ(parse_ok("").size(), 1u);
}

// Upstream's meaning: a count is that many sessions of NPU 0, sharing it.
TEST(DeviceList, CountIsSessionsOfOneNpu) {
    auto d = parse_ok("3");
    ASSERT_EQ(d.size(), 3u);
    for (uint32_t i = 0; i < 3; i++) {
        EXPECT_EQ(d[i].name, "HTP" + std::to_string(i));
        ASSERT_EQ(d[i].members.size(), 1u);
        EXPECT_EQ(d[i].members[0].npu, 0u);
        EXPECT_EQ(d[i].members[0].session, i);
    }
}

TEST(DeviceList, CountAboveAnNpusSessionsIsCappedWithAWarning) {
    std::vector<std::string> w;
    auto d = parse_ok("12", &w);
    ASSERT_EQ(d.size(), HTP_MAX_SESSIONS_PER_NPU);
    EXPECT_EQ(d.back().members[0].session, HTP_MAX_SESSIONS_PER_NPU - 1);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_NE(w[0].find("GGML_HEXAGON_DEVICES=12: an NPU has at most 8 sessions; using 8"), std::string::npos) << w[0];
}

TEST(DeviceList, ExplicitSessions) {
    auto d = parse_ok("HTP0:0, HTP0:1,HTP1:0");
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[1].name, "HTP0:1");
    EXPECT_EQ(d[1].members[0].npu, 0u);
    EXPECT_EQ(d[1].members[0].session, 1u);
    EXPECT_EQ(d[2].members[0].npu, 1u);
}

// HTP<s> is session s of NPU 0, as a count names them.
TEST(DeviceList, LegacyNamesAreSessionsOfNpu0) {
    auto d = parse_ok("HTP0");
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].name, "HTP0");
    auto two = parse_ok("HTP0,HTP1");
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[1].members[0].npu, 0u);
    EXPECT_EQ(two[1].members[0].session, 1u);
    EXPECT_NE(parse_err("HTP1,HTP0:1").find("listed twice"), std::string::npos);
}

// Members of a group, as "npu:session" strings in mdev order.
static std::vector<std::string> members(const htp_device_spec & d) {
    std::vector<std::string> m;
    for (const htp_session_id & s : d.members) {
        m.push_back(std::to_string(s.npu) + ":" + std::to_string(s.session));
    }
    return m;
}

TEST(DeviceList, GroupsAreOneDeviceOverSeveralNpus) {
    auto d = parse_ok("HTP0[0-1]");
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].name, "HTP0");
    EXPECT_EQ(members(d[0]), (std::vector<std::string>{ "0:0", "1:0" }));
    EXPECT_EQ(members(parse_ok("HTP0[0,1]")[0]), (std::vector<std::string>{ "0:0", "1:0" }));
    EXPECT_EQ(members(parse_ok("HTP0[0-3]")[0]).size(), 4u);
    EXPECT_EQ(members(parse_ok("HTP0[0-1,3]")[0]), (std::vector<std::string>{ "0:0", "1:0", "3:0" }));

    auto two = parse_ok("HTP0[0-1],HTP1[2-3]");
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[1].name, "HTP1");
    EXPECT_EQ(members(two[1]), (std::vector<std::string>{ "2:0", "3:0" }));

    auto sessions = parse_ok("HTP0[0-1:0], HTP1[0-1:1]");
    ASSERT_EQ(sessions.size(), 2u);
    EXPECT_EQ(members(sessions[0]), (std::vector<std::string>{ "0:0", "1:0" }));
    EXPECT_EQ(members(sessions[1]), (std::vector<std::string>{ "0:1", "1:1" }));
    EXPECT_EQ(parse_ok("HTP0[1]")[0].members.size(), 1u);  // a group of one is one session
}

TEST(DeviceList, MalformedGroupsNameTheProblem) {
    EXPECT_NE(parse_err("HTP0[]").find("empty"), std::string::npos);
    EXPECT_NE(parse_err("HTP0[3-1]").find("reversed"), std::string::npos);
    EXPECT_NE(parse_err("HTP0[0-1],HTP1[1-2]").find("listed twice"), std::string::npos);
    EXPECT_NE(parse_err("HTP0[0,0]").find("listed twice"), std::string::npos);
    EXPECT_NE(parse_err("HTP0[0-16]").find("at most 16 NPUs"), std::string::npos);
    EXPECT_NE(parse_err("HTP0[0-1],HTP0[2-3]").find("used twice"), std::string::npos);
    EXPECT_NE(parse_err("HTP0[0-1").find("'HTP0[0-1'"), std::string::npos);
    EXPECT_NE(parse_err("HTP0[a-b]").find("range"), std::string::npos);
    EXPECT_NE(parse_err("HTP0[0-1:x]").find("session"), std::string::npos);
    EXPECT_NE(parse_err("HTP0[0-15],HTP1[0-1:1]").find("at most 16 sessions"), std::string::npos);
}

TEST(DeviceList, MalformedValuesNameTheProblem) {
    EXPECT_NE(parse_err("0").find("a session count of 1 or more"), std::string::npos);
    EXPECT_NE(parse_err("GPU0").find("'GPU0'"), std::string::npos);
    EXPECT_NE(parse_err("HTP0:x").find("'HTP0:x'"), std::string::npos);
    EXPECT_NE(parse_err("HTP0:0,,HTP1:0").find("bad device"), std::string::npos);
    EXPECT_NE(parse_err("HTP0:0,HTP0:0").find("twice"), std::string::npos);
    EXPECT_NE(parse_err("HTP99").find("at most"), std::string::npos);
    EXPECT_NE(parse_err("-1").find("GGML_HEXAGON_DEVICES"), std::string::npos);
}

TEST(DeviceList, DeprecatedNdevAlias) {
    unsetenv("GGML_HEXAGON_DEVICES");
    setenv("GGML_HEXAGON_NDEV", "2", 1);
    std::vector<htp_device_spec> out;
    std::string err;
    std::vector<std::string> w;
    EXPECT_TRUE(htp_device_list_from_env(out, err, w));
    EXPECT_EQ(out.size(), 2u);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_NE(w[0].find("GGML_HEXAGON_NDEV is deprecated"), std::string::npos);
    setenv("GGML_HEXAGON_NDEV", "zero", 1);
    EXPECT_FALSE(htp_device_list_from_env(out, err, w));
    EXPECT_NE(err.find("GGML_HEXAGON_NDEV"), std::string::npos) << err;
    setenv("GGML_HEXAGON_DEVICES", "1", 1);  // DEVICES wins over the alias
    EXPECT_TRUE(htp_device_list_from_env(out, err, w));
    EXPECT_EQ(out.size(), 1u);
    unsetenv("GGML_HEXAGON_NDEV");
    unsetenv("GGML_HEXAGON_DEVICES");
}

// Every variable config.cpp reads, unset before and after each test.
static const char * const kConfigVars[] = {
    "GGML_HEXAGON_HOSTBUF",   "GGML_HEXAGON_VERBOSE",   "GGML_HEXAGON_PROFILE",   "GGML_HEXAGON_OPBATCH",
    "GGML_HEXAGON_OPTRACE",   "GGML_HEXAGON_NHVX",      "GGML_HEXAGON_OPFILTER",  "GGML_HEXAGON_NHMX",
    "GGML_HEXAGON_USE_HMX",   "GGML_HEXAGON_OPFUSION",  "GGML_HEXAGON_FUSE",      "GGML_HEXAGON_AR_SELECT",
    "GGML_HEXAGON_ALLREDUCE", "GGML_HEXAGON_OPPOLL",    "GGML_HEXAGON_OPQUEUE",   "GGML_HEXAGON_OPSTAGE",
    "GGML_HEXAGON_PARAMS_CHECK", "GGML_HEXAGON_DMA64",  "GGML_HEXAGON_REPACK",    "GGML_HEXAGON_MM_SELECT",
    "GGML_HEXAGON_FA_SELECT", "GGML_HEXAGON_GDN_SELECT", "GGML_HEXAGON_RTREPACK", "GGML_HEXAGON_MBUF",
    "GGML_HEXAGON_SBUF",      "GGML_HEXAGON_VTCM_SIZE", "GGML_HEXAGON_ETM",       "GGML_HEXAGON_TRACE_DIR",
    "GGML_HEXAGON_MM_HVX_ROWS",
};

class Config : public ::testing::Test {
  protected:
    void SetUp() override { clear(); }
    void TearDown() override { clear(); }
    static void clear() {
        for (const char * n : kConfigVars) {
            unsetenv(n);
        }
    }
    // Parses with `name=value` set; expects success and returns the warnings.
    static std::vector<std::string> parse(htp_config & cfg, const char * name = nullptr, const char * value = nullptr) {
        if (name) {
            setenv(name, value, 1);
        }
        std::string err;
        std::vector<std::string> w;
        EXPECT_TRUE(htp_config_from_env(cfg, err, w)) << (name ? name : "") << ": " << err;
        for (const std::string & line : w) {
            EXPECT_EQ(line.find('\n'), std::string::npos) << line;
        }
        if (name) {
            unsetenv(name);
        }
        return w;
    }
};

TEST_F(Config, Defaults) {
    htp_config cfg;
    EXPECT_TRUE(parse(cfg).empty());
    EXPECT_TRUE(cfg.hostbuf);
    EXPECT_TRUE(cfg.fuse);
    EXPECT_FALSE(cfg.poll);
    EXPECT_EQ(cfg.opqueue, 16u);
    EXPECT_EQ(cfg.opbatch, 1024u);
    EXPECT_EQ(cfg.opstage, 3u);
    EXPECT_EQ(cfg.dma64, -1);
    EXPECT_EQ(cfg.profile, 0);
    EXPECT_EQ(cfg.mm_select, 0);
    EXPECT_EQ(cfg.mm_hvx_rows, (uint32_t) HTP_MM_TILED_HVX_MAX_ROWS);
    EXPECT_EQ(cfg.fa_select, HTP_SELECT_HMX);
    EXPECT_EQ(cfg.gdn_select, HTP_SELECT_HMX);
    EXPECT_EQ(cfg.mbuf, 1024ull << 20);
    EXPECT_EQ(cfg.sbuf, 1024ull << 20);
    EXPECT_EQ(cfg.vtcm_size, 0u);
    EXPECT_EQ(cfg.pmu_events[1], 0x111u);
}

TEST_F(Config, OpFilter) {
    htp_config cfg;
    EXPECT_TRUE(parse(cfg, "GGML_HEXAGON_OPFILTER", "^(ADD|MUL)$").empty());
    EXPECT_TRUE(cfg.has_opfilter);
    EXPECT_TRUE(std::regex_search("MUL", cfg.opfilter));
    EXPECT_FALSE(std::regex_search("MUL_MAT", cfg.opfilter));
    htp_config bad;
    auto w = parse(bad, "GGML_HEXAGON_OPFILTER", "(ADD");
    ASSERT_EQ(w.size(), 1u);
    EXPECT_NE(w[0].find("GGML_HEXAGON_OPFILTER=(ADD: not a valid regular expression"), std::string::npos) << w[0];
    EXPECT_FALSE(bad.has_opfilter);
}

// Upstream's values (README.md "Environment variables"), each with what it must mean.
TEST_F(Config, UpstreamValues) {
    struct {
        const char * name, *value;
        bool (*holds)(const htp_config &);
    } cases[] = {
        { "GGML_HEXAGON_OPSTAGE", "1", [](const htp_config & c) { return c.opstage == HTP_OPSTAGE_QUEUE; } },
        { "GGML_HEXAGON_OPSTAGE", "0x3", [](const htp_config & c) { return c.opstage == 3; } },
        { "GGML_HEXAGON_OPSTAGE", "0", [](const htp_config & c) { return c.opstage == 0; } },
        { "GGML_HEXAGON_MM_SELECT", "1", [](const htp_config & c) { return c.mm_select == 3; } },  // flat
        { "GGML_HEXAGON_MM_SELECT", "2", [](const htp_config & c) { return c.mm_select == 1; } },  // tiled, flat
        { "GGML_HEXAGON_MM_SELECT", "3", [](const htp_config & c) { return c.mm_select == 0; } },  // HMX first
        { "GGML_HEXAGON_MM_SELECT", "hmx", [](const htp_config & c) { return c.mm_select == 2; } },
        { "GGML_HEXAGON_MM_SELECT", "flat", [](const htp_config & c) { return c.mm_select == 3; } },
        { "GGML_HEXAGON_MM_HVX_ROWS", "8", [](const htp_config & c) { return c.mm_hvx_rows == 8; } },
        { "GGML_HEXAGON_FA_SELECT", "0", [](const htp_config & c) { return c.fa_select == HTP_SELECT_CPU; } },
        { "GGML_HEXAGON_FA_SELECT", "1", [](const htp_config & c) { return c.fa_select == HTP_SELECT_HVX; } },
        { "GGML_HEXAGON_GDN_SELECT", "0", [](const htp_config & c) { return c.gdn_select == HTP_SELECT_CPU; } },
        { "GGML_HEXAGON_USE_HMX", "0", [](const htp_config & c) { return !c.hmx; } },
        { "GGML_HEXAGON_NHMX", "0", [](const htp_config & c) { return !c.hmx; } },
        { "GGML_HEXAGON_NHVX", "0", [](const htp_config & c) { return c.n_hvx == 0; } },
        { "GGML_HEXAGON_PROFILE", "2", [](const htp_config & c) { return c.profile == 2 && !c.pmu_custom; } },
        { "GGML_HEXAGON_PROFILE", "0x1", [](const htp_config & c) { return c.profile == 1; } },
        { "GGML_HEXAGON_PROFILE", "0x8", [](const htp_config & c) { return c.profile == 3; } },
        { "GGML_HEXAGON_PROFILE", "0x3,0x111,0x100,0x105,0x240,0x256,0x7D,0x2a",
          [](const htp_config & c) { return c.profile == 2 && c.pmu_custom && c.pmu_events[7] == 0x2a; } },
        { "GGML_HEXAGON_OPTRACE", "4096", [](const htp_config & c) { return c.optrace == 4096; } },
        { "GGML_HEXAGON_MBUF", "256", [](const htp_config & c) { return c.mbuf == 256ull << 20 && c.sbuf == c.mbuf; } },
        { "GGML_HEXAGON_SBUF", "64", [](const htp_config & c) { return c.sbuf == 64ull << 20; } },
        { "GGML_HEXAGON_ETM", "1", [](const htp_config & c) { return c.etm == 1; } },
        { "GGML_HEXAGON_AR_SELECT", "0", [](const htp_config & c) { return !c.allreduce; } },
        { "GGML_HEXAGON_VTCM_SIZE", "0x200000", [](const htp_config & c) { return c.vtcm_size == 2u << 20; } },
        { "GGML_HEXAGON_OPBATCH", "1024", [](const htp_config & c) { return c.opbatch == 1024; } },
        { "GGML_HEXAGON_OPQUEUE", "16", [](const htp_config & c) { return c.opqueue == 16; } },
    };
    for (const auto & c : cases) {
        htp_config cfg;
        auto w = parse(cfg, c.name, c.value);
        const bool deprecated = std::string(c.name) == "GGML_HEXAGON_USE_HMX";
        EXPECT_EQ(w.size(), deprecated ? 1u : 0u) << c.name << "=" << c.value << ": " << (w.empty() ? "" : w[0]);
        EXPECT_TRUE(c.holds(cfg)) << c.name << "=" << c.value;
    }
}

// Older names: read only when the current one is unset, with one deprecation line.
TEST_F(Config, OlderNames) {
    htp_config alias;
    auto w = parse(alias, "GGML_HEXAGON_FUSE", "0");
    EXPECT_FALSE(alias.fuse);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_NE(w[0].find("GGML_HEXAGON_FUSE is deprecated, use GGML_HEXAGON_OPFUSION=0"), std::string::npos) << w[0];
    setenv("GGML_HEXAGON_OPFUSION", "1", 1);
    htp_config both;
    w = parse(both, "GGML_HEXAGON_FUSE", "0");
    EXPECT_TRUE(both.fuse);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_NE(w[0].find("deprecated and ignored"), std::string::npos) << w[0];
    unsetenv("GGML_HEXAGON_OPFUSION");
    htp_config ar;
    parse(ar, "GGML_HEXAGON_ALLREDUCE", "0");
    EXPECT_FALSE(ar.allreduce);
}

// A malformed feature value: one line naming it and the default used; the parse succeeds.
TEST_F(Config, BadFeatureValuesKeepTheDefault) {
    const struct {
        const char * name, *value, *expect;
    } bad[] = {
        { "GGML_HEXAGON_FUSE", "yes", "GGML_HEXAGON_FUSE=yes: expected an integer in 0..1; ignored, using 1" },
        { "GGML_HEXAGON_OPFUSION", "2", "GGML_HEXAGON_OPFUSION=2" },
        { "GGML_HEXAGON_OPPOLL", "on", "GGML_HEXAGON_OPPOLL=on" },
        { "GGML_HEXAGON_OPQUEUE", "0", "GGML_HEXAGON_OPQUEUE=0: expected a positive integer; ignored, using 16" },
        { "GGML_HEXAGON_OPQUEUE", "-2", "expected a positive integer" },
        { "GGML_HEXAGON_OPQUEUE", "4x", "expected a positive integer" },
        { "GGML_HEXAGON_OPQUEUE", "99999999999999999999", "expected a positive integer" },
        { "GGML_HEXAGON_OPSTAGE", "4", "GGML_HEXAGON_OPSTAGE=4: expected an integer in 0..3; ignored, using 3" },
        { "GGML_HEXAGON_OPBATCH", "0", "GGML_HEXAGON_OPBATCH=0" },
        { "GGML_HEXAGON_MM_SELECT", "4", "GGML_HEXAGON_MM_SELECT=4: expected one of 3, 2, 1, auto, hvx, hmx, flat; ignored, using 3" },
        { "GGML_HEXAGON_MM_SELECT", "fast", "expected one of" },
        { "GGML_HEXAGON_FA_SELECT", "3", "GGML_HEXAGON_FA_SELECT=3: expected one of 0, 1, 2; ignored, using 2" },
        { "GGML_HEXAGON_PROFILE", "on", "GGML_HEXAGON_PROFILE=on: expected a level 0..3 or a list of 8 PMU event ids" },
        { "GGML_HEXAGON_PROFILE", "0x3,0x111", "list of 8 PMU event ids" },
        { "GGML_HEXAGON_MBUF", "0", "GGML_HEXAGON_MBUF=0: expected an integer in 1.." },
    };
    for (const auto & b : bad) {
        htp_config c;
        auto w = parse(c, b.name, b.value);
        // FUSE is an older name: its deprecation line comes first.
        const size_t first = std::string(b.name) == "GGML_HEXAGON_FUSE" ? 1 : 0;
        ASSERT_EQ(w.size(), first + 1) << b.name << "=" << b.value;
        EXPECT_NE(w[first].find(b.expect), std::string::npos) << w[first];
    }
    htp_config p;
    parse(p, "GGML_HEXAGON_PROFILE", "0x3,0x111");
    EXPECT_EQ(p.profile, 0);  // upstream's reading of an unknown form: off
}

// A malformed value of a variable that decides what the devices are: an error, no devices.
TEST_F(Config, BadDeviceValuesAreErrors) {
    const struct {
        const char * name, *value, *expect;
    } bad[] = {
        { "GGML_HEXAGON_DMA64", "64", "GGML_HEXAGON_DMA64=64: expected an integer in 0..1" },
        { "GGML_HEXAGON_NHVX", "9", "GGML_HEXAGON_NHVX=9" },
        { "GGML_HEXAGON_VTCM_SIZE", "1000", "GGML_HEXAGON_VTCM_SIZE=1000" },
        { "GGML_HEXAGON_VTCM_SIZE", "5000", "GGML_HEXAGON_VTCM_SIZE=5000: expected a multiple of 4096 bytes" },
    };
    for (const auto & b : bad) {
        setenv(b.name, b.value, 1);
        htp_config c;
        std::string err;
        std::vector<std::string> w;
        EXPECT_FALSE(htp_config_from_env(c, err, w)) << b.name << "=" << b.value;
        EXPECT_NE(err.find(b.expect), std::string::npos) << err;
        EXPECT_EQ(err.find('\n'), std::string::npos) << err;
        unsetenv(b.name);
    }
}
