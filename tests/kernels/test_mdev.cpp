// Multi-device building blocks on the test double: the partition of an op's rows over a
// device group (npu/ops/mdev-partition.h, npu/ops/row-stream.h) and the fence barrier
// (npu/src/mdev.cpp) with its sequence wrap-around, error propagation and timeout.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "device-api-double.h"
#include "mdev.h"
#include "row-stream.h"

using namespace htp_ops;

static htp_mdev group(uint32_t idx, uint32_t count) {
    htp_mdev m  = {};
    m.idx       = idx;
    m.count     = count;
    m.count_div = htp_fastdiv_init(count);
    return m;
}

TEST(MdevPartition, MembersCoverEveryUnitOnceInWholeChunks) {
    for (uint32_t count = 2; count <= 4; count++) {
        for (uint32_t chunk = 1; chunk <= 8; chunk *= 2) {
            for (uint32_t total = 0; total <= 70; total++) {
                std::vector<int> owner(total, -1);
                uint32_t         next = 0;
                for (uint32_t i = 0; i < count; i++) {
                    const htp_mdev   m = group(i, count);
                    const mdev_range r = mdev_partition(total, chunk, &m);
                    if (r.count == 0) {
                        continue;
                    }
                    EXPECT_EQ(r.start, next) << "ranges are consecutive, in member order";
                    EXPECT_EQ(r.start % chunk, 0u);
                    for (uint32_t u = r.start; u < r.start + r.count; u++) {
                        ASSERT_LT(u, total);
                        EXPECT_EQ(owner[u], -1);
                        owner[u] = (int) i;
                    }
                    next = r.start + r.count;
                }
                EXPECT_EQ(next, total) << "count " << count << " chunk " << chunk << " total " << total;
                const uint32_t n_chunks = (total + chunk - 1) / chunk;
                if (total > 0 && n_chunks < count) {  // too few chunks: member 0 does it all
                    EXPECT_EQ(owner.front(), 0);
                    EXPECT_EQ(owner.back(), 0);
                } else if (total > 0) {
                    EXPECT_EQ(owner.back(), (int) count - 1) << "the remainder goes to the last member";
                }
            }
        }
    }
}

TEST(MdevPartition, CannotSplitMeansMemberZeroAlone) {
    const htp_mdev m0 = group(0, 2), m1 = group(1, 2);
    EXPECT_EQ(mdev_partition(100, 0, &m0).count, 100u);
    EXPECT_EQ(mdev_partition(100, 0, &m1).count, 0u);
}

TEST(MdevPartition, DeviceRowsSplitAMembersShareOverItsThreads) {
    htp_split_params sp = {};
    sp.n_threads        = 2;
    sp.total_rows       = 37;
    sp.rows_per_chunk   = 4;
    sp.rows_per_thread  = 20;
    htp_context ctx     = {};
    ctx.mdev            = group(0, 1);
    const op_rows alone = device_rows(&ctx, sp);
    EXPECT_EQ(alone.row_start, 0u);
    EXPECT_EQ(alone.nrows, 37u);
    EXPECT_EQ(alone.rows_per_thread, 20u);  // the host's split, untouched

    std::vector<int> seen(37, 0);
    for (uint32_t i = 0; i < 3; i++) {
        ctx.mdev             = group(i, 3);
        const op_rows o      = device_rows(&ctx, sp);
        EXPECT_EQ(o.rows_per_thread % sp.rows_per_chunk, 0u);
        for (uint32_t t = 0; t < sp.n_threads; t++) {
            const row_range rr = thread_rows(o, t);
            EXPECT_EQ(rr.begin % sp.rows_per_chunk, 0u) << "a thread starts on a DMA chunk";
            for (uint32_t r = rr.begin; r < rr.end; r++) {
                seen[r]++;
            }
        }
    }
    for (int n : seen) {
        EXPECT_EQ(n, 1);
    }
}

