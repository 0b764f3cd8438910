// Multi-device ownership checker (see mdev-check.h), and the fence waits of the device API.
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
#include <tuple>
#include <vector>

#include "core.h"
#include "dma-engine.h"
#include "fault.h"
#include "htp-abi/htp-abi.h"

namespace vhtp {
namespace {

enum : uint8_t { kViaDma = 1, kViaL2 = 2 };

struct file_range {
    dev_t    dev;
    ino_t    ino;
    uint64_t begin, end;
    uint8_t  via = kViaDma;  // how the member wrote it (merged ranges: both bits may be set)

    bool operator<(const file_range & o) const {
        return std::tie(dev, ino, begin, end) < std::tie(o.dev, o.ino, o.begin, o.end);
    }
};

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

// The board (mdev-check.h, docs/vhtp.md "The DSP processes"): what the members of a group tell
// each other across processes. One per host process: the host's memfd, mapped by every DSP
// process (or an anonymous one when the sessions run in one process). Per group, per member: the merged
// writes it signalled for its last kLists barriers (the ownership check), and a ring of its
// writes as they happen (the stale marks a peer in another process imports).
constexpr uint32_t kBoardMagic   = 0x4452424d;  // "MBRD"
constexpr uint32_t kBoardGroups  = 8;
constexpr uint32_t kLists        = 4;     // a member is at most one barrier ahead of a peer's check
constexpr uint32_t kListRanges   = 8192;  // merged ranges per member and barrier (more: not checked)
constexpr uint32_t kRingRecords  = 16384; // writes a peer may be behind (more: the oldest are not marked)

struct board_range {
    uint64_t dev, ino, begin, end, via;
};
struct board_list {
    uint32_t    valid, seq, n, truncated;
    board_range r[kListRanges];
};
struct board_record {
    std::atomic<uint64_t> pos;  // index + 1 once the fields are written (a seqlock: 0 while writing)
    std::atomic<uint64_t> dev, ino, offset;
    std::atomic<uint64_t> shape;  // row_size | stride << 32
    std::atomic<uint64_t> nrows;
};
struct board_member {
    std::atomic<int32_t>  pid;   // the process the member runs in (0: none yet)
    std::atomic<uint64_t> head;  // records reserved
    board_list            lists[kLists];
    board_record          ring[kRingRecords];
};
struct board_group {
    uint32_t     used;
    uint64_t     dev, ino, slot0;
    uint64_t     gen;        // changes when the entry is given to another group
    uint64_t     last_used;  // board tick of the last registration (the least recent is reused)
    board_member members[HTP_MDEV_MAX];
};
struct board {
    uint32_t        magic;
    pthread_mutex_t mu;  // process-shared, robust: registrations and the barrier lists
    uint64_t        tick, gen;
    board_group     groups[kBoardGroups];
};

board * g_board = nullptr;

// Locks the board; a holder that died (its DSP process crashed) leaves it consistent enough:
// every field the lock guards is rewritten whole before it is read.
struct board_lock {
    explicit board_lock(board * b) : b_(b) {
        if (pthread_mutex_lock(&b_->mu) == EOWNERDEAD) {
            pthread_mutex_consistent(&b_->mu);
        }
    }
    ~board_lock() { pthread_mutex_unlock(&b_->mu); }
    board * b_;
};

void board_init(board * b) {
    b->magic = kBoardMagic;
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&b->mu, &a);
    pthread_mutexattr_destroy(&a);
}

board * the_board() {
    static board * own = [] {
        if (g_board) {
            return g_board;
        }
        // Sessions in this process only (GGML_HEXAGON_INPROC=1, unit tests): a private board.
        void * p = mmap(nullptr, sizeof(board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
        if (p == MAP_FAILED) {
            return (board *) nullptr;
        }
        board_init(static_cast<board *>(p));
        return static_cast<board *>(p);
    }();
    return g_board ? g_board : own;
}

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

void merge(std::vector<file_range> & v) {
    std::sort(v.begin(), v.end());
    size_t out = 0;
    for (size_t i = 0; i < v.size(); i++) {
        if (out > 0 && v[out - 1].dev == v[i].dev && v[out - 1].ino == v[i].ino && v[i].begin <= v[out - 1].end) {
            v[out - 1].end = std::max(v[out - 1].end, v[i].end);
            v[out - 1].via |= v[i].via;
        } else {
            v[out++] = v[i];
        }
    }
    v.resize(out);
}

// The first byte range both sorted, merged lists write, if any.
bool first_overlap(const std::vector<file_range> & a, const std::vector<file_range> & b, file_range * hit) {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const file_range & x = a[i];
        const file_range & y = b[j];
        if (std::tie(x.dev, x.ino) != std::tie(y.dev, y.ino)) {
            (std::tie(x.dev, x.ino) < std::tie(y.dev, y.ino)) ? i++ : j++;
            continue;
        }
        if (x.end > y.begin && y.end > x.begin) {
            *hit = { x.dev, x.ino, std::max(x.begin, y.begin), std::min(x.end, y.end), (uint8_t) (x.via | (y.via << 2)) };
            return true;
        }
        (x.end <= y.end) ? i++ : j++;
    }
    return false;
}

const char * via_name(uint8_t via) {
    switch (via & 3) {
        case kViaDma: return "by DMA";
        case kViaL2: return "through L2";
        default: return "by DMA and through L2";
    }
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

// Member m wrote rows of file (dev, ino): a record in its ring, for peers in other processes
// (mdev_check_import). Written before the write completes, so before the member's signal.
void board_append(mdev_member * m, dev_t dev, ino_t ino, uint64_t offset, uint32_t row_size, uint32_t stride,
                  uint32_t nrows) {
    board_group * g = m->bg.load(std::memory_order_acquire);
    if (!g) {
        return;
    }
    board_member & bm = g->members[m->idx];
    const uint64_t i  = bm.head.fetch_add(1, std::memory_order_relaxed);
    board_record & r  = bm.ring[i % kRingRecords];
    r.pos.store(0, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    r.dev.store((uint64_t) dev, std::memory_order_relaxed);
    r.ino.store((uint64_t) ino, std::memory_order_relaxed);
    r.offset.store(offset, std::memory_order_relaxed);
    r.shape.store(uint64_t(row_size) | uint64_t(stride) << 32, std::memory_order_relaxed);
    r.nrows.store(nrows, std::memory_order_relaxed);
    r.pos.store(i + 1, std::memory_order_release);
}

// Joins the group of key on the board as member idx (under nothing: takes the board's lock).
void board_register(mdev_member * m, const group_key & key, uint32_t idx) {
    board * b = the_board();
    if (!b) {
        return;
    }
    board_lock     lock(b);
    board_group *  g = nullptr;
    for (board_group & x : b->groups) {
        if (x.used && x.dev == (uint64_t) key.dev && x.ino == (uint64_t) key.ino && x.slot0 == key.slot0) {
            g = &x;
        }
    }
    if (!g) {  // a free entry, or the least recently registered one (an old communicator's)
        for (board_group & x : b->groups) {
            if (!g || (!x.used && g->used) || (x.used == g->used && x.last_used < g->last_used)) {
                g = &x;
            }
        }
        g->used  = 1;
        g->dev   = key.dev;
        g->ino   = key.ino;
        g->slot0 = key.slot0;
        g->gen   = ++b->gen;
        for (board_member & bm : g->members) {
            bm.pid.store(0, std::memory_order_relaxed);
            for (board_list & l : bm.lists) {
                l.valid = 0;
            }
        }
    }
    g->last_used = ++b->tick;
    g->members[idx].pid.store((int32_t) getpid(), std::memory_order_release);
    if (m->bg.load(std::memory_order_relaxed) != g || m->bg_gen != g->gen) {
        std::lock_guard<std::mutex> il(m->import_mu);
        for (uint32_t j = 0; j < HTP_MDEV_MAX; j++) {
            m->cursor[j] = g->members[j].head.load(std::memory_order_acquire);  // older writes are not ours to mark
        }
        m->bg_gen = g->gen;
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
    merge(mine);
    board *       bd = the_board();
    board_group * bg = m->bg.load(std::memory_order_acquire);
    if (!bd || !bg) {
        return;
    }
    // Published under the board's lock, then compared with the peers' lists of the same barrier:
    // whichever of two members signals last finds the overlap.
    board_lock   lock(bd);
    board_list & own = bg->members[m->idx].lists[seq % kLists];
    own.valid        = 0;
    own.seq          = seq;
    own.n            = (uint32_t) std::min<size_t>(mine.size(), kListRanges);
    own.truncated    = mine.size() > kListRanges;
    for (uint32_t k = 0; k < own.n; k++) {
        own.r[k] = { (uint64_t) mine[k].dev, (uint64_t) mine[k].ino, mine[k].begin, mine[k].end, mine[k].via };
    }
    own.valid = 1;
    std::vector<file_range> peer;
    for (uint32_t j = 0; j < m->count; j++) {
        const board_list & l = bg->members[j].lists[seq % kLists];
        if (j == m->idx || !l.valid || l.seq != seq) {
            continue;
        }
        peer.resize(l.n);
        for (uint32_t k = 0; k < l.n; k++) {
            peer[k] = { (dev_t) l.r[k].dev, (ino_t) l.r[k].ino, l.r[k].begin, l.r[k].end, (uint8_t) l.r[k].via };
        }
        file_range hit;
        if (first_overlap(mine, peer, &hit)) {
            // Named in index order, whichever of the two signalled last.
            char           what[300];
            const uint8_t  mine_via = hit.via & 3, peer_via = hit.via >> 2;
            const uint32_t lo = std::min(j, m->idx), hi = std::max(j, m->idx);
            const uint8_t  lo_via = lo == j ? peer_via : mine_via, hi_via = lo == j ? mine_via : peer_via;
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
            violation(c, what);
            break;
        }
    }
}

void mdev_check_import(core * c) {
    mdev_member * m = c->mdev.load(std::memory_order_acquire);
    board_group * g = m ? m->bg.load(std::memory_order_acquire) : nullptr;
    if (!g) {
        return;
    }
    const int32_t self = (int32_t) getpid();
    std::lock_guard<std::mutex> il(m->import_mu);
    for (uint32_t j = 0; j < m->count && j < HTP_MDEV_MAX; j++) {
        board_member & pm  = g->members[j];
        const int32_t  pid = pm.pid.load(std::memory_order_acquire);
        if (j == m->idx || pid == 0 || pid == self) {
            continue;  // a peer in this process marked us itself (make_stale_for_peers)
        }
        const uint64_t head = pm.head.load(std::memory_order_acquire);
        uint64_t &     cur  = m->cursor[j];
        if (head - cur > kRingRecords) {
            cur = head - kRingRecords;  // overwritten before we looked: those marks are lost
        }
        for (; cur < head; cur++) {
            board_record & r  = pm.ring[cur % kRingRecords];
            const uint64_t p0 = r.pos.load(std::memory_order_acquire);
            if (p0 < cur + 1) {
                if (head - cur > 1024) {
                    continue;  // reserved and never written (its writer died): skipped
                }
                break;  // being written: the rest next time
            }
            const uint64_t dev = r.dev.load(std::memory_order_relaxed), ino = r.ino.load(std::memory_order_relaxed);
            const uint64_t off = r.offset.load(std::memory_order_relaxed), shape = r.shape.load(std::memory_order_relaxed);
            const uint64_t rows = r.nrows.load(std::memory_order_relaxed);
            std::atomic_thread_fence(std::memory_order_acquire);
            if (p0 != cur + 1 || r.pos.load(std::memory_order_relaxed) != cur + 1) {
                continue;  // overwritten by a newer record meanwhile: lost
            }
            c->window.l2_mark_stale((dev_t) dev, (ino_t) ino, off, (uint32_t) shape, (uint32_t) (shape >> 32),
                                    (uint32_t) rows, j);
        }
    }
}

bool mdev_board_create(int * fd, char * err, size_t err_len) {
    *fd = memfd_create("vhtp-mdev-board", MFD_CLOEXEC);
    if (*fd < 0 || ftruncate(*fd, sizeof(board)) != 0) {
        std::snprintf(err, err_len, "cannot create the device groups' board: %s", std::strerror(errno));
        return false;
    }
    void * p = mmap(nullptr, sizeof(board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, *fd, 0);
    if (p == MAP_FAILED) {
        std::snprintf(err, err_len, "cannot map the device groups' board: %s", std::strerror(errno));
        return false;
    }
    board_init(static_cast<board *>(p));
    g_board = static_cast<board *>(p);  // the host's own sessions (none when they run remote) share it
    return true;
}

bool mdev_board_attach(int fd) {
    void * p = mmap(nullptr, sizeof(board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (p == MAP_FAILED || static_cast<board *>(p)->magic != kBoardMagic) {
        return false;
    }
    g_board = static_cast<board *>(p);
    return true;
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
