// The DMA engine: FIFO completion with many transfers in flight, 1-D and 2-D descriptors,
// arch field widths, window checks at execution, empty pops, row lengths, offsets and overlap.
#include <cstring>
#include <numeric>
#include <vector>

#include "htp/dma-queue.h"
#include "htp/memory.h"
#include "htp/session.h"
#include "htp/work-queue.h"
#include "dma-engine.h"
#include "htp-abi/htp-status.h"
#include "vhtp-test-util.h"

using vhtp_test::ddr_buffer;

namespace {

class DmaTest : public vhtp_test::core_fixture {
  protected:
    void SetUp() override {
        core_fixture::SetUp();
        q = c->sinfo.dma[0];
    }
    dma_addr_t map(const ddr_buffer & b) {
        dma_addr_t a = 0;
        EXPECT_EQ(htp_mem_map(b.fd, b.size, 0, &a), HTP_STATUS_OK);
        return a;
    }
    uint8_t * vtcm() { return static_cast<uint8_t *>(htp_va(c->sinfo.vtcm_base)); }
    dma_queue * q = nullptr;
};

}  // namespace

TEST_F(DmaTest, FifoOrderWithManyInFlight) {
    const uint32_t cap = dma_queue_capacity(q);
    ASSERT_GE(cap, 16u);
    ddr_buffer src(cap * 1024);
    for (uint32_t i = 0; i < src.size; ++i) {
        src.host[i] = uint8_t(i / 1024 + 1);
    }
    const dma_addr_t s = map(src);
    // Fill the queue completely, then pop everything: dsts come back in push order.
    for (uint32_t i = 0; i < cap; ++i) {
        ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base + i * 1024, s + i * 1024, 1024)) << i;
    }
    EXPECT_FALSE(dma_queue_push_1d(q, c->sinfo.vtcm_base, s, 16));  // full
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    for (uint32_t i = 0; i < cap; ++i) {
        ASSERT_EQ(dma_queue_pop(q), c->sinfo.vtcm_base + i * 1024);
        EXPECT_EQ(vtcm()[i * 1024], uint8_t(i + 1));
        EXPECT_EQ(vtcm()[i * 1024 + 1023], uint8_t(i + 1));
    }
    // Interleaved pushes and pops (a double-buffered pipeline), many rounds around the ring.
    for (uint32_t i = 0; i < 10 * cap; ++i) {
        ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base + (i % 8) * 1024, s + (i % cap) * 1024, 1024));
        if (i >= 2) {
            ASSERT_EQ(dma_queue_pop(q), c->sinfo.vtcm_base + ((i - 2) % 8) * 1024);
        }
    }
    dma_queue_flush(q);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
}

TEST_F(DmaTest, OrderedRoundTripThroughVtcm) {
    // A pushed transfer out of VTCM must see what the transfer before it brought in.
    ddr_buffer a(64 << 10), b(64 << 10);
    std::iota(a.host, a.host + a.size, 0);
    const dma_addr_t da = map(a), db = map(b);
    for (uint32_t off = 0; off < a.size; off += 4096) {
        ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base + off, da + off, 4096));
        ASSERT_TRUE(dma_queue_push_1d(q, db + off, c->sinfo.vtcm_base + off, 4096));
    }
    for (uint32_t off = 0; off < a.size; off += 4096) {
        EXPECT_EQ(dma_queue_pop(q), c->sinfo.vtcm_base + off);
        EXPECT_EQ(dma_queue_pop(q), db + off);
    }
    EXPECT_EQ(memcmp(a.host, b.host, a.size), 0);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
}

