// Sessions and the message queue, with the fixture NPU library: loading and arch checks,
// in-order request/response, mapping by fd, faults answered by the runtime, several sessions.
#include <sys/resource.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fixture-session-util.h"

using vhtp_test::call;
using vhtp_test::ddr_buffer;
using vhtp_test::open_session;
using vhtp_test::payload_as;
using vhtp_test::reply;
using vhtp_test::scoped_env;
using vhtp_test::session_env;

namespace {

const std::string & kLib = vhtp_test::fixture_lib();

}  // namespace

TEST(Session, OpensWithTheSessionInfo) {
    session_env   env;
    std::string   why;
    vhtp_session * s = open_session(1, 2, kLib, &why);
    ASSERT_NE(s, nullptr) << why;
    const struct vhtp_device_info * di = vhtp_session_device_info(s);
    EXPECT_EQ(di->arch, 79u);
    EXPECT_EQ(di->n_hvx, 2u);
    const fixture_info fi = payload_as<fixture_info>(call(s, FIXTURE_INFO));
    EXPECT_EQ(fi.arch, 79u);
    EXPECT_EQ(fi.n_hvx, 2u);
    EXPECT_EQ(fi.vtcm_base, 0xF0000000u);
    EXPECT_EQ(fi.vtcm_size, 8u << 20);
    EXPECT_EQ(fi.device, 1u);
    EXPECT_EQ(fi.session, 2u);
    vhtp_session_close(s);
}

TEST(Session, EchoInOrderWithManyInFlight) {
    session_env    env;
    vhtp_session * s = open_session();
    ASSERT_NE(s, nullptr);
    char err[256] = "";
    // A producer thread sends more messages than the rings hold while this thread receives.
    const int n = 200;
    std::thread producer([&] {
        for (int i = 0; i < n; ++i) {
            std::vector<uint32_t> msg(4 + i % 50, uint32_t(i));  // at least a fixture_cmd
            msg[0] = FIXTURE_ECHO;
            msg.push_back(uint32_t(i));
            char e[256];
            ASSERT_EQ(vhtp_session_send(s, msg.data(), uint32_t(msg.size() * 4), e, sizeof(e)), 0) << e;
        }
    });
    std::vector<uint32_t> buf(1024);
    for (int i = 0; i < n; ++i) {
        uint32_t len = 0;
        while (vhtp_session_recv(s, buf.data(), 4096, &len, err, sizeof(err)) != 0) {
            // Only "nothing outstanding yet" is expected, when this thread outruns the producer.
            ASSERT_STREQ(err, "no message awaits a response");
            std::this_thread::yield();
        }
        ASSERT_EQ(len, 4u * (5 + i % 50)) << i;
        ASSERT_EQ(buf[len / 4 - 1], uint32_t(i));
    }
    producer.join();
    vhtp_session_close(s);
}

TEST(Session, LargeMessagesAndTooSmallBuffers) {
    session_env    env;
    vhtp_session * s = open_session();
    ASSERT_NE(s, nullptr);
    char err[256] = "";
    std::vector<uint32_t> big(VHTP_MAX_RESP_SIZE / 4 - 16, 7);
    big[0] = FIXTURE_ECHO;
    ASSERT_EQ(vhtp_session_send(s, big.data(), uint32_t(big.size() * 4), err, sizeof(err)), 0) << err;
    std::vector<uint32_t> out(big.size());
    uint32_t len = 0;
    EXPECT_EQ(vhtp_session_recv(s, out.data(), 16, &len, err, sizeof(err)), -1);  // stays queued
    EXPECT_EQ(len, big.size() * 4);
    ASSERT_EQ(vhtp_session_recv(s, out.data(), len, &len, err, sizeof(err)), 0) << err;
    EXPECT_EQ(out, big);
    // Oversized messages are refused up front; nothing is queued for them.
    std::vector<uint8_t> huge(VHTP_MAX_MSG_SIZE + 1);
    EXPECT_EQ(vhtp_session_send(s, huge.data(), uint32_t(huge.size()), err, sizeof(err)), -1);
    EXPECT_EQ(vhtp_session_recv(s, out.data(), 16, &len, err, sizeof(err)), -1);
    EXPECT_STREQ(err, "no message awaits a response");
    // A message the library rejects without writing a reply gets a status reply from the runtime.
    ASSERT_EQ(vhtp_session_send(s, "x", 1, err, sizeof(err)), 0);
    ASSERT_EQ(vhtp_session_recv(s, out.data(), 4096, &len, err, sizeof(err)), 0);
    htp_batch_response r;
    ASSERT_EQ(len, sizeof(r));
    memcpy(&r, out.data(), sizeof(r));
    EXPECT_EQ(r.status, HTP_STATUS_BAD_MESSAGE);
    vhtp_session_close(s);
}

