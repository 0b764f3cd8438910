// A physical NPU of the vHTP (HTPn): what the sessions opened on it share, as protection domains
// on one cDSP share its VTCM, its HMX unit and its HVX contexts. Sessions of different NPUs share
// nothing. An NPU is created by the first session opened on it and destroyed with the last.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>

#include "hmx.h"
#include "vhtp/vhtp.h"

namespace vhtp {

// The NPU's HVX contexts. A work-queue job takes one per worker before any worker starts and
// gives them back when the last one finishes: all at once, first come first served. So at most
// `total` workers of the NPU's sessions run kernel code at any time, the workers of one job
// always run together (a job never waits for a part of itself), and a session, whose jobs run
// one at a time and need at most n_hvx <= total contexts, can never wait for itself.
class hvx_contexts {
  public:
    explicit hvx_contexts(uint32_t total) : total_(total), free_(total) {}
    void acquire(uint32_t n);  // n <= total
    void release(uint32_t n);
    uint32_t total() const { return total_; }

  private:
    std::mutex              mu_;
    std::condition_variable cv_;
    const uint32_t          total_;
    uint32_t                free_;
    uint64_t                next_ticket_ = 0;  // FIFO: a big job is not starved by small ones
    uint64_t                serving_     = 0;
};

struct npu {
    npu(uint32_t index, uint32_t arch, uint32_t vtcm_size, uint32_t n_hvx_hw)
        : index(index), arch(arch), vtcm_size(vtcm_size), hvx(n_hvx_hw) {}

    const uint32_t index;
    const uint32_t arch;
    const uint32_t vtcm_size;  // the pool: the profile's VTCM
    hmx_lock       hmx;        // its one HMX unit
    hvx_contexts   hvx;        // its n_hvx_hw HVX contexts
    std::map<uint32_t, uint32_t> vtcm_held;  // open session -> bytes of VTCM (under the registry lock)
};

// Attaches session `session` to NPU `device` (created on first use with the arch and HVX contexts
// of `info`, and the profile's VTCM) and
// takes `vtcm_request` bytes of its VTCM. Returns nullptr with a one-line reason in err: an NPU
// index past VHTP_MAX_NPUS, a request that is not a positive multiple of VTCM_GRANULE, more VTCM
// than is left, a session index already open, or a profile (arch) other than the NPU's.
npu * npu_attach(const struct vhtp_device_info & info, uint32_t device, uint32_t session, uint32_t vtcm_request,
                 char * err, size_t err_len);
// Gives the session's VTCM back; the last session's detach destroys the NPU.
void npu_detach(npu * n, uint32_t session);

}  // namespace vhtp
