// GGML_HEXAGON_FAULT (fault-inject.h) and the device API's per-op hook, htp_session_op_begin.
#include "fault-inject.h"

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "core.h"
#include "dsp.h"
#include "error.h"
#include "fault.h"
#include "htp-abi/htp-ops.h"
#include "htp-abi/htp-status.h"
#include "htp/session.h"

namespace vhtp {
namespace {

enum fault_kind { kCrash, kHang, kMmu, kDma, kCorrupt };
const char * const kKindNames[] = { "crash", "hang", "mmu", "dma", "corrupt" };

struct fault_entry {
    fault_kind kind;
    uint64_t   at;    // the op number (1-based), or 0 for a probability
    double     prob;  // with at == 0
};

constexpr size_t kMaxEntries = 64;  // one bit each in dsp_shared::faults_fired

// Parses `spec` into `out`; false with a reason.
bool parse(const char * spec, std::vector<fault_entry> & out, std::string & why) {
    std::string s = spec;
    for (size_t start = 0; start <= s.size();) {
        size_t end = s.find(',', start);
        if (end == std::string::npos) {
            end = s.size();
        }
        const std::string item = s.substr(start, end - start);
        start                  = end + 1;
        const size_t sep       = item.find_first_of("@%");
        fault_entry  e{};
        bool         known = false;
        for (int k = 0; k < 5; k++) {
            if (item.compare(0, sep, kKindNames[k]) == 0 && sep == strlen(kKindNames[k])) {
                e.kind = (fault_kind) k;
                known  = true;
            }
        }
        if (sep == std::string::npos || !known) {
            why = "'" + item + "' is not KIND@N or KIND%P (KIND: crash, hang, mmu, dma, corrupt)";
            return false;
        }
        const std::string num = item.substr(sep + 1);
        char *            rest = nullptr;
        if (item[sep] == '@') {
            e.at = std::strtoull(num.c_str(), &rest, 10);
            if (num.empty() || *rest || e.at == 0 || num[0] == '-') {
                why = "'" + item + "': N is an op number from 1";
                return false;
            }
        } else {
            e.prob = std::strtod(num.c_str(), &rest);
            if (num.empty() || *rest || !(e.prob > 0 && e.prob <= 1)) {
                why = "'" + item + "': P is a probability in (0, 1]";
                return false;
            }
        }
        if (out.size() == kMaxEntries) {
            why = "at most " + std::to_string(kMaxEntries) + " entries";
            return false;
        }
        out.push_back(e);
    }
    return true;
}

// The process's entries, parsed once (the host checked the variable before any session opened).
const std::vector<fault_entry> & entries() {
    static const std::vector<fault_entry> v = [] {
        std::vector<fault_entry> e;
        std::string              why;
        const char *             spec = std::getenv("GGML_HEXAGON_FAULT");
        if (spec && *spec && !parse(spec, e, why)) {
            e.clear();
        }
        return e;
    }();
    return v;
}

void say(const fault_entry & e, const core * c, uint64_t n, uint32_t op_index, uint32_t opcode) {
    char line[256];
    const int len = snprintf(line, sizeof(line),
                             "vhtp: GGML_HEXAGON_FAULT: injecting %s at op %llu (NPU %u session %u, op %u of its "
                             "message, %s)\n",
                             kKindNames[e.kind], (unsigned long long) n, c->sinfo.device, c->sinfo.session, op_index,
                             htp_opcode_name(opcode));
    ssize_t r = write(STDERR_FILENO, line, (size_t) len);
    (void) r;
}

std::mutex g_rng_mu;
std::mt19937_64 g_rng(0x48545030);  // fixed: a probability run repeats itself

}  // namespace

bool fault_inject_check(char * err, size_t err_len) {
    const char * spec = std::getenv("GGML_HEXAGON_FAULT");
    if (!spec || !*spec) {
        return true;
    }
    std::vector<fault_entry> e;
    std::string              why;
    if (!parse(spec, e, why)) {
        set_error(err, err_len, "GGML_HEXAGON_FAULT=%s: %s", spec, why.c_str());
        return false;
    }
    for (const fault_entry & f : e) {
        if ((f.kind == kCrash || f.kind == kHang) && !dsp_remote()) {
            set_error(err, err_len,
                      "GGML_HEXAGON_FAULT=%s: a %s needs the sessions in the DSP process (not GGML_HEXAGON_INPROC=1)",
                      spec, kKindNames[f.kind]);
            return false;
        }
    }
    return true;
}

void fault_inject_op(core * c, uint32_t op_index, uint32_t opcode) {
    const std::vector<fault_entry> & v = entries();
    if (v.empty()) {
        return;
    }
    dsp_shared *   st = dsp_state();
    const uint64_t n  = st->ops_seen.fetch_add(1, std::memory_order_relaxed) + 1;
    for (size_t i = 0; i < v.size(); i++) {
        const fault_entry & e   = v[i];
        const uint64_t      bit = uint64_t(1) << i;
        bool                due = false;
        if (e.at) {
            due = e.at == n && !(st->faults_fired.fetch_or(bit, std::memory_order_acq_rel) & bit);
        } else {
            std::lock_guard<std::mutex> lock(g_rng_mu);
            due = std::uniform_real_distribution<double>(0, 1)(g_rng) < e.prob;
        }
        if (!due) {
            continue;
        }
        say(e, c, n, op_index, opcode);
        switch (e.kind) {
            case kCrash:
                *(volatile int *) 16 = 1;  // outside every window: the process dies of SIGSEGV
                break;
            case kHang:
                for (;;) {
                    pause();  // as a kernel stuck in a loop: only the host's watchdog ends it
                }
            case kMmu:
                // A load from the window's never-mapped first page: the session's MMU fault.
                (void) *(volatile uint8_t *) htp_va(0x100);
                break;
            case kDma:
                record_fault(c, HTP_STATUS_DMA_ERROR);
                break;
            case kCorrupt:
                c->corrupt_answer.store(true, std::memory_order_relaxed);
                break;
        }
    }
}

bool fault_inject_take_corrupt(core * c) {
    return c->corrupt_answer.exchange(false, std::memory_order_relaxed);
}

}  // namespace vhtp

extern "C" HTP_DEVICE_API void htp_session_op_begin(uint32_t op_index, uint32_t opcode) {
    vhtp::core * c = vhtp::tls_core;
    if (!c) {
        return;
    }
    if (vhtp::dsp_progress * p = c->progress) {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        p->op_index.store(op_index, std::memory_order_relaxed);
        p->opcode.store(opcode, std::memory_order_relaxed);
        p->since_ns.store(uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec), std::memory_order_release);
    }
    vhtp::fault_inject_op(c, op_index, opcode);
}
