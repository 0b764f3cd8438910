// The "HTP" backend registry: reads the environment, opens one session per device and
// registers the devices. Any problem is one clear log line and no device at all, never a
// half-made or null device.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "context.h"
#include "backend.h"
#include "buffer.h"
#include "comm.h"
#include "device.h"
#include "mul-mat/mul-mat-paths.h"
#include "log.h"

static const char * htp_reg_get_name(ggml_backend_reg_t) {
    return "HTP";
}

static size_t htp_reg_get_device_count(ggml_backend_reg_t reg) {
    return ((htp_registry *) reg->context)->devices.size();
}

static ggml_backend_dev_t htp_reg_get_device(ggml_backend_reg_t reg, size_t index) {
    auto * r = (htp_registry *) reg->context;
    GGML_ASSERT(index < r->devices.size());
    return &r->devices[index]->dev;
}

static void htp_set_n_threads(ggml_backend_t, int) {
    // The NPU's thread count is the session's HVX thread count (GGML_HEXAGON_NHVX), not the CPU's.
}

static ggml_backend_buffer_type_t * htp_dev_get_extra_bufts(ggml_backend_dev_t) {
    static ggml_backend_buffer_type_t none[] = { nullptr };
    return none;
}

void htp_backend_set_abort_callback(ggml_backend_t backend, ggml_abort_callback cb, void * data);

// llama's -sm row asks for a split buffer type. We offer none: a device group splits every op
// over NPUs inside the backend instead, and says so in one line.
static ggml_backend_buffer_type_t htp_split_buffer_type(int, const float *) {
    static std::atomic<bool> said{ false };
    if (said.exchange(true)) {
        return nullptr;
    }
    HTP_LOG_ERROR("-sm row is not offered by HTP devices: group the NPUs into one device instead, "
                  "e.g. GGML_HEXAGON_DEVICES='HTP0[0-1]' with -dev HTP0 (README, \"Multi-device\")");
    return nullptr;
}

static void * htp_reg_get_proc_address(ggml_backend_reg_t, const char * name) {
    if (strcmp(name, "ggml_backend_split_buffer_type") == 0) {
        return (void *) htp_split_buffer_type;
    }
    if (strcmp(name, "ggml_backend_set_n_threads") == 0) {
        return (void *) htp_set_n_threads;
    }
    if (strcmp(name, "ggml_backend_dev_get_extra_bufts") == 0) {
        return (void *) htp_dev_get_extra_bufts;
    }
    if (strcmp(name, "ggml_backend_set_abort_callback") == 0) {
        return (void *) htp_backend_set_abort_callback;
    }
    // Tensor split (comm.cpp): the all-reduce between layers runs on the NPUs.
    if (strcmp(name, "ggml_backend_comm_init") == 0) {
        return (void *) (ggml_backend_comm_init_t) htp_comm_init;
    }
    if (strcmp(name, "ggml_backend_comm_allreduce_tensor") == 0) {
        return (void *) (ggml_backend_comm_allreduce_tensor_t) htp_comm_allreduce_tensor;
    }
    if (strcmp(name, "ggml_backend_comm_free") == 0) {
        return (void *) (ggml_backend_comm_free_t) htp_comm_free;
    }
    return nullptr;
}

static const ggml_backend_reg_i htp_reg_iface = {
    /* .get_name         = */ htp_reg_get_name,
    /* .get_device_count = */ htp_reg_get_device_count,
    /* .get_device       = */ htp_reg_get_device,
    /* .get_proc_address = */ htp_reg_get_proc_address,
};

