// The L2 model of a device-group member (see l2-cache.h).
#include "l2-cache.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "error.h"

namespace vhtp {

namespace {
void * map_fixed(uint8_t * at, uint64_t len, int prot, int flags, int fd) {
    return mmap(at, len, prot, flags | MAP_FIXED, fd, 0);
}
void reserve_none(uint8_t * at, uint64_t len) {
    mmap(at, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
}
// Copies src (DDR, which peers write meanwhile) into a and then a into b, so that a and b hold
// one instant of it. The compiler barrier keeps the optimizer from reading src twice (clang
// forwards memcpy(b, a) after memcpy(a, src) into memcpy(b, src)): two instants would leave a
// peer's line differing between the copy and its snapshot, a dirty line this member never
// wrote (its write-back then puts the old bytes over the peer's).
void copy_one_instant(uint8_t * a, uint8_t * b, const uint8_t * src, size_t n) {
    memcpy(a, src, n);
    asm volatile("" ::: "memory");
    memcpy(b, a, n);
}
// Non-zero while this thread reads or writes a view page for the model itself (clean_page,
// dirty): the protection that work needs. A fault there is a peer's guard landing on the page
// meanwhile (mark_stale), not a core access to a stale line, so stale_access gives the page
// that protection back and reports nothing.
thread_local int t_maintenance = 0;
struct maintenance_scope {
    explicit maintenance_scope(int prot) { t_maintenance = prot; }
    ~maintenance_scope() { t_maintenance = 0; }
};
// Async-signal-safe: write(2) only.
void say_full() {
    static const char msg[] = "vhtp: L2 model: more dirty pages than it keeps (clean earlier): the store faults\n";
    ssize_t           r     = write(STDERR_FILENO, msg, sizeof(msg) - 1);
    (void) r;
}
}  // namespace

l2_cache * l2_cache::create(uint8_t * view, uint64_t reserve, uint64_t vtcm_base, uint32_t vtcm_size, char * err,
                            size_t err_len) {
    l2_cache * c = new l2_cache;
    c->view_     = view;
    c->reserve_  = reserve;
    const int anon = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void *    a    = mmap(nullptr, reserve, PROT_NONE, anon, -1, 0);
    void *    s    = mmap(nullptr, reserve, PROT_READ | PROT_WRITE, anon, -1, 0);
    void *    st   = mmap(nullptr, reserve / kPage, PROT_READ | PROT_WRITE, anon, -1, 0);
    // Per page: the stale mask (4 bytes), the guard and the writer (1 byte each).
    void *    sm   = mmap(nullptr, reserve / kPage * 6, PROT_READ | PROT_WRITE, anon, -1, 0);
    c->alias_      = a == MAP_FAILED ? nullptr : static_cast<uint8_t *>(a);
    c->shadow_     = s == MAP_FAILED ? nullptr : static_cast<uint8_t *>(s);
    c->state_      = st == MAP_FAILED ? nullptr : static_cast<std::atomic<uint8_t> *>(st);
    if (sm != MAP_FAILED) {
        uint8_t * b = static_cast<uint8_t *>(sm);
        c->stale_   = reinterpret_cast<std::atomic<uint32_t> *>(b);
        c->guard_   = reinterpret_cast<std::atomic<uint8_t> *>(b + reserve / kPage * 4);
        c->writer_  = b + reserve / kPage * 5;
    }
    if (!c->alias_ || !c->shadow_ || !c->state_ || !c->stale_) {
        set_error(err, err_len, "cannot reserve the L2 model's views: %s", strerror(errno));
        delete c;
        return nullptr;
    }
    // VTCM moves to shared memory (its contents kept) so that DMA reaches it through alias_.
    const int vfd = memfd_create("vhtp-vtcm", MFD_CLOEXEC);
    bool      ok  = vfd >= 0 && ftruncate(vfd, vtcm_size) == 0;
    void *    tmp = ok ? mmap(nullptr, vtcm_size, PROT_READ | PROT_WRITE, MAP_SHARED, vfd, 0) : MAP_FAILED;
    ok            = tmp != MAP_FAILED;
    if (ok) {
        memcpy(tmp, view + vtcm_base, vtcm_size);
        munmap(tmp, vtcm_size);
        ok = map_fixed(view + vtcm_base, vtcm_size, PROT_READ | PROT_WRITE, MAP_SHARED, vfd) != MAP_FAILED &&
             map_fixed(c->alias_ + vtcm_base, vtcm_size, PROT_READ | PROT_WRITE, MAP_SHARED, vfd) != MAP_FAILED;
    }
    if (vfd >= 0) {
        close(vfd);  // the mappings keep it
    }
    if (!ok) {
        set_error(err, err_len, "cannot share VTCM with the L2 model's DMA view: %s", strerror(errno));
        delete c;
        return nullptr;
    }
    return c;
}

l2_cache::~l2_cache() {
    for (auto & [addr, r] : ranges_) {
        if (r.fd >= 0) {
            close(r.fd);
        }
    }
    if (alias_) {
        munmap(alias_, reserve_);
    }
    if (shadow_) {
        munmap(shadow_, reserve_);
    }
    if (state_) {
        munmap(state_, reserve_ / kPage);
    }
    if (stale_) {
        munmap(stale_, reserve_ / kPage * 6);
    }
}

bool l2_cache::attach(uint64_t addr, uint64_t span, int fd, dev_t dev, ino_t ino, bool populate, bool tracked,
                      bool core) {
    const int pop = populate ? MAP_POPULATE : 0;
    if (map_fixed(alias_ + addr, span, PROT_READ | PROT_WRITE, MAP_SHARED | pop, fd) == MAP_FAILED) {
        return false;
    }
    if (!core) {  // the DMA view only: nothing the core could cache
        for (uint64_t p = addr; p < addr + span; p += kPage) {
            state_[p / kPage].store(kUntracked, std::memory_order_release);
        }
        ranges_[addr] = range{ span, -1, dev, ino, false };
        return true;
    }
    // A private view is mapped read-only: its first store to each page is the fault that
    // makes the page's cached copy (write_fault), never a silent copy-on-write. Only the DMA
    // view is populated: kernels stream weights by DMA, so populating both would double the
    // cost of every weight a sliding window maps (the view faults in what HVX loads directly).
    void * v = tracked ? map_fixed(view_ + addr, span, PROT_READ, MAP_PRIVATE, fd)
                       : map_fixed(view_ + addr, span, PROT_READ | PROT_WRITE, MAP_SHARED | pop, fd);
    if (v == MAP_FAILED) {
        reserve_none(alias_ + addr, span);
        return false;
    }
    const int own = tracked ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
    for (uint64_t p = addr; p < addr + span; p += kPage) {
        state_[p / kPage].store(tracked ? kClean : kUntracked, std::memory_order_release);
        guard_[p / kPage].store(0, std::memory_order_relaxed);  // a new mapping: nothing cached
        if (stale_[p / kPage].exchange(0, std::memory_order_acq_rel)) {
            stale_n_.fetch_sub(1, std::memory_order_acq_rel);
        }
    }
    ranges_[addr] = range{ span, own, dev, ino, tracked };
    return true;
}

void l2_cache::detach(uint64_t addr, uint64_t span) {
    auto it = ranges_.find(addr);
    if (it == ranges_.end()) {
        return;
    }
    if (it->second.tracked) {
        const sink none{ [](void *, dev_t, ino_t, uint64_t, uint64_t) {}, nullptr };
        clear_stale(addr, addr + span);
        for (uint64_t p = addr; p < addr + span; p += kPage) {
            clean_page(p, p, p + kPage, true, none);  // a buffer leaves the window with its data in DDR
            state_[p / kPage].store(kUntracked, std::memory_order_release);
        }
        close(it->second.fd);
    }
    reserve_none(alias_ + addr, span);
    ranges_.erase(it);
}

bool l2_cache::write_fault(uint64_t addr) {
    if (addr >= reserve_) {
        return false;
    }
    const uint64_t         p  = addr & ~(kPage - 1);
    std::atomic<uint8_t> & st = state_[p / kPage];
    uint8_t                s  = st.load(std::memory_order_acquire);
    if (s == kUntracked) {
        return false;  // not a cached buffer: a real MMU fault
    }
    if (s == kDirty) {
        // Another thread of the session made the page writable meanwhile, or an opening
        // (stale_access, clear_stale) that saw the page clean protected it read-only after:
        // writable again (a guard stays: stale_access handles that fault first).
        if (!guard_[p / kPage].load(std::memory_order_acquire)) {
            mprotect(view_ + p, kPage, PROT_READ | PROT_WRITE);
        }
        return true;
    }
    if (s == kBusy || !st.compare_exchange_strong(s, kBusy, std::memory_order_acq_rel)) {
        sched_yield();  // another thread is making or cleaning the page: retry the store
        return true;
    }
    if (dirty_.load(std::memory_order_relaxed) >= kMaxDirtyPages) {
        st.store(kClean, std::memory_order_release);
        say_full();
        return false;
    }
    // The page and its snapshot are copies of one instant of DDR; the copy replaces the view's
    // read-only page in one step, so a store of another thread sees the old page (and waits
    // here) or the copy, never a page whose snapshot misses its store.
    void * scratch = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (scratch == MAP_FAILED) {
        st.store(kClean, std::memory_order_release);
        return false;
    }
    copy_one_instant(static_cast<uint8_t *>(scratch), shadow_ + p, alias_ + p, kPage);
    if (mremap(scratch, kPage, kPage, MREMAP_MAYMOVE | MREMAP_FIXED, view_ + p) == MAP_FAILED) {
        munmap(scratch, kPage);
        st.store(kClean, std::memory_order_release);
        return false;
    }
    dirty_.fetch_add(1, std::memory_order_relaxed);
    st.store(kDirty, std::memory_order_release);
    return true;
}

const l2_cache::range * l2_cache::find(uint64_t addr, uint64_t * start) const {
    auto it = ranges_.upper_bound(addr);
    if (it == ranges_.begin()) {
        return nullptr;
    }
    --it;
    if (addr >= it->first + it->second.span) {
        return nullptr;
    }
    *start = it->first;
    return &it->second;
}

uint64_t l2_cache::clean_page(uint64_t p, uint64_t lo, uint64_t hi, bool invalidate, const sink & s) {
    std::atomic<uint8_t> & st     = state_[p / kPage];
    uint8_t                expect = kDirty;
    if (!st.compare_exchange_strong(expect, kBusy, std::memory_order_acq_rel)) {
        return 0;  // nothing cached there
    }
    maintenance_scope in_model(PROT_READ);
    uint64_t          base = 0;
    const range *     r    = find(p, &base);
    // Read-only while we compare: a store of another thread waits in write_fault.
    mprotect(view_ + p, kPage, PROT_READ);
    uint64_t written = 0, run = 0, run_len = 0;
    auto     emit    = [&] {
        if (run_len) {
            s.fn(s.ctx, r->dev, r->ino, run - base, run_len);
            run_len = 0;
        }
    };
    for (uint64_t l = lo; l < hi; l += kLine) {
        if (memcmp(view_ + l, shadow_ + l, kLine) == 0) {
            emit();
            continue;
        }
        memcpy(alias_ + l, view_ + l, kLine);  // the write-back: DDR gets the line
        memcpy(shadow_ + l, view_ + l, kLine);
        written++;
        if (!run_len) {
            run = l;
        }
        run_len += kLine;
    }
    emit();
    if (memcmp(view_ + p, shadow_ + p, kPage) == 0) {
        // No dirty line left: the view maps DDR again, so the page reads fresh.
        mmap(view_ + p, kPage, PROT_READ, MAP_PRIVATE | MAP_FIXED, r->fd, static_cast<off_t>(p - base));
        madvise(shadow_ + p, kPage, MADV_DONTNEED);
        dirty_.fetch_sub(1, std::memory_order_relaxed);
        st.store(kClean, std::memory_order_release);
        if (guard_[p / kPage].load(std::memory_order_acquire)) {
            mprotect(view_ + p, kPage, PROT_NONE);  // it still holds a stale line
        }
        return written;
    }
    if (invalidate) {
        // The range's lines read DDR again: snapshot and copy from one instant of each line
        // (peers may write DDR meanwhile), written while the view is writable.
        t_maintenance = PROT_READ | PROT_WRITE;
        mprotect(view_ + p, kPage, PROT_READ | PROT_WRITE);
        for (uint64_t l = lo; l < hi; l += kLine) {
            copy_one_instant(shadow_ + l, view_ + l, alias_ + l, kLine);
        }
    }
    mprotect(view_ + p, kPage,
             guard_[p / kPage].load(std::memory_order_acquire) ? PROT_NONE : PROT_READ | PROT_WRITE);
    st.store(kDirty, std::memory_order_release);
    return written;
}

uint64_t l2_cache::clean(uint64_t addr, uint64_t bytes, bool invalidate, const sink & s) {
    if (bytes == 0 || addr >= reserve_) {
        return 0;
    }
    const uint64_t lo = addr & ~(kLine - 1);
    const uint64_t hi = std::min((addr + bytes + kLine - 1) & ~(kLine - 1), reserve_);
    if (invalidate && stale_n_.load(std::memory_order_acquire)) {
        clear_stale(lo, hi);  // the lines read DDR again: a peer's writes are visible now
    }
    if (dirty_.load(std::memory_order_acquire) == 0) {
        return 0;  // nothing cached: the common case, one load
    }
    uint64_t       n  = 0;
    for (uint64_t p = lo & ~(kPage - 1); p < hi; p += kPage) {
        if (state_[p / kPage].load(std::memory_order_relaxed) == kDirty) {
            n += clean_page(p, std::max(lo, p), std::min(hi, p + kPage), invalidate, s);
        }
    }
    return n;
}

uint64_t l2_cache::clean_all(const sink & s) {
    uint64_t n = 0;
    for (auto it = ranges_.begin(); it != ranges_.end() && stale_n_.load(std::memory_order_acquire); ++it) {
        if (it->second.tracked) {
            clear_stale(it->first, it->first + it->second.span);  // flush_all invalidates too
        }
    }
    for (auto it = ranges_.begin(); it != ranges_.end() && dirty_.load(std::memory_order_acquire); ++it) {
        if (!it->second.tracked) {
            continue;
        }
        for (uint64_t p = it->first; p < it->first + it->second.span; p += kPage) {
            if (state_[p / kPage].load(std::memory_order_relaxed) == kDirty) {
                n += clean_page(p, p, p + kPage, true, s);
            }
        }
    }
    return n;
}

int l2_cache::open_prot(uint64_t p) const {
    return state_[p / kPage].load(std::memory_order_acquire) == kDirty ? PROT_READ | PROT_WRITE : PROT_READ;
}

void l2_cache::open_pages(uint64_t lo, uint64_t hi, int prot) {
    mprotect(view_ + lo, hi - lo, prot);
    if (!(prot & PROT_WRITE)) {
        return;
    }
    // The protection was chosen from the state before the mprotect: a page cleaned to its file
    // mapping meanwhile (clean_page) must not stay writable, or a store would copy it on write
    // unseen by the model (lost at the next fresh mapping). A page made dirty again after this
    // check ends read-only, and write_fault makes it writable at its next store.
    for (uint64_t p = lo; p < hi; p += kPage) {
        if (state_[p / kPage].load(std::memory_order_acquire) != kDirty) {
            mprotect(view_ + p, kPage, PROT_READ);
        }
    }
}

void l2_cache::mark_stale(uint64_t addr, uint64_t bytes, uint32_t writer) {
    if (bytes == 0 || addr >= reserve_) {
        return;
    }
    const uint64_t lo = addr & ~(kLine - 1);
    const uint64_t hi = std::min((addr + bytes + kLine - 1) & ~(kLine - 1), reserve_);
    uint64_t       run = 0, run_end = 0;  // pages to guard, merged into one mprotect
    auto           flush = [&] {
        if (run_end > run) {
            mprotect(view_ + run, run_end - run, PROT_NONE);
        }
        run = run_end = 0;
    };
    for (uint64_t p = lo & ~(kPage - 1); p < hi; p += kPage) {
        const uint8_t st = state_[p / kPage].load(std::memory_order_acquire);
        if (st != kClean && st != kDirty) {
            flush();  // not cached (coherent, DMA-only) or being made or cleaned right now
            continue;
        }
        const uint64_t a    = std::max(lo, p), b = std::min(hi, p + kPage);
        const uint32_t n    = static_cast<uint32_t>((b - a) / kLine);
        const uint32_t bits = (n >= 32 ? ~0u : ((1u << n) - 1)) << ((a - p) / kLine);
        writer_[p / kPage]  = static_cast<uint8_t>(writer);
        if (stale_[p / kPage].fetch_or(bits, std::memory_order_acq_rel) == 0) {
            stale_n_.fetch_add(1, std::memory_order_acq_rel);
        }
        if (guard_[p / kPage].exchange(1, std::memory_order_acq_rel)) {
            flush();
            continue;  // guarded already
        }
        if (run_end != p) {
            flush();
            run = p;
        }
        run_end = p + kPage;
    }
    flush();
}

void l2_cache::clear_stale(uint64_t lo, uint64_t hi) {
    uint64_t run = 0, run_end = 0;  // pages to open with one protection, one mprotect
    int      run_prot = 0;
    auto     flush    = [&] {
        if (run_end > run) {
            open_pages(run, run_end, run_prot);
        }
        run = run_end = 0;
    };
    for (uint64_t p = lo & ~(kPage - 1); p < hi; p += kPage) {
        std::atomic<uint32_t> & m = stale_[p / kPage];
        if (m.load(std::memory_order_acquire) == 0 && !guard_[p / kPage].load(std::memory_order_acquire)) {
            continue;
        }
        const uint64_t a    = std::max(lo, p), b = std::min(hi, p + kPage);
        const uint32_t n    = static_cast<uint32_t>((b - a) / kLine);
        const uint32_t bits = (n >= 32 ? ~0u : ((1u << n) - 1)) << ((a - p) / kLine);
        const uint32_t old  = m.fetch_and(~bits, std::memory_order_acq_rel);
        if (old != 0 && (old & ~bits) == 0) {
            stale_n_.fetch_sub(1, std::memory_order_acq_rel);
        }
        if ((old & ~bits) == 0 && guard_[p / kPage].exchange(0, std::memory_order_acq_rel)) {
            const int prot = open_prot(p);
            if (run_end != p || prot != run_prot) {
                flush();
                run      = p;
                run_prot = prot;
            }
            run_end = p + kPage;
        }
    }
    flush();
}

l2_cache::stale_result l2_cache::stale_access(uint64_t addr, uint32_t * writer) {
    if (addr >= reserve_) {
        return kNotStale;
    }
    const uint64_t p = addr & ~(kPage - 1);
    if (t_maintenance) {
        // The model's own access (a guard, or another thread's opening, came meanwhile): the
        // protection it needs; a guard stays (clean_page and dirty put PROT_NONE back).
        mprotect(view_ + p, kPage, t_maintenance);
        return kOpened;
    }
    if (stale_n_.load(std::memory_order_acquire) == 0) {
        return kNotStale;
    }
    if (!guard_[p / kPage].load(std::memory_order_acquire)) {
        // Not guarded (or opened by another thread meanwhile): a store to a clean page, which
        // write_fault handles (for a racing load it makes a copy with no dirty line: harmless).
        return kNotStale;
    }
    const uint32_t bit   = 1u << ((addr - p) / kLine);
    const bool     stale = (stale_[p / kPage].load(std::memory_order_acquire) & bit) != 0;
    *writer              = writer_[p / kPage];
    if (guard_[p / kPage].exchange(0, std::memory_order_acq_rel)) {
        open_pages(p, p + kPage, open_prot(p));
    }
    return stale ? kStale : kOpened;
}

l2_cache::dirty_report l2_cache::dirty() const {
    dirty_report d{};
    if (dirty_.load(std::memory_order_acquire) == 0) {
        return d;
    }
    maintenance_scope in_model(PROT_READ);
    for (const auto & [start, r] : ranges_) {
        if (!r.tracked) {
            continue;
        }
        for (uint64_t p = start; p < start + r.span; p += kPage) {
            if (state_[p / kPage].load(std::memory_order_relaxed) != kDirty) {
                continue;
            }
            for (uint64_t l = p; l < p + kPage; l += kLine) {
                if (memcmp(view_ + l, shadow_ + l, kLine) != 0 && d.lines++ == 0) {
                    d.addr   = l;
                    d.dev    = r.dev;
                    d.ino    = r.ino;
                    d.offset = l - start;
                }
            }
            if (guard_[p / kPage].load(std::memory_order_acquire)) {
                mprotect(view_ + p, kPage, PROT_NONE);  // the scan may have opened it (stale_access)
            }
        }
    }
    return d;
}

}  // namespace vhtp
