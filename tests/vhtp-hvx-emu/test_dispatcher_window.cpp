// The sliding window of the real NPU library (npu/src/dispatcher.cpp), through the session
// message queue as the host drives it: weight buffers are delayed mappings given up least
// recently used first when a batch needs room, pinned buffers stay, and the response counts
// the maps, unmaps and bytes. Batches carry buffers only (no ops): what is tested is the
// buffer preparation every batch goes through.
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "fixture-session-util.h"
#include "htp-abi/htp-abi.h"
#include "htp-abi/htp-fastdiv.h"

using vhtp_test::ddr_buffer;
using vhtp_test::session_env;

namespace {

constexpr uint64_t kMiB = 1ull << 20;

struct buf {
    const ddr_buffer * mem;
    bool               pinned;
};

class DispatcherWindow : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string why;
        s = vhtp_test::open_session(0, 0, vhtp_test::bin_path("libggml-htp-v79.so"), &why);
        ASSERT_NE(s, nullptr) << why;
        ASSERT_EQ(vhtp_session_device_info(s)->vmem_budget, 64 * kMiB);  // session_env's budget
    }
    void TearDown() override { vhtp_session_close(s); }

    // One batch naming `bufs` (and no op); returns the response.
    htp_batch_response batch(std::initializer_list<buf> bufs, uint32_t kind = HTP_MSG_OPS) {
        htp_msg_header h{};
        h.magic          = HTP_MSG_MAGIC;
        h.abi_version    = HTP_ABI_VERSION;
        h.kind           = kind;
        h.n_bufs         = uint32_t(bufs.size());
        h.seq            = ++seq;
        h.trace_buf      = HTP_NO_BUF;
        h.mdev_count     = 1;
        h.mdev_count_div = htp_fastdiv_init(1);
        h.fence_buf      = HTP_NO_BUF;
        std::vector<uint8_t> msg(htp_msg_size(h.n_bufs, 0));
        memcpy(msg.data(), &h, sizeof(h));
        size_t off = sizeof(h);
        for (const buf & b : bufs) {
            const htp_buf_desc d{ b.mem->fd, b.pinned ? uint32_t(HTP_BUF_PINNED) : 0u, b.mem->size };
            memcpy(msg.data() + off, &d, sizeof(d));
            off += sizeof(d);
        }
        char err[256] = "";
        EXPECT_EQ(vhtp_session_send(s, msg.data(), uint32_t(msg.size()), err, sizeof(err)), 0) << err;
        std::vector<uint8_t> resp(4096);
        uint32_t             len = 0;
        EXPECT_EQ(vhtp_session_recv(s, resp.data(), uint32_t(resp.size()), &len, err, sizeof(err)), 0) << err;
        htp_batch_response r{};
        EXPECT_GE(len, sizeof(r));
        memcpy(&r, resp.data(), sizeof(r));
        EXPECT_EQ(r.magic, HTP_RESP_MAGIC);
        EXPECT_EQ(r.seq, seq);
        return r;
    }

    session_env    env;
    vhtp_session * s   = nullptr;
    uint64_t       seq = 0;
};

// The response's status and window counters.
void expect_window(const htp_batch_response & r, int status, uint32_t maps, uint32_t unmaps, uint64_t bytes,
                   uint64_t mapped) {
    EXPECT_EQ(r.status, status);
    EXPECT_EQ(r.n_maps, maps);
    EXPECT_EQ(r.n_unmaps, unmaps);
    EXPECT_EQ(r.bytes_mapped, bytes);
    EXPECT_EQ(r.window_mapped, mapped);
}
#define EXPECT_WINDOW(...)          \
    do {                            \
        SCOPED_TRACE("");           \
        expect_window(__VA_ARGS__); \
    } while (0)

}  // namespace

TEST_F(DispatcherWindow, WeightsAreMappedWhenNamedAndKeptWhileThereIsRoom) {
    ddr_buffer a(24 * kMiB), b(24 * kMiB);
    EXPECT_WINDOW(batch({ { &a, false } }), HTP_STATUS_OK, 1u, 0u, 24 * kMiB, 24 * kMiB);
    EXPECT_WINDOW(batch({ { &a, false }, { &b, false } }), HTP_STATUS_OK, 1u, 0u, 24 * kMiB, 48 * kMiB);
    EXPECT_WINDOW(batch({ { &b, false } }), HTP_STATUS_OK, 0u, 0u, 0u, 48 * kMiB);  // still mapped
}

