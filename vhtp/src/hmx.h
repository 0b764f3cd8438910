// The vHTP's HMX unit as a session sees it, created with the session core over its VTCM. The
// device API (htp/hmx.h) acts on it; see there for tile formats and the arithmetic modelled.
// Ownership is the physical NPU's (hmx_lock): sessions of one NPU take turns on its one unit.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include "htp/hmx.h"

namespace vhtp {

// Who owns an NPU's HMX unit: one thread, through one session's htp_hmx, at a time. It lives in
// the NPU's page (npu.h), which DSP processes of one NPU share: a futex word holding the owner's
// thread id (0: free; thread ids are unique across processes), its process and the unit it was
// acquired through (an address in that process). The host frees it when the owner's process
// dies (npu_page_release_pid).
struct hmx_lock {
    std::atomic<uint32_t> word{ 0 };
    std::atomic<uint32_t> waiters{ 0 };
    std::atomic<int32_t>  pid{ 0 };
    std::atomic<uint64_t> holder{ 0 };
};

struct hmx_weight_cache;  // hmx.cpp: decoded weight tiles, reused while their bytes are unchanged

// The unit's arithmetic (htp/hmx.h "Arithmetic"): fp32 sums of each tile pair's products (the
// default), or exact sums rounded once per tile pair.
enum class hmx_model { fp32, exact };

// GGML_HEXAGON_HMX_MODEL: "fp32" (or unset) or "exact"; anything else is fp32, with one line.
hmx_model hmx_default_model();

}  // namespace vhtp

struct htp_hmx {
    uint8_t *       window_base;  // host address of device address 0
    dma_addr_t      vtcm_base;
    uint32_t        vtcm_size;
    vhtp::hmx_lock * lock;        // the NPU's, or own_lock for a unit of its own
    vhtp::hmx_lock  own_lock;
    vhtp::hmx_model model;        // set at creation from GGML_HEXAGON_HMX_MODEL; tests set it directly
    float           acc[HTP_HMX_TILE_DIM][HTP_HMX_TILE_DIM];  // only the owner touches it
    // A kernel multiplies one column tile's weights with every activation block in turn, so
    // the same weight tiles come back call after call: their decoded, transposed form is kept
    // and used again only while the tile's 2 KiB in VTCM still equal the copy taken when it
    // was decoded (so a rewritten tile is always decoded afresh). Only the owner touches it.
    std::unique_ptr<vhtp::hmx_weight_cache> wcache;
    ~htp_hmx();
};

namespace vhtp {

// window_base + vtcm_base is the host address of the session's VTCM. `lock` is the NPU's HMX
// ownership (nullptr: a unit of its own, for tests of the unit alone).
htp_hmx * hmx_create(uint8_t * window_base, dma_addr_t vtcm_base, uint32_t vtcm_size, hmx_lock * lock = nullptr);
void      hmx_destroy(htp_hmx * hmx);

}  // namespace vhtp
