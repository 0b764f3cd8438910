// llama's tensor split (-sm tensor): ggml's meta backend (ggml-backend-meta.cpp of the pinned
// llama.cpp) runs each device's slice of every layer on that device and, between layers, sums
// the devices' partial results. It asks the registry (get_proc_address) for
// ggml_backend_comm_init / _allreduce_tensor / _free; with these, the sum is an NPU op,
// ALLREDUCE (npu/ops/allreduce.cpp), that the devices' sessions run together as one group on
// the communicator's fence slots. Without them (or when allreduce_tensor says no) the meta
// backend adds the parts itself with copies and ADDs. GGML_HEXAGON_ALLREDUCE=0 asks for that.
#include <algorithm>
#include <cstring>
#include <memory>

#include "batch.h"
#include "backend.h"
#include "buffer.h"
#include "comm.h"
#include "log.h"

extern const htp_op_encoder htp_allreduce_encoder;  // host/ops/allreduce.cpp

struct htp_comm {
    htp_registry *              reg = nullptr;
    std::vector<ggml_backend_t> backends;
    std::vector<htp_device *>   devices;
    htp_shared_mem              fence;          // one HTP_FENCE_SLOT_SIZE line per device
    uint32_t                    fence_seq = 0;  // last barrier sequence number handed out
};

// Why the NPUs cannot reduce for these backends ("" when they can).
static std::string comm_refusal(ggml_backend_t * backends, size_t n) {
    if (n < 2 || n > HTP_MAX_SRC) {
        return std::to_string(n) + " devices (ALLREDUCE takes 2.." + std::to_string(HTP_MAX_SRC) + ")";
    }
    std::vector<const htp_device *> seen;
    for (size_t i = 0; i < n; i++) {
        if (!htp_backend_is_htp(backends[i])) {
            return std::string("'") + ggml_backend_name(backends[i]) + "' is not an HTP device";
        }
        const htp_device & d = htp_backend_device(backends[i]);
        if (d.sessions.size() != 1) {
            return d.spec.name + " is a device group (its members already split every op)";
        }
        if (std::find(seen.begin(), seen.end(), &d) != seen.end()) {
            return d.spec.name + " is named twice";
        }
        seen.push_back(&d);
    }
    return "";
}

void * htp_comm_init(ggml_backend_t * backends, size_t n) {
    // Only ggml's meta backend calls this, with the backends it drives: whoever adds the parts,
    // they compute their slices at once and their nodes are checked.
    htp_registry * reg = nullptr;  // the registry that made the devices (their config)
    for (size_t i = 0; i < n; i++) {
        if (htp_backend_is_htp(backends[i])) {
            htp_backend_set_meta(backends[i], true);
            reg = reg ? reg : htp_backend_device(backends[i]).reg;
        }
    }
    if (reg && !reg->cfg.allreduce) {
        return nullptr;
    }
    const std::string no = comm_refusal(backends, n);
    if (!no.empty() || !reg) {
        HTP_LOG_WARN("tensor split: the host adds the devices' parts, not the NPUs: %s", no.c_str());
        return nullptr;
    }
    auto * c = new htp_comm;
    c->reg   = reg;
    std::string error;
    if (!htp_shared_alloc(n * HTP_FENCE_SLOT_SIZE, "allreduce-fences", c->fence, error)) {
        HTP_LOG_WARN("tensor split: the host adds the devices' parts, not the NPUs: no fence slots: %s", error.c_str());
        delete c;
        return nullptr;
    }
    for (size_t i = 0; i < n; i++) {
        c->backends.push_back(backends[i]);
        c->devices.push_back(&htp_backend_device(backends[i]));
    }
    if (reg->cfg.verbose >= 1) {
        HTP_LOG_REQUESTED("tensor split over %zu devices: ALLREDUCE on the NPUs", n);
    }
    return c;
}

void htp_comm_free(void * comm) {
    auto * c = (htp_comm *) comm;
    if (!c) {
        return;
    }
    htp_unmap_everywhere(*c->reg, c->fence.fd, c->fence.size);  // waits for every device's stream first
    htp_shared_free(c->fence);
    delete c;
}

