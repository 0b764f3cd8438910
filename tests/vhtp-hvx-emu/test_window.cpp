// The session address window: DDR mappings, VTCM, budget and refcounts, MMU faults on unmapped
// addresses (reported as status, the process survives).
#include <cstring>
#include <vector>

#include "htp/memory.h"
#include "htp/session.h"
#include "htp/work-queue.h"
#include "htp-abi/htp-status.h"
#include "vhtp-test-util.h"
#include "window.h"

using vhtp::Window;
using vhtp_test::ddr_buffer;

namespace {

struct read_job {
    dma_addr_t addr;
    uint32_t   value;
    bool       finished;
};

// Every thread loads the same device address; a fault ends the worker before `finished`.
void read_worker(unsigned, unsigned ith, void * data) {
    auto * j = static_cast<read_job *>(data);
    const uint32_t v = *static_cast<volatile uint32_t *>(htp_va(j->addr));
    if (ith == 0) {
        j->value    = v;
        j->finished = true;
    }
}

class WindowTest : public vhtp_test::core_fixture {
  protected:
    int read_on_workers(dma_addr_t addr, uint32_t * value) {
        read_job job{ addr, 0, false };
        work_queue_run(c->sinfo.work_queue, read_worker, &job, c->sinfo.n_hvx);
        if (value) {
            *value = job.value;
        }
        const int status = htp_fault_take();
        EXPECT_EQ(job.finished, status == HTP_STATUS_OK);
        return status;
    }
};

}  // namespace

TEST_F(WindowTest, MapReturnsWindowAddressesAndSharesData) {
    ddr_buffer a(100000), b(4096);
    dma_addr_t da = 0, db = 0;
    ASSERT_EQ(htp_mem_map(a.fd, a.size, 0, &da), HTP_STATUS_OK);
    ASSERT_EQ(htp_mem_map(b.fd, b.size, 1, &db), HTP_STATUS_OK);
    EXPECT_GE(da, 64u << 10);
    EXPECT_GE(db, 64u << 10);
    EXPECT_LT(uint64_t(da) + a.size, Window::kDdrEnd);
    // Distinct ranges that do not touch (a guard page separates mappings).
    EXPECT_TRUE(db >= da + 100000 + 4096 || da >= db + 4096 + 4096);

    for (uint32_t i = 0; i < a.size; ++i) {
        a.host[i] = uint8_t(i * 7);
    }
    const uint8_t * dev = static_cast<const uint8_t *>(htp_va(da));
    EXPECT_EQ(memcmp(dev, a.host, a.size), 0);
    static_cast<uint8_t *>(htp_va(db))[17] = 0x5a;  // device writes are visible to the host
    EXPECT_EQ(b.host[17], 0x5a);

    uint32_t v = 0;
    memcpy(&a.host[64], "\x11\x22\x33\x44", 4);
    EXPECT_EQ(read_on_workers(da + 64, &v), HTP_STATUS_OK);
    EXPECT_EQ(v, 0x44332211u);
    EXPECT_EQ(htp_mem_unmap(a.fd), HTP_STATUS_OK);
    EXPECT_EQ(htp_mem_unmap(b.fd), HTP_STATUS_OK);
    EXPECT_EQ(c->window.n_mappings(), 0u);
}

TEST_F(WindowTest, VtcmIsMappedAtItsFixedAddress) {
    EXPECT_EQ(c->sinfo.vtcm_base, 0xF0000000u);
    EXPECT_EQ(c->sinfo.vtcm_size, 8u << 20);
    uint8_t * v = static_cast<uint8_t *>(htp_va(c->sinfo.vtcm_base));
    v[0]                        = 1;
    v[c->sinfo.vtcm_size - 1]   = 2;
    EXPECT_EQ(read_on_workers(c->sinfo.vtcm_base, nullptr), HTP_STATUS_OK);
    EXPECT_EQ(read_on_workers(c->sinfo.vtcm_base + c->sinfo.vtcm_size, nullptr), HTP_STATUS_MMU_FAULT);
}

