// Virtual device profiles (docs/vhtp.md, "Device profiles") and the environment variables that select them:
//   GGML_HEXAGON_ARCH  v73 | v75 | v79 | v81 (also 73, V79, 0x4f: any base, as upstream); default v79
//   GGML_HEXAGON_NHVX  HVX threads per session (1..arch threads; 0 = all, upstream's meaning);
//                      default min(arch threads, host cores)
//   GGML_HEXAGON_VMEM  mappable DDR budget per session in MiB; default 3.0 GiB (v73) / 3.2 GiB (v75+),
//                      for a DMA64 session (v81) the whole 64 GiB DDR area; 0 = the default
//                      (upstream measures the budget then; the vHTP's is known)
//   GGML_HEXAGON_DMA_THREAD  0 | 1: DMA descriptors run on an engine thread (1) or when popped (0);
//                      default 1 only if the host has more cores than the session's HVX threads
//   GGML_HEXAGON_DMA_PREFETCH  0 | 1: dma_queue_progress prefetches the sources of pending
//                      transfers while kernels compute (1, default) or does nothing (0)
#include <sched.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core.h"
#include "error.h"
#include "fault-inject.h"
#include "window.h"
#include "vhtp/vhtp.h"

namespace {

struct profile {
    uint32_t arch;
    uint32_t n_hvx_hw;
    uint32_t dma_field_bits;
    uint64_t vmem_budget;
    bool     dma64;      // sessions may have 64-bit DMA bases (VHTP_SESSION_DMA64)
    uint32_t clock_mhz;  // the NPU clock profiles convert time into cycles with (docs/profiling.md:
                         // our assumption, no published figure)
};

constexpr uint64_t kMiB = 1ull << 20;

constexpr profile kProfiles[] = {
    { 73, 4, 16, 3072 * kMiB, false, 1100 },  // 3.0 GiB
    { 75, 4, 24, 3276 * kMiB, false, 1150 },  // 3.2 GiB
    { 79, 6, 24, 3276 * kMiB, false, 1250 },
    { 81, 8, 24, 3276 * kMiB, true, 1400 },
};

// A whole string as a number: decimal, or hexadecimal after 0x (upstream reads these
// variables in any base). No sign, nothing after.
bool parse_number(const char * s, uint64_t * out) {
    const bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex) {
        s += 2;
    }
    if (!(hex ? isxdigit(static_cast<unsigned char>(*s)) : isdigit(static_cast<unsigned char>(*s)))) {
        return false;
    }
    char * end = nullptr;
    errno = 0;
    const unsigned long long v = strtoull(s, &end, hex ? 16 : 10);
    if (errno != 0 || *end != '\0') {
        return false;
    }
    *out = v;
    return true;
}

// Accepts "v79", "V79", "79" and "0x4f" (nothing else: a typo must not silently pick a default).
bool parse_arch(const char * s, uint32_t * arch) {
    if (*s == 'v' || *s == 'V') {
        ++s;
    }
    uint64_t v = 0;
    if (!parse_number(s, &v)) {
        return false;
    }
    for (const profile & p : kProfiles) {
        if (p.arch == v) {
            *arch = p.arch;
            return true;
        }
    }
    return false;
}


uint32_t host_cores() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        const int n = CPU_COUNT(&set);
        return n > 0 ? static_cast<uint32_t>(n) : 1;
    }
    return 1;
}

}  // namespace

uint32_t vhtp::default_dma_thread(uint32_t n_hvx) {
    if (const char * s = getenv("GGML_HEXAGON_DMA_THREAD"); s && *s) {
        return s[0] == '1' ? 1 : 0;  // validated by vhtp_device_info
    }
    return host_cores() > n_hvx ? 1 : 0;
}

bool vhtp::default_dma_prefetch() {
    const char * s = getenv("GGML_HEXAGON_DMA_PREFETCH");
    return !(s && s[0] == '0');  // validated by vhtp_device_info
}