// Every row length from 1 to 300 bytes and a few long ones, at odd offsets on both sides, 1-D
// and 2-D (the copy loop moves 128 and 32 bytes per step and the rest bytewise), and transfers
// within VTCM whose source and destination overlap in either direction (memmove's result).
TEST_F(DmaTest, RowLengthsOffsetsAndOverlap) {
    ddr_buffer src(64 << 10);
    for (uint32_t i = 0; i < src.size; ++i) {
        src.host[i] = uint8_t(i * 7 + i / 256);
    }
    const dma_addr_t s = map(src);
    const dma_addr_t v = c->sinfo.vtcm_base;
    std::vector<uint32_t> lengths;
    for (uint32_t n = 1; n <= 300; ++n) {
        lengths.push_back(n);
    }
    for (uint32_t n : { 1023u, 1088u, 4097u, 20000u }) {
        lengths.push_back(n);
    }
    for (uint32_t n : lengths) {
        const uint32_t so = n % 61, dof = 3 + n % 29;
        memset(vtcm(), 0xee, 24 << 10);
        ASSERT_TRUE(dma_queue_push_1d(q, v + dof, s + so, n));
        ASSERT_EQ(dma_queue_pop(q), v + dof);
        ASSERT_EQ(memcmp(vtcm() + dof, src.host + so, n), 0) << "1-D, " << n << " bytes";
        ASSERT_EQ(vtcm()[dof - 1], 0xee) << n;
        ASSERT_EQ(vtcm()[dof + n], 0xee) << n;
        if (n > 1024) {
            continue;
        }
        // Three rows of n bytes, src stride n + 5, dst stride n + 40.
        memset(vtcm(), 0xee, 24 << 10);
        ASSERT_TRUE(dma_queue_push(q, v + dof, s + so, n + 40, n + 5, n, 3));
        ASSERT_EQ(dma_queue_pop(q), v + dof);
        for (uint32_t r = 0; r < 3; ++r) {
            ASSERT_EQ(memcmp(vtcm() + dof + r * (n + 40), src.host + so + r * (n + 5), n), 0) << "2-D, " << n;
            ASSERT_EQ(vtcm()[dof + r * (n + 40) + n], 0xee) << "2-D, " << n;
        }
    }
    // Overlap: VTCM [0, 4096) moved up by 100 bytes and back down by 37.
    std::vector<uint8_t> ref(8192);
    for (uint32_t i = 0; i < 8192; ++i) {
        vtcm()[i] = ref[i] = uint8_t(i * 13 + 5);
    }
    ASSERT_TRUE(dma_queue_push_1d(q, v + 100, v, 4096));
    ASSERT_EQ(dma_queue_pop(q), v + 100);
    memmove(ref.data() + 100, ref.data(), 4096);
    ASSERT_EQ(memcmp(vtcm(), ref.data(), 8192), 0) << "overlap upward";
    ASSERT_TRUE(dma_queue_push_1d(q, v + 63, v + 100, 4096));
    ASSERT_EQ(dma_queue_pop(q), v + 63);
    memmove(ref.data() + 63, ref.data() + 100, 4096);
    ASSERT_EQ(memcmp(vtcm(), ref.data(), 8192), 0) << "overlap downward";
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
}

TEST_F(DmaTest, TwoDimensionalStrides) {
    // Gather a 64x16-byte tile out of a 64-row matrix with 1000-byte rows, into a dense tile.
    ddr_buffer m(64 * 1000);
    for (uint32_t i = 0; i < m.size; ++i) {
        m.host[i] = uint8_t(i * 31 + 7);
    }
    const dma_addr_t dm = map(m);
    ASSERT_TRUE(dma_queue_push(q, c->sinfo.vtcm_base, dm + 200, 16, 1000, 16, 64));
    EXPECT_EQ(dma_queue_pop(q), c->sinfo.vtcm_base);
    for (uint32_t r = 0; r < 64; ++r) {
        ASSERT_EQ(memcmp(vtcm() + r * 16, m.host + r * 1000 + 200, 16), 0) << r;
    }
    // Transposition-like: one 4-byte element per row, scattered down a column of a dst matrix.
    ddr_buffer out(256 * 512);
    const dma_addr_t dout = map(out);
    std::vector<uint8_t> col(256 * 4);
    for (uint32_t i = 0; i < col.size(); ++i) {
        col[i] = uint8_t(i ^ 0x5a);
    }
    memcpy(vtcm(), col.data(), col.size());
    ASSERT_TRUE(dma_queue_push(q, dout + 12, c->sinfo.vtcm_base, 512, 4, 4, 256));
    EXPECT_EQ(dma_queue_pop(q), dout + 12);
    for (uint32_t r = 0; r < 256; ++r) {
        ASSERT_EQ(memcmp(out.host + r * 512 + 12, col.data() + r * 4, 4), 0) << r;
        ASSERT_EQ(out.host[r * 512 + 16], 0) << r;  // nothing past the element
    }
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
}

TEST_F(DmaTest, FieldWidthsV79) {
    ddr_buffer m(1 << 20);
    const dma_addr_t dm = map(m);
    // 24-bit fields: a 2-D stride of 65536 is fine on v79.
    ASSERT_TRUE(dma_queue_push(q, c->sinfo.vtcm_base, dm, 16, 65536, 16, 8));
    EXPECT_EQ(dma_queue_pop(q), c->sinfo.vtcm_base);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
    EXPECT_FALSE(dma_queue_push(q, c->sinfo.vtcm_base, dm, 16, 1u << 24, 16, 2));
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    EXPECT_FALSE(dma_queue_push(q, c->sinfo.vtcm_base, dm, 16, 16, 16, 1u << 24));
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    EXPECT_FALSE(dma_queue_push(q, c->sinfo.vtcm_base, dm, 1u << 24, 16, 16, 2));
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    dma_queue_flush(q);
}

