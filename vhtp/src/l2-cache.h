// The vHTP's model of a session's L2 (data cache) for device-group members (docs/vhtp.md,
// "The L2 model"). Off for every session until it joins a group (mdev-check.cpp enables it at
// htp_fence_register), so a single session pays nothing.
//
// A member's view of DDR (its window, what htp_va() points into) becomes a *private* copy of
// each buffer, at page granularity:
//   - clean page: the view maps the buffer's file read-only (MAP_PRIVATE), so loads see DDR
//     as it is now, peers' writes included;
//   - the first store to a clean page faults (fault.cpp hands it here): the page is copied
//     from DDR into an anonymous page, and into a snapshot, and the copy replaces the view's
//     page writable (one mremap, so the session's other threads never see a half-made page).
//     Later stores land in the copy only: DDR, the host and the peers do not see them;
//   - a dirty line is a 128-byte line of such a page that differs from its snapshot; a clean
//     (htp_dcache_clean / _clean_invalidate / _invalidate / _flush_all) writes the dirty
//     lines of its range to DDR and into the snapshot, and hands each written run to the
//     ownership checker; a page left with no dirty line maps the file again (fresh). An
//     invalidate never drops dirty data: it writes it back first.
// DMA does not go through the cache: the engine copies through a second, shared mapping of
// every buffer and of VTCM (alias()), so what DMA writes reaches DDR at once.
// Buffers the group shares by atomics (fence slots, the trace buffer) stay coherent
// (attach(..., tracked = false)).
// The model is deliberately strict where a real cache is lenient: it never evicts (a forgotten
// clean is always caught, not only when the line stays resident), and a store of the value a
// line already holds makes no dirty line (nothing differs).
// Stale lines: a line a peer of the group wrote (by DMA, or by a write-back of its L2) since
// this member last invalidated it is *stale* here (mark_stale, called from the peer's write),
// whether or not the member ever read it: a real L2 may hold the line from any earlier read.
// A page holding a stale line is mapped with no access in the view, so the member's first core
// access to it faults (stale_access, from fault.cpp): an access to a stale line is reported and
// fails the op (HTP_STATUS_OWNERSHIP); an access to another line of the page opens the page
// (its other stale lines are then not checked until the next peer write marks the page again).
// An invalidate (or clean+invalidate, or flush_all) of the lines makes them fresh again.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>

namespace vhtp {

class l2_cache {
  public:
    static constexpr uint64_t kLine = 128;  // HTP_L2_LINE_SIZE: the unit of ownership
    static constexpr uint64_t kPage = 4096;
    // Dirty pages at once (each an anonymous page of its own in the view); past it a store
    // fails as an MMU fault with a line that says so (a real L2 would have evicted long before).
    static constexpr uint32_t kMaxDirtyPages = 16384;

    // Where a written-back run of lines lands: the buffer's file and the byte range in it.
    struct sink {
        void (*fn)(void * ctx, dev_t dev, ino_t ino, uint64_t offset, uint64_t bytes);
        void * ctx;
    };
    struct dirty_report {
        uint64_t lines;  // dirty lines found
        uint64_t addr;   // the first one's device address
        dev_t    dev;
        ino_t    ino;
        uint64_t offset;  // and its offset in its buffer
    };

    // view: the session window (reserve bytes); VTCM at [vtcm_base, +vtcm_size) becomes shared
    // memory mapped in both views. Returns nullptr with a reason in err.
    static l2_cache * create(uint8_t * view, uint64_t reserve, uint64_t vtcm_base, uint32_t vtcm_size, char * err,
                             size_t err_len);
    ~l2_cache();
    l2_cache(const l2_cache &)             = delete;
    l2_cache & operator=(const l2_cache &) = delete;

    uint8_t * alias() const { return alias_; }

    // The window maps / drops a buffer (under its exclusive lock). attach maps both views;
    // tracked = false keeps the view coherent (shared); core = false maps the DMA view only
    // (a DMA64 session's weights above 4 GiB, window.h), so a core access there faults.
    bool attach(uint64_t addr, uint64_t span, int fd, dev_t dev, ino_t ino, bool populate, bool tracked,
                bool core = true);
    void detach(uint64_t addr, uint64_t span);

    // A SIGSEGV at device address addr: true when it was the first store to a clean page (now
    // dirty-able: the store re-executes) or a store racing with one; async-signal-safe.
    bool write_fault(uint64_t addr);

    // Under the window's shared lock. clean: the lines of [addr, addr + bytes) (invalidate:
    // and make them fresh); clean_all: every dirty line. Return the lines written back.
    uint64_t clean(uint64_t addr, uint64_t bytes, bool invalidate, const sink & s);
    uint64_t clean_all(const sink & s);
    dirty_report dirty() const;
    uint32_t     dirty_pages() const { return dirty_.load(std::memory_order_acquire); }

    // Stale lines (see the head of this file). Under the window's shared lock: peer `writer`
    // wrote [addr, addr + bytes) of a buffer this member caches: every line it touches goes
    // stale here. stale_pages: pages holding a stale line (0: invalidates have nothing to do).
    void     mark_stale(uint64_t addr, uint64_t bytes, uint32_t writer);
    uint32_t stale_pages() const { return stale_n_.load(std::memory_order_acquire); }
    // A SIGSEGV at device address addr, async-signal-safe: kNotStale when the page holds no
    // guard (not ours), kOpened when the access was to a fresh line of a guarded page (now
    // open: the access re-executes), kStale when it was to a stale line (*writer: the peer that
    // wrote it; the page is open too, so the op runs on and fails with the recorded status).
    enum stale_result { kNotStale = 0, kOpened = 1, kStale = 2 };
    stale_result stale_access(uint64_t addr, uint32_t * writer);

  private:
    enum : uint8_t { kUntracked = 0, kClean = 1, kDirty = 2, kBusy = 3 };
    struct range {
        uint64_t span;
        int      fd;  // our own dup, to map the file again
        dev_t    dev;
        ino_t    ino;
        bool     tracked;
    };

    l2_cache() = default;
    const range * find(uint64_t addr, uint64_t * start) const;
    uint64_t      clean_page(uint64_t page, uint64_t lo, uint64_t hi, bool invalidate, const sink & s);
    // Drops the stale marks of lines [lo, hi) (line-aligned) and opens the pages left without.
    void          clear_stale(uint64_t lo, uint64_t hi);
    // The view's protection of page p without a guard: read-only when clean (the first store
    // faults into write_fault), read-write when it is the member's dirty copy.
    int           open_prot(uint64_t p) const;
    // Applies prot (open_prot's) to the view's pages [lo, hi), then takes write back from any
    // that is no longer dirty (cleaned meanwhile).
    void          open_pages(uint64_t lo, uint64_t hi, int prot);

    uint8_t *               view_   = nullptr;
    uint8_t *               alias_  = nullptr;  // shared mappings: the DMA engine's view
    uint8_t *               shadow_ = nullptr;  // snapshots of dirty pages, at their addresses
    std::atomic<uint8_t> *  state_  = nullptr;  // one per page of the window
    uint64_t                reserve_ = 0;
    std::atomic<uint32_t>   dirty_{ 0 };
    std::atomic<uint32_t> * stale_   = nullptr;  // per page: one bit per stale line (32 lines)
    std::atomic<uint8_t> *  guard_   = nullptr;  // per page: 1 while the view maps it with no access
    uint8_t *               writer_  = nullptr;  // per page: the peer that last made a line stale
    std::atomic<uint32_t>   stale_n_{ 0 };       // pages with a stale line
    std::map<uint64_t, range> ranges_;  // by device address
};

}  // namespace vhtp
