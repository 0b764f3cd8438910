// Multi-device ownership checker (see mdev-check.h), and the fence waits of the device API. The
// board its members share across processes (their signalled writes, their write rings) is
// mdev-board.cpp.
#include "mdev-check.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <ctime>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core.h"
#include "dma-engine.h"
#include "fault.h"
#include "htp-abi/htp-abi.h"
#include "mdev-board.h"

namespace vhtp {
namespace {

// A group is named by its fence buffer's file and the offset of slot 0.
struct group_key {
    dev_t    dev;
    ino_t    ino;
    uint64_t slot0;
    bool     operator<(const group_key & o) const { return std::tie(dev, ino, slot0) < std::tie(o.dev, o.ino, o.slot0); }
};

struct group_state {
    uint32_t count = 0;
    std::vector<core *> cores;  // by member index (nullptr: gone), under g_mu: whose L2 a write makes stale
};

}  // namespace

struct mdev_member {
    std::mutex                    mu;
    const uint8_t *               slot = nullptr;
    uint32_t                      idx = 0, count = 0;
    std::shared_ptr<group_state>  group;
    std::vector<file_range>       writes;
    std::atomic<board_group *>    bg{ nullptr };     // its group on the board
    uint64_t                      bg_gen = 0;
    uint64_t                      cursor[HTP_MDEV_MAX] = {};  // peers' ring records imported
    std::mutex                    import_mu;         // cursor (threads of the session import)
};

namespace {

std::mutex                                           g_mu;  // groups and members
std::map<group_key, std::shared_ptr<group_state>>    g_groups;
std::map<const core *, std::unique_ptr<mdev_member>> g_members;

bool enabled() {
    static const bool on = [] {
        const char * v = std::getenv("GGML_HEXAGON_MDEV_CHECK");
        return !(v && std::strcmp(v, "0") == 0);
    }();
    return on;
}

const char * via_name(uint8_t via) {
    switch (via & 3) {
        case kViaDma: return "by DMA";
        case kViaL2: return "through L2";
        default: return "by DMA and through L2";
    }
}

// The violation line of two members' overlapping writes before barrier seq, named in index
// order, whichever of the two signalled last.
std::string overlap_text(const file_range & hit, uint32_t me, uint32_t peer, uint32_t seq) {
    char           what[300];
    const uint8_t  mine_via = hit.via & 3, peer_via = hit.via >> 2;
    const uint32_t lo = std::min(peer, me), hi = std::max(peer, me);
    const uint8_t  lo_via = lo == peer ? peer_via : mine_via, hi_via = lo == peer ? mine_via : peer_via;
    if (mine_via == kViaDma && peer_via == kViaDma) {
        std::snprintf(what, sizeof(what),
                      "members %u and %u both wrote bytes [0x%llx, 0x%llx) of buffer inode %llu by DMA before "
                      "barrier %u",
                      lo, hi, (unsigned long long) hit.begin, (unsigned long long) hit.end,
                      (unsigned long long) hit.ino, seq);
    } else {
        // Through L2 the unit is the line: name the lines the overlap touches.
        const uint64_t lb = hit.begin & ~(l2_cache::kLine - 1);
        const uint64_t le = (hit.end + l2_cache::kLine - 1) & ~(l2_cache::kLine - 1);
        std::snprintf(what, sizeof(what),
                      "members %u and %u both wrote the 128-byte line%s [0x%llx, 0x%llx) of buffer inode %llu "
                      "before barrier %u (member %u %s, member %u %s)",
                      lo, hi, le - lb > l2_cache::kLine ? "s" : "", (unsigned long long) lb,
                      (unsigned long long) le, (unsigned long long) hit.ino, seq, lo, via_name(lo_via), hi,
                      via_name(hi_via));
    }
    return what;
}

void violation(core * c, const char * what) {
    std::fprintf(stderr, "vhtp: NPU %u session %u: %s\n", c->sinfo.device, c->sinfo.session, what);
    record_fault(c, HTP_STATUS_OWNERSHIP);
}

// Lines still dirty in c's L2 when it should have none: one line naming the first, then they
// are written back (and still count as the member's writes).
void dirty_lines_left(core * c, const char * who) {
    const l2_cache::dirty_report dirty = c->window.l2_dirty();
    if (!dirty.lines) {
        return;
    }
    char what[320];
    std::snprintf(what, sizeof(what),
                  "%s with %llu dirty L2 line%s not cleaned, the first at device address 0x%llx (line [0x%llx, "
                  "0x%llx) of buffer inode %llu)",
                  who, (unsigned long long) dirty.lines, dirty.lines == 1 ? "" : "s", (unsigned long long) dirty.addr,
                  (unsigned long long) dirty.offset, (unsigned long long) (dirty.offset + l2_cache::kLine),
                  (unsigned long long) dirty.ino);
    violation(c, what);
    c->window.l2_clean_all(mdev_check_l2_sink(c));
}

// Member m of its group wrote rows of file (dev, ino): the lines go stale in every peer's L2.
void make_stale_for_peers(const mdev_member * m, dev_t dev, ino_t ino, uint64_t offset, uint32_t row_size,
                          uint32_t stride, uint32_t nrows) {
    std::lock_guard<std::mutex> lock(g_mu);  // the peers stay alive meanwhile (mdev_check_forget)
    if (!m->group) {
        return;
    }
    for (const core * p : m->group->cores) {
        if (p && p->mdev.load(std::memory_order_acquire) != m) {
            p->window.l2_mark_stale(dev, ino, offset, row_size, stride, nrows, m->idx);
        }
    }
}

// Member m wrote rows of file (dev, ino): a record in its ring on the board, for peers in
// other processes (mdev_check_import).
void board_append(mdev_member * m, dev_t dev, ino_t ino, uint64_t offset, uint32_t row_size, uint32_t stride,
                  uint32_t nrows) {
    if (board_group * g = m->bg.load(std::memory_order_acquire)) {
        mdev_board_append(g, m->idx, dev, ino, offset, row_size, stride, nrows);
    }
}

// Joins the group of key on the board as member idx (under nothing: takes the board's lock).
void board_register(mdev_member * m, const group_key & key, uint32_t idx) {
    uint64_t      gen = 0, heads[HTP_MDEV_MAX];
    board_group * g   = mdev_board_join(key.dev, key.ino, key.slot0, idx, &gen, heads);
    if (g && (m->bg.load(std::memory_order_relaxed) != g || m->bg_gen != gen)) {
        std::lock_guard<std::mutex> il(m->import_mu);
        for (uint32_t j = 0; j < HTP_MDEV_MAX; j++) {
            m->cursor[j] = heads[j];  // older writes are not ours to mark
        }
        m->bg_gen = gen;
        m->bg.store(g, std::memory_order_release);
    }
}

}  // namespace

uint32_t mdev_check_member_idx(const core * c) {
    const mdev_member * m = c->mdev.load(std::memory_order_acquire);
    return m ? m->idx : 0;
}

void mdev_check_answer(core * c) {
    l2_cache * l = c->window.l2();
    if (l && l->dirty_pages()) {
        dirty_lines_left(c, "answered the host");
    }
}

void mdev_check_register(core * c, const void * own_slot, uint32_t idx, uint32_t count) {
    if (!enabled()) {
        return;
    }
    const uint64_t addr = (uint64_t) ((const uint8_t *) own_slot - c->window.base());
    dev_t          dev;
    ino_t          ino;
    uint64_t       off;
    if (!c->window.file_offset(addr, &dev, &ino, &off)) {
        return;  // not a DDR buffer: nothing to check against
    }
    const group_key key = { dev, ino, off - (uint64_t) idx * HTP_FENCE_SLOT_SIZE };
    mdev_member *   member = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_mu);
        std::shared_ptr<group_state> & g = g_groups[key];
        if (!g) {
            g = std::make_shared<group_state>();
        }
        g->count                        = count;
        g->cores.resize(std::max<size_t>(g->cores.size(), count), nullptr);
        g->cores[idx]                   = c;
        std::unique_ptr<mdev_member> & m = g_members[c];
        if (m && m->group && m->group != g) {
            for (core *& o : m->group->cores) {  // it leaves its earlier group
                o = o == c ? nullptr : o;
            }
        }
        if (!m) {
            m = std::make_unique<mdev_member>();
        }
        std::lock_guard<std::mutex> mlock(m->mu);
        m->slot  = (const uint8_t *) own_slot;
        m->idx   = idx;
        m->count = count;
        m->group = g;
        member   = m.get();
    }
    // The board after g_mu: its lock and the member's import lock are never taken under g_mu,
    // which a write-back takes under the window's lock (make_stale_for_peers), while an import
    // takes the window's lock under the import lock.
    board_register(member, key, idx);
    c->mdev.store(member, std::memory_order_release);
    // The window's L2 lock is taken after the member's is released: a clean holds the window's
    // lock and then the member's (mdev_check_l2_sink), so the other order could deadlock.
    if (!c->window.l2()) {
        char err[200] = "";
        if (!c->window.l2_enable(dev, ino, err, sizeof(err))) {
            std::fprintf(stderr, "vhtp: NPU %u session %u: no L2 model, stores are not checked: %s\n",
                         c->sinfo.device, c->sinfo.session, err);
        }
    } else {
        // A later group's fence buffer (llama-bench's next context makes a new communicator):
        // its slots are shared memory too, not lines of this member's cache.
        c->window.l2_coherent(addr);
    }
}

