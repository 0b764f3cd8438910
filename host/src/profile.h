// GGML_HEXAGON_PROFILE output (docs/profiling.md): upstream's per-op line
//   ggml-hex: <session> profile-op <OP>|<names>|<dims>|<types>|<strides>|<kparams>|usec <u> cycles <c> start <s> mhz <m>
// with " pmu [<8 counts>]" at level 2 (upstream's event ids mapped to the vHTP's counters) and
// our counters after it (" counters k=v,..."), and one OPBATCH line per batch and session.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "htp-abi/htp-abi.h"

struct ggml_tensor;
struct htp_config;

// "<OP>|<names>|<dims>|<types>|<strides>|<kparams>" of one op as the NPU runs it: the
// destination first, then the sources (`srcs`, may hold nulls), fields joined by ':'.
std::string htp_profile_label(const char * op, const ggml_tensor * dst, const std::vector<const ggml_tensor *> & srcs,
                              const htp_op_desc & desc, const std::string & path);

// The value level 2 reports for upstream PMU event `event`, from one op's counters; `known`
// false: no counter of ours is near it (reported as 0; docs/profiling.md lists them).
uint64_t htp_pmu_value(uint32_t event, const htp_op_timing & t, uint32_t mhz, bool & known);

// The per-arch cost model (docs/profiling.md "Estimated device time"): what one op's level-2
// counters would take on the real NPU of `arch`, in microseconds. 0 for an unknown arch.
struct htp_cost_model {
    uint32_t arch;
    uint32_t clock_mhz;        // = the vHTP profile's clock
    uint32_t hvx_contexts;     // HVX contexts of the NPU
    double   hvx_per_packet;   // HVX instructions one packet issues at most
    double   mpy_per_packet;   // of them multiplies
    double   perm_per_packet;  // of them permutes
    double   ld_per_packet;    // of them vector loads (hvx_ldst - hvx_st: npu/ops/hvx-vmem.h)
    double   st_per_packet;    // of them vector stores (hvx_st)
    double   issue_rate;       // HVX packets one context issues per cycle, on average (a fit)
    double   hmx_tile_cycles;  // cycles of one 32x32x32 fp16 tile multiply-accumulate
    double   ddr_gbps;         // effective DDR <-> VTCM DMA bandwidth, GB/s
    double   dma_desc_us;      // what one DMA descriptor waits before its bytes move (a DDR round trip)
    double   op_overhead_us;   // fixed cost of one op (dispatch)
    double   hvx_run_us;       // each HVX dispatch of an op after its first (hvx_runs - 1): threads' setup
};
const htp_cost_model * htp_cost_model_of(uint32_t arch);
// sharing: sessions that run the op at once on the same NPU (a group's members), which share
// its HVX contexts.
double htp_estimate_usec(const htp_cost_model & m, const htp_op_timing & t, uint32_t sharing = 1);
// An estimate in the arch's device cycles: est_usec x its clock (the same clock as the op line's
// "cycles" and "mhz"), rounded.
uint64_t htp_estimate_cycles(const htp_cost_model & m, double est_usec);

// The per-op line (without "ggml-hex: "), and the batch's. At level 2 the op line ends with
// " est-usec <x> est-cycles <c>" (the cost model of `arch`; c = x x its clock in MHz).
std::string htp_profile_op_line(const std::string & session, const std::string & label, const htp_op_timing & t,
                                uint32_t mhz, uint32_t arch, uint32_t sharing, const htp_config & cfg);
std::string htp_profile_batch_line(const std::string & session, uint32_t n_ops, uint64_t nsecs, uint64_t start_ns,
                                   uint32_t mhz, const htp_config & cfg);

// One graph at level 2 (the device's batches; a group's members run each batch together, so a
// batch's estimate is its slowest member's): " profile-graph n-batches <b> n-ops <n> tokens <t>
// usec <host> est-usec <e> est-cycles <c>" and, with tokens, " usec-per-token <u> est-usec-per-token
// <e> est-cycles-per-token <c>" (c: e x the cost model's clock, est_mhz).
// usec: the host's time from graph_compute's start to the last batch's answer.
struct htp_graph_profile {
    uint64_t batches = 0, n_ops = 0, host_ns = 0;
    uint32_t tokens   = 0;  // the graph's tokens (htp_graph_tokens), 0: not known
    double   est_usec = 0;
    uint32_t est_mhz  = 0;  // the cost model's clock (htp_cost_model::clock_mhz), for est-cycles
};
std::string htp_profile_graph_line(const std::string & device, const htp_graph_profile & g);

// Our counter names, in enum htp_counter order (the "counters" field's keys).
const char * htp_counter_name(uint32_t c);