// Queues one ALLREDUCE of parts[i] on devs[i] for every device, as the members of a group on
// the communicator's fence slots. False with a reason (nothing queued) when the NPUs cannot do
// it; the caller then reduces on the host.
static bool htp_allreduce_send(const htp_config & cfg, const std::vector<htp_device *> & devs,
                               ggml_tensor * const * parts, const htp_shared_mem & fence, uint32_t & fence_seq,
                               std::string & why_not) {
    const size_t n = devs.size();
    const htp_op_encoder & enc = htp_allreduce_encoder;
    std::vector<const ggml_tensor *> srcs(parts, parts + n);
    for (size_t i = 0; i < n; i++) {
        const ggml_tensor * t = parts[i];
        if (!ggml_are_same_shape(t, parts[0]) || !ggml_are_same_stride(t, parts[0]) || !enc.supports(devs[i]->caps, t, htp_encode_context{ devs[i]->mm })) {
            why_not = std::string("part '") + t->name + "' " + htp_shape(t) + " is not an F32 tensor ALLREDUCE takes";
            return false;
        }
    }
    std::string parts_text = std::to_string(n) + " parts (";
    for (size_t i = 0; i < n; i++) {
        parts_text += (i ? ", " : "") + devs[i]->spec.name;
    }
    parts_text += ")";
    std::vector<std::shared_ptr<htp_sent_batch>> sent(n);
    for (size_t i = 0; i < n; i++) {
        htp_device & d = *devs[i];
        htp_batch batch(d, cfg.fuse, cfg.params_check);
        std::string error;
        if (!batch.add_host_op(enc, "ALLREDUCE", parts[i], srcs, parts_text, error)) {
            why_not = error;
            return false;
        }
        if (d.resident_pinned_bytes + batch.window_bytes() + htp_window_span(fence.size) > d.profile.vmem_budget) {
            why_not = d.spec.name + ": the parts do not fit the window budget with its pinned buffers";
            return false;
        }
        const htp_comm_member member = { &fence, (uint32_t) n, (uint32_t) i, fence_seq };
        sent[i] = std::make_shared<htp_sent_batch>(htp_batch_prepare(cfg, d, batch, &member));
    }
    // Every member's stream runs its part at once: they meet at the op's barriers. A member
    // whose stream skips (an earlier failure) says so in its slot, so its peers stop waiting.
    const uint32_t first_barrier = fence_seq + 1;
    fence_seq += htp_batch_fence_span(1);
    for (size_t i = 0; i < n; i++) {
        htp_device & d = *devs[i];
        auto window = std::make_shared<htp_window_counters>();
        auto * slot = (volatile htp_fence_slot *) (fence.host_ptr + i * HTP_FENCE_SLOT_SIZE);
        // A part the meta backend did not compute (its device's slice is empty) counts as zeros.
        void * zero = parts[i]->flags & GGML_TENSOR_FLAG_COMPUTE ? nullptr : parts[i]->data;
        const size_t zero_bytes = ggml_nbytes(parts[i]);
        d.stream->enqueue([&cfg, &d, sb = sent[i], window, slot, first_barrier, zero, zero_bytes](bool skip) {
            if (zero && !skip) {
                memset(zero, 0, zero_bytes);  // shared DDR the host maps; the NPU reads it after the barrier
            }
            if (skip) {
                __atomic_store_n(&slot->status, (int32_t) HTP_STATUS_FENCE_ERROR, __ATOMIC_RELAXED);
                __atomic_store_n(&slot->seq, first_barrier, __ATOMIC_RELEASE);
                return GGML_STATUS_FAILED;
            }
            return htp_batch_run(cfg, d, *sb, *window);
        });
    }
    return true;
}

bool htp_comm_allreduce_tensor(void * comm, ggml_tensor ** tensors) {
    auto * c = (htp_comm *) comm;
    htp_registry & reg = *c->reg;
    std::string why_not;
    if (htp_allreduce_send(reg.cfg, c->devices, tensors, c->fence, c->fence_seq, why_not)) {
        return true;
    }
    if (reg.cfg.verbose >= 1) {
        HTP_LOG_REQUESTED("ALLREDUCE '%s' on the host: %s", tensors[0]->name, why_not.c_str());
    }
    return false;
}
