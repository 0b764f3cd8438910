// The DSP processes (docs/vhtp.md "The DSP processes"): one per session. This test runs its
// sessions out of process (its ctest sets GGML_HEXAGON_INPROC=0, tests/CMakeLists.txt): every
// session runs in a process of its own, none of them the host; the sessions of one NPU share
// its VTCM pool, HMX unit and HVX contexts through the NPU's page (vhtp/src/npu.h) across their
// processes; a crash of one session restarts only that session while the other's op in flight
// finishes and its session lives on, even on the same NPU, and what the dead process held of
// the NPU is given back; and a device group whose members run in different processes is still
// checked (the board, vhtp/src/mdev-check.h), and stops at once when a member's process dies.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "dsp-client.h"
#include "dsp.h"
#include "fixture-session-util.h"
#include "fixtures/fixture-mdev-protocol.h"
#include "htp-abi/htp-abi.h"
#include "npu.h"
#include "vhtp-test-util.h"

using vhtp_test::ddr_buffer;

namespace {

// The DSP processes write their stderr where the host's fd 2 pointed when they started: this
// points it at a file for the test's life (made before any session opens) and reads it back.
class stderr_file {
  public:
    stderr_file() {
        char path[] = "/tmp/vhtp-dsp-test-XXXXXX";
        fd_         = mkstemp(path);
        path_       = path;
        fflush(stderr);
        saved_ = dup(2);
        dup2(fd_, 2);
    }
    ~stderr_file() {
        fflush(stderr);
        dup2(saved_, 2);
        close(saved_);
        close(fd_);
        unlink(path_.c_str());
    }
    std::string text() const {
        std::ifstream     f(path_);
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str();
    }

