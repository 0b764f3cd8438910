// The vHTP's multi-device ownership checker (vhtp/src/mdev-check.h): mistakes that real
// hardware punishes silently are planted on purpose, and each must come back as
// HTP_STATUS_OWNERSHIP; correct use must not.
#include <gtest/gtest.h>

#include <cstring>

#include "core.h"
#include "fault.h"
#include "htp-abi/htp-abi.h"
#include "htp/htp-device.h"
#include "vhtp-test-util.h"

using vhtp_test::ddr_buffer;

namespace {

// Two members of one device group (session 0 of NPUs 0 and 1) sharing a fence buffer and a
// data buffer; the test thread acts for either by binding to its core.
class group_fixture : public ::testing::Test {
  protected:
    void SetUp() override {
        char err[256] = "";
        for (uint32_t i = 0; i < 2; i++) {
            member[i] = vhtp::core_create(vhtp_test::profile(79), i, 0, err, sizeof(err));
            ASSERT_NE(member[i], nullptr) << err;
            vhtp::bind_thread(member[i]);
            ASSERT_EQ(htp_mem_map(fences.fd, fences.size, 1, &fence_addr[i]), HTP_STATUS_OK);
            ASSERT_EQ(htp_mem_map(data.fd, data.size, 1, &data_addr[i]), HTP_STATUS_OK);
            htp_fence_register(slot(i), i, 2);
        }
        vhtp::bind_thread(nullptr);
    }
    void TearDown() override {
        vhtp::bind_thread(nullptr);
        for (vhtp::core * c : member) {
            vhtp::core_destroy(c);
        }
    }

    void * slot(uint32_t i) { return htp_va(fence_addr[i] + i * HTP_FENCE_SLOT_SIZE); }

    // Member i writes data bytes [offset, offset + bytes) from its VTCM by DMA; pop: wait for it.
    void dma_write(uint32_t i, uint32_t offset, uint32_t bytes, bool pop = true) {
        vhtp::bind_thread(member[i]);
        dma_queue * q = member[i]->sinfo.dma[0];
        ASSERT_TRUE(dma_queue_push_1d(q, data_addr[i] + offset, member[i]->sinfo.vtcm_base, bytes));
        if (pop) {
            dma_queue_pop(q);
        }
        vhtp::bind_thread(nullptr);
    }

    // Member i signals barrier seq (as npu/src/mdev.cpp does) and returns its fault status.
    int signal(uint32_t i, uint32_t seq) {
        vhtp::bind_thread(member[i]);
        auto * f = (htp_fence_slot *) slot(i);
        f->status = HTP_STATUS_OK;
        f->seq    = seq;
        htp_dcache_clean_invalidate(f, HTP_FENCE_SLOT_SIZE);
        const int st = htp_fault_take();
        vhtp::bind_thread(nullptr);
        return st;
    }

    ddr_buffer   fences{ 2 * HTP_FENCE_SLOT_SIZE }, data{ 1 << 16 };
    vhtp::core * member[2]     = {};
    dma_addr_t   fence_addr[2] = {}, data_addr[2] = {};
};

TEST_F(group_fixture, DisjointDmaWritesPass) {
    dma_write(0, 0, 256);
    dma_write(1, 256, 256);
    EXPECT_EQ(signal(0, 1), HTP_STATUS_OK);
    EXPECT_EQ(signal(1, 1), HTP_STATUS_OK);
}

TEST_F(group_fixture, OverlappingDmaDestinationsAreCaught) {
    dma_write(0, 0, 256);
    dma_write(1, 200, 256);  // bytes 200..255 written by both
    EXPECT_EQ(signal(0, 1), HTP_STATUS_OK);
    EXPECT_EQ(signal(1, 1), HTP_STATUS_OWNERSHIP);
}

TEST_F(group_fixture, WritesCountOnlyForTheirOwnBarrier) {
    dma_write(0, 0, 256);
    EXPECT_EQ(signal(0, 1), HTP_STATUS_OK);
    EXPECT_EQ(signal(1, 1), HTP_STATUS_OK);
    dma_write(1, 0, 256);  // the same bytes, but in the next op
    EXPECT_EQ(signal(0, 2), HTP_STATUS_OK);
    EXPECT_EQ(signal(1, 2), HTP_STATUS_OK);
}

TEST_F(group_fixture, StridedRowsAreComparedRowByRow) {
    // Member 0 writes 64 bytes of every 128-byte row, member 1 the other 64: no overlap.
    vhtp::bind_thread(member[0]);
    ASSERT_TRUE(dma_queue_push(member[0]->sinfo.dma[0], data_addr[0], member[0]->sinfo.vtcm_base, 128, 64, 64, 8));
    dma_queue_pop(member[0]->sinfo.dma[0]);
    vhtp::bind_thread(member[1]);
    ASSERT_TRUE(dma_queue_push(member[1]->sinfo.dma[0], data_addr[1] + 64, member[1]->sinfo.vtcm_base, 128, 64, 64, 8));
    dma_queue_pop(member[1]->sinfo.dma[0]);
    vhtp::bind_thread(nullptr);
    EXPECT_EQ(signal(0, 1), HTP_STATUS_OK);
    EXPECT_EQ(signal(1, 1), HTP_STATUS_OK);
    dma_write(1, 1000, 8);  // row 7 of member 0 covers bytes 896..959: 1000 is outside
    dma_write(0, 1000 + 32, 8);
    EXPECT_EQ(signal(0, 2), HTP_STATUS_OK);
    EXPECT_EQ(signal(1, 2), HTP_STATUS_OK);
}

TEST_F(group_fixture, SignallingWithDmaInFlightIsCaught) {
    dma_write(0, 0, 256, /*pop=*/false);
    EXPECT_EQ(signal(0, 1), HTP_STATUS_OWNERSHIP);
    vhtp::bind_thread(member[0]);
    dma_queue_pop(member[0]->sinfo.dma[0]);  // drain before the fixture closes the session
    vhtp::bind_thread(nullptr);
}

TEST_F(group_fixture, ReadingAPeersSlotIsNoSignal) {
    dma_write(0, 0, 256, /*pop=*/false);
    vhtp::bind_thread(member[0]);
    htp_dcache_clean_invalidate(slot(1), HTP_FENCE_SLOT_SIZE);  // a fence read, not a signal
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
    dma_queue_pop(member[0]->sinfo.dma[0]);
    vhtp::bind_thread(nullptr);
}

}  // namespace
