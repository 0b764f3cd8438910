// Host side of each NPU op: decides support from static tensor properties only (never buffers,
// usage or repack state: llama.cpp asks before any buffer exists; docs/architecture.md) and
// precomputes the op's kernel_params. One file per op family in host/ops/; HTP_OP_LIST (abi/include/htp-abi/
// htp-op-list.h) names each op's encoder, and op-encoders.cpp builds the lookup from it.
#pragma once
#include <cstdint>

#include "ggml.h"
#include "encode-context.h"
#include "htp-abi/htp-abi.h"

// What the encoders may know about the device they target.
struct htp_device_caps {
    uint32_t arch;            // 73, 75, 79, 81
    uint32_t n_hvx;           // HVX threads per session
    uint32_t vtcm_size;       // bytes of VTCM per session
    uint32_t dma_field_bits;  // 16 or 24
};

// An encoder reads its arguments only: the device caps, the node, and the context its caller
// in host/src resolved (encode-context.h: the MUL_MAT settings, each source's weight layout).
struct htp_op_encoder {
    // True when the NPU can run `op` (types, shapes, strides, op params).
    bool (*supports)(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context & ctx);
    // Sets desc.opcode and desc.params. The caller already filled desc.dst / desc.src[] /
    // desc.n_src from op and op->src[] (same order as ggml's src array).
    void (*encode)(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc,
                   const htp_encode_context & ctx);
};

// The encoder for this node's op, or nullptr when the NPU has none.
const htp_op_encoder * htp_find_op_encoder(const ggml_tensor * op);

// DDR bytes an op's kernel uses right after its dst's data (0 for most ops): an ARGSORT row
// longer than a thread's VTCM share is merged there (host/ops/argsort.cpp). The device buffer
// type reserves them (get_alloc_size, host/src/buffer.cpp); htp_batch::add (host/src/batch.cpp)
// refuses such a node, one line, when its dst has no such room.
uint64_t htp_op_dst_scratch(const htp_device_caps & caps, const ggml_tensor * op);
