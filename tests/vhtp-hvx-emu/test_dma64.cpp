// 64-bit DMA bases (VHTP_SESSION_DMA64, the host's GGML_HEXAGON_DMA64): a v81 session whose
// weights (unpinned buffers) are mapped above 4 GiB, in the DMA engine's view only: DMA works
// there, a core load or store faults (a v81 core cannot load a 64-bit address), and an address
// truncated to 32 bits lands where nothing is mapped and faults instead of working by luck.
// Pinned buffers (activations, KV cache) stay in the 32-bit area, where the core reaches them.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>

#include "fixture-session-util.h"
#include "htp/dma-queue.h"
#include "htp/memory.h"
#include "htp/session.h"
#include "htp/work-queue.h"
#include "htp-abi/htp-status.h"
#include "vhtp-test-util.h"
#include "window.h"

using vhtp::Window;
using vhtp_test::ddr_buffer;
using vhtp_test::scoped_env;

namespace {

constexpr uint64_t kGiB = 1ull << 30;

struct read_job {
    dma_addr_t addr;
    uint32_t   value;
};

void read_worker(unsigned, unsigned ith, void * data) {
    auto * j = static_cast<read_job *>(data);
    const uint32_t v = *static_cast<volatile uint32_t *>(htp_va(j->addr));
    if (ith == 0) {
        j->value = v;
    }
}

class Dma64Test : public vhtp_test::core_fixture {
  protected:
    void SetUp() override {
        struct vhtp_device_info info = vhtp_test::profile(81);
        ASSERT_EQ(info.dma64_capable, 1u);
        info.dma64       = 1;
        info.vmem_budget = info.dma64_vmem_budget;
        char err[256]    = "";
        c                = vhtp::core_create(info, 0, 0, err, sizeof(err));
        ASSERT_NE(c, nullptr) << err;
        vhtp::bind_thread(c);
        q = c->sinfo.dma[0];
    }
    dma_addr_t map(const ddr_buffer & b, int pinned = 0) {
        dma_addr_t a = 0;
        EXPECT_EQ(htp_mem_map(b.fd, b.size, pinned, &a), HTP_STATUS_OK);
        return a;
    }
    int read_on_workers(dma_addr_t addr, uint32_t * value) {
        read_job job{ addr, 0 };
        work_queue_run(c->sinfo.work_queue, read_worker, &job, c->sinfo.n_hvx);
        if (value) {
            *value = job.value;
        }
        return htp_fault_take();
    }
    uint8_t * vtcm() { return static_cast<uint8_t *>(htp_va(c->sinfo.vtcm_base)); }
    dma_queue * q = nullptr;
};

}  // namespace

TEST(Dma64Profile, OnlyV81HasIt) {
    scoped_env vmem("GGML_HEXAGON_VMEM", nullptr);
    for (uint32_t arch : { 73u, 75u, 79u }) {
        const struct vhtp_device_info info = vhtp_test::profile(arch);
        EXPECT_EQ(info.dma64_capable, 0u) << arch;
        EXPECT_EQ(info.dma64_window_size, 0u) << arch;
        EXPECT_EQ(info.dma64, 0u) << arch;
    }
    const struct vhtp_device_info info = vhtp_test::profile(81);
    EXPECT_EQ(info.dma64_capable, 1u);
    EXPECT_EQ(info.dma64, 0u);                           // the pre-open profile is not a session's
    EXPECT_EQ(info.window_size, Window::kDdrEnd);        // a 32-bit session's window
    EXPECT_EQ(info.dma64_window_size, 64 * kGiB);        // the DMA64 DDR area
    EXPECT_EQ(info.dma64_vmem_budget, 64 * kGiB);        // default: all of it
}

TEST(Dma64Profile, VmemOverridesTheDma64Budget) {
    scoped_env arch("GGML_HEXAGON_ARCH", "v81");
    struct vhtp_device_info info;
    char             err[256] = "";
    {
        scoped_env vmem("GGML_HEXAGON_VMEM", "8192");  // more than a 32-bit window holds
        ASSERT_EQ(vhtp_device_info(&info, err, sizeof(err)), 0) << err;
        EXPECT_EQ(info.dma64_vmem_budget, 8 * kGiB);
        EXPECT_EQ(info.vmem_budget, Window::kDdrEnd - Window::kDdrBase);  // a 32-bit session: its window
    }
    {
        scoped_env vmem("GGML_HEXAGON_VMEM", "224");
        ASSERT_EQ(vhtp_device_info(&info, err, sizeof(err)), 0) << err;
        EXPECT_EQ(info.dma64_vmem_budget, 224ull << 20);
        EXPECT_EQ(info.vmem_budget, 224ull << 20);
    }
    {
        scoped_env vmem("GGML_HEXAGON_VMEM", "65537");  // beyond the 64 GiB area
        EXPECT_EQ(vhtp_device_info(&info, err, sizeof(err)), -1);
        EXPECT_NE(strstr(err, "GGML_HEXAGON_VMEM"), nullptr) << err;
    }
    scoped_env v79("GGML_HEXAGON_ARCH", "v79");
    scoped_env vmem("GGML_HEXAGON_VMEM", "8192");  // a v79 has only the 32-bit window
    EXPECT_EQ(vhtp_device_info(&info, err, sizeof(err)), -1);
}

