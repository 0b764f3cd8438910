// The VTCM check (htp/core-check.h, docs/vhtp.md "VTCM check"): in code compiled as the check
// build compiles NPU libraries, a scalar load or store to VTCM fails as an MMU fault with one
// `vhtp: VTCM check:` line, while HVX loads and stores in VTCM, DMA into VTCM and scalar
// accesses to DDR go on as before.
#include <algorithm>
#include <memory>
#include <string>

#include "htp/dma-queue.h"
#include "htp/memory.h"
#include "htp/session.h"
#include "htp/work-queue.h"
#include "htp-abi/htp-status.h"
#include "vhtp-test-util.h"
#include "vtcm-check-planted.h"

namespace {

class VtcmCheck : public vhtp_test::core_fixture {
  protected:
    void SetUp() override {
        open(79, 2);
        buf = std::make_unique<vhtp_test::ddr_buffer>(4096);
        ASSERT_EQ(htp_mem_map(buf->fd, buf->size, 1, &ddr), HTP_STATUS_OK);
        auto * f = reinterpret_cast<float *>(buf->host);
        for (int i = 0; i < 64; i++) {
            f[i] = float(i);
        }
    }
    void TearDown() override {
        htp_mem_unmap(buf->fd);
        buf.reset();
        core_fixture::TearDown();
    }
    // Runs the planted kernel on the session's HVX workers; returns the session's fault status
    // and what the kernel printed.
    int run(int which, planted_job & j, std::string & err) {
        j.vtcm  = c->sinfo.vtcm_base;
        j.ddr   = ddr;
        j.which = which;
        testing::internal::CaptureStderr();
        work_queue_run(c->sinfo.work_queue, planted_worker, &j, 2);
        err = testing::internal::GetCapturedStderr();
        return htp_fault_take();
    }
    std::unique_ptr<vhtp_test::ddr_buffer> buf;
    dma_addr_t ddr = 0;
};

TEST_F(VtcmCheck, HvxAndDmaReachVtcmAndScalarsReachDdr) {
    // DMA fills VTCM; HVX reads and writes it; the scalars read and write DDR.
    dma_queue * q = c->sinfo.dma[0];
    ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base, ddr, 128));
    dma_queue_pop(q);
    ASSERT_EQ(htp_fault_take(), HTP_STATUS_OK);
    planted_job j = {};
    std::string err;
    EXPECT_EQ(run(PLANTED_HVX_COPY, j, err), HTP_STATUS_OK) << err;
    EXPECT_EQ(j.done, 1);
    EXPECT_EQ(err, "");
    EXPECT_EQ(j.result, 8.0f);
    EXPECT_EQ(reinterpret_cast<float *>(buf->host)[7], 8.0f);
    // The HVX add landed in VTCM: DMA it back to DDR and look.
    ASSERT_TRUE(dma_queue_push_1d(q, ddr + 1024, c->sinfo.vtcm_base + 128, 128));
    dma_queue_pop(q);
    ASSERT_EQ(htp_fault_take(), HTP_STATUS_OK);
    EXPECT_EQ(reinterpret_cast<float *>(buf->host + 1024)[5], 6.0f);
}

TEST_F(VtcmCheck, PlantedScalarLoadFaults) {
    planted_job j = {};
    std::string err;
    EXPECT_EQ(run(PLANTED_SCALAR_LOAD, j, err), HTP_STATUS_MMU_FAULT);
    EXPECT_EQ(j.done, 0);  // the kernel was abandoned at the access
    EXPECT_NE(err.find("vhtp: VTCM check: NPU 0 session 0: scalar load of 4 bytes at VTCM address 0xf0000084"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find(", pc "), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;  // one line
    EXPECT_EQ(c->fault_addr.load(), c->sinfo.vtcm_base + 33 * 4);
}

TEST_F(VtcmCheck, PlantedScalarStoreFaults) {
    planted_job j = {};
    std::string err;
    EXPECT_EQ(run(PLANTED_SCALAR_STORE, j, err), HTP_STATUS_MMU_FAULT);
    EXPECT_EQ(j.done, 0);
    EXPECT_NE(err.find("scalar store of 4 bytes at VTCM address 0xf0000088"), std::string::npos) << err;
    // The session carries on: the next op's HVX accesses pass.
    planted_job k = {};
    EXPECT_EQ(run(PLANTED_HVX_COPY, k, err), HTP_STATUS_OK) << err;
    EXPECT_EQ(k.done, 1);
}

}  // namespace
