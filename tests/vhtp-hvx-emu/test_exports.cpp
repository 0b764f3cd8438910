// libggml-vhtp.so exports the runtime API and the device API, and nothing of its internals.
#include <dlfcn.h>

#include "vhtp-test-util.h"

TEST(Exports, SharedLibraryApi) {
    void * lib = dlopen(vhtp_test::bin_path("libggml-vhtp.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    for (const char * name : { "vhtp_device_info", "vhtp_ddr_alloc", "vhtp_ddr_free", "vhtp_session_open",
                               "vhtp_session_close", "vhtp_session_device_info", "vhtp_session_send",
                               "vhtp_session_recv", "htp_window_base", "htp_mem_map", "htp_mem_unmap",
                               "htp_fault_take", "dma_queue_push", "dma_queue_pop", "dma_queue_flush",
                               "dma_queue_capacity", "dma_queue_progress", "work_queue_run", "htp_cycles", "htp_dcache_clean",
                               "htp_dcache_invalidate", "htp_dcache_clean_invalidate", "htp_dcache_flush_all",
                               "htp_fence_register", "htp_fence_coherent" }) {
        EXPECT_NE(dlsym(lib, name), nullptr) << name;
    }
    EXPECT_EQ(dlsym(lib, "_ZN4vhtp11core_createERK16vhtp_device_infojjPcm"), nullptr);  // hidden
    dlclose(lib);
}

#include <chrono>
#include <thread>

#include "htp/timer.h"

TEST(Timer, OneCycleIsOneNanosecond) {
    const uint64_t t0 = htp_cycles();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const uint64_t dt = htp_cycles() - t0;
    EXPECT_GE(dt, 20000000u);
    EXPECT_LT(dt, 2000000000u);
}