TEST_F(Dma64Test, WeightsAreMappedAbove4GiBForDmaOnly) {
    EXPECT_TRUE(c->window.dma64());
    EXPECT_EQ(c->sinfo.vtcm_base, Window::kVtcmBase);
    ddr_buffer a(100000), b(4096);
    const dma_addr_t da = map(a), db = map(b);
    EXPECT_GE(da, 4 * kGiB);
    EXPECT_GE(db, 4 * kGiB);
    EXPECT_LT(db + b.size, Window::kDdr64End);
    EXPECT_TRUE(db >= da + 100000 + 4096 || da >= db + 4096 + 4096);  // guard page between them
    EXPECT_TRUE(c->window.dma_only(da));

    // DMA reaches them.
    std::iota(a.host, a.host + a.size, 0);
    ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base, da, 4096));
    dma_queue_pop(q);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
    EXPECT_EQ(memcmp(vtcm(), a.host, 4096), 0);

    // The planted scalar read of a DMA64 buffer by an HVX worker: an MMU fault, one line naming
    // the address and the buffer.
    memcpy(&a.host[64], "\x11\x22\x33\x44", 4);
    uint32_t v = 0;
    testing::internal::CaptureStderr();
    EXPECT_EQ(read_on_workers(da + 64, &v), HTP_STATUS_MMU_FAULT);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(c->fault_addr.load(), da + 64);
    char addr[32];
    snprintf(addr, sizeof(addr), "0x%016llx", static_cast<unsigned long long>(da + 64));
    EXPECT_NE(err.find(std::string("vhtp: MMU fault at device address ") + addr), std::string::npos) << err;
    EXPECT_NE(err.find("a core access to the DMA64-only buffer 'test' (byte 0x00000040 of 0x00019000)"),
              std::string::npos)
        << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(v, 0x44332211u);

    // The multi-device checker finds the file behind a high address.
    dev_t    dev;
    ino_t    ino;
    uint64_t off = 0;
    EXPECT_TRUE(c->window.file_offset(da + 1234, &dev, &ino, &off));
    EXPECT_EQ(off, 1234u);
    EXPECT_FALSE(c->window.file_offset(c->sinfo.vtcm_base, &dev, &ino, &off));
    EXPECT_EQ(htp_mem_unmap(a.fd), HTP_STATUS_OK);
    EXPECT_EQ(htp_mem_unmap(b.fd), HTP_STATUS_OK);
}

TEST_F(Dma64Test, PinnedBuffersStayInThe32BitArea) {
    ddr_buffer p(8192);
    const dma_addr_t dp = map(p, 1);
    EXPECT_GE(dp, Window::kDdrBase);
    EXPECT_LE(dp + p.size, Window::kDdrEnd);
    EXPECT_FALSE(c->window.dma_only(dp));
    // The core reads and writes them (on this thread and on the HVX workers), and DMA too.
    static_cast<uint8_t *>(htp_va(dp))[17] = 0x5a;
    EXPECT_EQ(p.host[17], 0x5a);
    memcpy(&p.host[64], "\x11\x22\x33\x44", 4);
    uint32_t v = 0;
    EXPECT_EQ(read_on_workers(dp + 64, &v), HTP_STATUS_OK);
    EXPECT_EQ(v, 0x44332211u);
    ASSERT_TRUE(dma_queue_push_1d(q, dp + 4096, dp, 128));
    dma_queue_pop(q);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
    EXPECT_EQ(p.host[4096 + 17], 0x5a);
    EXPECT_EQ(htp_mem_unmap(p.fd), HTP_STATUS_OK);
}