TEST_F(DmaTest, OneDimensionalLimitIs16MiB) {
    ddr_buffer a((16u << 20) + 4096);
    const dma_addr_t da = map(a);
    ddr_buffer b((16u << 20) + 4096);
    const dma_addr_t db = map(b);
    a.host[(16u << 20) - 1] = 0xab;
    // 1-D ignores strides and field widths: 16 MiB in one descriptor, even on v73's 16-bit fields.
    ASSERT_TRUE(dma_queue_push(q, db, da, 0, 0, 16u << 20, 1));
    EXPECT_EQ(dma_queue_pop(q), db);
    EXPECT_EQ(b.host[(16u << 20) - 1], 0xab);
    EXPECT_FALSE(dma_queue_push_1d(q, db, da, (16u << 20) + 1));
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
}

TEST_F(DmaTest, OutOfWindowCopiesNothing) {
    ddr_buffer a(8192);
    const dma_addr_t da = map(a);
    memset(a.host, 0x11, a.size);
    memset(vtcm(), 0x22, 8192);
    // src runs past the buffer's end (into its guard page): DMA error, dst untouched.
    ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base, da + 4096, 8192));
    EXPECT_EQ(dma_queue_pop(q), c->sinfo.vtcm_base);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    EXPECT_EQ(vtcm()[0], 0x22);
    // dst unmapped (NULL guard), src fine.
    ASSERT_TRUE(dma_queue_push_1d(q, 0x100, da, 64));
    EXPECT_EQ(dma_queue_pop(q), 0x100u);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    // 2-D whose last row leaves VTCM.
    ASSERT_TRUE(dma_queue_push(q, c->sinfo.vtcm_base + c->sinfo.vtcm_size - 1000, da, 100, 100, 100, 11));
    dma_queue_pop(q);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    // The queue keeps working.
    ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base, da, 64));
    dma_queue_pop(q);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
    EXPECT_EQ(vtcm()[0], 0x11);
}

TEST_F(DmaTest, EmptyPopIsAnError) {
    EXPECT_EQ(dma_queue_pop(q), 0u);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
}

// dma_queue_progress walks the pending transfers' sources in push order, 2 KiB a call (a
// transfer out of VTCM skipped, one whose source leaves the window only hinted), never runs
// behind the engine, and changes nothing the pops deliver.
TEST_F(DmaTest, ProgressWalksPendingSourcesAndChangesNothing) {
    vhtp::bind_thread(nullptr);
    vhtp::core_destroy(c);
    struct vhtp_device_info info = vhtp_test::profile(79);
    info.dma_thread              = 0;  // pops run the transfers: the cursor is this thread's alone
    char err[256]                = "";
    c                            = vhtp::core_create(info, 0, 0, err, sizeof(err));
    ASSERT_NE(c, nullptr) << err;
    vhtp::bind_thread(c);
    q = c->sinfo.dma[0];
    ASSERT_TRUE(q->prefetch);  // the default

    ddr_buffer a(64 << 10), b(8192);
    for (uint32_t i = 0; i < a.size; ++i) {
        a.host[i] = uint8_t((i * 2654435761u) >> 24);
    }
    const dma_addr_t da = map(a), db = map(b);
    const dma_addr_t vt = c->sinfo.vtcm_base;
    memset(b.host, 0, b.size);
    ASSERT_TRUE(dma_queue_push_1d(q, vt, da, 4096));                            // 0: 2 calls
    ASSERT_TRUE(dma_queue_push(q, vt + 8192, da + 8192, 256, 1024, 256, 8));    // 1: 8 rows of 256, 1 call
    ASSERT_TRUE(dma_queue_push_1d(q, db, vt, 4096));                            // 2: from VTCM, skipped
    ASSERT_TRUE(dma_queue_push_1d(q, vt + 16384, da + a.size - 1024, 4096));    // 3: leaves the window, 2 calls
    ASSERT_TRUE(dma_queue_push_1d(q, vt + 32768, da + 20000, 4096));            // 4: 2 calls
    const uint32_t after_call[] = { 0, 1, 2, 3, 4, 4, 5, 5 };
    for (uint32_t k = 0; k < sizeof(after_call) / sizeof(after_call[0]); ++k) {
        dma_queue_progress(q);
        EXPECT_EQ(q->pf_idx, after_call[k]) << "call " << k;
    }
    EXPECT_EQ(dma_queue_pop(q), vt);
    EXPECT_EQ(dma_queue_pop(q), vt + 8192);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
    EXPECT_EQ(memcmp(vtcm(), a.host, 4096), 0);
    for (uint32_t r = 0; r < 8; ++r) {
        EXPECT_EQ(memcmp(vtcm() + 8192 + r * 256, a.host + 8192 + r * 1024, 256), 0) << r;
    }
    EXPECT_EQ(dma_queue_pop(q), db);
    EXPECT_EQ(memcmp(b.host, a.host, 4096), 0);
    EXPECT_EQ(dma_queue_pop(q), vt + 16384);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);  // the hint did not hide the fault
    EXPECT_EQ(dma_queue_pop(q), vt + 32768);
    EXPECT_EQ(memcmp(vtcm() + 32768, a.host + 20000, 4096), 0);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);

    // Pops that ran past the cursor: the next call starts at the first transfer not yet run.
    for (uint32_t i = 0; i < 4; ++i) {
        ASSERT_TRUE(dma_queue_push_1d(q, vt + i * 4096, da + i * 4096, 4096));
    }
    dma_queue_progress(q);
    EXPECT_EQ(q->pf_idx, 5u);
    dma_queue_pop(q);
    dma_queue_pop(q);
    dma_queue_progress(q);
    dma_queue_progress(q);
    EXPECT_EQ(q->pf_idx, 8u);
    dma_queue_flush(q);
    EXPECT_EQ(memcmp(vtcm(), a.host, 4 * 4096), 0);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);

    // GGML_HEXAGON_DMA_PREFETCH=0: the call does nothing.
    q->prefetch = false;
    ASSERT_TRUE(dma_queue_push_1d(q, vt, da, 4096));
    dma_queue_progress(q);
    dma_queue_progress(q);
    EXPECT_EQ(q->pf_idx, 8u);
    dma_queue_pop(q);
}

