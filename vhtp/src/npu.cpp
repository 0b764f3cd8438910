// Physical NPUs: the NPU's page (npu.h) with its VTCM pool, HVX contexts and HMX unit, and this
// process's registry of the NPUs its sessions use.
#include "npu.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mutex>
#include <new>
#include <string>

#include "error.h"
#include "futex.h"
#include "window.h"

namespace vhtp {

namespace {

std::mutex g_mu;  // the registry
npu *      g_npus[VHTP_MAX_NPUS]      = {};
npu_page * g_host_pages[VHTP_MAX_NPUS] = {};  // npu_use_page

uint32_t this_tid() {
    static thread_local const uint32_t tid = (uint32_t) syscall(SYS_gettid);
    return tid;
}

// Whether thread `tid` (of any process) still exists.
bool thread_alive(uint32_t tid) {
    char path[32];
    snprintf(path, sizeof(path), "/proc/%u", tid);
    return access(path, F_OK) == 0;
}

// The page lock: short critical sections, so waiters spin, then sleep in slices and check that
// the owner still exists; one that died inside (its process was killed) loses the lock.
void page_lock(npu_page * p) {
    const uint32_t tid = this_tid();
    for (;;) {
        uint32_t w = 0;
        if (p->lock.word.compare_exchange_strong(w, tid, std::memory_order_acq_rel)) {
            return;
        }
        if (wait_until_for(p->lock.word, p->lock.waiters,
                           [p] { return p->lock.word.load(std::memory_order_acquire) == 0; }, true, 50)) {
            continue;
        }
        w = p->lock.word.load(std::memory_order_acquire);
        if (w != 0 && !thread_alive(w) && p->lock.word.compare_exchange_strong(w, tid, std::memory_order_acq_rel)) {
            return;
        }
    }
}

void page_unlock(npu_page * p) {
    p->lock.word.store(0, std::memory_order_release);
    wake(p->lock.word, p->lock.waiters, true);
}

// "8 MiB", "512 KiB", "0 KiB" or "100 bytes": sizes as a reader of the error message thinks of them.
std::string size_str(uint64_t bytes) {
    if (bytes != 0 && bytes % (1u << 20) == 0) {
        return std::to_string(bytes >> 20) + " MiB";
    }
    if (bytes % (1u << 10) == 0) {
        return std::to_string(bytes >> 10) + " KiB";
    }
    return std::to_string(bytes) + " bytes";
}

// No session open and no job holding contexts: the NPU is free to be opened as any arch again
// (as when the runtime destroyed its NPU object with the last session). Under the page lock.
void forget_arch_if_idle(npu_page * p) {
    for (const npu_member & m : p->members) {
        if (m.used) {
            return;
        }
    }
    for (const npu_ticket & t : p->tickets) {
        if (t.number) {
            return;
        }
    }
    p->arch.store(0, std::memory_order_relaxed);
}

}  // namespace

npu_page * npu_page_init(void * mem) {
    auto * p  = new (mem) npu_page{};
    p->magic     = kNpuPageMagic;
    p->vtcm_size = Window::kVtcmSize;  // the profile's VTCM
    return p;
}

uint32_t npu_page_release_pid(npu_page * p, int32_t pid) {
    uint32_t given = 0;
    page_lock(p);  // taken over if the dead process held it
    // Its entries, and any with no owner: a process that died inside the page lock may have
    // left the entry it was writing with its pid not yet stored (live entries all have one).
    for (npu_member & m : p->members) {
        if (m.used && (m.pid == pid || m.pid == 0)) {
            m = npu_member{};
            given++;
        }
    }
    uint32_t granted = 0;
    for (npu_ticket & t : p->tickets) {
        if (t.number && (t.pid == pid || t.pid == 0)) {
            t = npu_ticket{};
            given++;
        }
        granted += t.number && t.granted ? t.n : 0;
    }
    // Counted again from the claims that remain, so a count it left half updated is right too.
    const uint32_t total = p->n_hvx_hw.load(std::memory_order_relaxed);
    p->hvx_free          = total > granted ? total - granted : 0;
    hmx_lock &     u = p->hmx;
    const uint32_t w = u.word.load(std::memory_order_acquire);
    if (w != 0 && (u.pid.load(std::memory_order_relaxed) == pid || !thread_alive(w))) {
        u.holder.store(0, std::memory_order_relaxed);
        u.pid.store(0, std::memory_order_relaxed);
        u.word.store(0, std::memory_order_release);
        wake(u.word, u.waiters, true);
        given++;
    }
    forget_arch_if_idle(p);
    p->hvx_seq.fetch_add(1, std::memory_order_seq_cst);
    page_unlock(p);
    wake(p->hvx_seq, p->hvx_waiters, true);
    return given;
}

void hvx_contexts::acquire(uint32_t n) {
    npu_page * p   = page_;
    const int32_t pid = (int32_t) getpid();
    page_lock(p);
    npu_ticket * mine = nullptr;
    for (;;) {
        if (!mine) {
            for (npu_ticket & t : p->tickets) {
                if (!t.number) {
                    mine  = &t;
                    *mine = npu_ticket{ ++p->next_ticket, n, 0, pid };
                    break;
                }
            }
        }
        if (mine) {
            // FIFO: a big job is not starved by small ones.
            bool first = true;
            for (const npu_ticket & t : p->tickets) {
                if (t.number && !t.granted && t.number < mine->number) {
                    first = false;
                    break;
                }
            }
            if (first && p->hvx_free >= n) {
                p->hvx_free -= n;
                mine->granted = 1;
                p->hvx_seq.fetch_add(1, std::memory_order_seq_cst);  // the next ticket may fit in what is left
                page_unlock(p);
                wake(p->hvx_seq, p->hvx_waiters, true);
                return;
            }
        }
        const uint32_t seen = p->hvx_seq.load(std::memory_order_seq_cst);
        page_unlock(p);
        p->hvx_waiters.fetch_add(1, std::memory_order_seq_cst);
        if (p->hvx_seq.load(std::memory_order_seq_cst) == seen) {
            futex_wait(&p->hvx_seq, seen, true);
        }
        p->hvx_waiters.fetch_sub(1, std::memory_order_seq_cst);
        page_lock(p);
    }
}

void hvx_contexts::release(uint32_t n) {
    npu_page *    p   = page_;
    const int32_t pid = (int32_t) getpid();
    page_lock(p);
    for (npu_ticket & t : p->tickets) {
        if (t.number && t.granted && t.pid == pid && t.n == n) {  // any of this process's equal claims
            t = npu_ticket{};
            p->hvx_free += n;
            break;
        }
    }
    p->hvx_seq.fetch_add(1, std::memory_order_seq_cst);
    page_unlock(p);
    wake(p->hvx_seq, p->hvx_waiters, true);
}

void npu_use_page(uint32_t device, npu_page * page) {
    if (device < VHTP_MAX_NPUS) {
        std::lock_guard<std::mutex> lk(g_mu);
        g_host_pages[device] = page;
    }
}

npu * npu_attach(const struct vhtp_device_info & info, uint32_t device, uint32_t session, uint32_t vtcm_request,
                 char * err, size_t err_len) {
    if (device >= VHTP_MAX_NPUS) {
        set_error(err, err_len, "NPU %u: no such NPU (the vHTP has NPUs 0..%u)", device, VHTP_MAX_NPUS - 1);
        return nullptr;
    }
    if (vtcm_request == 0 || vtcm_request % VHTP_VTCM_GRANULE != 0) {
        set_error(err, err_len, "NPU %u: session %u asks for %s of VTCM, not a positive multiple of %s", device,
                  session, size_str(vtcm_request).c_str(), size_str(VHTP_VTCM_GRANULE).c_str());
        return nullptr;
    }
    std::lock_guard<std::mutex> lk(g_mu);
    npu * n = g_npus[device];
    if (!n) {
        npu_page * page = g_host_pages[device];
        bool       own  = false;
        if (!page) {
            void * mem = mmap(nullptr, sizeof(npu_page), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
            if (mem == MAP_FAILED) {
                set_error(err, err_len, "NPU %u: cannot map its page", device);
                return nullptr;
            }
            page = npu_page_init(mem);
            own  = true;
        }
        n = new npu(device, page, own);
    }
    npu_page * p = n->page;
    page_lock(p);
    const uint32_t arch = p->arch.load(std::memory_order_relaxed);
    const char *   fail = nullptr;
    std::string    why;
    if (arch && arch != info.arch) {
        why = "NPU " + std::to_string(device) + " is a v" + std::to_string(arch) + ": session " +
              std::to_string(session) + " cannot open it as a v" + std::to_string(info.arch);
        fail = "arch";
    }
    uint64_t     used = 0;
    std::string  holders;
    npu_member * free_member = nullptr;
    for (npu_member & m : p->members) {
        if (!m.used) {
            free_member = free_member ? free_member : &m;
            continue;
        }
        if (!fail && m.session == session) {
            why  = "NPU " + std::to_string(device) + ": session " + std::to_string(session) + " is already open";
            fail = "dup";
        }
        used += m.vtcm;
        holders += (holders.empty() ? " (" : ", ") + ("session " + std::to_string(m.session)) + " holds " +
                   size_str(m.vtcm);
    }
    const uint32_t pool = p->vtcm_size;
    if (!fail && vtcm_request > pool - used) {
        why = "NPU " + std::to_string(device) + ": session " + std::to_string(session) + " asks for " +
              size_str(vtcm_request) + " of VTCM, " + size_str(pool - used) + " left" + holders +
              (holders.empty() ? "" : ")");
        fail = "vtcm";
    }
    if (!fail && !free_member) {
        why  = "NPU " + std::to_string(device) + ": more than " + std::to_string(kNpuMaxMembers) + " sessions";
        fail = "full";
    }
    if (!fail) {
        if (!arch) {
            p->arch.store(info.arch, std::memory_order_relaxed);
            p->n_hvx_hw.store(info.n_hvx_hw, std::memory_order_relaxed);
            p->hvx_free = info.n_hvx_hw;
        }
        *free_member = npu_member{ 1, session, (int32_t) getpid(), vtcm_request };
    }
    page_unlock(p);
    if (fail) {
        set_error(err, err_len, "%s", why.c_str());
        if (n->refs == 0) {
            if (n->own_page) {
                munmap(n->page, sizeof(npu_page));
            }
            delete n;
        }
        return nullptr;
    }
    n->refs++;
    g_npus[device] = n;
    return n;
}

void npu_detach(npu * n, uint32_t session) {
    if (!n) {
        return;
    }
    std::lock_guard<std::mutex> lk(g_mu);
    npu_page *    p   = n->page;
    const int32_t pid = (int32_t) getpid();
    page_lock(p);
    for (npu_member & m : p->members) {
        if (m.used && m.session == session && m.pid == pid) {
            m = npu_member{};
            break;
        }
    }
    forget_arch_if_idle(p);
    page_unlock(p);
    if (--n->refs == 0) {
        g_npus[n->index] = nullptr;
        if (n->own_page) {
            munmap(n->page, sizeof(npu_page));
        }
        delete n;
    }
}

}  // namespace vhtp
