// The host backend's objects: the registry, one device per HTP session, and buffers. Data
// only: each module's functions are declared in its own header (buffer.h, device.h, ...), so
// the modules of host/src include each other without a circle (tests/tools/include-cycles.py).
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
