// Physical NPUs and their sessions (docs/vhtp.md "Physical NPUs and sessions"): sessions of one
// NPU share its VTCM pool, its HMX unit and its HVX contexts; sessions of different NPUs do not.
#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "fixture-session-util.h"
#include "htp/hmx.h"
#include "htp/work-queue.h"
#include "npu.h"

using vhtp_test::call;
using vhtp_test::payload_as;
using vhtp_test::session_env;

namespace {

constexpr uint32_t kMiB = 1u << 20;

vhtp_session * open_session(uint32_t device, uint32_t session, uint32_t vtcm_size, std::string * why = nullptr) {
    return vhtp_test::open_session(device, session, vhtp_test::fixture_lib(), why, vtcm_size);
}

uint32_t session_vtcm(vhtp_session * s) {
    const fixture_info fi = payload_as<fixture_info>(call(s, FIXTURE_INFO));
    EXPECT_EQ(fi.vtcm_size, vhtp_session_device_info(s)->vtcm_size);  // the host and the NPU library agree
    return fi.vtcm_size;
}

}  // namespace

TEST(NpuVtcm, TwoHalvesOpenAndAThirdSessionIsRefused) {
    session_env    env;
    std::string    why;
    vhtp_session * s0 = open_session(0, 0, 4 * kMiB, &why);
    ASSERT_NE(s0, nullptr) << why;
    vhtp_session * s1 = open_session(0, 1, 4 * kMiB, &why);
    ASSERT_NE(s1, nullptr) << why;
    EXPECT_EQ(session_vtcm(s0), 4 * kMiB);
    EXPECT_EQ(session_vtcm(s1), 4 * kMiB);
    EXPECT_EQ(open_session(0, 2, 4 * kMiB, &why), nullptr);
    EXPECT_EQ(why,
              "NPU 0: session 2 asks for 4 MiB of VTCM, 0 KiB left (session 0 holds 4 MiB, session 1 holds 4 MiB)");
    vhtp_session_close(s1);
    vhtp_session_close(s0);
}

TEST(NpuVtcm, ByDefaultASessionTakesTheWholeVtcm) {
    session_env    env;
    std::string    why;
    vhtp_session * s0 = open_session(0, 0, 0, &why);
    ASSERT_NE(s0, nullptr) << why;
    EXPECT_EQ(session_vtcm(s0), 8 * kMiB);
    EXPECT_EQ(open_session(0, 1, 0, &why), nullptr);
    EXPECT_EQ(why, "NPU 0: session 1 asks for 8 MiB of VTCM, 0 KiB left (session 0 holds 8 MiB)");
    vhtp_session_close(s0);
}

TEST(NpuVtcm, SessionsOfDifferentNpusEachGetTheirOwn) {
    session_env    env;
    std::string    why;
    vhtp_session * s[3] = {};
    const uint32_t npus[3] = { 0, 1, VHTP_MAX_NPUS - 1 };
    for (int i = 0; i < 3; ++i) {
        s[i] = open_session(npus[i], 0, 0, &why);
        ASSERT_NE(s[i], nullptr) << why;
        EXPECT_EQ(session_vtcm(s[i]), 8 * kMiB);
    }
    for (vhtp_session * x : s) {
        vhtp_session_close(x);
    }
}

TEST(NpuVtcm, ClosingASessionGivesItsVtcmBack) {
    session_env    env;
    std::string    why;
    vhtp_session * s0 = open_session(0, 0, 6 * kMiB, &why);
    ASSERT_NE(s0, nullptr) << why;
    EXPECT_EQ(open_session(0, 1, 4 * kMiB, &why), nullptr);
    EXPECT_EQ(why, "NPU 0: session 1 asks for 4 MiB of VTCM, 2 MiB left (session 0 holds 6 MiB)");
    vhtp_session * s1 = open_session(0, 1, 2 * kMiB, &why);  // exactly what is left
    ASSERT_NE(s1, nullptr) << why;
    vhtp_session_close(s0);
    vhtp_session * s2 = open_session(0, 2, 6 * kMiB, &why);
    ASSERT_NE(s2, nullptr) << why;
    vhtp_session_close(s1);
    vhtp_session_close(s2);
    s0 = open_session(0, 0, 0, &why);  // the NPU is empty again
    ASSERT_NE(s0, nullptr) << why;
    EXPECT_EQ(session_vtcm(s0), 8 * kMiB);
    vhtp_session_close(s0);
}

