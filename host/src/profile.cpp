// GGML_HEXAGON_PROFILE lines (profile.h; docs/profiling.md says what each field holds).
#include "profile.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "config.h"
#include "ggml.h"
#include "log.h"

namespace {

std::string dims_of(const uint32_t ne[4]) {
    char buf[64];
    snprintf(buf, sizeof(buf), "%ux%ux%ux%u", ne[0], ne[1], ne[2], ne[3]);
    return buf;
}

// Cycles of the arch's clock in `ns` nanoseconds of the session's clock.
uint64_t cycles_of(uint64_t ns, uint32_t mhz) {
    return ns * mhz / 1000;
}

uint64_t hvx_instructions(const htp_op_timing & t) {
    return t.counters[HTP_CNT_HVX_ALU] + t.counters[HTP_CNT_HVX_MPY] + t.counters[HTP_CNT_HVX_PERMUTE] +
           t.counters[HTP_CNT_HVX_LDST] + t.counters[HTP_CNT_HVX_OTHER];
}

}  // namespace

const char * htp_counter_name(uint32_t c) {
    static const char * const names[HTP_CNT_COUNT] = {
        "hvx_alu",    "hvx_mpy",  "hvx_permute", "hvx_ldst", "hvx_st",      "hvx_other",
        "hmx_tiles",  "hmx_stores", "dma_desc", "dma_in",      "dma_out",  "dma_wait_us", "fence_wait_us",
        "vtcm_hwm",   "l2_ops",   "l2_bytes",    "hvx_packets", "hvx_runs", "dma_exposed_desc", "dma_exposed",
        "hvx_exposed",
    };
    return c < HTP_CNT_COUNT ? names[c] : "?";
}

std::string htp_profile_label(const char * op, const ggml_tensor * dst, const std::vector<const ggml_tensor *> & srcs,
                              const htp_op_desc & desc, const std::string & path) {
    std::string names = dst->name[0] ? dst->name : "-";
    std::string dims  = dims_of(desc.dst.ne);
    std::string types = ggml_type_name((ggml_type) desc.dst.type);
    std::string nbs   = dims_of(desc.dst.nb);
    for (uint32_t i = 0; i < desc.n_src && i < HTP_MAX_SRC; i++) {
        const htp_tensor_desc & s = desc.src[i];
        const ggml_tensor *     t = i < srcs.size() ? srcs[i] : nullptr;
        if (s.buf == HTP_NO_BUF) {
            names += ":-";
            dims += ":-";
            types += ":-";
            nbs += ":-";
            continue;
        }
        names += std::string(":") + (t && t->name[0] ? t->name : "-");
        dims += ":" + dims_of(s.ne);
        types += std::string(":") + ggml_type_name((ggml_type) s.type);
        nbs += ":" + dims_of(s.nb);
    }
    // The kernel parameters a reader most needs: threads, rows per chunk, the NPU kernel.
    char kp[96];
    snprintf(kp, sizeof(kp), "thr=%u,rpc=%u", desc.params.split.n_threads, desc.params.split.rows_per_chunk);
    std::string kparams = kp;
    if (!path.empty()) {
        kparams += ",kernel=" + path;
    }
    for (std::string * f : { &names, &dims, &types, &nbs, &kparams }) {
        for (char & c : *f) {
            if (c == '|' || c == ' ') {
                c = '_';  // the line's separators stay unambiguous
            }
        }
    }
    return std::string(op) + "|" + names + "|" + dims + "|" + types + "|" + nbs + "|" + kparams;
}

uint64_t htp_pmu_value(uint32_t event, const htp_op_timing & t, uint32_t mhz, bool & known) {
    known = true;
    switch (event) {
        case 0x3:  // COMMITTED_PKT_ANY: packets of any thread; ours: HVX instructions (an upper bound)
            return hvx_instructions(t);
        case 0x111:  // HVX_PKT: 2 per HVX packet in 128-byte mode
            return 2 * hvx_instructions(t);
        case 0x105:  // HVX_VTCM_OUTSTANDING: stall cycles on VTCM; ours: cycles waiting on DMA
            return cycles_of(t.counters[HTP_CNT_DMA_WAIT_NS], mhz);
        default:
            known = false;
            return 0;
    }
}