TEST_F(Dma64Test, DmaMovesDataBetweenHighDdrAndVtcm) {
    ddr_buffer a(256 << 10), b(256 << 10);
    std::iota(a.host, a.host + a.size, 7);
    const dma_addr_t da = map(a), db = map(b);
    // 1-D in, 1-D out.
    ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base, da, 64 << 10));
    ASSERT_TRUE(dma_queue_push_1d(q, db, c->sinfo.vtcm_base, 64 << 10));
    EXPECT_EQ(dma_queue_pop(q), c->sinfo.vtcm_base);
    EXPECT_EQ(dma_queue_pop(q), db);  // the pop returns the full 64-bit dst
    EXPECT_EQ(memcmp(a.host, b.host, 64 << 10), 0);
    // 2-D: 16 rows of 1 KiB, 4 KiB apart in DDR, packed in VTCM, and back to another offset.
    ASSERT_TRUE(dma_queue_push(q, c->sinfo.vtcm_base, da + 4096, 1024, 4096, 1024, 16));
    ASSERT_TRUE(dma_queue_push(q, db + (128 << 10), c->sinfo.vtcm_base, 4096, 1024, 1024, 16));
    dma_queue_pop(q);
    dma_queue_pop(q);
    for (uint32_t r = 0; r < 16; ++r) {
        EXPECT_EQ(memcmp(b.host + (128 << 10) + r * 4096, a.host + 4096 + r * 4096, 1024), 0) << r;
        EXPECT_EQ(memcmp(vtcm() + r * 1024, a.host + 4096 + r * 4096, 1024), 0) << r;
    }
    // DDR to DDR above 4 GiB.
    ASSERT_TRUE(dma_queue_push_1d(q, db + 200000, da + 100, 1000));
    EXPECT_EQ(dma_queue_pop(q), db + 200000);
    EXPECT_EQ(memcmp(b.host + 200000, a.host + 100, 1000), 0);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
}

TEST_F(Dma64Test, TruncatedAddressesFault) {
    if (vhtp_test::under_tsan()) {
        GTEST_SKIP() << "concurrent faults on several threads crash TSan's signal delivery (see vhtp-test-util.h)";
    }
    ddr_buffer a(64 << 10);
    const dma_addr_t da     = map(a);
    const dma_addr_t trunc  = static_cast<uint32_t>(da + 4096);  // what a uint32_t keeps of it
    ASSERT_NE(trunc, da + 4096);
    // A DMA from the truncated address copies nothing: a DMA error.
    ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base, trunc, 1024));
    dma_queue_pop(q);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    // A load from it is an MMU fault, reported with its address.
    EXPECT_EQ(read_on_workers(trunc, nullptr), HTP_STATUS_MMU_FAULT);
    EXPECT_EQ(c->fault_addr.load(), trunc);
    // So is a high address nothing is mapped at (reported in full, 64 bits).
    const dma_addr_t far = 60 * kGiB + 0x1230;
    EXPECT_EQ(read_on_workers(far, nullptr), HTP_STATUS_MMU_FAULT);
    EXPECT_EQ(c->fault_addr.load(), far);
    // Beyond the window: a DMA error, nothing touched.
    ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base, Window::kDdr64End + 4096, 64));
    dma_queue_pop(q);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_DMA_ERROR);
    // The session carries on.
    a.host[4096] = 42;
    ASSERT_TRUE(dma_queue_push_1d(q, c->sinfo.vtcm_base, da + 4096, 64));
    dma_queue_pop(q);
    EXPECT_EQ(htp_fault_take(), HTP_STATUS_OK);
    EXPECT_EQ(vtcm()[0], 42u);
}

TEST_F(Dma64Test, BudgetIsTheWholeAreaButPinnedBuffersShareTheLowOne) {
    EXPECT_EQ(c->window.budget(), 64 * kGiB);
    // Pinned buffers live in the 32-bit area (sparse memfds: a pinned mapping is not
    // populated, so no memory is touched): one of 3 GiB fits, a second does not.
    constexpr uint64_t kBig = 3 * kGiB;
    ddr_buffer b0(kBig), b1(kBig);
    dma_addr_t d0 = map(b0, 1), d1 = 0;
    EXPECT_LT(d0 + kBig, Window::kDdrEnd);
    static_cast<uint8_t *>(htp_va(d0 + kBig - 1))[0] = 3;
    EXPECT_EQ(b0.host[kBig - 1], 3);
    EXPECT_EQ(htp_mem_map(b1.fd, b1.size, 1, &d1), HTP_STATUS_NO_MEMORY);
    // The weights' area above 4 GiB is apart: a weight still maps.
    ddr_buffer w(1 << 20);
    EXPECT_GE(map(w), Window::kDdr64Base);
    EXPECT_EQ(htp_mem_unmap(w.fd), HTP_STATUS_OK);
    EXPECT_EQ(htp_mem_unmap(b0.fd), HTP_STATUS_OK);
}

TEST(Dma64Session, RefusedBelowV81) {
    vhtp_test::session_env env;  // v79
    std::string            why;
    vhtp_session * s = vhtp_test::open_session(0, 0, vhtp_test::fixture_lib(), &why, 0, VHTP_SESSION_DMA64);
    EXPECT_EQ(s, nullptr);
    EXPECT_NE(why.find("no 64-bit DMA bases"), std::string::npos) << why;
    // Without the flag the same session opens, with the 32-bit window.
    s = vhtp_test::open_session(0, 0, vhtp_test::fixture_lib(), &why, 0, 0);
    ASSERT_NE(s, nullptr) << why;
    EXPECT_EQ(vhtp_session_device_info(s)->dma64, 0u);
    EXPECT_EQ(vhtp_session_device_info(s)->window_size, Window::kDdrEnd);
    vhtp_session_close(s);
}