TEST(NpuVtcm, BadRequestsAreRefused) {
    session_env env;
    std::string why;
    EXPECT_EQ(open_session(0, 0, 100, &why), nullptr);
    EXPECT_EQ(why, "NPU 0: session 0 asks for 100 bytes of VTCM, not a positive multiple of 4 KiB");
    EXPECT_EQ(open_session(0, 0, 16 * kMiB, &why), nullptr);
    EXPECT_EQ(why, "NPU 0: session 0 asks for 16 MiB of VTCM, 8 MiB left");
    EXPECT_EQ(open_session(VHTP_MAX_NPUS, 0, 0, &why), nullptr);
    EXPECT_EQ(why, "NPU 16: no such NPU (the vHTP has NPUs 0..15)");
    vhtp_session * s0 = open_session(0, 0, 4 * kMiB, &why);
    ASSERT_NE(s0, nullptr) << why;
    EXPECT_EQ(open_session(0, 0, 4 * kMiB, &why), nullptr);
    EXPECT_EQ(why, "NPU 0: session 0 is already open");
    vhtp_session_close(s0);
}

TEST(NpuVtcm, EachSessionHasOnlyTheVtcmItGot) {
    session_env    env;
    std::string    why;
    vhtp_session * s0 = open_session(0, 0, 4 * kMiB, &why);
    vhtp_session * s1 = open_session(0, 1, 4 * kMiB, &why);
    ASSERT_TRUE(s0 && s1) << why;
    const uint32_t vtcm = 0xF0000000u;
    EXPECT_EQ(call(s0, FIXTURE_STORE, vtcm + 4 * kMiB - 1, 1).hdr.status, HTP_STATUS_OK);
    EXPECT_EQ(call(s0, FIXTURE_STORE, vtcm + 4 * kMiB, 1).hdr.status, HTP_STATUS_MMU_FAULT);  // past its grant
    EXPECT_EQ(call(s0, FIXTURE_STORE, vtcm, 7).hdr.status, HTP_STATUS_OK);
    EXPECT_EQ(call(s1, FIXTURE_STORE, vtcm, 9).hdr.status, HTP_STATUS_OK);
    EXPECT_EQ(payload_as<uint8_t>(call(s0, FIXTURE_LOAD, vtcm)), 7);  // its own VTCM, not the other session's
    vhtp_session_close(s1);
    vhtp_session_close(s0);
}

namespace {

// Session cores created directly, so the test thread can drive HMX and the work queue.
class NpuCores : public ::testing::Test {
  protected:
    vhtp::core * make(uint32_t arch, uint32_t n_hvx, uint32_t device, uint32_t session, uint32_t vtcm,
                      std::string * why = nullptr) {
        struct vhtp_device_info info = vhtp_test::profile(arch, n_hvx);
        info.vtcm_size               = vtcm;
        char         err[256]        = "";
        vhtp::core * c               = vhtp::core_create(info, device, session, err, sizeof(err));
        if (why) {
            *why = err;
        }
        if (c) {
            cores.push_back(c);
        }
        return c;
    }
    void TearDown() override {
        for (vhtp::core * c : cores) {
            vhtp::core_destroy(c);
        }
    }
    std::vector<vhtp::core *> cores;
};

// Acquires `hmx` on another thread; the future yields its status once it got (and gave back) the unit.
std::future<int> acquire_elsewhere(htp_hmx * hmx) {
    return std::async(std::launch::async, [hmx] {
        const int st = htp_hmx_acquire(hmx);
        return st != HTP_STATUS_OK ? st : htp_hmx_release(hmx);
    });
}

}  // namespace