// The NPU libraries sit beside this library's file. ggml may load us through a symbolic link
// (an installed bin/libggml-hexagon.so -> ../lib/libggml-hexagon.so, README "Install"), and
// dladdr names the link, so the link is resolved first.
// GGML_HEXAGON_VTCM_CHECK=1 picks the VTCM check build of the library, GGML_HEXAGON_PROFILE=2
// (counters) the build that counts HVX instructions (libggml-htp-vNN-{vtcmcheck,counters}.so,
// npu/CMakeLists.txt); the check wins when both are asked for.
static std::string htp_npu_library_path(uint32_t arch, bool counters, bool vtcm_check) {
    Dl_info info = {};
    std::string dir = ".";
    if (dladdr((void *) htp_npu_library_path, &info) && info.dli_fname) {
        char * real = realpath(info.dli_fname, nullptr);
        dir = real ? real : info.dli_fname;
        free(real);
        const size_t slash = dir.rfind('/');
        dir = slash == std::string::npos ? "." : dir.substr(0, slash);
    }
    const std::string base = dir + "/libggml-htp-v" + std::to_string(arch);
    if (vtcm_check) {
        if (counters) {
            HTP_LOG_WARN("GGML_HEXAGON_PROFILE=2 with GGML_HEXAGON_VTCM_CHECK=1: the VTCM check build does not "
                         "count HVX instructions (they stay 0)");
        }
        return base + "-vtcmcheck.so";
    }
    if (counters) {
        if (access((base + "-counters.so").c_str(), R_OK) == 0) {
            return base + "-counters.so";
        }
        HTP_LOG_WARN("GGML_HEXAGON_PROFILE=2: no %s-counters.so (built with -DGGML_HEXAGON_COUNTERS=OFF): "
                     "HVX instruction counts stay 0", base.c_str());
    }
    return base + ".so";
}

// What a device is; `sessions_on_npu`: how many of the listed sessions each NPU holds, so a
// session that shares its NPU says so (its VTCM is a share, its HVX and HMX are not its own).
static std::string htp_describe(const htp_device_spec & spec, const htp_device_profile & info,
                                const std::map<uint32_t, uint32_t> & sessions_on_npu) {
    const std::string vtcm = info.vtcm_size % (1u << 20) ? std::to_string(info.vtcm_size >> 10) + " KiB"
                                                         : std::to_string(info.vtcm_size >> 20) + " MiB";
    const std::string each = std::to_string(info.n_hvx) + " HVX threads, " + vtcm + " VTCM, " +
                             std::to_string(info.n_hmx) + " HMX" + (info.dma64 ? ", 64-bit DMA bases" : "");
    if (spec.members.size() == 1) {
        const htp_session_id & m = spec.members[0];
        const uint32_t sharing = sessions_on_npu.at(m.npu);
        return "Hexagon v" + std::to_string(info.arch) + " virtual HTP" +
               (sharing > 1 ? ", session " + std::to_string(m.session) + " of NPU " + std::to_string(m.npu) +
                                  " shared by " + std::to_string(sharing) + " sessions"
                            : std::string()) +
               " (" + each + ")";
    }
    std::string members;
    for (const htp_session_id & m : spec.members) {
        members += (members.empty() ? "" : ", ") + std::to_string(m.npu) + ":" + std::to_string(m.session);
    }
    return "Hexagon v" + std::to_string(info.arch) + " virtual HTP group of " + std::to_string(spec.members.size()) +
           " sessions (NPU:session " + members + "; each " + each + ")";
}

