// The host backend's objects: the registry, one device per HTP session, and buffers.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "device-list.h"
#include "ggml-backend-impl.h"
#include "op-encoders.h"
#include "stream.h"
#include "trace-export.h"
#include "transport.h"

struct htp_registry;
struct htp_device {
    htp_device_spec spec;
    std::string description;
    htp_device_profile profile = {};
    htp_device_caps caps = {};
    htp_mm_settings mm;  // MUL_MAT path choice (the registry's config): the encoders' context
    // The most members of this device on one NPU: they run each batch at once and share that
    // NPU's HVX contexts (docs/multi-device.md), which the cost model divides among them.
    uint32_t hvx_sharing = 1;
    // One session, or a device group's members in mdev order (spec.members): every op runs on
    // all of them, each on its own slice, synchronized on the fence slots (npu/src/mdev.h).
    std::vector<std::unique_ptr<htp_session>> sessions;
    htp_shared_mem fence;                       // groups: one HTP_FENCE_SLOT_SIZE line per member
    std::atomic<uint32_t> fence_seq{ 0 };       // groups: last barrier sequence number handed out
                                                // (a replay takes new ones on the stream's thread)
    std::unique_ptr<htp_trace_recorder> trace;  // PROFILE=3 only (a region per member)

    ggml_backend_buffer_type buft = {};       // device memory (shared DDR, NPU layout)
    std::string buft_name;
    std::atomic<uint64_t> allocated{ 0 };     // bytes of device buffers alive
    uint64_t seq = 0;                         // message sequence number
    // The session window as the host plans batches for it (graph.cpp): pinned buffers the
    // sessions hold mapped (fd -> page-rounded bytes; they stay until the buffer is freed).
    std::unordered_map<int, uint64_t> resident_pinned;
    uint64_t resident_pinned_bytes = 0;

    // The batches on their way to the sessions, in order (stream.h). graph_compute returns
    // before they are done only while the device has events, that is while a scheduler runs it
    // in a pipeline (llama's layer split); otherwise it waits and returns the NPU's status.
    std::unique_ptr<htp_stream> stream;
    std::atomic<int> n_events{ 0 };
    std::atomic<int> n_backends{ 0 };  // alive (two at once: the device is named twice in a split)
    bool async() const { return n_events.load() > 0; }

    ggml_backend_device dev = {};
    // The registry that made the device (htp_buffer_types_init), passed down: the device's
    // interface, its backends, buffers and communicators read the config (and the host buffer
    // type, the devices to unmap from) here; nothing reaches up for the registry.
    htp_registry * reg = nullptr;

    ~htp_device() {
        stream.reset();  // its last batches may still use the sessions and the fence
        htp_shared_free(fence);
    }
};

// A recorded point in a device's stream (null stream: never recorded, nothing to wait for).
struct htp_event {
    htp_stream * stream = nullptr;
    uint64_t     ticket = 0;
};

struct htp_registry {
    htp_config cfg;
    std::vector<std::unique_ptr<htp_device>> devices;
    ggml_backend_buffer_type host_buft = {};  // GGML_HEXAGON_HOSTBUF=1
    ggml_backend_reg reg = {};

    // Every stream drains before any device goes: one device's queued work may wait for
    // another's (events, copies, ALLREDUCE).
    ~htp_registry() {
        for (auto & d : devices) {
            if (d->stream) {
                d->stream->synchronize();
            }
        }
    }
};

// A buffer of shared DDR (memfd), host-mapped; sessions map it by fd when a batch names it.
struct htp_tiling_state;
struct htp_buffer {
    htp_device * device;
    int      fd;
    uint8_t * base;
    size_t   size;
    htp_tiling_state * repack;  // tiled tensors (weight-repack.h); null in the host buffer type
};

// Buffer types (buffer.cpp).
void htp_buffer_types_init(htp_registry & reg);
// The htp_buffer behind a tensor, or nullptr when it is not in an HTP buffer.
const htp_buffer * htp_tensor_buffer(const ggml_tensor * t);

// Devices (device.cpp).
void htp_device_init_iface(htp_registry & reg, htp_device & d);
bool htp_device_supports_op(const htp_registry & reg, const htp_device & d, const ggml_tensor * op);
// VIEW, RESHAPE, PERMUTE, TRANSPOSE, NONE: nothing to run.
bool htp_op_is_view(const ggml_tensor * op);

// Backend streams (backend.cpp).
ggml_backend_t htp_backend_init(htp_device & d);
bool htp_backend_is_htp(ggml_backend_t backend);
htp_device & htp_backend_device(ggml_backend_t backend);
// A backend that ggml's meta backend drives (a tensor split): asynchronous (its devices work at
// once), and its graphs' nodes are checked against supports_op.
void htp_backend_set_meta(ggml_backend_t backend, bool meta);

// Tensor split (comm.cpp): what ggml's meta backend finds by get_proc_address.
void * htp_comm_init(ggml_backend_t * backends, size_t n_backends);
void   htp_comm_free(void * comm);
bool   htp_comm_allreduce_tensor(void * comm, ggml_tensor ** tensors);

// Graph execution (graph.cpp): runs the graph's nodes on the device's session.
// async: return once the batches are queued (a pipeline or a tensor split), else wait and
// return the NPU's status. check_nodes: ask supports_op of every node first (graphs that
// llama's scheduler did not build: ggml's meta backend's).
ggml_status htp_graph_compute(htp_registry & reg, htp_device & d, ggml_cgraph * graph, bool async, bool check_nodes);
// graph_optimize (graph-order.cpp): MUL_MATs sharing an activation brought next to each other.
void htp_graph_order_mul_mats(ggml_cgraph * graph);
// Tells every session to drop a buffer from its window (before the fd closes).
void htp_unmap_everywhere(htp_registry & reg, int fd, uint64_t size);