  private:
    int         fd_ = -1, saved_ = -1;
    std::string path_;
};

int32_t session_pid(vhtp_session * s) {
    return vhtp_test::payload_as<int32_t>(vhtp_test::call(s, FIXTURE_PID));
}

std::string comm_of(int pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/comm");
    std::string   name;
    std::getline(f, name);
    return name;
}

int send_cmd(vhtp_session * s, uint32_t op, uint64_t a = 0, uint32_t b = 0) {
    fixture_cmd cmd{ op, b, a };
    char        err[256] = "";
    return vhtp_session_send(s, &cmd, sizeof(cmd), err, sizeof(err));
}

int recv_status(vhtp_session * s, int * status) {
    htp_batch_response r{};
    uint8_t            buf[4096];
    uint32_t           len = 0;
    char               err[512] = "";
    const int          rc = vhtp_session_recv(s, buf, sizeof(buf), &len, err, sizeof(err));
    if (rc == 0 && len >= sizeof(r)) {
        memcpy(&r, buf, sizeof(r));
        *status = r.status;
    }
    return rc;
}

// The host's view of NPU npu's page: VTCM held by each open session, by session index.
std::map<uint32_t, uint32_t> vtcm_held(uint32_t npu) {
    std::map<uint32_t, uint32_t> held;
    const vhtp::npu_page *       p = vhtp::dsp_client_npu_page(npu);
    for (const vhtp::npu_member & m : p->members) {
        if (m.used) {
            held[m.session] = m.vtcm;
        }
    }
    return held;
}

// Waits up to 10 s for cond (a DSP process gets somewhere).
template <class Cond> bool eventually(Cond cond) {
    for (int i = 0; i < 1000; i++) {
        if (cond()) {
            return true;
        }
        usleep(10000);
    }
    return cond();
}

TEST(DspProcesses, EachSessionRunsInAProcessOfItsOwn) {
    ASSERT_TRUE(vhtp::dsp_remote()) << "this test runs with GGML_HEXAGON_INPROC=0";
    vhtp_test::session_env env;
    std::string            why;
    vhtp_session * a0 = vhtp_test::open_session(0, 0, vhtp_test::fixture_lib(), &why, 4u << 20);
    ASSERT_NE(a0, nullptr) << why;
    vhtp_session * a1 = vhtp_test::open_session(0, 1, vhtp_test::fixture_lib(), &why, 4u << 20);
    ASSERT_NE(a1, nullptr) << why;
    vhtp_session * b0 = vhtp_test::open_session(1, 0, vhtp_test::fixture_lib(), &why);
    ASSERT_NE(b0, nullptr) << why;
    const int32_t p_a0 = session_pid(a0), p_a1 = session_pid(a1), p_b0 = session_pid(b0);
    EXPECT_NE(p_a0, (int32_t) getpid());
    EXPECT_NE(p_b0, (int32_t) getpid());
    EXPECT_NE(p_a0, p_a1);  // two sessions of one NPU: two processes
    EXPECT_NE(p_a0, p_b0);
    EXPECT_NE(p_a1, p_b0);
    EXPECT_EQ(p_a0, vhtp::dsp_client_pid(0, 0));
    EXPECT_EQ(p_a1, vhtp::dsp_client_pid(0, 1));
    EXPECT_EQ(p_b0, vhtp::dsp_client_pid(1, 0));
    EXPECT_EQ(comm_of(p_a0), "ggml-vhtp-dsp");
    EXPECT_EQ(comm_of(p_a1), "ggml-vhtp-dsp");
    EXPECT_EQ(comm_of(p_b0), "ggml-vhtp-dsp");

    // They still share NPU 0's VTCM: what the two processes took is gone for a third session.
    EXPECT_EQ(vtcm_held(0), (std::map<uint32_t, uint32_t>{ { 0, 4u << 20 }, { 1, 4u << 20 } }));
    vhtp_session * a2 = vhtp_test::open_session(0, 2, vhtp_test::fixture_lib(), &why, 4u << 20);
    EXPECT_EQ(a2, nullptr);
    EXPECT_NE(why.find("NPU 0: session 2 asks for 4 MiB of VTCM, 0 KiB left (session 0 holds 4 MiB, session 1 "
                       "holds 4 MiB)"),
              std::string::npos)
        << why;

    vhtp_session_close(a0);
    EXPECT_EQ(vhtp::dsp_client_pid(0, 0), -1);  // the session closed: its process stopped
    EXPECT_EQ(vhtp::dsp_client_pid(0, 1), p_a1);
    EXPECT_EQ(vtcm_held(0), (std::map<uint32_t, uint32_t>{ { 1, 4u << 20 } }));
    a2 = vhtp_test::open_session(0, 2, vhtp_test::fixture_lib(), &why, 4u << 20);  // session 0's VTCM is back
    ASSERT_NE(a2, nullptr) << why;
    vhtp_session_close(a2);
    vhtp_session_close(a1);
    EXPECT_EQ(vhtp::dsp_client_pid(0, 1), -1);
    EXPECT_EQ(vhtp::dsp_client_pid(1, 0), p_b0);
    vhtp_session_close(b0);
}

// Session `victim` of NPU 0 dies of a wild store while another session is in the middle of an
// op: on NPU 1 (another NPU) and on NPU 0 itself (the same NPU, another process).
TEST(DspProcesses, ACrashRestartsOnlyItsOwnSession) {
    for (uint32_t other_npu = 0; other_npu < 2; other_npu++) {
        SCOPED_TRACE("the other session is on NPU " + std::to_string(other_npu));
        vhtp_test::session_env env;
        std::string            why;
        vhtp_session * a = vhtp_test::open_session(0, 0, vhtp_test::fixture_lib(), &why, 4u << 20);
        ASSERT_NE(a, nullptr) << why;
        vhtp_session * b = vhtp_test::open_session(other_npu, 1, vhtp_test::fixture_lib(), &why, 4u << 20);
        ASSERT_NE(b, nullptr) << why;
        const int32_t  pid_a = session_pid(a), pid_b = session_pid(b);
        const uint32_t handled_b = vhtp_test::payload_as<fixture_info>(vhtp_test::call(b, FIXTURE_INFO)).handled;

        ASSERT_EQ(send_cmd(b, FIXTURE_SLEEP, 300 * 1000), 0);
        ASSERT_EQ(send_cmd(a, FIXTURE_STORE, dma_addr_t(1) << 46, 1), 0);
        int st_a = -1, st_b = -1;
        EXPECT_EQ(recv_status(a, &st_a), VHTP_SESSION_LOST);
        vhtp_session_loss loss{};
        vhtp_session_last_loss(a, &loss);
        EXPECT_EQ(loss.signal, SIGSEGV);
        EXPECT_EQ(loss.device, 0u);
        EXPECT_EQ(loss.session, 0u);
        EXPECT_EQ(recv_status(b, &st_b), 0);  // its op finished: nothing of it was lost
        EXPECT_EQ(st_b, HTP_STATUS_OK);

        // b is the same session (its process, its count of messages); a is new, and got its
        // VTCM again: the dead process's 4 MiB were given back before it reopened.
        EXPECT_EQ(session_pid(b), pid_b);
        EXPECT_EQ(vhtp_test::payload_as<fixture_info>(vhtp_test::call(b, FIXTURE_INFO)).handled, handled_b + 3);
        const int32_t new_a = session_pid(a);
        EXPECT_NE(new_a, pid_a);
        EXPECT_NE(new_a, pid_b);
        EXPECT_EQ(vhtp_test::payload_as<fixture_info>(vhtp_test::call(a, FIXTURE_INFO)).vtcm_size, 4u << 20);
        if (other_npu == 0) {
            EXPECT_EQ(vtcm_held(0), (std::map<uint32_t, uint32_t>{ { 0, 4u << 20 }, { 1, 4u << 20 } }));
        }
        vhtp_session_close(a);
        vhtp_session_close(b);
    }
}

// A session's process dies holding NPU 0's HMX unit and all its session's HVX contexts while a
// session of the same NPU, in another process, waits for both: the host gives them back when it
// reaps the dead process, and the waiting op finishes.
TEST(DspProcesses, ADeadProcessGivesBackTheNpusHmxAndHvx) {
    vhtp_test::session_env env;
    std::string            why;
    vhtp_session * a = vhtp_test::open_session(0, 0, vhtp_test::fixture_lib(), &why, 4u << 20);
    ASSERT_NE(a, nullptr) << why;
    vhtp_session * b = vhtp_test::open_session(0, 1, vhtp_test::fixture_lib(), &why, 4u << 20);
    ASSERT_NE(b, nullptr) << why;
    const int32_t    pid_a = session_pid(a), pid_b = session_pid(b);
    vhtp::npu_page * page  = vhtp::dsp_client_npu_page(0);
    ASSERT_NE(page, nullptr);
    const uint32_t n_hw = page->n_hvx_hw.load();
    const uint32_t n_a  = vhtp_test::payload_as<fixture_info>(vhtp_test::call(a, FIXTURE_INFO)).n_hvx;
    EXPECT_EQ(page->hvx_free, n_hw);

    // Both sessions take turns on the unit across their processes.
    ASSERT_EQ(send_cmd(a, FIXTURE_HOLD, 200 * 1000, 1), 0);
    ASSERT_TRUE(eventually([&] { return page->hmx.pid.load() == pid_a; }));
    ASSERT_EQ(send_cmd(b, FIXTURE_HOLD, 1000, 1), 0);
    int st_a = -1, st_b = -1;
    EXPECT_EQ(recv_status(a, &st_a), 0);
    EXPECT_EQ(st_a, HTP_STATUS_OK);
    EXPECT_EQ(recv_status(b, &st_b), 0);
    EXPECT_EQ(st_b, HTP_STATUS_OK);
    EXPECT_EQ(page->hmx.word.load(), 0u);
    EXPECT_EQ(page->hvx_free, n_hw);

    // Now a dies holding them.
    ASSERT_EQ(send_cmd(a, FIXTURE_HOLD, 300 * 1000, 1 | 2), 0);
    ASSERT_TRUE(eventually([&] { return page->hmx.pid.load() == pid_a; }));
    EXPECT_EQ(page->hvx_free, n_hw - n_a);
    ASSERT_EQ(send_cmd(b, FIXTURE_HOLD, 1000, 1), 0);
    EXPECT_EQ(recv_status(a, &st_a), VHTP_SESSION_LOST);
    vhtp_session_loss loss{};
    vhtp_session_last_loss(a, &loss);
    EXPECT_EQ(loss.signal, SIGABRT);
    EXPECT_EQ(recv_status(b, &st_b), 0);  // it got the unit and the contexts
    EXPECT_EQ(st_b, HTP_STATUS_OK);
    EXPECT_EQ(session_pid(b), pid_b);
    EXPECT_NE(session_pid(a), pid_a);
    EXPECT_EQ(page->hmx.word.load(), 0u);
    EXPECT_EQ(page->hvx_free, n_hw);
    for (const vhtp::npu_ticket & t : page->tickets) {
        EXPECT_EQ(t.number, 0u);
    }
    // And the restarted a uses them too.
    ASSERT_EQ(send_cmd(a, FIXTURE_HOLD, 1000, 1), 0);
    EXPECT_EQ(recv_status(a, &st_a), 0);
    EXPECT_EQ(st_a, HTP_STATUS_OK);
    vhtp_session_close(a);
    vhtp_session_close(b);
}

// Two members of a device group, session 0 of NPUs 0 and 1, so in two processes.
class GroupAcrossProcesses : public ::testing::Test {
  protected:
    void SetUp() override {
        for (uint32_t i = 0; i < 2; i++) {
            std::string why;
            s[i] = vhtp_test::open_session(i, 0, vhtp_test::bin_path("libfixture_mdev.so"), &why);
            ASSERT_NE(s[i], nullptr) << why;
        }
        ASSERT_NE(vhtp::dsp_client_pid(0, 0), vhtp::dsp_client_pid(1, 0));
    }
    void TearDown() override {
        for (vhtp_session * x : s) {
            vhtp_session_close(x);
        }
    }
    // The message the runtime would send: header, buffer table (fences, data), command.
    std::vector<uint8_t> message(const ddr_buffer & data, uint32_t i, uint32_t lo, uint32_t hi, uint32_t mode) {
        htp_msg_header h{};
        h.magic          = HTP_MSG_MAGIC;
        h.abi_version    = HTP_ABI_VERSION;
        h.kind           = HTP_MSG_OPS;
        h.n_bufs         = 2;
        h.mdev_idx       = i;
        h.mdev_count     = 2;
        h.fence_buf      = 0;
        h.fence_seq      = seq;
        h.fence_offset   = 0;
        htp_buf_desc b[2] = { { fences.fd, 0, fences.size }, { data.fd, 0, data.size } };
        fixture_mdev_cmd cmd{ -1, -1, fences.size, data.size, i, 2, seq, lo, hi, mode };
        std::vector<uint8_t> m(sizeof(h) + sizeof(b) + sizeof(cmd));
        memcpy(m.data(), &h, sizeof(h));
        memcpy(m.data() + sizeof(h), b, sizeof(b));
        memcpy(m.data() + sizeof(h) + sizeof(b), &cmd, sizeof(cmd));
        return m;
    }
    // One group op: member i stores i + 1 into data bytes [cut[i], cut[i + 1]); each member's
    // status, or the runtime's return code where it is not 0.
    std::vector<int> op(const ddr_buffer & data, const uint32_t cut[3], const uint32_t mode[2]) {
        for (uint32_t i = 0; i < 2; i++) {
            const std::vector<uint8_t> m        = message(data, i, cut[i], cut[i + 1], mode[i]);
            char                       err[256] = "";
            EXPECT_EQ(vhtp_session_send(s[i], m.data(), (uint32_t) m.size(), err, sizeof(err)), 0)
                << err << "\n" << log.text();
        }
        std::vector<int> st(2, -1);
        for (uint32_t i = 0; i < 2; i++) {
            int       status = -1;
            const int rc     = recv_status(s[i], &status);
            st[i]            = rc == 0 ? status : rc;
        }
        seq += 4;
        return st;
    }