TEST_F(NpuCores, HmxIsOneUnitForTheSessionsOfOneNpu) {
    vhtp::core * a = make(79, 1, 0, 0, 4 * kMiB);
    vhtp::core * b = make(79, 1, 0, 1, 4 * kMiB);
    ASSERT_TRUE(a && b);
    ASSERT_EQ(htp_hmx_acquire(a->sinfo.hmx), HTP_STATUS_OK);
    // The owner cannot use the unit through another session, nor wait for it there (it would hang).
    EXPECT_EQ(htp_hmx_mma(b->sinfo.hmx, b->sinfo.vtcm_base, b->sinfo.vtcm_base + 2048, 1), HTP_STATUS_INTERNAL);
    const int again = htp_hmx_acquire(b->sinfo.hmx);
    EXPECT_EQ(again, HTP_STATUS_INTERNAL);
    if (again == HTP_STATUS_OK) {
        htp_hmx_release(b->sinfo.hmx);  // a broken model must fail the test, not hang it
    }
    std::future<int> other = acquire_elsewhere(b->sinfo.hmx);
    EXPECT_EQ(other.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout) << "HMX not shared";
    EXPECT_EQ(htp_hmx_release(a->sinfo.hmx), HTP_STATUS_OK);
    ASSERT_EQ(other.wait_for(std::chrono::seconds(30)), std::future_status::ready);
    EXPECT_EQ(other.get(), HTP_STATUS_OK);
}

TEST_F(NpuCores, HmxUnitsOfDifferentNpusAreIndependent) {
    vhtp::core * a = make(79, 1, 0, 0, 8 * kMiB);
    vhtp::core * b = make(79, 1, 1, 0, 8 * kMiB);
    ASSERT_TRUE(a && b);
    ASSERT_EQ(htp_hmx_acquire(a->sinfo.hmx), HTP_STATUS_OK);
    std::future<int> other = acquire_elsewhere(b->sinfo.hmx);
    const bool       ready = other.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
    EXPECT_EQ(htp_hmx_release(a->sinfo.hmx), HTP_STATUS_OK);  // before get(), so a failure cannot hang
    ASSERT_TRUE(ready) << "NPU 1's HMX waited for NPU 0's";
    EXPECT_EQ(other.get(), HTP_STATUS_OK);
}

namespace {

// Workers that stay inside until `target` of them have run at once (or the deadline passes),
// recording the most that ever ran at once.
struct overlap_job {
    std::atomic<uint32_t> running{ 0 }, max_running{ 0 }, calls{ 0 };
    uint32_t              target = 0;
    std::chrono::steady_clock::time_point deadline;
};

void overlap_worker(unsigned, unsigned, void * data) {
    auto *         j   = static_cast<overlap_job *>(data);
    const uint32_t now = ++j->running;
    uint32_t       seen = j->max_running.load();
    while (now > seen && !j->max_running.compare_exchange_weak(seen, now)) {
    }
    while (j->max_running.load() < j->target && std::chrono::steady_clock::now() < j->deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    j->calls++;
    --j->running;
}

// Runs one job of n_hvx workers on each core at the same time, all sharing one overlap_job.
uint32_t max_overlap(const std::vector<vhtp::core *> & cores, uint32_t target, std::chrono::milliseconds wait) {
    overlap_job j;
    j.target   = target;
    j.deadline = std::chrono::steady_clock::now() + wait;
    std::vector<std::thread> th;
    uint32_t                 expect_calls = 0;
    for (vhtp::core * c : cores) {
        expect_calls += c->sinfo.n_hvx;
        th.emplace_back([c, &j] { work_queue_run(c->sinfo.work_queue, overlap_worker, &j, c->sinfo.n_hvx); });
    }
    for (std::thread & t : th) {
        t.join();
    }
    EXPECT_EQ(j.calls.load(), expect_calls);
    return j.max_running.load();
}

}  // namespace

TEST_F(NpuCores, HvxWorkersOfOneNpuRunOnItsContextsOnly) {
    // v79: 6 HVX contexts; two sessions of 4 workers cannot run all 8 at once.
    vhtp::core * a = make(79, 4, 0, 0, 4 * kMiB);
    vhtp::core * b = make(79, 4, 0, 1, 4 * kMiB);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->npu, b->npu);
    EXPECT_EQ(a->npu->hvx.total(), 6u);
    const uint32_t most = max_overlap({ a, b }, 8, std::chrono::milliseconds(300));
    EXPECT_LE(most, 6u);
    EXPECT_GE(most, 4u);  // a job's workers run together
}