// Opens the device of spec: its sessions (each with its share of its NPU's VTCM), its fence
// slots when a group, its trace recorder when tracing; nullptr after one line on a failure.
static std::unique_ptr<htp_device> htp_open_device(const htp_registry & reg, const htp_device_spec & spec,
                                                   const htp_device_profile & info,
                                                   const std::map<uint32_t, uint32_t> & sessions_on_npu,
                                                   const std::string & lib, bool dma64, const htp_mm_settings & mm) {
    std::string error;
    auto d = std::make_unique<htp_device>();
    std::map<uint32_t, uint32_t> members_on_npu;
    for (const htp_session_id & m : spec.members) {
        d->hvx_sharing = std::max(d->hvx_sharing, ++members_on_npu[m.npu]);
    }
    d->spec    = spec;
    d->stream  = std::make_unique<htp_stream>(reg.cfg.opqueue, spec.name);
    for (const htp_session_id & m : spec.members) {
        const uint32_t share = reg.cfg.vtcm_size ? reg.cfg.vtcm_size
                               : sessions_on_npu.at(m.npu) > 1 ? info.vtcm_size / sessions_on_npu.at(m.npu) / 4096 * 4096
                                                            : 0;
        auto s = htp_session::open(m.npu, m.session, reg.cfg.n_hvx, share, reg.cfg.poll, dma64, lib, error);
        if (!s) {
            HTP_LOG_ERROR("%s: cannot open session %u of NPU %u: %s; no HTP device registered", spec.name.c_str(),
                          m.session, m.npu, error.c_str());
            return nullptr;
        }
        d->sessions.push_back(std::move(s));
    }
    if (spec.members.size() > 1 &&
        !htp_shared_alloc(spec.members.size() * HTP_FENCE_SLOT_SIZE, spec.name + "-fences", d->fence, error)) {
        HTP_LOG_ERROR("%s: cannot allocate its fence slots: %s; no HTP device registered", spec.name.c_str(),
                      error.c_str());
        return nullptr;
    }
    d->profile     = d->sessions[0]->profile();
    d->description = htp_describe(spec, d->profile, sessions_on_npu);
    if (reg.cfg.verbose >= 1) {  // what the device is, e.g. whether it has 64-bit DMA bases
        HTP_LOG_REQUESTED("%s: %s, %llu MiB mappable", spec.name.c_str(), d->description.c_str(),
                          (unsigned long long) (d->profile.vmem_budget >> 20));
    }
    d->caps        = { d->profile.arch, d->profile.n_hvx, d->profile.vtcm_size, d->profile.dma_field_bits };
    d->mm          = mm;
    if (reg.cfg.profile >= 3 || reg.cfg.optrace) {  // upstream's op trace: OPTRACE alone traces too
        htp_trace_host_enable(reg.cfg.trace_dir);  // one file per process: ggml-hexagon-trace-<pid>.json
        // GGML_HEXAGON_OPTRACE events per HVX thread (upstream's default: OPBATCH x 256),
        // and as many again for the dispatcher's per-op events.
        const uint64_t per_thread = reg.cfg.optrace ? reg.cfg.optrace : (uint64_t) reg.cfg.opbatch * 256;
        const uint64_t capacity   = std::min<uint64_t>(per_thread * (d->profile.n_hvx + 1), UINT32_MAX);
        d->trace = std::make_unique<htp_trace_recorder>(spec.name, (uint32_t) spec.members.size(),
                                                        (uint32_t) capacity);
        if (!d->trace->init_buffer(error)) {
            HTP_LOG_WARN("%s: tracing disabled: %s", spec.name.c_str(), error.c_str());
            d->trace.reset();
        }
    }
    return d;
}

// Settings that change what a run means, said once (warnings: llama's tools show them).
static void htp_say_run_settings(const htp_config & cfg) {
    if (!(cfg.opstage & HTP_OPSTAGE_QUEUE)) {
        HTP_LOG_WARN("GGML_HEXAGON_OPSTAGE=%u: ops are not sent to the NPU, results are not computed "
                     "(host overhead only)", cfg.opstage);
    } else if (!(cfg.opstage & HTP_OPSTAGE_COMPUTE)) {
        HTP_LOG_WARN("GGML_HEXAGON_OPSTAGE=%u: ops are queued and sent but the NPU skips the kernels, "
                     "results are not computed (framework overhead only)", cfg.opstage);
    }
    if (cfg.etm && cfg.verbose >= 1) {
        HTP_LOG_REQUESTED("GGML_HEXAGON_ETM=%d: the virtual HTP has no ETM trace; ignored "
                          "(GGML_HEXAGON_PROFILE=3 writes a Perfetto trace)", cfg.etm);
    }
}