// docs/profiling.md "Estimated device time" gives each number's source or says it is our assumption.
static const htp_cost_model kCostModels[] = {
    // Issue rate: fit to Llama-3.1-8B pp on v81 (docs/profiling.md), the same for every arch.
    // arch MHz  HVX  pkt  mpy  perm  ld  st  issue  HMX tile  DDR GB/s  desc us  op us  dispatch us
    { 73, 1100, 4, 4, 2, 1, 1, 1, 0.57, 16, 32, 0.2, 5, 4.4 },
    { 75, 1150, 4, 4, 2, 1, 1, 1, 0.57, 16, 32, 0.2, 5, 4.4 },
    { 79, 1250, 6, 4, 2, 1, 1, 1, 0.57, 16, 32, 0.2, 5, 4.4 },
    { 81, 1400, 8, 4, 2, 1, 1, 1, 0.57, 16, 32, 0.2, 5, 4.4 },
};

const htp_cost_model * htp_cost_model_of(uint32_t arch) {
    for (const htp_cost_model & m : kCostModels) {
        if (m.arch == arch) {
            return &m;
        }
    }
    return nullptr;
}

// The op's HVX packets (at least its busiest slot class's count: instructions / 4, multiplies / 2,
// permutes, vector loads, vector stores) at the fitted issue rate per context, spread over the NPU's
// HVX contexts (an op the host split over more than
// one thread splits over all of them on the phone, where GGML_HEXAGON_NHVX defaults to the
// arch's count; one the host kept on one thread stays on one), its HMX tiles and its DMA bytes
// each take their own unit; the units overlap perfectly (double buffering), so the slowest one
// is the op's time, plus the fixed per-op cost. A DMA descriptor waits one DDR round trip before
// its bytes move, and a thread's queue runs its descriptors one after the other while the
// threads' queues overlap: the DMA unit takes bytes / bandwidth + descriptors x round trip /
// threads. A group's members on one NPU share its contexts. Each HVX dispatch after an op's
// first (hvx_runs: work_queue_run calls, each starting the op's HVX threads and joining them)
// adds the threads' setup once more (hvx_run_us; the op's first is in op_overhead_us).
// What the threads' pipelines cannot overlap (vhtp/src/exposure.h) is added to the units it
// cannot hide behind, priced at the same rates: the exposed DMA (descriptors a thread waited for
// with no HVX / HMX work beside them: a pipeline's first fetch and last write-back) to the HVX
// and HMX time, the exposed HVX instructions (run with no fetch pending: a pipeline's last
// chunk, a dispatch that only computes) to the DMA time, as their share of the op's packets.
double htp_estimate_usec(const htp_cost_model & m, const htp_op_timing & t, uint32_t sharing) {
    const double all   = (double) hvx_instructions(t);
    const double loads = (double) (t.counters[HTP_CNT_HVX_LDST] - std::min(t.counters[HTP_CNT_HVX_LDST], t.counters[HTP_CNT_HVX_ST]));
    const double pkts  = std::max({ all / m.hvx_per_packet, (double) t.counters[HTP_CNT_HVX_MPY] / m.mpy_per_packet,
                                    (double) t.counters[HTP_CNT_HVX_PERMUTE] / m.perm_per_packet,
                                    loads / m.ld_per_packet, (double) t.counters[HTP_CNT_HVX_ST] / m.st_per_packet });
    const double thr   = t.n_threads > 1 ? std::max(1u, m.hvx_contexts / std::max(1u, sharing)) : 1;
    const double hvx   = pkts / thr / (m.clock_mhz * m.issue_rate);                // us
    const double hmx   = t.counters[HTP_CNT_HMX_TILES] * m.hmx_tile_cycles / m.clock_mhz;
    const double bytes = (double) t.counters[HTP_CNT_DMA_IN_BYTES] + (double) t.counters[HTP_CNT_DMA_OUT_BYTES];
    const double dma   = bytes / (m.ddr_gbps * 1e3)                                // GB/s = 1e3 bytes/us
                       + t.counters[HTP_CNT_DMA_DESC] * m.dma_desc_us / thr;
    const double runs  = (double) t.counters[HTP_CNT_HVX_RUNS];
    const double x_dma = (double) t.counters[HTP_CNT_DMA_EXPOSED_BYTES] / (m.ddr_gbps * 1e3) +
                         t.counters[HTP_CNT_DMA_EXPOSED_DESC] * m.dma_desc_us / thr;
    const double x_hvx = all > 0 ? hvx * std::min(1.0, t.counters[HTP_CNT_HVX_EXPOSED] / all) : 0;
    return m.op_overhead_us + m.hvx_run_us * std::max(0.0, runs - 1) + std::max(std::max(hvx, hmx) + x_dma, dma + x_hvx);
}

