// The board of the ownership checker (mdev-board.h).
#include "mdev-board.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core.h"

namespace vhtp {

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

namespace {

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

}  // namespace

void file_ranges_merge(std::vector<file_range> & v) {
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

board_group * mdev_board_join(dev_t dev, ino_t ino, uint64_t slot0, uint32_t idx, uint64_t * gen,
                              uint64_t heads[HTP_MDEV_MAX]) {
    board * b = the_board();
    if (!b) {
        return nullptr;
    }
    board_lock    lock(b);
    board_group * g = nullptr;
    for (board_group & x : b->groups) {
        if (x.used && x.dev == (uint64_t) dev && x.ino == (uint64_t) ino && x.slot0 == slot0) {
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
        g->dev   = dev;
        g->ino   = ino;
        g->slot0 = slot0;
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
    *gen = g->gen;
    for (uint32_t j = 0; j < HTP_MDEV_MAX; j++) {
        heads[j] = g->members[j].head.load(std::memory_order_acquire);
    }
    return g;
}

// Written before the write completes, so before the member's signal.
void mdev_board_append(board_group * g, uint32_t idx, dev_t dev, ino_t ino, uint64_t offset, uint32_t row_size,
                       uint32_t stride, uint32_t nrows) {
    board_member & bm = g->members[idx];
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

bool mdev_board_publish(board_group * g, uint32_t idx, uint32_t count, uint32_t seq,
                        const std::vector<file_range> & mine, file_range * hit, uint32_t * peer) {
    board * bd = the_board();
    if (!bd) {
        return false;
    }
    board_lock   lock(bd);
    board_list & own = g->members[idx].lists[seq % kLists];
    own.valid        = 0;
    own.seq          = seq;
    own.n            = (uint32_t) std::min<size_t>(mine.size(), kListRanges);
    own.truncated    = mine.size() > kListRanges;
    for (uint32_t k = 0; k < own.n; k++) {
        own.r[k] = { (uint64_t) mine[k].dev, (uint64_t) mine[k].ino, mine[k].begin, mine[k].end, mine[k].via };
    }
    own.valid = 1;
    std::vector<file_range> theirs;
    for (uint32_t j = 0; j < count; j++) {
        const board_list & l = g->members[j].lists[seq % kLists];
        if (j == idx || !l.valid || l.seq != seq) {
            continue;
        }
        theirs.resize(l.n);
        for (uint32_t k = 0; k < l.n; k++) {
            theirs[k] = { (dev_t) l.r[k].dev, (ino_t) l.r[k].ino, l.r[k].begin, l.r[k].end, (uint8_t) l.r[k].via };
        }
        if (first_overlap(mine, theirs, hit)) {
            *peer = j;
            return true;
        }
    }
    return false;
}

void mdev_board_import(board_group * g, uint32_t idx, uint32_t count, uint64_t cursor[HTP_MDEV_MAX], core * c) {
    const int32_t self = (int32_t) getpid();
    for (uint32_t j = 0; j < count && j < HTP_MDEV_MAX; j++) {
        board_member & pm  = g->members[j];
        const int32_t  pid = pm.pid.load(std::memory_order_acquire);
        if (j == idx || pid == 0 || pid == self) {
            continue;  // a peer in this process marked us itself (make_stale_for_peers)
        }
        const uint64_t head = pm.head.load(std::memory_order_acquire);
        uint64_t &     cur  = cursor[j];
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

}  // namespace vhtp
