// The vHTP's HMX unit: one per session, created with the session core. The device API
// (htp/hmx.h) acts on it; see there for tile formats and the arithmetic modelled.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "htp/hmx.h"

struct htp_hmx {
    uint8_t *               window_base;  // host address of device address 0
    dma_addr_t              vtcm_base;
    uint32_t                vtcm_size;
    std::mutex              mu;
    std::condition_variable cv;
    bool                    busy = false;
    std::thread::id         owner;
    float                   acc[HTP_HMX_TILE_DIM][HTP_HMX_TILE_DIM];  // only the owner touches it
};

namespace vhtp {

// window_base + vtcm_base is the host address of the session's VTCM.
htp_hmx * hmx_create(uint8_t * window_base, dma_addr_t vtcm_base, uint32_t vtcm_size);
void      hmx_destroy(htp_hmx * hmx);

}  // namespace vhtp