// The 128-byte lines each member's share of t writes (rows [start, start + count) of the
// flattened outer dims, each row_bytes from its offset); also marks every row covered.
static std::set<uint64_t> lines_of(const htp_tensor & t, uint32_t row_bytes, mdev_range r, std::vector<int> & cover) {
    std::set<uint64_t> lines;
    for (uint32_t row = r.start; row < r.start + r.count; row++) {
        const uint32_t i1 = row % t.ne[1], i2 = row / t.ne[1] % t.ne[2], i3 = row / t.ne[1] / t.ne[2];
        const uint64_t a  = t.data + (uint64_t) i1 * t.nb[1] + (uint64_t) i2 * t.nb[2] + (uint64_t) i3 * t.nb[3];
        for (uint64_t l = a / 128; l <= (a + row_bytes - 1) / 128; l++) {
            lines.insert(l);
        }
        cover.at(row)++;
    }
    return lines;
}

// Random shapes and strides: dense, rows padded (to lines or not), planes and volumes padded
// or not, bases on a line or off it, F32 and F16.
static htp_tensor random_tensor(std::mt19937 & rng, uint32_t * es) {
    auto       pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
    htp_tensor t    = {};
    *es             = pick(0, 1) ? 4 : 2;
    t.ne[0]         = pick(1, 5) == 1 ? pick(1, 4) * 128 / *es : pick(1, 300);
    t.ne[1]         = pick(1, 40);
    t.ne[2]         = pick(1, 6);
    t.ne[3]         = pick(1, 3);
    t.nb[0]         = *es;
    const uint32_t pads[4] = { 0, 0, 128, (uint32_t) *es * pick(1, 40) };
    t.nb[1]         = t.ne[0] * *es + pads[pick(0, 3)];
    if (pick(0, 2) == 0 && t.nb[1] % 128) {
        t.nb[1] = (t.nb[1] + 127) / 128 * 128;  // rows start on lines
    }
    t.nb[2]  = t.ne[1] * t.nb[1] + pads[pick(0, 3)];
    t.nb[3]  = t.ne[2] * t.nb[2] + pads[pick(0, 3)];
    t.data   = 0x10000 + (pick(0, 5) == 0 ? *es * pick(1, 31) : 0);
    return t;
}

TEST(MdevLines, RowPartitionsCoverEveryRowOnceAndShareNoLine) {
    std::mt19937 rng(1234);
    uint32_t     split = 0, fallback = 0, multi_row_units = 0;
    for (int iter = 0; iter < 2000; iter++) {
        uint32_t         es;
        const htp_tensor t     = random_tensor(rng, &es);
        const uint32_t   total = t.ne[1] * t.ne[2] * t.ne[3];
        uint32_t         rpc   = 77;
        const bool       ok    = mdev_rows_per_chunk(t, es, &rpc);
        if (!ok) {
            EXPECT_EQ(rpc, 0u);
        }
        for (uint32_t count = 2; count <= 4; count++) {
            std::vector<int>   cover(total, 0);
            std::set<uint64_t> seen;
            uint32_t           members_with_rows = 0;
            for (uint32_t i = 0; i < count; i++) {
                const htp_mdev     m = group(i, count);
                const mdev_range   r = mdev_partition(total, rpc, &m);
                std::set<uint64_t> mine = lines_of(t, t.ne[0] * es, r, cover);
                members_with_rows += r.count > 0;
                for (uint64_t l : mine) {
                    ASSERT_TRUE(seen.insert(l).second)
                        << "two members write line " << l << ": ne " << t.ne[0] << "x" << t.ne[1] << "x" << t.ne[2]
                        << "x" << t.ne[3] << " nb " << t.nb[1] << "," << t.nb[2] << "," << t.nb[3] << " data "
                        << t.data << " es " << es << " rows/chunk " << rpc << " members " << count;
                }
            }
            for (int c : cover) {
                ASSERT_EQ(c, 1);
            }
            if (members_with_rows > 1) {
                split++;
            } else {
                fallback++;
            }
        }
        multi_row_units += ok && rpc > 1;
    }
    // The random layouts exercise both outcomes, and units of several rows.
    EXPECT_GT(split, 1000u);
    EXPECT_GT(fallback, 250u);
    EXPECT_GT(multi_row_units, 100u);
}