TEST(Session, MapsBuffersByFd) {
    session_env    env;
    vhtp_session * s = open_session();
    ASSERT_NE(s, nullptr);
    ddr_buffer b(10000);
    reply m = call(s, FIXTURE_MAP, uint32_t(b.fd), uint32_t(b.size));
    ASSERT_EQ(m.hdr.status, HTP_STATUS_OK);
    const dma_addr_t a = payload_as<dma_addr_t>(m);
    EXPECT_GE(a, 64u << 10);
    b.host[123] = 42;
    EXPECT_EQ(payload_as<uint8_t>(call(s, FIXTURE_LOAD, a + 123)), 42);
    EXPECT_EQ(call(s, FIXTURE_STORE, a + 5, 99).hdr.status, HTP_STATUS_OK);
    EXPECT_EQ(b.host[5], 99);
    ddr_buffer big(65u << 20);  // over the 64 MiB GGML_HEXAGON_VMEM budget
    EXPECT_EQ(call(s, FIXTURE_MAP, uint32_t(big.fd), uint32_t(big.size)).hdr.status, HTP_STATUS_NO_MEMORY);
    EXPECT_EQ(call(s, FIXTURE_UNMAP, uint32_t(b.fd)).hdr.status, HTP_STATUS_OK);
    vhtp_session_close(s);
}

TEST(Session, FaultsAreAnsweredAndTheSessionGoesOn) {
    if (vhtp_test::under_tsan()) {
        GTEST_SKIP() << "concurrent faults on several threads crash TSan's signal delivery (see vhtp-test-util.h)";
    }
    session_env    env;
    vhtp_session * s = open_session();
    ASSERT_NE(s, nullptr);
    // On the session thread, inside htp_lib_handle: the runtime writes the response.
    reply r = call(s, FIXTURE_LOAD, 0x50000000);
    EXPECT_EQ(r.hdr.status, HTP_STATUS_MMU_FAULT);
    EXPECT_TRUE(r.payload.empty());
    EXPECT_EQ(call(s, FIXTURE_STORE, 0x10, 1).hdr.status, HTP_STATUS_MMU_FAULT);  // NULL guard
    // On HVX workers: the library collects the status with htp_fault_take.
    EXPECT_EQ(call(s, FIXTURE_WORKER_LOAD, 0x50000000).hdr.status, HTP_STATUS_MMU_FAULT);
    // ...and when it forgets, the runtime still turns its "ok" into the fault.
    EXPECT_EQ(call(s, FIXTURE_WORKER_LOAD, 0x50000000, 1).hdr.status, HTP_STATUS_MMU_FAULT);
    // The session keeps working, with no fault left over.
    ddr_buffer b(4096);
    const dma_addr_t a = payload_as<dma_addr_t>(call(s, FIXTURE_MAP, uint32_t(b.fd), 4096));
    EXPECT_EQ(call(s, FIXTURE_WORKER_LOAD, a).hdr.status, HTP_STATUS_OK);
    EXPECT_EQ(call(s, FIXTURE_WORKER_LOAD, a, 1).hdr.status, HTP_STATUS_OK);
    vhtp_session_close(s);
}

TEST(Session, SeveralSessionsAtOnce) {
    session_env env;
    // HTP0:0, HTP0:1 (half of NPU 0's VTCM each) and HTP1:0, each with its own window, threads and queue.
    vhtp_session * s[3] = { open_session(0, 0, kLib, nullptr, 4u << 20), open_session(0, 1, kLib, nullptr, 4u << 20),
                            open_session(1, 0) };
    ASSERT_TRUE(s[0] && s[1] && s[2]);
    ddr_buffer bufs[3] = { ddr_buffer(4096), ddr_buffer(8192), ddr_buffer(4096) };
    dma_addr_t addr[3][3];
    // Map the buffers in different orders: each session allocates its own addresses.
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
            const int j = (i + k) % 3;
            reply     m = call(s[i], FIXTURE_MAP, uint32_t(bufs[j].fd), uint32_t(bufs[j].size));
            ASSERT_EQ(m.hdr.status, HTP_STATUS_OK);
            addr[i][j] = payload_as<dma_addr_t>(m);
        }
    }
    EXPECT_NE(addr[0][0], addr[1][0]);
    std::vector<std::thread> threads;
    for (int i = 0; i < 3; ++i) {
        threads.emplace_back([&, i] {
            for (int rep = 0; rep < 50; ++rep) {
                const fixture_info fi = payload_as<fixture_info>(call(s[i], FIXTURE_INFO));
                ASSERT_EQ(fi.session, i == 1 ? 1u : 0u);
                ASSERT_EQ(fi.device, i == 2 ? 1u : 0u);
                ASSERT_EQ(call(s[i], FIXTURE_STORE, addr[i][i] + 100 + rep, uint32_t(i + 1)).hdr.status,
                          HTP_STATUS_OK);
            }
        });
    }
    for (auto & t : threads) {
        t.join();
    }
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(bufs[i].host[100], i + 1);
        EXPECT_EQ(bufs[i].host[149], i + 1);
    }
    vhtp_session_close(s[1]);
    EXPECT_EQ(payload_as<uint8_t>(call(s[0], FIXTURE_LOAD, addr[0][1] + 100)), 2);  // others unaffected
    vhtp_session_close(s[0]);
    vhtp_session_close(s[2]);
}

