// A physical NPU of the vHTP (HTPn): what the sessions opened on it share, as protection domains
// on one cDSP share its VTCM, its HMX unit and its HVX contexts. Sessions of different NPUs share
// nothing. That shared state lives in the NPU's page (npu_page below): with the sessions in DSP
// processes of their own (dsp.h), the host creates one page per NPU, a memfd, and hands it to
// every DSP process that opens a session of that NPU; in one process (GGML_HEXAGON_INPROC=1,
// unit tests) the first session of an NPU creates it in private memory. The locks in it are
// futex words that work across processes, and record who holds what (session, pid, thread), so
// that the host can give back what a dead process held (npu_page_release_pid) before it
// reopens that process's sessions.
#pragma once
#include <atomic>
#include <cstdint>

#include "hmx.h"
#include "vhtp/vhtp.h"

namespace vhtp {

constexpr uint32_t kNpuPageMagic   = 0x5550504e;  // "NPPU"
constexpr uint32_t kNpuMaxMembers  = 64;          // sessions open on one NPU at a time
constexpr uint32_t kNpuMaxTickets  = 64;          // HVX jobs holding or waiting for contexts at a time

// The page's own lock, guarding members, tickets and hvx_free: a futex word holding the owner's
// thread id (0: free). A waiter that finds the owner thread gone (its process died inside the
// short critical section) takes the lock over.
struct npu_page_lock {
    std::atomic<uint32_t> word;
    std::atomic<uint32_t> waiters;
};

struct npu_member {              // one open session
    uint32_t used;
    uint32_t session;
    int32_t  pid;                // the process it runs in
    uint32_t vtcm;               // bytes of VTCM it holds
};

struct npu_ticket {              // one HVX job's claim, FIFO by number
    uint64_t number;             // 0: free entry
    uint32_t n;                  // contexts
    uint32_t granted;            // 1 once it holds them
    int32_t  pid;
};

struct npu_page {
    uint32_t              magic;
    std::atomic<uint32_t> arch;       // 0 until the first session sets it
    uint32_t              vtcm_size;  // the pool
    std::atomic<uint32_t> n_hvx_hw;
    npu_page_lock         lock;
    npu_member            members[kNpuMaxMembers];
    uint32_t              hvx_free;
    uint64_t              next_ticket;  // the next job's number (from 1)
    npu_ticket            tickets[kNpuMaxTickets];
    std::atomic<uint32_t> hvx_seq;      // bumped on every change a waiting job may need
    std::atomic<uint32_t> hvx_waiters;
    hmx_lock              hmx;          // its one HMX unit
};

// Fresh page contents in `mem` (sizeof(npu_page) bytes, zeroed).
npu_page * npu_page_init(void * mem);

// Gives back everything the sessions of process `pid` held: their VTCM, HVX contexts and
// tickets, the HMX unit, and the page lock. For the host, once that process is reaped. Returns
// how many things it gave back.
uint32_t npu_page_release_pid(npu_page * p, int32_t pid);

// The NPU's HVX contexts. A work-queue job takes one per worker before any worker starts and
// gives them back when the last one finishes: all at once, first come first served. So at most
// `total` workers of the NPU's sessions run kernel code at any time, the workers of one job
// always run together (a job never waits for a part of itself), and a session, whose jobs run
// one at a time and need at most n_hvx <= total contexts, can never wait for itself. The
// state is the page's; this is its interface.
class hvx_contexts {
  public:
    explicit hvx_contexts(npu_page * page) : page_(page) {}
    void acquire(uint32_t n);  // n <= total
    void release(uint32_t n);
    uint32_t total() const { return page_->n_hvx_hw.load(std::memory_order_relaxed); }

  private:
    npu_page * page_;
};

struct npu {
    npu(uint32_t index, npu_page * page, bool own_page)
        : index(index), page(page), own_page(own_page), hmx(page->hmx), hvx(page) {}

    const uint32_t index;
    npu_page * const page;    // its arch, VTCM pool and who holds what
    const bool     own_page;  // created by this process (in private memory), unmapped with the npu
    hmx_lock &     hmx;       // its one HMX unit
    hvx_contexts   hvx;       // its n_hvx_hw HVX contexts
    uint32_t       refs = 0;  // this process's sessions on it (under the registry lock)
};

// In a DSP process: the page the host made for NPU `device` (mapped here), used by the next
// npu_attach of that NPU in this process instead of a private one.
void npu_use_page(uint32_t device, npu_page * page);

// Attaches session `session` to NPU `device` (created on first use with the arch and HVX contexts
// of `info`, and the profile's VTCM) and
// takes `vtcm_request` bytes of its VTCM. Returns nullptr with a one-line reason in err: an NPU
// index past VHTP_MAX_NPUS, a request that is not a positive multiple of VTCM_GRANULE, more VTCM
// than is left, a session index already open, or a profile (arch) other than the NPU's.
npu * npu_attach(const struct vhtp_device_info & info, uint32_t device, uint32_t session, uint32_t vtcm_request,
                 char * err, size_t err_len);
// Gives the session's VTCM back; the last session's detach in this process lets go of the NPU.
void npu_detach(npu * n, uint32_t session);

}  // namespace vhtp