TEST_F(WindowTest, UnmappedAddressesAreReportedMmuFaults) {
    if (vhtp_test::under_tsan()) {
        GTEST_SKIP() << "concurrent faults on several threads crash TSan's signal delivery (see vhtp-test-util.h)";
    }
    EXPECT_EQ(read_on_workers(0, nullptr), HTP_STATUS_MMU_FAULT);           // NULL guard
    EXPECT_EQ(read_on_workers(0xFFF0, nullptr), HTP_STATUS_MMU_FAULT);      // still the guard
    EXPECT_EQ(read_on_workers(0x40000000, nullptr), HTP_STATUS_MMU_FAULT);  // nothing mapped
    EXPECT_EQ(c->fault_addr.load(), 0x40000000u);

    ddr_buffer a(8192);
    dma_addr_t da = 0;
    ASSERT_EQ(htp_mem_map(a.fd, a.size, 0, &da), HTP_STATUS_OK);
    EXPECT_EQ(read_on_workers(da + 8188, nullptr), HTP_STATUS_OK);
    EXPECT_EQ(read_on_workers(da + 8192, nullptr), HTP_STATUS_MMU_FAULT);  // guard page after the buffer
    ASSERT_EQ(htp_mem_unmap(a.fd), HTP_STATUS_OK);
    EXPECT_EQ(read_on_workers(da, nullptr), HTP_STATUS_MMU_FAULT);  // gone with its last reference
    // The session keeps working after faults.
    ASSERT_EQ(htp_mem_map(a.fd, a.size, 0, &da), HTP_STATUS_OK);
    a.host[0] = 9;
    uint32_t v = 0;
    EXPECT_EQ(read_on_workers(da, &v), HTP_STATUS_OK);
    EXPECT_EQ(v & 0xff, 9u);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);  // take clears
}

TEST_F(WindowTest, RefcountPerFd) {
    ddr_buffer a(4096);
    dma_addr_t d1 = 0, d2 = 0;
    ASSERT_EQ(htp_mem_map(a.fd, a.size, 0, &d1), HTP_STATUS_OK);
    ASSERT_EQ(htp_mem_map(a.fd, a.size, 0, &d2), HTP_STATUS_OK);
    EXPECT_EQ(d1, d2);
    EXPECT_EQ(c->window.n_mappings(), 1u);
    EXPECT_EQ(c->window.mapped_bytes(), 4096u);
    ASSERT_EQ(htp_mem_unmap(a.fd), HTP_STATUS_OK);
    EXPECT_EQ(c->window.n_mappings(), 1u);  // one reference left
    EXPECT_TRUE(c->window.contains(d1, 4096));
    ASSERT_EQ(htp_mem_unmap(a.fd), HTP_STATUS_OK);
    EXPECT_EQ(c->window.n_mappings(), 0u);
    EXPECT_FALSE(c->window.contains(d1, 1));
    EXPECT_EQ(htp_mem_unmap(a.fd), HTP_STATUS_MAP_FAILED);  // more unmaps than maps
}

TEST_F(WindowTest, BudgetExceededIsNoMemory) {
    // The fixture's budget is 64 MiB.
    ddr_buffer a(40u << 20), b(30u << 20), small(1u << 20);
    dma_addr_t da = 0, db = 0, ds = 0;
    ASSERT_EQ(htp_mem_map(a.fd, a.size, 1, &da), HTP_STATUS_OK);
    EXPECT_EQ(htp_mem_map(b.fd, b.size, 1, &db), HTP_STATUS_NO_MEMORY);
    EXPECT_EQ(htp_mem_map(small.fd, small.size, 0, &ds), HTP_STATUS_OK);
    ASSERT_EQ(htp_mem_unmap(a.fd), HTP_STATUS_OK);
    EXPECT_EQ(htp_mem_map(b.fd, b.size, 1, &db), HTP_STATUS_OK);  // fits once the budget is back
    EXPECT_EQ(c->window.mapped_bytes(), (30u << 20) + (1u << 20));
}

TEST_F(WindowTest, FirstFitReusesFreedRanges) {
    ddr_buffer a(1u << 20), b(1u << 20), c2(1u << 20);
    dma_addr_t da = 0, db = 0, dc = 0;
    ASSERT_EQ(htp_mem_map(a.fd, a.size, 0, &da), HTP_STATUS_OK);
    ASSERT_EQ(htp_mem_map(b.fd, b.size, 0, &db), HTP_STATUS_OK);
    EXPECT_EQ(da, 64u << 10);
    ASSERT_EQ(htp_mem_unmap(a.fd), HTP_STATUS_OK);
    ASSERT_EQ(htp_mem_map(c2.fd, c2.size, 0, &dc), HTP_STATUS_OK);
    EXPECT_EQ(dc, da);
}

