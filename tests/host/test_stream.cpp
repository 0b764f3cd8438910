// The device stream (host/src/stream.h): work runs in order on its own thread, tickets count
// it, a wait on another stream's ticket holds only the waiting stream, a failure makes the
// rest of the queue skip until it is taken, and a full queue holds the host. Built twice: plain
// and with ThreadSanitizer (unit.test_stream_tsan).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "stream.h"

using namespace std::chrono_literals;

TEST(Stream, RunsWorkInOrderAndCountsTickets) {
    htp_stream        s(64);
    std::vector<int>  order;
    std::mutex        mu;
    EXPECT_EQ(s.submitted(), 0u);
    uint64_t last = 0;
    for (int i = 0; i < 100; i++) {
        last = s.enqueue([&, i](bool skip) {
            EXPECT_FALSE(skip);
            std::lock_guard<std::mutex> lock(mu);
            order.push_back(i);
            return GGML_STATUS_SUCCESS;
        });
    }
    EXPECT_EQ(last, 100u);
    EXPECT_EQ(s.submitted(), 100u);
    s.synchronize();
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_EQ(order.size(), 100u);
    for (int i = 0; i < 100; i++) {
        EXPECT_EQ(order[i], i);
    }
    EXPECT_EQ(s.take_status(), GGML_STATUS_SUCCESS);
}

TEST(Stream, WaitReturnsOnlyWhenTheTicketsWorkIsDone) {
    htp_stream        s(64);
    std::atomic<bool> release{ false }, done{ false };
    const uint64_t t = s.enqueue([&](bool) {
        while (!release.load()) {
            std::this_thread::sleep_for(1ms);
        }
        done = true;
        return GGML_STATUS_SUCCESS;
    });
    std::thread waiter([&] { s.wait(t); EXPECT_TRUE(done.load()); });
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(done.load());
    release = true;
    waiter.join();
}

// B's wait for A's ticket holds B's later work, not the host, and not A.
TEST(Stream, CrossStreamWaitHoldsOnlyTheWaitingStream) {
    htp_stream        a(64), b(64);
    std::atomic<bool> release{ false }, a_done{ false }, b_after{ false };
    const uint64_t ta = a.enqueue([&](bool) {
        while (!release.load()) {
            std::this_thread::sleep_for(1ms);
        }
        a_done = true;
        return GGML_STATUS_SUCCESS;
    });
    b.enqueue([&a, ta](bool) { a.wait(ta); return GGML_STATUS_SUCCESS; }, false);
    b.enqueue([&](bool) {
        EXPECT_TRUE(a_done.load());
        b_after = true;
        return GGML_STATUS_SUCCESS;
    });
    std::this_thread::sleep_for(20ms);  // the host got here: enqueue did not block
    EXPECT_FALSE(b_after.load());
    release = true;
    b.synchronize();
    EXPECT_TRUE(b_after.load());
}

TEST(Stream, AFailureSkipsLaterWorkUntilItIsTaken) {
    htp_stream       s(64);
    std::atomic<int> ran{ 0 }, skipped{ 0 };
    s.enqueue([](bool) { return GGML_STATUS_FAILED; });
    for (int i = 0; i < 3; i++) {
        s.enqueue([&](bool skip) {
            (skip ? skipped : ran)++;
            return GGML_STATUS_SUCCESS;
        });
    }
    s.synchronize();
    EXPECT_EQ(ran.load(), 0);
    EXPECT_EQ(skipped.load(), 3);
    EXPECT_EQ(s.take_status(), GGML_STATUS_FAILED);
    EXPECT_EQ(s.take_status(), GGML_STATUS_SUCCESS);  // told once
    s.enqueue([&](bool skip) {
        (skip ? skipped : ran)++;
        return GGML_STATUS_SUCCESS;
    });
    s.synchronize();
    EXPECT_EQ(ran.load(), 1);
}

TEST(Stream, AFullQueueHoldsTheHost) {
    htp_stream        s(2);
    std::atomic<bool> release{ false };
    std::atomic<int>  queued{ 0 };
    auto              slow = [&](bool) {
        while (!release.load()) {
            std::this_thread::sleep_for(1ms);
        }
        return GGML_STATUS_SUCCESS;
    };
    std::thread host([&] {
        for (int i = 0; i < 5; i++) {
            s.enqueue(slow);
            queued++;
        }
    });
    std::this_thread::sleep_for(50ms);
    // One running, two waiting: the fourth enqueue waits for room.
    EXPECT_LE(queued.load(), 3);
    release = true;
    host.join();
    s.synchronize();
    EXPECT_EQ(s.submitted(), 5u);
}

TEST(Stream, TwoBusyStreamsCountOverlap) {
    htp_stream a(64), b(64);
    auto       work = [](bool) {
        std::this_thread::sleep_for(30ms);
        return GGML_STATUS_SUCCESS;
    };
    a.enqueue(work);
    b.enqueue(work);
    a.synchronize();
    b.synchronize();
    EXPECT_GE(a.busy_ns(), 25'000'000u);
    EXPECT_GE(a.overlap_ns(), 10'000'000u);  // they slept side by side
    htp_stream c(64);
    c.enqueue([](bool) { return GGML_STATUS_SUCCESS; }, false);  // a wait: not busy
    c.synchronize();
    EXPECT_EQ(c.busy_ns(), 0u);
}