l2_cache::sink mdev_check_l2_sink(core * c) {
    return { [](void * ctx, dev_t dev, ino_t ino, uint64_t offset, uint64_t bytes) {
                mdev_member * m = static_cast<core *>(ctx)->mdev.load(std::memory_order_acquire);
                if (m) {
                    {
                        std::lock_guard<std::mutex> lock(m->mu);
                        m->writes.push_back({ dev, ino, offset, offset + bytes, kViaL2 });
                    }
                    make_stale_for_peers(m, dev, ino, offset, (uint32_t) bytes, (uint32_t) bytes, 1);
                    board_append(m, dev, ino, offset, (uint32_t) bytes, (uint32_t) bytes, 1);
                }
            },
             c };
}

void mdev_check_dma_write(core * c, uint64_t dst, uint32_t dst_stride, uint32_t row_size, uint32_t nrows) {
    mdev_member * m = c->mdev.load(std::memory_order_acquire);
    if (!m || row_size == 0 || nrows == 0) {
        return;
    }
    dev_t    dev;
    ino_t    ino;
    uint64_t off;
    if (!c->window.file_offset(dst, &dev, &ino, &off)) {
        return;  // VTCM
    }
    // Marked before the transfer completes, so before the member's fence signal: a peer past
    // the barrier never invalidates ahead of the marks.
    make_stale_for_peers(m, dev, ino, off, row_size, dst_stride, nrows);
    board_append(m, dev, ino, off, row_size, dst_stride, nrows);
    std::lock_guard<std::mutex> lock(m->mu);
    if (dst_stride == row_size || nrows == 1) {
        m->writes.push_back({ dev, ino, off, off + (uint64_t) row_size * nrows });
        return;
    }
    for (uint32_t r = 0; r < nrows; r++) {
        const uint64_t b = off + (uint64_t) r * dst_stride;
        m->writes.push_back({ dev, ino, b, b + row_size });
    }
}

