// Host-side fusion: a short run of graph nodes that one NPU op computes at once, saving the
// intermediate tensor's round trip through DDR (e.g. RMS_NORM followed by MUL with the norm
// weight). A fuser looks at the nodes from index i on and, when they qualify, describes the
// fused op: which tensors it reads and writes and its kernel_params. Each op family defines
// its fusers beside its encoders; fusions.cpp lists them.
#pragma once
#include "op-encoders.h"

struct ggml_cgraph;

struct htp_fused_op {
    int                 n_nodes;             // graph nodes consumed (>= 2)
    const char *        name;                // for logs and profiles, e.g. "RMS_NORM+MUL"
    const ggml_tensor * dst;                 // the last node: what the fused op writes
    const ggml_tensor * src[HTP_MAX_SRC];    // what it reads (null: absent)
    htp_op_desc         desc;                // opcode and params (tensor descriptors are filled by the caller)
    int64_t             src_offset_delta[HTP_MAX_SRC];  // added to src[i]'s offset (tiled weights: to plane (0, 0))
    uint32_t            src_flags[HTP_MAX_SRC];         // or-ed into src[i]'s flags (HTP_TENSOR_TILED)
};

// Tries every fuser at node i; true (and `f` filled) when one applies. ctx: resolved for node i
// (its sources' layouts).
bool htp_find_fusion(const htp_device_caps & caps, const ggml_cgraph * graph, int i, htp_fused_op & f,
                     const htp_encode_context & ctx);

// Fusers (one per pattern). Each returns false when the nodes at i do not qualify.
typedef bool (*htp_fuser_fn)(const htp_device_caps & caps, const ggml_cgraph * graph, int i, htp_fused_op & f,
                             const htp_encode_context & ctx);

// Consecutive MUL_MATs sharing one activation (host/ops/mul-mat/mul-mat-fusions.cpp): when `cur` runs
// right after `prev` in the same message, on the same path, reading the same src1 prepared the
// same way into the same VTCM (and prev's output does not overwrite src1), sets cur's
// act_ready so the NPU skips re-quantizing it. True when it did.
bool htp_mm_act_reuse(const htp_op_desc & prev, htp_op_desc & cur);