    stderr_file            log;  // before the sessions: their processes inherit it
    vhtp_test::session_env env;
    vhtp_session *         s[2] = {};
    ddr_buffer             fences{ 4096 };
    uint32_t               seq = 0;
};

TEST_F(GroupAcrossProcesses, WholeLinesPerMemberPass) {
    ddr_buffer     data{ 16384 };
    const uint32_t cut[3] = { 0, 4096 + 3 * 128, 16384 }, mode[2] = { FIXTURE_MDEV_READ, FIXTURE_MDEV_READ };
    EXPECT_EQ(op(data, cut, mode), (std::vector<int>{ HTP_STATUS_OK, HTP_STATUS_OK })) << log.text();
    EXPECT_EQ(data.host[cut[1] - 1], 1);
    EXPECT_EQ(data.host[cut[1]], 2);
}

TEST_F(GroupAcrossProcesses, APartitionInBytesNotLinesIsCaught) {
    ddr_buffer     data{ 16384 };
    const uint32_t cut[3] = { 0, 4096 + 100, 16384 }, flush[2] = { FIXTURE_MDEV_FLUSH, FIXTURE_MDEV_FLUSH };
    const std::vector<int> st = op(data, cut, flush);
    EXPECT_TRUE(st[0] == HTP_STATUS_OWNERSHIP || st[1] == HTP_STATUS_OWNERSHIP) << st[0] << " " << st[1];
    const std::string err = log.text();
    EXPECT_NE(err.find("members 0 and 1 both wrote the 128-byte line [0x1000, 0x1080)"), std::string::npos) << err;
}

TEST_F(GroupAcrossProcesses, AMissingInvalidateIsCaught) {
    ddr_buffer     data{ 16384 };
    const uint32_t cut[3] = { 0, 4096 + 3 * 128, 16384 }, mode[2] = { FIXTURE_MDEV_READ_NO_INVAL, FIXTURE_MDEV_READ };
    const std::vector<int> st = op(data, cut, mode);
    const std::string      err = log.text();
    EXPECT_EQ(st[0], HTP_STATUS_OWNERSHIP) << err;
    EXPECT_NE(err.find("vhtp: stale line: NPU 0 session 0 (member 0) accessed device address"), std::string::npos) << err;
    EXPECT_NE(err.find("which member 1 wrote since member 0 last invalidated it"), std::string::npos) << err;
}

// Member `dead`'s process dies before its first barrier; the other member, in the other process,
// waits there for it. The runtime marks the dead member's fence slot failed, so the peer stops
// with a fence error at once instead of after the fence timeout (60 s, npu/src/mdev.h). The host
// collects member 0's answer first, so member 1's death is seen while waiting for member 0.
TEST_F(GroupAcrossProcesses, APeerOfAMemberWhoseProcessDiedStopsAtOnce) {
    for (uint32_t dead = 0; dead < 2; dead++) {
        ddr_buffer     data{ 16384 };
        const uint32_t cut[3] = { 0, 8192, 16384 };
        uint32_t       mode[2] = { FIXTURE_MDEV_FLUSH, FIXTURE_MDEV_FLUSH };
        mode[dead]             = FIXTURE_MDEV_CRASH;
        const auto             t0 = std::chrono::steady_clock::now();
        const std::vector<int> st = op(data, cut, mode);
        const double s_taken = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_EQ(st[dead], VHTP_SESSION_LOST) << "member " << dead << " died";
        EXPECT_EQ(st[1 - dead], HTP_STATUS_FENCE_ERROR) << "member " << dead << " died";
        EXPECT_LT(s_taken, 20.0) << "member " << dead << " died";  // the fence timeout is 60 s
        // The replay (fresh sequence numbers) passes.
        const uint32_t flush[2] = { FIXTURE_MDEV_FLUSH, FIXTURE_MDEV_FLUSH };
        EXPECT_EQ(op(data, cut, flush), (std::vector<int>{ HTP_STATUS_OK, HTP_STATUS_OK })) << log.text();
    }
}

}  // namespace