void mdev_check_clean(core * c, const void * p, size_t size) {
    mdev_member * m = c->mdev.load(std::memory_order_acquire);
    if (!m || p != m->slot || size < sizeof(htp_fence_slot)) {
        return;
    }
    // A signal: the member wrote its slot and cleans it so its peers see it. Whatever it
    // stored through L2 must be in DDR by now.
    char who[32];
    std::snprintf(who, sizeof(who), "member %u signalled its fence", m->idx);
    dirty_lines_left(c, who);
    uint32_t in_flight = 0;
    for (uint32_t i = 0; i < c->sinfo.n_hvx; i++) {
        const dma_queue * q = c->dma->queue(i);
        in_flight += q->head.load(std::memory_order_acquire) - q->tail;
    }
    if (in_flight) {
        char what[160];
        std::snprintf(what, sizeof(what), "member %u signalled its fence with %u DMA transfers in flight", m->idx,
                      in_flight);
        violation(c, what);
    }
    const uint32_t          seq = ((const htp_fence_slot *) m->slot)->seq;
    std::vector<file_range> mine;
    {
        std::lock_guard<std::mutex> lock(m->mu);
        mine.swap(m->writes);
    }
    file_ranges_merge(mine);
    board_group * bg = m->bg.load(std::memory_order_acquire);
    file_range    hit;
    uint32_t      j = 0;
    if (bg && mdev_board_publish(bg, m->idx, m->count, seq, mine, &hit, &j)) {
        violation(c, overlap_text(hit, m->idx, j, seq).c_str());
    }
}

void mdev_check_import(core * c) {
    mdev_member * m = c->mdev.load(std::memory_order_acquire);
    board_group * g = m ? m->bg.load(std::memory_order_acquire) : nullptr;
    if (!g) {
        return;
    }
    std::lock_guard<std::mutex> il(m->import_mu);
    mdev_board_import(g, m->idx, m->count, m->cursor, c);
}

void mdev_check_forget(core * c) {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_members.find(c);
    if (it != g_members.end() && it->second->group) {
        for (core *& o : it->second->group->cores) {
            o = o == c ? nullptr : o;
        }
    }
    c->mdev.store(nullptr, std::memory_order_release);
    g_members.erase(c);
}

}  // namespace vhtp

extern "C" HTP_DEVICE_API void htp_fence_register(const void * own_slot, uint32_t idx, uint32_t count) {
    vhtp::core * c = vhtp::tls_core;
    if (c && count > 1) {
        vhtp::mdev_check_register(c, own_slot, idx, count);
    }
}

extern "C" HTP_DEVICE_API void htp_fence_coherent(const void * p) {
    vhtp::core * c = vhtp::tls_core;
    if (c && c->window.l2() && c->window.contains_host((uintptr_t) p)) {
        c->window.l2_coherent((uint64_t) ((const uint8_t *) p - c->window.base()));
    }
}

// The fence slots live in shared DDR (a memfd every member maps), so a shared futex on the seq
// word works across the members' windows.
extern "C" HTP_DEVICE_API void htp_fence_wait(const volatile uint32_t * word, uint32_t seen, uint64_t max_cycles) {
    if (vhtp::core * c = vhtp::tls_core) {
        vhtp::mdev_check_import(c);
    }
    const uint64_t        ns = max_cycles < 1000000000ull ? max_cycles : 1000000000ull;
    const struct timespec ts = { (time_t) (ns / 1000000000ull), (long) (ns % 1000000000ull) };
    syscall(SYS_futex, (uint32_t *) word, FUTEX_WAIT, seen, &ts, nullptr, 0);
}

extern "C" HTP_DEVICE_API void htp_fence_wake(const volatile uint32_t * word) {
    syscall(SYS_futex, (uint32_t *) word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}