uint64_t htp_estimate_cycles(const htp_cost_model & m, double est_usec) {
    return (uint64_t) llround(est_usec * m.clock_mhz);
}

std::string htp_profile_op_line(const std::string & session, const std::string & label, const htp_op_timing & t,
                                uint32_t mhz, uint32_t arch, uint32_t sharing, const htp_config & cfg) {
    char buf[160];
    snprintf(buf, sizeof(buf), "|usec %" PRIu64 " cycles %" PRIu64 " start %" PRIu64 " mhz %u", t.nsecs / 1000,
             cycles_of(t.nsecs, mhz), t.start_ns / 1000, mhz);
    std::string line = session + " profile-op " + label + buf;
    if (cfg.profile >= 2) {
        line += " pmu [";
        for (uint32_t i = 0; i < HTP_PMU_EVENTS; i++) {
            bool known = false;
            line += (i ? "," : "") + std::to_string(htp_pmu_value(cfg.pmu_events[i], t, mhz, known));
            if (!known) {
                static std::once_flag once;
                std::call_once(once, [] {
                    HTP_LOG_PROFILE("GGML_HEXAGON_PROFILE: PMU events the vHTP has no counter for report 0 "
                                    "(docs/profiling.md \"PMU events\")");
                });
            }
        }
        line += "] counters ";
        for (uint32_t c = 0; c < HTP_CNT_COUNT; c++) {
            uint64_t v = t.counters[c];
            if (c == HTP_CNT_DMA_WAIT_NS || c == HTP_CNT_FENCE_WAIT_NS) {
                v /= 1000;  // reported in microseconds
            }
            line += std::string(c ? "," : "") + htp_counter_name(c) + "=" + std::to_string(v);
        }
        if (const htp_cost_model * m = htp_cost_model_of(arch)) {
            const double us = htp_estimate_usec(*m, t, sharing);
            char         est[80];
            snprintf(est, sizeof(est), " est-usec %.1f est-cycles %" PRIu64, us, htp_estimate_cycles(*m, us));
            line += est;
        }
    }
    return line;
}

std::string htp_profile_graph_line(const std::string & device, const htp_graph_profile & g) {
    char buf[256];
    snprintf(buf, sizeof(buf), "%s profile-graph n-batches %" PRIu64 " n-ops %" PRIu64 " tokens %u usec %" PRIu64
             " est-usec %.1f est-cycles %" PRIu64, device.c_str(), g.batches, g.n_ops, g.tokens, g.host_ns / 1000,
             g.est_usec, (uint64_t) llround(g.est_usec * g.est_mhz));
    std::string line = buf;
    if (g.tokens > 0) {
        snprintf(buf, sizeof(buf), " usec-per-token %.1f est-usec-per-token %.1f est-cycles-per-token %" PRIu64,
                 g.host_ns / 1e3 / g.tokens, g.est_usec / g.tokens,
                 (uint64_t) llround(g.est_usec * g.est_mhz / g.tokens));
        line += buf;
    }
    return line;
}

std::string htp_profile_batch_line(const std::string & session, uint32_t n_ops, uint64_t nsecs, uint64_t start_ns,
                                   uint32_t mhz, const htp_config & cfg) {
    std::string evts = "----";
    if (cfg.profile >= 2) {
        evts = "evt-cnt";
        for (uint32_t i = 0; i < HTP_PMU_EVENTS; i++) {
            char id[16];
            snprintf(id, sizeof(id), "%s0x%x", i ? "," : " ", cfg.pmu_events[i]);
            evts += id;
        }
    }
    char buf[192];
    snprintf(buf, sizeof(buf), "|usec %" PRIu64 " cycles %" PRIu64 " start %" PRIu64 " mhz %u", nsecs / 1000,
             cycles_of(nsecs, mhz), start_ns / 1000, mhz);
    return session + " profile-op OPBATCH|----|n-ops " + std::to_string(n_ops) + "|" + evts + "|----|----" + buf;
}
