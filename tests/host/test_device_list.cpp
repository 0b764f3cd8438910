// GGML_HEXAGON_DEVICES parsing: every accepted form and the one-line errors.
#include <gtest/gtest.h>

#include <cstdlib>

#include "config.h"
#include "device-list.h"

static std::vector<htp_device_spec> parse_ok(const char * v) {
    std::vector<htp_device_spec> out;
    std::string err;
    EXPECT_TRUE(htp_parse_device_list(v, out, err)) << v << ": " << err;
    return out;
}

static std::string parse_err(const char * v) {
    std::vector<htp_device_spec> out;
    std::string err;
    EXPECT_FALSE(htp_parse_device_list(v, out, err)) << v;
    EXPECT_EQ(err.find('\n'), std::string::npos);
    return err;
}

TEST(DeviceList, DefaultIsHtp0) {
    auto d = parse_ok(nullptr);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].name, "HTP0");
    EXPECT_EQ(parse_ok("").size(), 1u);
}

TEST(DeviceList, CountGivesLegacyNames) {
    auto d = parse_ok("3");
    ASSERT_EQ(d.size(), 3u);
    for (uint32_t i = 0; i < 3; i++) {
        EXPECT_EQ(d[i].name, "HTP" + std::to_string(i));
        ASSERT_EQ(d[i].members.size(), 1u);
        EXPECT_EQ(d[i].members[0].npu, i);
        EXPECT_EQ(d[i].members[0].session, 0u);
    }
}

TEST(DeviceList, ExplicitSessions) {
    auto d = parse_ok("HTP0:0, HTP0:1,HTP1:0");
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[1].name, "HTP0:1");
    EXPECT_EQ(d[1].members[0].npu, 0u);
    EXPECT_EQ(d[1].members[0].session, 1u);
    EXPECT_EQ(d[2].members[0].npu, 1u);
}

TEST(DeviceList, LegacyName) {
    auto d = parse_ok("HTP0");
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].name, "HTP0");
    EXPECT_EQ(parse_ok("HTP0,HTP1").size(), 2u);
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
    EXPECT_NE(parse_err("0").find("1..16"), std::string::npos);
    EXPECT_NE(parse_err("17").find("1..16"), std::string::npos);
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
    EXPECT_TRUE(htp_device_list_from_env(out, err));
    EXPECT_EQ(out.size(), 2u);
    setenv("GGML_HEXAGON_NDEV", "zero", 1);
    EXPECT_FALSE(htp_device_list_from_env(out, err));
    EXPECT_NE(err.find("GGML_HEXAGON_NDEV"), std::string::npos) << err;
    setenv("GGML_HEXAGON_DEVICES", "1", 1);  // DEVICES wins over the alias
    EXPECT_TRUE(htp_device_list_from_env(out, err));
    EXPECT_EQ(out.size(), 1u);
    unsetenv("GGML_HEXAGON_NDEV");
    unsetenv("GGML_HEXAGON_DEVICES");
}

TEST(Config, RejectsBadValues) {
    htp_config cfg;
    std::string err;
    setenv("GGML_HEXAGON_OPFILTER", "(ADD", 1);
    EXPECT_FALSE(htp_config_from_env(cfg, err));
    EXPECT_NE(err.find("GGML_HEXAGON_OPFILTER"), std::string::npos);
    setenv("GGML_HEXAGON_OPFILTER", "^(ADD|MUL)$", 1);
    EXPECT_TRUE(htp_config_from_env(cfg, err)) << err;
    EXPECT_TRUE(cfg.has_opfilter);
    EXPECT_TRUE(std::regex_search("MUL", cfg.opfilter));
    EXPECT_FALSE(std::regex_search("MUL_MAT", cfg.opfilter));
    unsetenv("GGML_HEXAGON_OPFILTER");
    setenv("GGML_HEXAGON_OPBATCH", "0", 1);
    EXPECT_FALSE(htp_config_from_env(cfg, err));
    EXPECT_NE(err.find("GGML_HEXAGON_OPBATCH"), std::string::npos);
    unsetenv("GGML_HEXAGON_OPBATCH");
}

