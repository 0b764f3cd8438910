// Backend settings read once from the environment. README.md "Environment variables" lists
// every variable with its default and origin (upstream's name or ours); tests/host/env-table.sh
// checks that the table and the names read here (and in vhtp/) agree.
#pragma once
#include <cstdint>
#include <regex>
#include <string>

struct htp_config {
    bool     hostbuf = false;       // GGML_HEXAGON_HOSTBUF=1: offer the host buffer type
    int      verbose = 0;           // GGML_HEXAGON_VERBOSE: 1 logs each op sent
    int      profile = 0;           // GGML_HEXAGON_PROFILE: 1 per-op timings, 3 also a Perfetto trace
    uint32_t opbatch = 128;         // GGML_HEXAGON_OPBATCH: most ops per message
    uint32_t n_hvx = 0;             // GGML_HEXAGON_NHVX (0: device default; the vHTP reads it too)
    bool     has_opfilter = false;  // GGML_HEXAGON_OPFILTER given
    std::string opfilter_text;
    std::regex  opfilter;           // ops whose name matches are refused
    std::string trace_dir = ".";    // GGML_HEXAGON_TRACE_DIR: where PROFILE=3 writes traces
    int      repack = 1;            // GGML_HEXAGON_REPACK: 0 never, 1 (default) weights buffers, 2 ("all") any device buffer
    int      mm_select = 0;         // GGML_HEXAGON_MM_SELECT: 0 auto, 1 hvx, 2 hmx (tiled weights)
    bool     hmx = true;            // GGML_HEXAGON_NHMX=0: no HMX path
    int      rtrepack = 1;          // GGML_HEXAGON_RTREPACK: 0 never, 1 (default) flat weights x many rows, 2 ("all") every flat weight
    bool     fuse = true;           // GGML_HEXAGON_OPFUSION=0 (deprecated alias GGML_HEXAGON_FUSE): no host fusions
    bool     poll = false;          // GGML_HEXAGON_OPPOLL=1: the host polls for the NPU's answer instead of sleeping
    uint32_t opqueue = 64;          // GGML_HEXAGON_OPQUEUE: most op batches queued on a device's stream
    bool     stage = false;         // GGML_HEXAGON_OPSTAGE=1: batches are built and sent, the NPU skips the kernels
    bool     params_check = false;  // GGML_HEXAGON_PARAMS_CHECK=1: log encoders that leave kernel_params bytes unset (testing)
    bool     allreduce = true;      // GGML_HEXAGON_ALLREDUCE=0: a tensor split's sums are added by the host (ggml's meta backend)
    int      dma64 = -1;            // GGML_HEXAGON_DMA64: 1 64-bit DMA bases (v81 only), 0 off, -1 unset (on where the arch has them)
};

// Parses the environment; on a malformed value writes a one-line reason and returns false.
bool htp_config_from_env(htp_config & cfg, std::string & error);