TEST_F(DispatcherWindow, TheMostRecentlyUsedWeightMakesRoom) {
    ddr_buffer a(24 * kMiB), b(24 * kMiB), c(24 * kMiB);
    EXPECT_WINDOW(batch({ { &a, false }, { &b, false } }), HTP_STATUS_OK, 2u, 0u, 48 * kMiB, 48 * kMiB);
    EXPECT_WINDOW(batch({ { &b, false } }), HTP_STATUS_OK, 0u, 0u, 0u, 48 * kMiB);
    // 72 MiB do not fit 64: b (named by the last batch) goes, a stays.
    EXPECT_WINDOW(batch({ { &c, false } }), HTP_STATUS_OK, 1u, 1u, 24 * kMiB, 48 * kMiB);
    EXPECT_WINDOW(batch({ { &a, false } }), HTP_STATUS_OK, 0u, 0u, 0u, 48 * kMiB);
    // Now a is the most recently used one: b replaces it, c stays.
    EXPECT_WINDOW(batch({ { &b, false } }), HTP_STATUS_OK, 1u, 1u, 24 * kMiB, 48 * kMiB);
    EXPECT_WINDOW(batch({ { &c, false } }), HTP_STATUS_OK, 0u, 0u, 0u, 48 * kMiB);
}

TEST_F(DispatcherWindow, AWalkOverMoreWeightsThanFitRemapsOnlyThePartThatDoesNot) {
    // A graph's walk over its weights, token after token: four 20 MiB weights in a 64 MiB
    // budget (three fit). Least-recently-used would map all four on every walk.
    ddr_buffer w[4] = { ddr_buffer(20 * kMiB), ddr_buffer(20 * kMiB), ddr_buffer(20 * kMiB), ddr_buffer(20 * kMiB) };
    uint32_t   maps_per_walk[6] = {};
    for (int walk = 0; walk < 6; walk++) {
        for (const ddr_buffer & x : w) {
            const htp_batch_response r = batch({ { &x, false } });
            ASSERT_EQ(r.status, HTP_STATUS_OK);
            EXPECT_LE(r.window_mapped, 64 * kMiB);
            maps_per_walk[walk] += r.n_maps;
        }
    }
    EXPECT_EQ(maps_per_walk[0], 4u);
    uint32_t later = 0;
    for (int walk = 1; walk < 6; walk++) {
        EXPECT_GE(maps_per_walk[walk], 1u) << "walk " << walk;  // one weight does not fit
        EXPECT_LE(maps_per_walk[walk], 2u) << "walk " << walk;
        later += maps_per_walk[walk];
    }
    EXPECT_LE(later, 7u);  // least-recently-used: 20
}

TEST_F(DispatcherWindow, PinnedBuffersAreNeverGivenUp) {
    ddr_buffer kv(40 * kMiB), w1(20 * kMiB), w2(20 * kMiB), w3(30 * kMiB);
    EXPECT_WINDOW(batch({ { &kv, true }, { &w1, false } }), HTP_STATUS_OK, 2u, 0u, 60 * kMiB, 60 * kMiB);
    // The pinned buffer is older than w1, but only w1 may go.
    EXPECT_WINDOW(batch({ { &w2, false } }), HTP_STATUS_OK, 1u, 1u, 20 * kMiB, 60 * kMiB);
    // 40 pinned + 30 exceed the budget even with every weight given up: the batch fails...
    const htp_batch_response r = batch({ { &w3, false } });
    EXPECT_EQ(r.status, HTP_STATUS_NO_MEMORY);
    EXPECT_EQ(r.window_mapped, 40 * kMiB);  // ...after giving w2 up; the pinned buffer is still there
    // ...and the session carries on.
    EXPECT_WINDOW(batch({ { &kv, true }, { &w1, false } }), HTP_STATUS_OK, 1u, 0u, 20 * kMiB, 60 * kMiB);
}

TEST_F(DispatcherWindow, ABatchNeverEvictsItsOwnBuffers) {
    ddr_buffer a(24 * kMiB), b(24 * kMiB), c(24 * kMiB);
    // Together 72 MiB: preparing c must not give up a or b, which the same batch names.
    const htp_batch_response r = batch({ { &a, false }, { &b, false }, { &c, false } });
    EXPECT_EQ(r.status, HTP_STATUS_NO_MEMORY);
    EXPECT_EQ(r.window_mapped, 48 * kMiB);
    // Without b the batch fits; b, not named, is the one that goes.
    EXPECT_WINDOW(batch({ { &a, false }, { &c, false } }), HTP_STATUS_OK, 1u, 1u, 24 * kMiB, 48 * kMiB);
}

TEST_F(DispatcherWindow, UnmapMessagesDropPinnedBuffers) {
    ddr_buffer kv(40 * kMiB), w(30 * kMiB);
    EXPECT_WINDOW(batch({ { &kv, true } }), HTP_STATUS_OK, 1u, 0u, 40 * kMiB, 40 * kMiB);
    EXPECT_EQ(batch({ { &w, false } }).status, HTP_STATUS_NO_MEMORY);
    EXPECT_EQ(batch({ { &kv, true } }, HTP_MSG_UNMAP).status, HTP_STATUS_OK);  // the host freed it
    EXPECT_WINDOW(batch({ { &w, false } }), HTP_STATUS_OK, 1u, 0u, 30 * kMiB, 30 * kMiB);
}
