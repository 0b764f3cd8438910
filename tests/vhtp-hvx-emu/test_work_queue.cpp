// The HVX worker pool: every ith runs exactly once per run, clamping, repeated runs, thread
// binding (each worker sees the session window).
#include <atomic>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "htp/memory.h"
#include "htp/session.h"
#include "htp/work-queue.h"
#include "htp-abi/htp-status.h"
#include "vhtp-test-util.h"

namespace {

struct count_job {
    std::atomic<uint32_t> calls[16];
    std::atomic<uint32_t> bad_n{ 0 };
    unsigned              expect_n = 0;
    uint8_t *             window   = nullptr;
    std::atomic<uint32_t> wrong_window{ 0 };
    std::thread::id       ids[16];
};

void count_worker(unsigned n, unsigned ith, void * data) {
    auto * j = static_cast<count_job *>(data);
    if (n != j->expect_n) {
        j->bad_n++;
    }
    if (htp_window_base != j->window) {
        j->wrong_window++;
    }
    j->ids[ith] = std::this_thread::get_id();
    j->calls[ith]++;
}

class WorkQueueTest : public vhtp_test::core_fixture {
  protected:
    void SetUp() override { open(81, 4); }
};

}  // namespace

TEST_F(WorkQueueTest, EveryThreadIndexRunsExactlyOnce) {
    ASSERT_EQ(c->sinfo.n_hvx, 4u);
    std::thread::id first_ids[4];  // the thread of each ith the first time it ran
    for (unsigned n = 1; n <= 4; ++n) {
        count_job j;
        j.expect_n = n;
        j.window   = c->window.base();
        for (auto & x : j.calls) {
            x = 0;
        }
        work_queue_run(c->sinfo.work_queue, count_worker, &j, n);
        for (unsigned i = 0; i < 16; ++i) {
            EXPECT_EQ(j.calls[i].load(), i < n ? 1u : 0u) << "n=" << n << " ith=" << i;
        }
        EXPECT_EQ(j.bad_n.load(), 0u);
        EXPECT_EQ(j.wrong_window.load(), 0u);
        std::set<std::thread::id> distinct(j.ids, j.ids + n);
        EXPECT_EQ(distinct.size(), n);  // each ith on its own HVX thread
        // ith 0 runs on the caller (the session's thread), the others on pool threads; each ith
        // always on the same thread, so per-thread resources (dma[ith]) keep a single user.
        EXPECT_EQ(j.ids[0], std::this_thread::get_id());
        for (unsigned i = 0; i < n; ++i) {
            if (first_ids[i] == std::thread::id()) {
                first_ids[i] = j.ids[i];
            }
            EXPECT_EQ(j.ids[i], first_ids[i]) << "n=" << n << " ith=" << i;
        }
    }
}

TEST_F(WorkQueueTest, ClampsToTheSessionThreads) {
    count_job j;
    j.expect_n = 4;
    j.window   = c->window.base();
    for (auto & x : j.calls) {
        x = 0;
    }
    work_queue_run(c->sinfo.work_queue, count_worker, &j, 12);
    for (unsigned i = 0; i < 16; ++i) {
        EXPECT_EQ(j.calls[i].load(), i < 4 ? 1u : 0u) << i;
    }
    EXPECT_EQ(j.bad_n.load(), 0u);
    work_queue_run(c->sinfo.work_queue, count_worker, &j, 0);  // nothing to do
    EXPECT_EQ(j.calls[0].load(), 1u);
}

namespace {
void add_worker(unsigned n, unsigned ith, void * data) {
    auto * v = static_cast<std::vector<uint64_t> *>(data);
    for (size_t i = ith; i < v->size(); i += n) {
        (*v)[i] += i;
    }
}
}  // namespace

TEST_F(WorkQueueTest, RepeatedRunsSeeEachOthersResults) {
    std::vector<uint64_t> v(1000, 0);
    for (int r = 0; r < 2000; ++r) {
        work_queue_run(c->sinfo.work_queue, add_worker, &v, 1 + r % 4);
    }
    for (size_t i = 0; i < v.size(); ++i) {
        ASSERT_EQ(v[i], 2000 * i) << i;
    }
}

namespace {
void sleepy_worker(unsigned, unsigned ith, void * data) {
    if (ith == 1) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    static_cast<std::atomic<int> *>(data)->fetch_add(1);
}
}  // namespace

TEST_F(WorkQueueTest, RunWaitsForTheSlowestWorker) {
    std::atomic<int> done{ 0 };
    work_queue_run(c->sinfo.work_queue, sleepy_worker, &done, 4);
    EXPECT_EQ(done.load(), 4);
    // After idling long enough to sleep in the kernel, workers still wake for the next job.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    work_queue_run(c->sinfo.work_queue, sleepy_worker, &done, 4);
    EXPECT_EQ(done.load(), 8);
}

namespace {
struct fault_job {
    std::atomic<int> finished{ 0 };
};
void faulting_worker(unsigned, unsigned ith, void * data) {
    auto * j = static_cast<fault_job *>(data);
    if (ith == 2) {
        (void) *static_cast<volatile uint8_t *>(htp_va(0x30000000));  // unmapped
    }
    j->finished++;
}
}  // namespace

TEST_F(WorkQueueTest, FaultingWorkerReturnsEarlyAndRunCompletes) {
    fault_job j;
    work_queue_run(c->sinfo.work_queue, faulting_worker, &j, 4);
    EXPECT_EQ(j.finished.load(), 3);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_MMU_FAULT);
    EXPECT_EQ(c->fault_addr.load(), 0x30000000u);
    // The pool keeps working.
    std::vector<uint64_t> v(10, 0);
    work_queue_run(c->sinfo.work_queue, add_worker, &v, 4);
    EXPECT_EQ(v[9], 9u);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
}
