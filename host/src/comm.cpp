// llama's tensor split (-sm tensor): ggml's meta backend (ggml-backend-meta.cpp of the pinned
// llama.cpp) runs each device's slice of every layer on that device and, between layers, sums
// the devices' partial results. It asks the registry (get_proc_address) for
// ggml_backend_comm_init / _allreduce_tensor / _free; with these, the sum is an NPU op,
// ALLREDUCE (npu/ops/allreduce.cpp), that the devices' sessions run together as one group on
// the communicator's fence slots. Without them (or when allreduce_tensor says no) the meta
// backend adds the parts itself with copies and ADDs. GGML_HEXAGON_ALLREDUCE=0 asks for that.
#include <algorithm>

#include "context.h"
#include "log.h"

struct htp_comm {
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
    htp_registry & reg = htp_get_registry();
    // Only ggml's meta backend calls this, with the backends it drives: whoever adds the parts,
    // they compute their slices at once and their nodes are checked.
    for (size_t i = 0; i < n; i++) {
        if (htp_backend_is_htp(backends[i])) {
            htp_backend_set_meta(backends[i], true);
        }
    }
    if (!reg.cfg.allreduce) {
        return nullptr;
    }
    const std::string no = comm_refusal(backends, n);
    if (!no.empty()) {
        HTP_LOG_WARN("tensor split: the host adds the devices' parts, not the NPUs: %s", no.c_str());
        return nullptr;
    }
    auto * c = new htp_comm;
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
    if (reg.cfg.verbose >= 1) {
        HTP_LOG_REQUESTED("tensor split over %zu devices: ALLREDUCE on the NPUs", n);
    }
    return c;
}

void htp_comm_free(void * comm) {
    auto * c = (htp_comm *) comm;
    if (!c) {
        return;
    }
    htp_unmap_everywhere(c->fence.fd, c->fence.size);  // waits for every device's stream first
    htp_shared_free(c->fence);
    delete c;
}

bool htp_comm_allreduce_tensor(void * comm, ggml_tensor ** tensors) {
    auto * c = (htp_comm *) comm;
    htp_registry & reg = htp_get_registry();
    std::string why_not;
    if (htp_allreduce_send(reg, c->devices, tensors, c->fence, c->fence_seq, why_not)) {
        return true;
    }
    if (reg.cfg.verbose >= 1) {
        HTP_LOG_REQUESTED("ALLREDUCE '%s' on the host: %s", tensors[0]->name, why_not.c_str());
    }
    return false;
}
