// The DSP processes (docs/vhtp.md "The DSP processes"): one per NPU. This test runs its
// sessions out of process (its ctest sets GGML_HEXAGON_INPROC=0, tests/CMakeLists.txt): the
// sessions of two NPUs run in two processes, neither of them the host; a crash of one restarts
// only its own NPU's sessions while the other's op in flight finishes and its session lives on;
// and a device group whose members run in different processes is still checked (the board,
// vhtp/src/mdev-check.h), and stops at once when a member's process dies.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dsp-client.h"
#include "dsp.h"
#include "fixture-session-util.h"
#include "fixtures/fixture-mdev-protocol.h"
#include "htp-abi/htp-abi.h"
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

TEST(DspProcesses, EachNpuRunsItsSessionsInAProcessOfItsOwn) {
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
    EXPECT_EQ(p_a0, p_a1);  // the sessions of one NPU share its process (its VTCM, HMX, HVX)
    EXPECT_NE(p_a0, p_b0);  // another NPU: another process
    EXPECT_EQ(p_a0, vhtp::dsp_client_pid(0));
    EXPECT_EQ(p_b0, vhtp::dsp_client_pid(1));
    EXPECT_EQ(comm_of(p_a0), "ggml-vhtp-dsp");
    EXPECT_EQ(comm_of(p_b0), "ggml-vhtp-dsp");
    vhtp_session_close(a0);
    vhtp_session_close(a1);
    EXPECT_EQ(vhtp::dsp_client_pid(0), -1);  // the NPU's last session closed: its process stopped
    EXPECT_EQ(vhtp::dsp_client_pid(1), p_b0);
    vhtp_session_close(b0);
}

TEST(DspProcesses, ACrashRestartsOnlyTheSessionsOfItsNpu) {
    vhtp_test::session_env env;
    std::string            why;
    vhtp_session * a = vhtp_test::open_session(0, 0, vhtp_test::fixture_lib(), &why);
    ASSERT_NE(a, nullptr) << why;
    vhtp_session * b = vhtp_test::open_session(1, 0, vhtp_test::fixture_lib(), &why);
    ASSERT_NE(b, nullptr) << why;
    const int32_t pid_a = session_pid(a), pid_b = session_pid(b);
    const uint32_t handled_b = vhtp_test::payload_as<fixture_info>(vhtp_test::call(b, FIXTURE_INFO)).handled;

    // NPU 1 is in the middle of an op while NPU 0's process dies of a wild store.
    ASSERT_EQ(send_cmd(b, FIXTURE_SLEEP, 300 * 1000), 0);
    ASSERT_EQ(send_cmd(a, FIXTURE_STORE, dma_addr_t(1) << 46, 1), 0);
    int st_a = -1, st_b = -1;
    EXPECT_EQ(recv_status(a, &st_a), VHTP_SESSION_LOST);
    vhtp_session_loss loss{};
    vhtp_session_last_loss(a, &loss);
    EXPECT_EQ(loss.signal, SIGSEGV);
    EXPECT_EQ(loss.device, 0u);
    EXPECT_EQ(recv_status(b, &st_b), 0);  // its op finished: nothing of NPU 1 was lost
    EXPECT_EQ(st_b, HTP_STATUS_OK);

    // NPU 1's session is the same one (its process, its count of messages); NPU 0's is new.
    EXPECT_EQ(session_pid(b), pid_b);
    EXPECT_EQ(vhtp_test::payload_as<fixture_info>(vhtp_test::call(b, FIXTURE_INFO)).handled, handled_b + 3);
    const int32_t new_a = session_pid(a);
    EXPECT_NE(new_a, pid_a);
    EXPECT_NE(new_a, pid_b);
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
        ASSERT_NE(vhtp::dsp_client_pid(0), vhtp::dsp_client_pid(1));
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