TEST(MdevLines, RowsPerChunkIsTheGcdRule) {
    htp_tensor t = {};
    t.data       = 0x1000;
    t.ne[0]      = 10;  // 40 bytes a row: gcd(40, 128) = 8, so 16 rows make 640 bytes = 5 lines
    t.ne[1]      = 64;
    t.ne[2] = t.ne[3] = 1;
    t.nb[0]           = 4;
    t.nb[1]           = 40;
    t.nb[2] = t.nb[3] = 40 * 64;
    uint32_t rpc      = 0;
    EXPECT_TRUE(mdev_rows_per_chunk(t, 4, &rpc));
    EXPECT_EQ(rpc, 16u);
    t.nb[1] = 256;  // padded rows starting on lines: one row is a unit
    t.nb[2] = t.nb[3] = 256 * 64;
    EXPECT_TRUE(mdev_rows_per_chunk(t, 4, &rpc));
    EXPECT_EQ(rpc, 1u);
    t.nb[1] = 48;  // padded off the line: rows share lines however they are grouped
    t.nb[2] = t.nb[3] = 48 * 64;
    EXPECT_FALSE(mdev_rows_per_chunk(t, 4, &rpc));
    t.nb[1] = 40;
    t.nb[2] = t.nb[3] = 40 * 64;
    t.data += 4;  // base off the line
    EXPECT_FALSE(mdev_rows_per_chunk(t, 4, &rpc));
    t.data -= 4;
    t.ne[1] = 8;  // 8 packed rows per plane, planes padded to a line: a plane is half a unit
    t.ne[2] = 4;
    t.nb[2] = 384;
    t.nb[3] = 4 * 384;
    EXPECT_FALSE(mdev_rows_per_chunk(t, 4, &rpc));
    t.ne[1] = 32;  // 32 rows (1280 bytes) per plane, padded to 1408: two units a plane
    t.nb[2] = 1408;
    t.nb[3] = 4 * 1408;
    EXPECT_TRUE(mdev_rows_per_chunk(t, 4, &rpc));
    EXPECT_EQ(rpc, 16u);
    t.nb[0] = 8;  // dim 0 not dense
    EXPECT_FALSE(mdev_rows_per_chunk(t, 4, &rpc));
}

TEST(MdevLines, ElementPartitionsCoverEveryElementOnceInWholeLines) {
    std::mt19937 rng(99);
    uint32_t     split = 0;
    for (int iter = 0; iter < 500; iter++) {
        uint32_t   es;
        htp_tensor t = random_tensor(rng, &es);
        if (iter % 4 != 0) {  // mostly contiguous tensors (the others must fall back)
            t.nb[1] = t.ne[0] * es;
            t.nb[2] = t.ne[1] * t.nb[1];
            t.nb[3] = t.ne[2] * t.nb[2];
        }
        const uint64_t n      = (uint64_t) t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3];
        const bool     usable = mdev_is_contiguous(t, es) && mdev_data_aligned(t);
        for (uint32_t count = 2; count <= 4; count++) {
            std::vector<int>   cover(n, 0);
            std::set<uint64_t> seen;
            uint32_t           with_work = 0;
            for (uint32_t i = 0; i < count; i++) {
                const htp_mdev   m = group(i, count);
                const mdev_range r = mdev_partition_elements(t, es, &m);
                with_work += r.count > 0;
                std::set<uint64_t> mine;
                for (uint32_t e = r.start; e < r.start + r.count; e++) {
                    cover.at(e)++;
                    mine.insert((t.data + (uint64_t) e * es) / 128);
                }
                for (uint64_t l : mine) {
                    ASSERT_TRUE(seen.insert(l).second) << "members share line " << l << " (n " << n << ", es " << es << ")";
                }
                if (usable && r.count && r.start + r.count < n) {
                    EXPECT_EQ((t.data + (uint64_t) (r.start + r.count) * es) % 128, 0u) << "a share ends on a line";
                }
            }
            for (int c : cover) {
                ASSERT_EQ(c, 1);
            }
            if (!usable) {
                EXPECT_EQ(with_work, 1u) << "not contiguous or not aligned: member 0 alone";
            }
            split += with_work > 1;
        }
    }
    EXPECT_GT(split, 600u);
}