extern "C" VHTP_API int vhtp_device_info(struct vhtp_device_info * info, char * err, size_t err_len) {
    uint32_t arch = 79;
    if (const char * s = getenv("GGML_HEXAGON_ARCH"); s && *s) {
        if (!parse_arch(s, &arch)) {
            vhtp::set_error(err, err_len, "GGML_HEXAGON_ARCH=%s: unknown Hexagon arch (expected v73, v75, v79 or v81)",
                            s);
            return -1;
        }
    }
    const profile * p = nullptr;
    for (const profile & q : kProfiles) {
        if (q.arch == arch) {
            p = &q;
        }
    }

    memset(info, 0, sizeof(*info));
    info->arch           = p->arch;
    info->vtcm_size      = vhtp::Window::kVtcmSize;
    info->n_hvx_hw       = p->n_hvx_hw;
    info->n_hmx          = 1;
    info->dma_field_bits = p->dma_field_bits;
    info->clock_mhz      = p->clock_mhz;
    info->window_size    = vhtp::Window::kDdrEnd;
    info->vmem_budget    = p->vmem_budget;
    if (p->dma64) {
        info->dma64_capable     = 1;
        info->dma64_window_size = vhtp::Window::kDdr64End - vhtp::Window::kDdr64Base;
        info->dma64_vmem_budget = info->dma64_window_size;
    }

    const uint32_t cores = host_cores();
    info->n_hvx          = cores < p->n_hvx_hw ? cores : p->n_hvx_hw;
    if (const char * s = getenv("GGML_HEXAGON_NHVX"); s && *s) {
        uint64_t n = 0;
        if (!parse_number(s, &n) || n > p->n_hvx_hw) {
            vhtp::set_error(err, err_len, "GGML_HEXAGON_NHVX=%s: expected 1..%u HVX threads for v%u (0: all)", s,
                            p->n_hvx_hw, p->arch);
            return -1;
        }
        info->n_hvx = n == 0 ? p->n_hvx_hw : static_cast<uint32_t>(n);
    }

    if (const char * s = getenv("GGML_HEXAGON_DMA_THREAD"); s && *s && ((s[0] != '0' && s[0] != '1') || s[1])) {
        vhtp::set_error(err, err_len, "GGML_HEXAGON_DMA_THREAD=%s: expected 0 or 1", s);
        return -1;
    }
    info->dma_thread = vhtp::default_dma_thread(info->n_hvx);  // the variable, else the host's cores
    if (const char * s = getenv("GGML_HEXAGON_DMA_PREFETCH"); s && *s && ((s[0] != '0' && s[0] != '1') || s[1])) {
        vhtp::set_error(err, err_len, "GGML_HEXAGON_DMA_PREFETCH=%s: expected 0 or 1", s);
        return -1;
    }

    // Where the sessions run and how they are watched (docs/vhtp.md "The DSP processes").
    if (const char * s = getenv("GGML_HEXAGON_INPROC"); s && *s && ((s[0] != '0' && s[0] != '1') || s[1])) {
        vhtp::set_error(err, err_len, "GGML_HEXAGON_INPROC=%s: expected 0 or 1", s);
        return -1;
    }
    if (const char * s = getenv("GGML_HEXAGON_WATCHDOG"); s && *s) {
        char *       end = nullptr;
        const double sec = strtod(s, &end);
        if (*end || !(sec >= 0)) {
            vhtp::set_error(err, err_len, "GGML_HEXAGON_WATCHDOG=%s: expected seconds (0: no watchdog)", s);
            return -1;
        }
    }
    if (!vhtp::fault_inject_check(err, err_len)) {
        return -1;
    }

    if (const char * s = getenv("GGML_HEXAGON_VMEM"); s && *s) {
        // Up to the DDR area of the largest window the arch offers; a 32-bit session of a
        // DMA64-capable arch gets at most its own window's area.
        uint64_t mib = 0;
        const uint64_t max32   = vhtp::Window::kDdrEnd - vhtp::Window::kDdrBase;
        const uint64_t max_mib = (p->dma64 ? info->dma64_window_size : max32) / kMiB;
        if (!parse_number(s, &mib) || mib > max_mib) {
            vhtp::set_error(err, err_len, "GGML_HEXAGON_VMEM=%s: expected 1..%llu MiB (0: the default)", s,
                            static_cast<unsigned long long>(max_mib));
            return -1;
        }
        if (mib != 0) {
            info->vmem_budget = mib * kMiB < max32 ? mib * kMiB : max32;
            if (p->dma64) {
                info->dma64_vmem_budget = mib * kMiB;
            }
        }
    }
    return 0;
}