TEST(Session, ArchMismatchIsRefused) {
    session_env env;
    scoped_env  arch("GGML_HEXAGON_ARCH", "v73");
    std::string why;
    EXPECT_EQ(open_session(0, 0, kLib, &why), nullptr);
    EXPECT_EQ(why, "NPU library " + kLib + " is built for v79 but the device is v73 (GGML_HEXAGON_ARCH)");
}

TEST(Session, MissingLibraryIsRefused) {
    session_env       env;
    std::string       why;
    const std::string path = vhtp_test::bin_path("libggml-htp-v12.so");
    EXPECT_EQ(open_session(0, 0, path, &why), nullptr);
    EXPECT_EQ(why.rfind("cannot load NPU library " + path + ": ", 0), 0u) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos);
}

TEST(Session, MissingSymbolIsRefused) {
    session_env       env;
    std::string       why;
    const std::string path = vhtp_test::bin_path("libfixture_nohandle.so");
    EXPECT_EQ(open_session(0, 0, path, &why), nullptr);
    EXPECT_EQ(why, "NPU library " + path + " does not export htp_lib_handle");
}

TEST(Session, UnknownArchIsRefused) {
    session_env env;
    scoped_env  arch("GGML_HEXAGON_ARCH", "v99");
    std::string why;
    EXPECT_EQ(open_session(0, 0, kLib, &why), nullptr);
    EXPECT_EQ(why, "GGML_HEXAGON_ARCH=v99: unknown Hexagon arch (expected v73, v75, v79 or v81)");
}

// The host's GGML_HEXAGON_OPPOLL=1 on the vHTP: with VHTP_SESSION_POLL, recv polls for the
// answer and its thread never sleeps (no voluntary context switch while the NPU works for 20 ms);
// without it the same wait sleeps on the futex.
TEST(Session, PollFlagWaitsWithoutSleeping) {
    session_env env;
    auto voluntary_switches = [] {
        rusage u{};
        getrusage(RUSAGE_THREAD, &u);
        return u.ru_nvcsw;
    };
    for (const bool poll : { false, true }) {
        SCOPED_TRACE(poll ? "VHTP_SESSION_POLL" : "no flags");
        std::string    why;
        vhtp_session * s = open_session(0, 0, kLib, &why, 0, poll ? VHTP_SESSION_POLL : 0);
        ASSERT_NE(s, nullptr) << why;
        fixture_cmd cmd{ FIXTURE_SLEEP, 0, 20000 };
        char        err[256] = "";
        ASSERT_EQ(vhtp_session_send(s, &cmd, sizeof(cmd), err, sizeof(err)), 0) << err;
        std::vector<uint8_t> buf(4096);
        uint32_t             len    = 0;
        const long           before = voluntary_switches();
        ASSERT_EQ(vhtp_session_recv(s, buf.data(), uint32_t(buf.size()), &len, err, sizeof(err)), 0) << err;
        const long slept = voluntary_switches() - before;
        htp_batch_response r{};
        ASSERT_GE(len, sizeof(r));
        memcpy(&r, buf.data(), sizeof(r));
        EXPECT_EQ(r.status, HTP_STATUS_OK);
        if (poll) {
            EXPECT_EQ(slept, 0) << "the polling receiver slept";
        } else {
            EXPECT_GT(slept, 0) << "the sleeping receiver never slept (did it poll?)";
        }
        vhtp_session_close(s);
    }
}

TEST(Session, UnknownFlagsAreRefused) {
    session_env    env;
    std::string    why;
    vhtp_session * s = open_session(0, 0, kLib, &why, 0, 0x80u);
    EXPECT_EQ(s, nullptr);
    EXPECT_NE(why.find("unknown flags"), std::string::npos) << why;
    vhtp_session_close(s);
}