TEST_F(WindowTest, PinnedBuffersGoToTheTopWeightsToTheBottom) {
    // Long-lived pinned ranges stay out of the way of the weights that slide in and out.
    ddr_buffer w(1u << 20), p1(8192), p2(1u << 20);
    dma_addr_t dw = 0, d1 = 0, d2 = 0;
    ASSERT_EQ(htp_mem_map(p1.fd, p1.size, 1, &d1), HTP_STATUS_OK);
    ASSERT_EQ(htp_mem_map(w.fd, w.size, 0, &dw), HTP_STATUS_OK);
    ASSERT_EQ(htp_mem_map(p2.fd, p2.size, 1, &d2), HTP_STATUS_OK);
    EXPECT_EQ(dw, 64u << 10);
    EXPECT_EQ(uint64_t(d1) + p1.size + 4096, Window::kDdrEnd);  // its guard page ends the DDR range
    EXPECT_EQ(uint64_t(d2) + p2.size + 4096, d1);               // the next one just below
    ASSERT_EQ(htp_mem_unmap(p1.fd), HTP_STATUS_OK);
    ddr_buffer p3(4096);
    dma_addr_t d3 = 0;
    ASSERT_EQ(htp_mem_map(p3.fd, p3.size, 1, &d3), HTP_STATUS_OK);
    EXPECT_EQ(uint64_t(d3) + p3.size + 4096, Window::kDdrEnd);  // the freed top range is reused
}

TEST_F(WindowTest, BadMapsFail) {
    ddr_buffer a(4096);
    dma_addr_t d = 0;
    EXPECT_EQ(htp_mem_map(-1, 4096, 0, &d), HTP_STATUS_MAP_FAILED);
    EXPECT_EQ(htp_mem_map(a.fd, 0, 0, &d), HTP_STATUS_MAP_FAILED);
    EXPECT_EQ(htp_mem_map(a.fd, 8192, 0, &d), HTP_STATUS_MAP_FAILED);  // larger than the buffer
    EXPECT_EQ(c->window.n_mappings(), 0u);
}

TEST_F(WindowTest, ReusedFdNumberGetsTheNewBuffer) {
    dma_addr_t d = 0;
    int        fd = -1;
    {
        ddr_buffer a(4096);
        a.host[0] = 1;
        ASSERT_EQ(htp_mem_map(a.fd, a.size, 0, &d), HTP_STATUS_OK);
        fd = a.fd;
    }  // freed without an unmap: the host forgot, the fd number will come back
    ddr_buffer b(4096);
    ASSERT_EQ(b.fd, fd);
    b.host[0] = 2;
    ASSERT_EQ(htp_mem_map(b.fd, b.size, 0, &d), HTP_STATUS_OK);
    EXPECT_EQ(*static_cast<uint8_t *>(htp_va(d)), 2);
    EXPECT_EQ(c->window.n_mappings(), 1u);
}

TEST(WindowApi, NotASessionThread) {
    dma_addr_t d = 0;
    EXPECT_EQ(htp_mem_map(0, 4096, 0, &d), HTP_STATUS_INTERNAL);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
}

TEST(WindowApi, SessionsHaveIndependentWindows) {
    char         err[256];
    // Two NPUs (their archs differ: one NPU has one arch); sessions of one NPU have their own windows too.
    vhtp::core * s0 = vhtp::core_create(vhtp_test::profile(79), 0, 0, err, sizeof(err));
    vhtp::core * s1 = vhtp::core_create(vhtp_test::profile(73), 1, 0, err, sizeof(err));
    ASSERT_TRUE(s0 && s1);
    ddr_buffer a(4096), b(8192);
    dma_addr_t a0 = 0, b1 = 0, a1 = 0;
    vhtp::bind_thread(s0);
    ASSERT_EQ(htp_mem_map(a.fd, a.size, 0, &a0), HTP_STATUS_OK);
    vhtp::bind_thread(s1);
    ASSERT_EQ(htp_mem_map(b.fd, b.size, 0, &b1), HTP_STATUS_OK);
    ASSERT_EQ(htp_mem_map(a.fd, a.size, 0, &a1), HTP_STATUS_OK);
    EXPECT_EQ(b1, 64u << 10);  // first in its own window
    EXPECT_EQ(s0->window.n_mappings(), 1u);
    EXPECT_EQ(s1->window.n_mappings(), 2u);
    a.host[5] = 77;
    EXPECT_EQ(static_cast<uint8_t *>(htp_va(a1))[5], 77);
    vhtp::bind_thread(s0);
    EXPECT_EQ(static_cast<uint8_t *>(htp_va(a0))[5], 77);
    vhtp::bind_thread(nullptr);
    vhtp::core_destroy(s0);
    vhtp::core_destroy(s1);
}
