// The session address window: reservation, first-fit placement of DDR buffers, VTCM.
#include "window.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "error.h"
#include "htp-abi/htp-status.h"

namespace vhtp {

namespace {
uint64_t round_up(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a;
}
}  // namespace

bool Window::init(uint64_t vmem_budget, uint32_t vtcm_size, bool dma64, char * err, size_t err_len) {
    reserve_ = dma64 ? kReserve64 : kReserve;
    // MAP_NORESERVE: 4 (68) GiB of address space per session, no memory until something is mapped.
    const int anon = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void *    p    = mmap(nullptr, reserve_, PROT_NONE, anon, -1, 0);
    if (p == MAP_FAILED) {
        set_error(err, err_len, "cannot reserve the %llu GiB session window: %s",
                  static_cast<unsigned long long>(reserve_ >> 30), strerror(errno));
        return false;
    }
    base_ = static_cast<uint8_t *>(p);
    bool vtcm_ok = false;
    if (dma64) {
        // The DMA engine's own view, which alone maps the weights above 4 GiB; VTCM is shared
        // memory seen by both views.
        void * d  = mmap(nullptr, reserve_, PROT_NONE, anon, -1, 0);
        dma_view_ = d == MAP_FAILED ? nullptr : static_cast<uint8_t *>(d);
        const int vfd = dma_view_ ? memfd_create("vhtp-vtcm", MFD_CLOEXEC) : -1;
        vtcm_ok       = vfd >= 0 && ftruncate(vfd, vtcm_size) == 0 &&
                  mmap(base_ + kVtcmBase, vtcm_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, vfd, 0) != MAP_FAILED &&
                  mmap(dma_view_ + kVtcmBase, vtcm_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, vfd, 0) !=
                      MAP_FAILED;
        if (vfd >= 0) {
            close(vfd);  // the mappings keep it
        }
    } else {
        vtcm_ok = mmap(base_ + kVtcmBase, vtcm_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                       -1, 0) != MAP_FAILED;
    }
    if (!vtcm_ok) {
        set_error(err, err_len, "cannot map %u bytes of VTCM: %s", vtcm_size, strerror(errno));
        munmap(base_, reserve_);
        base_ = nullptr;
        if (dma_view_) {
            munmap(dma_view_, reserve_);
            dma_view_ = nullptr;
        }
        return false;
    }
    vtcm_size_ = vtcm_size;
    budget_    = vmem_budget;
    return true;
}

Window::~Window() {
    delete l2_.load(std::memory_order_relaxed);
    if (base_) {
        munmap(base_, reserve_);  // drops every DDR mapping and VTCM at once
    }
    if (dma_view_) {
        munmap(dma_view_, reserve_);
    }
}

bool Window::find_gap(uint64_t span, bool from_top, uint64_t lo, uint64_t hi, uint64_t * addr) const {
    // Each mapping is followed by one unmapped guard page, so running off a buffer's end faults.
    // Only the mappings inside [lo, hi) count: a DMA64 session has two areas.
    const uint64_t need = span + kPage;
    if (from_top) {
        // Last fit: the highest gap that holds `need`, placed at its top.
        uint64_t limit = hi;
        for (auto it = by_addr_.lower_bound(hi); it != by_addr_.begin();) {
            --it;
            if (it->first < lo) {
                break;
            }
            const uint64_t end = it->first + it->second.span + kPage;
            if (end <= limit && limit - end >= need) {
                break;
            }
            limit = it->first;
        }
        if (limit < lo + need) {
            return false;
        }
        *addr = limit - need;
        return true;
    }
    uint64_t cursor = lo;
    for (auto it = by_addr_.lower_bound(lo); it != by_addr_.end() && it->first < hi; ++it) {
        if (it->first >= cursor && it->first - cursor >= need) {
            break;
        }
        cursor = it->first + it->second.span + kPage;
    }
    if (cursor + need > hi) {
        return false;
    }
    *addr = cursor;
    return true;
}

void Window::drop(std::map<uint64_t, mapping>::iterator it) {
    // Replace the file mapping by PROT_NONE (never munmap: that would punch a hole in the
    // reservation that an unrelated host mmap could then land in).
    if (l2_cache * l = l2()) {
        l->detach(it->second.addr, it->second.span);  // its dirty lines go to DDR first
    }
    mmap(base_ + it->second.addr, it->second.span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
         -1, 0);
    if (dma_view_) {
        mmap(dma_view_ + it->second.addr, it->second.span, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    }
    mapped_ -= it->second.span;
    by_addr_.erase(it);
}

int Window::map(int fd, uint64_t size, bool pinned, uint64_t * addr) {
    struct stat st;
    if (size == 0 || fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < size) {
        return HTP_STATUS_MAP_FAILED;
    }
    std::unique_lock<std::shared_mutex> lock(mu_);
    for (auto it = by_addr_.begin(); it != by_addr_.end(); ++it) {
        mapping & m = it->second;
        if (m.fd != fd) {
            continue;
        }
        if (m.dev != st.st_dev || m.ino != st.st_ino) {
            drop(it);  // stale: the fd now names another file
            break;
        }
        if (round_up(size, kPage) > m.span) {
            return HTP_STATUS_MAP_FAILED;  // cannot grow a mapping others still reference
        }
        m.refs++;
        m.pinned = m.pinned || pinned;
        *addr    = m.addr;
        return HTP_STATUS_OK;
    }

    const uint64_t span = round_up(size, kPage);
    if (mapped_ + span > budget_) {
        return HTP_STATUS_NO_MEMORY;
    }
    // A DMA64 session keeps its weights above 4 GiB, where only DMA reaches them; its pinned
    // buffers (read and written by the core too) stay in the 32-bit area.
    const bool     high = dma64() && !pinned;
    const uint64_t lo = high ? kDdr64Base : kDdrBase, hi = high ? kDdr64End : kDdrEnd;
    uint64_t       a = 0;
    if (!find_gap(span, pinned, lo, hi, &a)) {
        return HTP_STATUS_NO_MEMORY;
    }
    // Weights are delayed mappings that come and go with the batches, and a kernel streams all
    // of a weight: populate the page tables in one go rather than fault page by page. Pinned
    // buffers (a compute buffer is often used only in part) fault in as they are touched.
    const int populate = pinned ? 0 : MAP_POPULATE;
    const mapping m{ fd, st.st_dev, st.st_ino, a, span, 1, pinned };
    if (l2_cache * l = l2()) {
        if (!l->attach(a, span, fd, st.st_dev, st.st_ino, !pinned, !coherent(m), !high)) {
            return HTP_STATUS_MAP_FAILED;
        }
    } else {
        const int rw = PROT_READ | PROT_WRITE;
        if (dma_view_ && mmap(dma_view_ + a, span, rw, MAP_SHARED | MAP_FIXED | populate, fd, 0) == MAP_FAILED) {
            return HTP_STATUS_MAP_FAILED;
        }
        if (!high && mmap(base_ + a, span, rw, MAP_SHARED | MAP_FIXED | populate, fd, 0) == MAP_FAILED) {
            if (dma_view_) {
                mmap(dma_view_ + a, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
            }
            return HTP_STATUS_MAP_FAILED;
        }
    }
    by_addr_[a] = m;
    mapped_ += span;
    *addr = a;
    return HTP_STATUS_OK;
}

int Window::unmap(int fd) {
    std::unique_lock<std::shared_mutex> lock(mu_);
    for (auto it = by_addr_.begin(); it != by_addr_.end(); ++it) {
        if (it->second.fd == fd) {
            if (--it->second.refs == 0) {
                drop(it);
            }
            return HTP_STATUS_OK;
        }
    }
    return HTP_STATUS_MAP_FAILED;
}

bool Window::contains(uint64_t addr, uint64_t len) const {
    const uint64_t end = addr + len;
    if (end < addr || end > reserve_) {
        return false;  // wraps, or leaves the window
    }
    if (addr >= kVtcmBase && addr < kVtcmBase + static_cast<uint64_t>(vtcm_size_)) {
        return end <= static_cast<uint64_t>(kVtcmBase) + vtcm_size_;
    }
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto it = by_addr_.upper_bound(addr);
    if (it == by_addr_.begin()) {
        return false;
    }
    --it;
    return end <= it->second.addr + it->second.span;
}

bool Window::file_offset(uint64_t addr, dev_t * dev, ino_t * ino, uint64_t * offset) const {
    if (addr >= kVtcmBase && addr < kVtcmBase + static_cast<uint64_t>(vtcm_size_)) {
        return false;
    }
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto it = by_addr_.upper_bound(addr);
    if (it == by_addr_.begin()) {
        return false;
    }
    --it;
    if (addr >= it->second.addr + it->second.span) {
        return false;
    }
    *dev    = it->second.dev;
    *ino    = it->second.ino;
    *offset = addr - it->second.addr;
    return true;
}

bool Window::buffer_at(uint64_t addr, int * fd, uint64_t * size, uint64_t * offset) const {
    if (!mu_.try_lock_shared()) {
        return false;
    }
    bool found = false;
    auto it    = by_addr_.upper_bound(addr);
    if (it != by_addr_.begin()) {
        --it;
        if (addr < it->second.addr + it->second.span) {
            *fd     = it->second.fd;
            *size   = it->second.span;
            *offset = addr - it->second.addr;
            found   = true;
        }
    }
    mu_.unlock_shared();
    return found;
}

bool Window::coherent(const mapping & m) const {
    return coherent_.count({ m.dev, m.ino }) != 0;
}

bool Window::l2_enable(dev_t coherent_dev, ino_t coherent_ino, char * err, size_t err_len) {
    std::unique_lock<std::shared_mutex> lock(mu_);
    if (l2()) {
        return true;
    }
    coherent_[{ coherent_dev, coherent_ino }] = true;
    l2_cache * l = l2_cache::create(base_, reserve_, kVtcmBase, vtcm_size_, err, err_len);
    if (!l) {
        return false;
    }
    // The buffers mapped so far move under the model (their data is in the file already).
    for (const auto & [a, m] : by_addr_) {
        if (!l->attach(a, m.span, m.fd, m.dev, m.ino, !m.pinned, !coherent(m), !dma_only(a))) {
            set_error(err, err_len, "cannot map a buffer for the L2 model: %s", strerror(errno));
            // Back to coherent shared mappings, so the session works on without the model.
            for (const auto & [b, n] : by_addr_) {
                if (!dma_only(b)) {
                    mmap(base_ + b, n.span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, n.fd, 0);
                }
            }
            delete l;
            return false;
        }
    }
    l2_.store(l, std::memory_order_release);
    return true;
}

void Window::l2_coherent(uint64_t addr) {
    std::unique_lock<std::shared_mutex> lock(mu_);
    l2_cache * l = l2();
    auto       it = by_addr_.upper_bound(addr);
    if (!l || it == by_addr_.begin()) {
        return;
    }
    --it;
    const mapping & m = it->second;
    if (addr >= m.addr + m.span || coherent(m)) {
        return;
    }
    coherent_[{ m.dev, m.ino }] = true;
    l->detach(m.addr, m.span);
    l->attach(m.addr, m.span, m.fd, m.dev, m.ino, !m.pinned, false, !dma_only(m.addr));
}

uint64_t Window::l2_clean(uint64_t addr, uint64_t bytes, bool invalidate, const l2_cache::sink & s) const {
    l2_cache * l = l2();
    if (!l || (l->dirty_pages() == 0 && !(invalidate && l->stale_pages()))) {
        return 0;
    }
    std::shared_lock<std::shared_mutex> lock(mu_);
    return l->clean(addr, bytes, invalidate, s);
}

uint64_t Window::l2_clean_all(const l2_cache::sink & s) const {
    l2_cache * l = l2();
    if (!l || (l->dirty_pages() == 0 && l->stale_pages() == 0)) {
        return 0;
    }
    std::shared_lock<std::shared_mutex> lock(mu_);
    return l->clean_all(s);
}

void Window::l2_mark_stale(dev_t dev, ino_t ino, uint64_t offset, uint32_t row_size, uint32_t stride, uint32_t nrows,
                           uint32_t writer) const {
    l2_cache * l = l2();
    if (!l) {
        return;
    }
    std::shared_lock<std::shared_mutex> lock(mu_);
    for (const auto & [a, m] : by_addr_) {  // a few buffers: a scan is cheaper than an index
        if (m.dev != dev || m.ino != ino || coherent(m) || dma_only(a)) {
            continue;
        }
        if (stride == row_size || nrows == 1) {
            const uint64_t bytes = (uint64_t) row_size * nrows;
            if (offset < m.span) {
                l->mark_stale(a + offset, std::min(bytes, m.span - offset), writer);
            }
            continue;
        }
        for (uint32_t r = 0; r < nrows; r++) {
            const uint64_t o = offset + (uint64_t) r * stride;
            if (o < m.span) {
                l->mark_stale(a + o, std::min<uint64_t>(row_size, m.span - o), writer);
            }
        }
    }
}

l2_cache::dirty_report Window::l2_dirty() const {
    l2_cache * l = l2();
    if (!l || l->dirty_pages() == 0) {
        return {};
    }
    std::shared_lock<std::shared_mutex> lock(mu_);
    return l->dirty();
}

uint64_t Window::mapped_bytes() const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return mapped_;
}

size_t Window::n_mappings() const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return by_addr_.size();
}

}  // namespace vhtp