// Upstream's names (README.md "Environment variables"): OPFUSION with FUSE as its deprecated
// alias, OPPOLL, OPQUEUE, OPSTAGE, DMA64; MM_SELECT refuses upstream's numbers.
TEST(Config, UpstreamNames) {
    const char * names[] = { "GGML_HEXAGON_OPFUSION", "GGML_HEXAGON_FUSE",   "GGML_HEXAGON_OPPOLL",
                             "GGML_HEXAGON_OPQUEUE",  "GGML_HEXAGON_OPSTAGE", "GGML_HEXAGON_DMA64",
                             "GGML_HEXAGON_MM_SELECT" };
    for (const char * n : names) {
        unsetenv(n);
    }
    htp_config  cfg;
    std::string err;
    ASSERT_TRUE(htp_config_from_env(cfg, err)) << err;
    EXPECT_TRUE(cfg.fuse);
    EXPECT_FALSE(cfg.poll);
    EXPECT_EQ(cfg.opqueue, 64u);
    EXPECT_FALSE(cfg.stage);
    EXPECT_EQ(cfg.dma64, -1);

    setenv("GGML_HEXAGON_OPFUSION", "0", 1);
    setenv("GGML_HEXAGON_OPPOLL", "1", 1);
    setenv("GGML_HEXAGON_OPQUEUE", "4", 1);
    setenv("GGML_HEXAGON_OPSTAGE", "1", 1);
    setenv("GGML_HEXAGON_DMA64", "1", 1);
    ASSERT_TRUE(htp_config_from_env(cfg, err)) << err;
    EXPECT_FALSE(cfg.fuse);
    EXPECT_TRUE(cfg.poll);
    EXPECT_EQ(cfg.opqueue, 4u);
    EXPECT_TRUE(cfg.stage);
    EXPECT_EQ(cfg.dma64, 1);

    // FUSE alone is the alias; OPFUSION wins when both are set.
    unsetenv("GGML_HEXAGON_OPFUSION");
    setenv("GGML_HEXAGON_FUSE", "0", 1);
    htp_config alias;
    ASSERT_TRUE(htp_config_from_env(alias, err)) << err;
    EXPECT_FALSE(alias.fuse);
    setenv("GGML_HEXAGON_OPFUSION", "1", 1);
    ASSERT_TRUE(htp_config_from_env(alias, err)) << err;
    EXPECT_TRUE(alias.fuse);
    unsetenv("GGML_HEXAGON_OPFUSION");

    // Malformed values: the error names the variable that was read.
    const struct {
        const char * name, *value, *expect;
    } bad[] = {
        { "GGML_HEXAGON_FUSE", "yes", "GGML_HEXAGON_FUSE=yes" },
        { "GGML_HEXAGON_OPFUSION", "2", "GGML_HEXAGON_OPFUSION=2" },
        { "GGML_HEXAGON_OPPOLL", "on", "GGML_HEXAGON_OPPOLL=on" },
        { "GGML_HEXAGON_OPQUEUE", "0", "GGML_HEXAGON_OPQUEUE=0: expected a positive integer" },
        { "GGML_HEXAGON_OPQUEUE", "-2", "expected a positive integer" },
        { "GGML_HEXAGON_OPQUEUE", "4x", "expected a positive integer" },
        { "GGML_HEXAGON_OPQUEUE", "99999999999999999999", "expected a positive integer" },
        { "GGML_HEXAGON_OPSTAGE", "2", "GGML_HEXAGON_OPSTAGE=2" },
        { "GGML_HEXAGON_DMA64", "64", "GGML_HEXAGON_DMA64=64" },
        { "GGML_HEXAGON_MM_SELECT", "2", "GGML_HEXAGON_MM_SELECT=2: numeric values are not supported, use a word: auto, hvx or hmx" },
        { "GGML_HEXAGON_MM_SELECT", "fast", "expected one of auto, hvx, hmx" },
    };
    for (const auto & b : bad) {
        for (const char * n : names) {
            unsetenv(n);
        }
        setenv(b.name, b.value, 1);
        htp_config c;
        EXPECT_FALSE(htp_config_from_env(c, err)) << b.name << "=" << b.value;
        EXPECT_NE(err.find(b.expect), std::string::npos) << err;
        EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    }
    for (const char * n : names) {
        unsetenv(n);
    }
}
