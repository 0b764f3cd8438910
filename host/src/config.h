// Backend settings read once from the environment. README.md "Environment variables" lists
// every variable with its default and origin (upstream's name or ours); tests/host/env-table.sh
// checks that the table and the names read here (and in vhtp/) agree, and that each upstream
// value in the table parses and keeps the device.
#pragma once
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

// GGML_HEXAGON_OPSTAGE bits (upstream's mask): queue the ops to the NPU, and compute them there.
enum : uint32_t { HTP_OPSTAGE_QUEUE = 1u << 0, HTP_OPSTAGE_COMPUTE = 1u << 1 };
// GGML_HEXAGON_FA_SELECT / GDN_SELECT (upstream's values): 0 on the CPU, 1 HVX, 2 HMX then HVX.
enum htp_op_select { HTP_SELECT_CPU = 0, HTP_SELECT_HVX = 1, HTP_SELECT_HMX = 2 };
// GGML_HEXAGON_PROFILE level 2's PMU events: how many, and upstream's default event ids.
static constexpr uint32_t HTP_PMU_EVENTS = 8;
static constexpr uint32_t HTP_PMU_DEFAULT_EVENTS[HTP_PMU_EVENTS] = { 0x3, 0x111, 0x100, 0x105, 0x240, 0x256, 0x7D, 0x8C };

struct htp_config {
    bool     hostbuf = false;       // GGML_HEXAGON_HOSTBUF=1: offer the host buffer type
    int      verbose = 0;           // GGML_HEXAGON_VERBOSE: 1 logs each op sent
    int      profile = 0;           // GGML_HEXAGON_PROFILE: 1 per-op timings, 2 + counters, 3 + Perfetto trace
    uint32_t pmu_events[HTP_PMU_EVENTS] = {};  // PROFILE's event ids (upstream's default, or its 8-id list)
    bool     pmu_custom = false;    // PROFILE was a list of 8 event ids
    uint32_t optrace = 0;           // GGML_HEXAGON_OPTRACE: trace events per HVX thread (0: OPBATCH x 256)
    uint32_t opbatch = 1024;        // GGML_HEXAGON_OPBATCH: most ops per message (upstream's default)
    uint32_t n_hvx = 0;             // GGML_HEXAGON_NHVX (0: all; the vHTP reads it too)
    bool     has_opfilter = false;  // GGML_HEXAGON_OPFILTER given
    std::string opfilter_text;
    std::regex  opfilter;           // ops whose name matches are refused (never SET_ROWS: config.cpp)
    std::string trace_dir = ".";    // GGML_HEXAGON_TRACE_DIR: where PROFILE=3 writes traces
    int      repack = 1;            // GGML_HEXAGON_REPACK: 0 never, 1 (default) weights buffers, 2 ("all") any device buffer
    int      mm_select = 0;         // GGML_HEXAGON_MM_SELECT: enum htp_mm_select (host/ops/mul-mat/mul-mat-paths.h)
    int      fa_select = HTP_SELECT_HMX;   // GGML_HEXAGON_FA_SELECT: enum htp_op_select
    int      gdn_select = HTP_SELECT_HMX;  // GGML_HEXAGON_GDN_SELECT: enum htp_op_select
    bool     hmx = true;            // GGML_HEXAGON_NHMX=0 (older name GGML_HEXAGON_USE_HMX): no HMX path
    uint32_t mm_hvx_rows = 128;     // GGML_HEXAGON_MM_HVX_ROWS: tiled HVX up to these activation rows, HMX above (= HTP_MM_TILED_HVX_MAX_ROWS, host/ops/mul-mat/mul-mat-paths.h)
    int      rtrepack = 1;          // GGML_HEXAGON_RTREPACK: 0 never, 1 (default) flat weights x many rows, 2 ("all") every flat weight
    bool     fuse = true;           // GGML_HEXAGON_OPFUSION=0 (deprecated alias GGML_HEXAGON_FUSE): no host fusions
    bool     poll = false;          // GGML_HEXAGON_OPPOLL=1: the host polls for the NPU's answer instead of sleeping
    uint32_t opqueue = 16;          // GGML_HEXAGON_OPQUEUE: most op batches queued on a device's stream (upstream's default)
    uint32_t opstage = HTP_OPSTAGE_QUEUE | HTP_OPSTAGE_COMPUTE;  // GGML_HEXAGON_OPSTAGE bits
    bool     params_check = false;  // GGML_HEXAGON_PARAMS_CHECK=1: log encoders that leave kernel_params bytes unset (testing)
    bool     allreduce = true;      // GGML_HEXAGON_AR_SELECT=0 (alias GGML_HEXAGON_ALLREDUCE): a tensor split's sums are added by the host
    uint32_t vtcm_check = 0;        // GGML_HEXAGON_VTCM_CHECK=1: the NPU library's VTCM check build (docs/vhtp.md "VTCM check")
    int      dma64 = -1;            // GGML_HEXAGON_DMA64: 1 64-bit DMA bases (v81 only), 0 off, -1 unset (on where the arch has them)
    uint64_t mbuf = 1024ull << 20;  // GGML_HEXAGON_MBUF: bytes of the largest device buffer
    uint64_t sbuf = 1024ull << 20;  // GGML_HEXAGON_SBUF: bytes of the largest host (shared) buffer
    uint32_t vtcm_size = 0;         // GGML_HEXAGON_VTCM_SIZE: bytes of VTCM per session (0: an equal share of the NPU's)
    int      etm = 0;               // GGML_HEXAGON_ETM: accepted; the vHTP has no ETM trace
};

// Parses the environment. A malformed value of a variable that decides what the devices are
// (GGML_HEXAGON_NHVX, DMA64, VTCM_SIZE) makes it return false with a one-line reason: no
// device can be what was asked for. A malformed value of any other variable (a feature or a
// tuning knob) is one line in `warnings` naming it and the default used instead: the NPU is
// kept (README.md "Environment variables").
bool htp_config_from_env(htp_config & cfg, std::string & error, std::vector<std::string> & warnings);