TEST_F(NpuCores, HvxWorkersOfDifferentNpusRunAtOnce) {
    vhtp::core * a = make(79, 4, 0, 0, 8 * kMiB);
    vhtp::core * b = make(79, 4, 1, 0, 8 * kMiB);
    ASSERT_TRUE(a && b);
    EXPECT_NE(a->npu, b->npu);
    EXPECT_EQ(max_overlap({ a, b }, 8, std::chrono::seconds(30)), 8u);
}

TEST_F(NpuCores, OneSessionStillUsesEveryContext) {
    vhtp::core * a = make(79, 6, 0, 0, 8 * kMiB);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(max_overlap({ a }, 6, std::chrono::seconds(30)), 6u);
}

namespace {

// Each worker runs one HMX product on its session's VTCM (worker ith at its own offset).
void hmx_worker(unsigned, unsigned ith, void * data) {
    auto *           c    = static_cast<vhtp::core *>(data);
    const dma_addr_t base = c->sinfo.vtcm_base + ith * 16384;
    if (htp_hmx_acquire(c->sinfo.hmx) == HTP_STATUS_OK) {
        htp_hmx_mma(c->sinfo.hmx, base, base + 2048, 1);
        htp_hmx_store(c->sinfo.hmx, base + 8192, base + 4096, HTP_HMX_OUT_F32);
        htp_hmx_release(c->sinfo.hmx);
    }
}

}  // namespace

TEST_F(NpuCores, SessionsCompetingForHvxAndHmxNeverHang) {
    // Three sessions whose workers together want more contexts than NPU 0 has, each also taking
    // the shared HMX unit; a session with every context (NPU 1) beside them.
    vhtp::core * s[4] = { make(79, 4, 0, 0, 2 * kMiB), make(79, 6, 0, 1, 2 * kMiB), make(79, 2, 0, 2, 4 * kMiB),
                          make(79, 6, 1, 0, 8 * kMiB) };
    ASSERT_TRUE(s[0] && s[1] && s[2] && s[3]);
    std::vector<std::thread> th;
    for (vhtp::core * c : s) {
        th.emplace_back([c] {
            for (int rep = 0; rep < 200; ++rep) {
                work_queue_run(c->sinfo.work_queue, hmx_worker, c, c->sinfo.n_hvx);
            }
        });
    }
    for (std::thread & t : th) {
        t.join();
    }
    for (vhtp::core * c : s) {
        EXPECT_EQ(c->fault.load(), HTP_STATUS_OK);
    }
}

TEST_F(NpuCores, OneNpuHasOneArchAndItsHvxContextsBound) {
    std::string why;
    ASSERT_NE(make(79, 1, 0, 0, 4 * kMiB, &why), nullptr) << why;
    EXPECT_EQ(make(73, 1, 0, 1, 4 * kMiB, &why), nullptr);
    EXPECT_EQ(why, "NPU 0 is a v79: session 1 cannot open it as a v73");
    EXPECT_EQ(make(79, 7, 1, 0, 8 * kMiB, &why), nullptr);
    EXPECT_EQ(why, "7 HVX threads exceed the v79's 6 HVX contexts");
}