// Every HVX thread streams through its own queue at once (the engine serves them all).
static vhtp::core * g_core = nullptr;
namespace {
struct stream_job {
    dma_addr_t src, dst;
    uint32_t   chunk, n_chunks;
};
void stream_worker(unsigned n, unsigned ith, void * data) {
    auto * j = static_cast<stream_job *>(data);
    dma_queue * q = g_core->sinfo.dma[ith];
    const dma_addr_t vt = g_core->sinfo.vtcm_base + ith * 4 * j->chunk;
    uint32_t pushed = 0, popped = 0;
    for (uint32_t k = ith; k < j->n_chunks; k += n) {
        const uint32_t slot = pushed % 4;
        dma_queue_push_1d(q, vt + slot * j->chunk, j->src + k * j->chunk, j->chunk);
        dma_queue_push_1d(q, j->dst + k * j->chunk, vt + slot * j->chunk, j->chunk);
        pushed++;
        if (pushed - popped > 2) {
            dma_queue_pop(q);
            dma_queue_pop(q);
            popped++;
        }
    }
    while (popped < pushed) {
        dma_queue_pop(q);
        dma_queue_pop(q);
        popped++;
    }
}
}  // namespace

TEST_F(DmaTest, AllThreadsStreamAtOnce) {
    g_core = c;
    ddr_buffer a(1 << 20), b(1 << 20);
    for (uint32_t i = 0; i < a.size; ++i) {
        a.host[i] = uint8_t((i * 2654435761u) >> 24);
    }
    stream_job j{ map(a), map(b), 4096, uint32_t(a.size / 4096) };
    for (int rep = 0; rep < 3; ++rep) {
        memset(b.host, 0, b.size);
        work_queue_run(c->sinfo.work_queue, stream_worker, &j, c->sinfo.n_hvx);
        EXPECT_EQ(memcmp(a.host, b.host, a.size), 0) << rep;
    }
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
}

class DmaTestV73 : public DmaTest {
  protected:
    void SetUp() override {
        open(73);
        q = c->sinfo.dma[0];
    }
};

TEST_F(DmaTestV73, SixteenBitFields) {
    EXPECT_EQ(c->sinfo.dma_field_bits, 16u);
    ddr_buffer m(1 << 20);
    const dma_addr_t dm = map(m);
    ASSERT_TRUE(dma_queue_push(q, c->sinfo.vtcm_base, dm, 16, 65535, 16, 8));
    EXPECT_EQ(dma_queue_pop(q), c->sinfo.vtcm_base);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
    EXPECT_FALSE(dma_queue_push(q, c->sinfo.vtcm_base, dm, 16, 65536, 16, 8));  // src stride
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    EXPECT_FALSE(dma_queue_push(q, c->sinfo.vtcm_base, dm, 65536, 16, 16, 8));  // dst stride
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    EXPECT_FALSE(dma_queue_push(q, c->sinfo.vtcm_base, dm, 1, 1, 1, 65536));  // rows
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    EXPECT_FALSE(dma_queue_push(q, c->sinfo.vtcm_base, dm, 65536, 65536, 65536, 2));  // row size
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    // 1-D descriptors are not bound by the 2-D widths.
    ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base, dm, 1 << 20));
    dma_queue_pop(q);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
}