// Opens every device; on the first failure logs one line and leaves no devices.
static void htp_registry_open_devices(htp_registry & reg) {
    std::string error;
    std::vector<std::string> warnings;
    std::vector<htp_device_spec> specs;
    if (!htp_config_from_env(reg.cfg, error, warnings) || !htp_device_list_from_env(specs, error, warnings)) {
        HTP_LOG_ERROR("%s; no HTP device registered", error.c_str());
        return;
    }
    for (const std::string & w : warnings) {  // values ignored, older names: the devices stay
        HTP_LOG_WARN("%s", w.c_str());
    }
    if (reg.cfg.mm_select == HTP_MM_SELECT_FLAT) {
        reg.cfg.repack = 0;  // MM_SELECT=1: only the flat path runs, so no weight is tiled
    }
    htp_mm_settings mm;  // what the MUL_MAT encoders read of the config (htp_device::mm)
    mm.select             = (htp_mm_select) reg.cfg.mm_select;
    mm.hmx                = reg.cfg.hmx;
    mm.rtrepack           = (htp_mm_rtrepack) reg.cfg.rtrepack;
    mm.tiled_hvx_max_rows = reg.cfg.mm_hvx_rows;

    htp_device_profile info = {};
    if (!htp_transport_profile(info, error)) {
        HTP_LOG_ERROR("%s; no HTP device registered", error.c_str());
        return;
    }
    const std::string lib = htp_npu_library_path(info.arch, reg.cfg.profile >= 2, reg.cfg.vtcm_check != 0);
    if (reg.cfg.vtcm_check && access(lib.c_str(), R_OK) != 0) {
        HTP_LOG_ERROR("GGML_HEXAGON_VTCM_CHECK=1: no %s (only a clang build has the VTCM check libraries); no HTP "
                      "device registered", lib.c_str());
        return;
    }
    // GGML_HEXAGON_DMA64: unset = wherever the arch has 64-bit DMA bases (v81); 1 on an arch
    // without them is refused like any value the device cannot honour (GGML_HEXAGON_NHVX too large).
    if (reg.cfg.dma64 == 1 && !info.dma64_capable) {
        HTP_LOG_ERROR("GGML_HEXAGON_DMA64=1: v%u has no 64-bit DMA bases (v73..v79 address DDR in 32 bits, v81 has "
                      "them); no HTP device registered", info.arch);
        return;
    }
    const bool dma64 = reg.cfg.dma64 < 0 ? info.dma64_capable : reg.cfg.dma64 == 1;

    // Sessions of one NPU share its VTCM: each takes an equal share (whole pages), or
    // GGML_HEXAGON_VTCM_SIZE (the vHTP refuses more than the NPU has left, in one line).
    std::map<uint32_t, uint32_t> sessions_on_npu;
    for (const htp_device_spec & spec : specs) {
        for (const htp_session_id & m : spec.members) {
            sessions_on_npu[m.npu]++;
        }
    }
    std::vector<std::unique_ptr<htp_device>> devices;
    for (const htp_device_spec & spec : specs) {
        auto d = htp_open_device(reg, spec, info, sessions_on_npu, lib, dma64, mm);
        if (!d) {
            return;  // logged
        }
        devices.push_back(std::move(d));
    }
    reg.devices = std::move(devices);
    htp_say_run_settings(reg.cfg);
    for (auto & d : reg.devices) {
        htp_device_init_iface(reg, *d);
    }
    htp_buffer_types_init(reg);
}

// Function-local static: built on first use, destroyed when this library is unloaded (its
// destructor closes the sessions before the vHTP goes away).
static htp_registry & htp_get_registry() {
    static htp_registry reg;
    return reg;
}

static ggml_backend_reg_t ggml_backend_hexagon_reg() {
    static bool initialized = false;
    htp_registry & reg = htp_get_registry();
    if (!initialized) {
        initialized = true;
        reg.reg = { GGML_BACKEND_API_VERSION, htp_reg_iface, &reg };
        htp_registry_open_devices(reg);
    }
    return &reg.reg;
}

GGML_BACKEND_DL_IMPL(ggml_backend_hexagon_reg)

// Any x86 or arm host can run the virtual HTP.
static int ggml_backend_hexagon_score() {
    return 1;
}

GGML_BACKEND_DL_SCORE_IMPL(ggml_backend_hexagon_score)