// Runs `count` members on threads, each calling body(member) with its own htp_mdev over the
// same fence slots (zeroed first), and returns each member's result.
template <class Body> static std::vector<int> run_members(uint32_t count, uint32_t first_seq, Body body) {
    uint8_t * window = test_double::window(1u << 20);
    std::memset(window + 4096, 0, HTP_FENCE_SLOT_SIZE * HTP_MDEV_MAX);
    std::vector<int>         result(count, -1);
    std::vector<std::thread> threads;
    for (uint32_t i = 0; i < count; i++) {
        threads.emplace_back([&, i] {
            test_double::window(1u << 20);  // this thread's htp_window_base
            htp_mdev m   = group(i, count);
            m.fence_base = 4096;
            m.fence_seq  = first_seq;
            m.batch_seq  = first_seq + 1;
            result[i]    = body(m);
        });
    }
    for (auto & t : threads) {
        t.join();
    }
    return result;
}

TEST(MdevFence, NoMemberPassesABarrierBeforeAllReachIt) {
    constexpr uint32_t kMembers = 3, kBarriers = 300;
    std::vector<std::atomic<uint32_t>> arrived(kBarriers);
    std::atomic<int> early{ 0 };
    auto res = run_members(kMembers, 0, [&](htp_mdev & m) {
        htp_trace tr = {};
        for (uint32_t k = 0; k < kBarriers; k++) {
            if ((k + m.idx) % 7 == 0) {
                std::this_thread::yield();  // uneven arrival
            }
            arrived[k]++;
            const int st = htp_mdev_barrier(&m, &tr, HTP_STATUS_OK, (uint16_t) k);
            if (st != HTP_STATUS_OK) {
                return st;
            }
            if (arrived[k].load() != kMembers) {
                early++;
            }
        }
        return (int) HTP_STATUS_OK;
    });
    for (int st : res) {
        EXPECT_EQ(st, HTP_STATUS_OK);
    }
    EXPECT_EQ(early.load(), 0);
}

TEST(MdevFence, SequenceNumbersWrapAround) {
    auto res = run_members(2, 0xffffffffu - 20, [&](htp_mdev & m) {
        htp_trace tr = {};
        for (uint32_t k = 0; k < 50; k++) {  // crosses 2^32
            const int st = htp_mdev_barrier(&m, &tr, HTP_STATUS_OK, (uint16_t) k);
            if (st != HTP_STATUS_OK) {
                return st;
            }
        }
        return (int) m.fence_seq;
    });
    EXPECT_EQ((uint32_t) res[0], 0xffffffffu - 20 + 50);
    EXPECT_EQ(res[0], res[1]);
}

TEST(MdevFence, APeersErrorUnblocksEveryoneWithThatError) {
    auto res = run_members(4, 100, [&](htp_mdev & m) {
        htp_trace tr = {};
        for (uint32_t k = 0; k < 10; k++) {
            const int mine = m.idx == 2 && k == 5 ? HTP_STATUS_DMA_ERROR : HTP_STATUS_OK;
            const int st   = htp_mdev_barrier(&m, &tr, mine, (uint16_t) k);
            if (st != HTP_STATUS_OK) {
                return st * 100 + (int) k;
            }
        }
        return (int) HTP_STATUS_OK;
    });
    for (int st : res) {
        EXPECT_EQ(st, HTP_STATUS_DMA_ERROR * 100 + 5);
    }
}

// A member that stopped without signalling (as one that took a peer's error one barrier early
// did when a slot's seq and status were two stores) must not hide another peer's error: the
// waiting member reads every missing peer each round and returns the error, not a timeout.
TEST(MdevFence, AnErrorEndsTheWaitWhileAnotherPeerIsMissing) {
    test_double::g_cycles           = 0;
    // A missing peer times out after 4M waits: member 1 may wait while member 2's thread is
    // still being created (ASan on a loaded host took longer than 4096 waits), yet a member
    // that read only the first missing peer would still end in a timeout, not the error.
    test_double::g_cycles_per_pause = HTP_FENCE_TIMEOUT_CYCLES >> 22;
    auto res = run_members(3, 0, [&](htp_mdev & m) {
        htp_trace tr = {};
        if (m.idx == 0) {
            return (int) HTP_STATUS_OK;  // never comes to the barrier
        }
        return htp_mdev_barrier(&m, &tr, m.idx == 2 ? HTP_STATUS_DMA_ERROR : HTP_STATUS_OK, 0);
    });
    test_double::g_cycles_per_pause = 0;
    EXPECT_EQ(res[1], HTP_STATUS_DMA_ERROR);
    EXPECT_EQ(res[2], HTP_STATUS_DMA_ERROR);
}

