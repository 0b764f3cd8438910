// A session's device address space, backed by a PROT_NONE reservation in the host (4 GiB, or
// 68 GiB for a session with 64-bit DMA bases). Device address A lives at host address
// base() + A, so htp_va() is one add, and any access to an address nothing is mapped at traps
// (an MMU fault) instead of reading host memory.
//
// Layout of the window (device addresses):
//   [0, 64 KiB)                 never mapped: NULL guard
//   [64 KiB, kDdrEnd = 3.5 GiB) shared DDR buffers, one guard page after each: unpinned
//                               (weights) first fit from the bottom, pinned (KV cache,
//                               compute buffers) from the top, so the long-lived pinned
//                               ranges never cut the space the sliding weights reuse
//                               (32-bit sessions; unused by DMA64 sessions)
//   [kVtcmBase = 0xF0000000, +vtcm_size)  VTCM (anonymous, private to the session)
//   [kDdr64Base = 4 GiB, kDdr64End = 68 GiB)  DMA64 sessions only: their weights (unpinned
//                               buffers), first fit, mapped in the DMA engine's view only
//                               (dma_base()): a v81 core cannot load from a 64-bit address, so a
//                               core access there faults; the pinned buffers (activations, KV
//                               cache) stay in the 32-bit DDR area above, where the core reaches
//                               them, as upstream keeps only weights above 4 GiB
// find_gap places a buffer in its area: [kDdrBase, kDdrEnd), or for a DMA64 session's weights
// [kDdr64Base, kDdr64End).
#pragma once
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <shared_mutex>

#include "l2-cache.h"

namespace vhtp {

class Window {
  public:
    static constexpr uint64_t kReserve   = 1ull << 32;  // a 32-bit session's reservation
    static constexpr uint32_t kDdrBase   = 64u << 10;
    static constexpr uint64_t kDdrEnd    = 0xE0000000ull;
    static constexpr uint32_t kVtcmBase  = 0xF0000000u;
    static constexpr uint32_t kVtcmSize  = 8u << 20;
    static constexpr uint64_t kPage      = 4096;
    static constexpr uint64_t kDdr64Base = 1ull << 32;                  // DMA64: DDR above 4 GiB
    static constexpr uint64_t kDdr64End  = kDdr64Base + (64ull << 30);  // a 64 GiB DDR area
    static constexpr uint64_t kReserve64 = kDdr64End;

    Window() = default;
    Window(const Window &) = delete;
    Window & operator=(const Window &) = delete;
    ~Window();

    // Reserves the window and maps VTCM. dma64: the larger window with DDR above 4 GiB.
    // Returns false with a reason in err.
    bool init(uint64_t vmem_budget, uint32_t vtcm_size, bool dma64, char * err, size_t err_len);

    uint8_t * base() const { return base_; }
    uint32_t vtcm_size() const { return vtcm_size_; }
    bool dma64() const { return reserve_ == kReserve64; }
    bool contains_host(uintptr_t p) const {
        return p >= reinterpret_cast<uintptr_t>(base_) && p - reinterpret_cast<uintptr_t>(base_) < reserve_;
    }

    // htp_mem_map / htp_mem_unmap semantics; return an htp_status.
    int map(int fd, uint64_t size, bool pinned, uint64_t * addr);
    int unmap(int fd);

    // True when every byte of [addr, addr + len) is mapped DDR or VTCM (a malformed descriptor
    // whose range wraps or leaves the window is simply not contained).
    bool contains(uint64_t addr, uint64_t len) const;

    // The file (device, inode) and byte offset behind DDR address addr; false when nothing is
    // mapped there (or addr is VTCM). Lets the multi-device checker compare sessions' writes.
    bool file_offset(uint64_t addr, dev_t * dev, ino_t * ino, uint64_t * offset) const;

    // The L2 model (l2-cache.h), off until a device group turns it on for the session: from
    // then on every DDR buffer but the one of file (coherent_dev, coherent_ino) (the fence
    // slots) is cached privately in the view. Returns false with a reason in err.
    bool l2_enable(dev_t coherent_dev, ino_t coherent_ino, char * err, size_t err_len);
    // Keeps the buffer behind DDR address addr coherent (shared by atomics: the trace buffer).
    void l2_coherent(uint64_t addr);
    l2_cache * l2() const { return l2_.load(std::memory_order_acquire); }
    // Where the DMA engine copies: the view, or with the L2 model its shared DMA view, or in a
    // DMA64 session the DMA view that alone maps the weights above 4 GiB.
    uint8_t * dma_base() const {
        l2_cache * l = l2();
        return l ? l->alias() : dma_view_ ? dma_view_ : base_;
    }
    // A DMA64 session's weights above 4 GiB: the DMA engine reaches them, the core does not.
    bool dma_only(uint64_t addr) const { return dma64() && addr >= kDdr64Base && addr < kDdr64End; }
    // For the fault handler (async-signal-safe: never waits for the lock): the buffer mapped at
    // addr, its fd, size and addr's offset in it; false when none, or the lock is busy.
    bool buffer_at(uint64_t addr, int * fd, uint64_t * size, uint64_t * offset) const;
    // Under the window's shared lock (a buffer cannot leave meanwhile); see l2_cache.
    uint64_t l2_clean(uint64_t addr, uint64_t bytes, bool invalidate, const l2_cache::sink & s) const;
    uint64_t l2_clean_all(const l2_cache::sink & s) const;
    l2_cache::dirty_report l2_dirty() const;
    // A peer of the group (member `writer`) wrote nrows rows of row_size bytes, stride apart,
    // from byte offset of file (dev, ino): those lines go stale in this window's L2 model, if it
    // caches the buffer.
    void l2_mark_stale(dev_t dev, ino_t ino, uint64_t offset, uint32_t row_size, uint32_t stride, uint32_t nrows,
                       uint32_t writer) const;

    uint64_t budget() const { return budget_; }
    uint64_t mapped_bytes() const;
    size_t n_mappings() const;

  private:
    struct mapping {
        int      fd;
        dev_t    dev;  // identity of the file: an fd number the host reused for another buffer
        ino_t    ino;  // must not reach the old mapping
        uint64_t addr;
        uint64_t span;  // bytes mapped (size rounded up to pages)
        uint32_t refs;
        bool     pinned;
    };

    // Which mapping to give up when the budget or the address space runs out is the NPU
    // library's choice (npu/src/dispatcher.cpp: the most recently used weights first), as it is
    // on a real session: the window only says HTP_STATUS_NO_MEMORY.
    bool find_gap(uint64_t span, bool from_top, uint64_t lo, uint64_t hi, uint64_t * addr) const;
    bool coherent(const mapping & m) const;
    void drop(std::map<uint64_t, mapping>::iterator it);

    uint8_t *                   base_      = nullptr;
    uint8_t *                   dma_view_  = nullptr;    // DMA64: the DMA engine's view (reserve_ bytes)
    uint64_t                    reserve_   = kReserve;   // bytes reserved: kReserve or kReserve64
    uint32_t                    vtcm_size_ = 0;
    uint64_t                    budget_    = 0;
    uint64_t                    mapped_    = 0;
    mutable std::shared_mutex   mu_;        // map/unmap exclusive; DMA range checks shared
    std::map<uint64_t, mapping> by_addr_;
    std::atomic<l2_cache *>     l2_{ nullptr };
    // Files the L2 model leaves coherent (the fence buffer, the trace buffer): (dev, ino).
    std::map<std::pair<dev_t, ino_t>, bool> coherent_;
};

}  // namespace vhtp
