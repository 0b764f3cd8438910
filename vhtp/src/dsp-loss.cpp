// What a lost DSP process leaves behind (dsp-loss.h).
#include "dsp-loss.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <unistd.h>

#include <climits>

#include "dsp-common.h"
#include "dsp-process.h"
#include "htp-abi/htp-abi.h"
#include "htp-abi/htp-ops.h"
#include "session.h"

namespace vhtp {

// The sessions of the dead process that were in a device group's batch will never signal
// its barriers again; their peers, in other processes, would wait out the fence timeout.
// Their fence slots (host memory) get an error status for that batch, as a member that
// failed writes it (npu/src/mdev.cpp), so the peers stop at once and the batch is replayed.
void dsp_release_peers(const std::vector<vhtp_session *> & sessions, uint64_t generation) {
    for (vhtp_session * s : sessions) {
        remote_session * r = s->remote;
        if (r->fence_fd < 0 || r->gen_sent.load(std::memory_order_relaxed) != generation) {
            continue;
        }
        const long     page  = sysconf(_SC_PAGESIZE);
        const uint64_t base  = r->fence_off & ~uint64_t(page - 1);
        const size_t   len   = (size_t) (r->fence_off - base + HTP_FENCE_SLOT_SIZE);
        void *         m     = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fence_fd, (off_t) base);
        if (m == MAP_FAILED) {
            continue;
        }
        auto *         word = reinterpret_cast<uint64_t *>(static_cast<uint8_t *>(m) + (r->fence_off - base));
        const uint64_t w    = __atomic_load_n(word, __ATOMIC_ACQUIRE);
        const uint32_t seq  = (int32_t) ((uint32_t) w - r->batch_seq) >= 0 ? (uint32_t) w : r->batch_seq;
        __atomic_store_n(word, uint64_t(seq) | uint64_t((uint32_t) HTP_STATUS_FENCE_ERROR) << 32, __ATOMIC_RELEASE);
        syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
        munmap(m, len);
        r->fence_fd = -1;
    }
}

std::string dsp_record_loss(const std::vector<vhtp_session *> & sessions, uint32_t proc, const int * wait_status,
                            const char * why, int32_t hung_slot, uint64_t hung_ns) {
    dsp_shared * shared = dsp_common_get().shared;
    // The wait status, or the process's own crash record when something else ended it
    // (a sanitizer's runtime catches the signal and exits).
    const int32_t sig = wait_status && WIFSIGNALED(*wait_status) ? WTERMSIG(*wait_status)
                                                                 : shared->crash_signal[proc].load();
    int32_t slot = hung_slot >= 0 ? hung_slot : shared->crash_slot[proc].load();
    vhtp_session * culprit = nullptr;
    for (vhtp_session * s : sessions) {
        if ((int32_t) s->remote->slot == slot) {
            culprit = s;
        }
    }
    const dsp_progress * cp = culprit ? &shared->progress[culprit->remote->slot] : nullptr;
    std::string where = culprit ? "NPU " + std::to_string(culprit->cfg.device) + " session " +
                                      std::to_string(culprit->cfg.session) + ", op " +
                                      std::to_string(cp->op_index.load()) + " of its batch (" +
                                      htp_opcode_name(cp->opcode.load()) + ")"
                                : std::string("no session's op");
    std::string text;
    if (hung_slot >= 0) {
        text = "an op of " + where + " ran for " + std::to_string(hung_ns / 1000000) +
               " ms, past GGML_HEXAGON_WATCHDOG; the DSP process was stopped";
    } else if (sig) {
        text = "the DSP process died of " + dsp_signal_text(sig) + " in " + where;
    } else {
        text = std::string(why ? why : "the DSP process exited") + " (in " + where + ")";
    }
    for (vhtp_session * s : sessions) {
        const dsp_progress & p = shared->progress[s->remote->slot];
        vhtp_session_loss    l{};
        l.signal   = sig;
        l.hung_ms  = hung_slot >= 0 ? (uint32_t) (hung_ns / 1000000) : 0;
        l.op_index = s == culprit && p.busy.load() ? (int32_t) p.op_index.load() : -1;
        l.opcode   = p.opcode.load();
        l.device   = culprit ? culprit->cfg.device : 0;
        l.session  = culprit ? culprit->cfg.session : 0;
        s->last_loss = l;
    }
    return text;
}

}  // namespace vhtp