TEST(MdevFence, ErrorsOfAnEarlierBatchAreStale) {
    uint8_t * window = test_double::window(1u << 20);
    auto res = run_members(2, 1000, [&](htp_mdev & m) {
        htp_trace tr = {};
        if (m.idx == 1) {  // a failure left in slot 1 by a batch before this one
            auto * slot   = (htp_fence_slot *) (window + 4096 + HTP_FENCE_SLOT_SIZE);
            // Atomic, as fence_write stores (npu/src/mdev.cpp): the peer may be reading the slot.
            __atomic_store_n(&slot->status, (int) HTP_STATUS_MMU_FAULT, __ATOMIC_RELAXED);
            __atomic_store_n(&slot->seq, 990u, __ATOMIC_RELEASE);
        }
        return htp_mdev_barrier(&m, &tr, HTP_STATUS_OK, 0);
    });
    EXPECT_EQ(res[0], HTP_STATUS_OK);
    EXPECT_EQ(res[1], HTP_STATUS_OK);
}

TEST(MdevFence, APeerThatNeverArrivesTimesOut) {
    test_double::g_cycles           = 0;
    test_double::g_cycles_per_pause = HTP_FENCE_TIMEOUT_CYCLES / 4096;
    auto res = run_members(2, 0, [&](htp_mdev & m) {
        htp_trace tr = {};
        if (m.idx == 1) {
            return (int) HTP_STATUS_OK;  // never comes to the barrier
        }
        return htp_mdev_barrier(&m, &tr, HTP_STATUS_OK, 0);
    });
    test_double::g_cycles_per_pause = 0;
    EXPECT_EQ(res[0], HTP_STATUS_FENCE_ERROR);
}

// The dirty-tensor flush: the written ranges one by one, or one whole-cache flush once they add
// up to more than HTP_DCACHE_FLUSH_ALL_BYTES; the L2FLUSH event says which and how much.
TEST(MdevFlush, RangesOrTheWholeCachePastTheThreshold) {
    test_double::window(1u << 20);
    struct {
        htp_trace_buffer_header h;
        htp_trace_event         e[8];
    } buf = {};
    buf.h.capacity = 8;
    htp_trace tr   = {};
    tr.buf         = &buf.h;
    const uint64_t cleans0 = test_double::g_dcache_cleans, alls0 = test_double::g_dcache_flush_alls;

    const htp_dirty_range small[2] = { { 4096, 4096 }, { 65536, 8192 } };
    htp_mdev_flush(small, 2, &tr);
    EXPECT_EQ(test_double::g_dcache_cleans - cleans0, 2u);
    EXPECT_EQ(test_double::g_dcache_flush_alls - alls0, 0u);
    ASSERT_EQ(buf.h.count, 2u);
    EXPECT_EQ(buf.e[0].type, HTP_TRACE_EVT_L2FLUSH);
    EXPECT_EQ(buf.e[0].info, 12u);  // KiB, not the whole cache

    const htp_dirty_range exact[1] = { { 0, HTP_DCACHE_FLUSH_ALL_BYTES } };
    htp_mdev_flush(exact, 1, &tr);
    EXPECT_EQ(test_double::g_dcache_flush_alls - alls0, 0u);  // at the threshold: still ranges

    const htp_dirty_range large[2] = { { 0, HTP_DCACHE_FLUSH_ALL_BYTES }, { 65536, 1 } };
    htp_mdev_flush(large, 2, &tr);
    EXPECT_EQ(test_double::g_dcache_cleans - cleans0, 3u);
    EXPECT_EQ(test_double::g_dcache_flush_alls - alls0, 1u);
    ASSERT_EQ(buf.h.count, 6u);
    EXPECT_EQ(buf.e[4].info, HTP_L2FLUSH_INFO_ALL | 1025u);
}
