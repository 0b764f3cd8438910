// Graph -> op batches: each supported node becomes an htp_op_desc (tensors as buffer index +
// offset, kernel_params from the op's encoder); up to GGML_HEXAGON_OPBATCH ops travel in one
// message to the device's session, which answers with a status and per-op timings.
#include <cinttypes>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>

#include "context.h"
#include "fusions.h"
#include "log.h"
#include "weight-repack.h"

namespace {

class htp_batch {
  public:
    void clear() {
        bufs_.clear();
        fd_index_.clear();
        ops_.clear();
        nodes_.clear();
        names_.clear();
        act_reused_.clear();
    }

    bool empty() const { return ops_.empty(); }
    size_t size() const { return ops_.size(); }
    const std::vector<const ggml_tensor *> & nodes() const { return nodes_; }
    const char * op_name(size_t i) const { return names_[i]; }  // "RMS_NORM+MUL" for a fusion
    // The NPU kernel an op went to, when it is not the op's own name (MUL_MAT's paths;
    // "+rt-repack" when the HMX path repacks a flat weight at run time); "" otherwise.
    std::string npu_path(size_t i) const {
        const htp_op_desc & d    = ops_[i];
        const char *        name = htp_opcode_name(d.opcode);
        std::string         s    = name && strcmp(name, names_[i]) != 0 ? name : "";
        if (d.opcode == HTP_OP_MUL_MAT_HMX && d.params.mul_mat_hmx.rt_repack) {
            s += "+rt-repack";
        }
        return s;
    }
    bool act_reused(size_t i) const { return act_reused_[i]; }  // skips its activation prep

    // Fusions on (GGML_HEXAGON_OPFUSION): a MUL_MAT may reuse the activation its predecessor prepared.
    void set_fuse(bool on) { fuse_ = on; }

    // Adds a node; false with a reason when a tensor cannot be described to the NPU.
    bool add(const htp_device & d, const ggml_tensor * node, std::string & error) {
        htp_op_desc desc;
        memset(&desc, 0, sizeof(desc));
        if (!describe(node, desc.dst, error)) {
            return false;
        }
        for (int i = 0; i < HTP_MAX_SRC; i++) {
            desc.src[i].buf = HTP_NO_BUF;
        }
        // Optional sources may be absent in the middle (SOFT_MAX: sinks without a mask).
        for (int i = 0; i < GGML_MAX_SRC; i++) {
            if (!node->src[i]) {
                continue;
            }
            if (i >= HTP_MAX_SRC) {
                error = "more than " + std::to_string(HTP_MAX_SRC) + " sources";
                return false;
            }
            if (!describe(node->src[i], desc.src[i], error)) {
                return false;
            }
            desc.n_src = (uint32_t) i + 1;
        }
        htp_find_op_encoder(node)->encode(d.caps, node, desc);
        push(desc, node, ggml_op_desc(node));
        return true;
    }

    // Adds a fused op (host/ops/fusions.h): its own sources and destination, params ready.
    bool add_fused(const htp_fused_op & f, std::string & error) {
        htp_op_desc desc = f.desc;
        if (!describe(f.dst, desc.dst, error)) {
            return false;
        }
        desc.n_src = 0;
        for (int i = 0; i < HTP_MAX_SRC; i++) {
            desc.src[i].buf = HTP_NO_BUF;
            if (f.src[i]) {
                if (!describe(f.src[i], desc.src[i], error)) {
                    return false;
                }
                desc.src[i].offset = (uint64_t) ((int64_t) desc.src[i].offset + f.src_offset_delta[i]);
                desc.src[i].flags |= f.src_flags[i];
                desc.n_src = (uint32_t) i + 1;
            }
        }
        push(desc, f.dst, f.name);
        return true;
    }

    // Adds a buffer that is not a tensor's (the trace buffer); returns its index.
    uint32_t add_buffer(int fd, uint64_t size) {
        return buf_index(fd, size, true);
    }

    // mdev: the group's fence slots (fence_buf, a buffer-table index) and the sequence number
    // the batch's barriers count on from; mdev_count 1 for a single session.
    std::vector<uint8_t> serialize(uint64_t seq, uint32_t flags, uint32_t trace_buf, uint32_t mdev_count = 1,
                                   uint32_t fence_buf = HTP_NO_BUF, uint32_t fence_seq = 0) const {
        htp_msg_header h = {};
        h.magic       = HTP_MSG_MAGIC;
        h.abi_version = HTP_ABI_VERSION;
        h.kind        = HTP_MSG_OPS;
        h.flags       = flags;
        h.n_bufs      = (uint32_t) bufs_.size();
        h.n_ops       = (uint32_t) ops_.size();
        h.seq         = seq;
        h.trace_buf   = trace_buf;
        h.mdev_count     = mdev_count;
        h.mdev_count_div = htp_fastdiv_init(mdev_count);
        h.fence_buf      = fence_buf;
        h.fence_seq      = fence_seq;
        std::vector<uint8_t> msg(htp_msg_size(h.n_bufs, h.n_ops));
        uint8_t * p = msg.data();
        memcpy(p, &h, sizeof(h));
        p += sizeof(h);
        memcpy(p, bufs_.data(), bufs_.size() * sizeof(htp_buf_desc));
        p += bufs_.size() * sizeof(htp_buf_desc);
        memcpy(p, ops_.data(), ops_.size() * sizeof(htp_op_desc));
        return msg;
    }

  private:
    void push(htp_op_desc & desc, const ggml_tensor * node, const char * name) {
        const bool reused = fuse_ && !ops_.empty() && htp_mm_act_reuse(ops_.back(), desc);
        ops_.push_back(desc);
        nodes_.push_back(node);
        names_.push_back(name);
        act_reused_.push_back(reused);
    }

    uint32_t buf_index(int fd, uint64_t size, bool pinned) {
        auto it = fd_index_.find(fd);
        if (it != fd_index_.end()) {
            return it->second;
        }
        const uint32_t idx = (uint32_t) bufs_.size();
        bufs_.push_back({ fd, pinned ? (uint32_t) HTP_BUF_PINNED : 0u, size });
        fd_index_[fd] = idx;
        return idx;
    }

    bool describe(const ggml_tensor * t, htp_tensor_desc & out, std::string & error) {
        const htp_buffer * b = htp_tensor_buffer(t);
        if (!b) {
            error = std::string("tensor '") + t->name + "' is not in an HTP buffer";
            return false;
        }
        const ggml_backend_buffer_t gb = t->view_src ? t->view_src->buffer : t->buffer;
        const bool pinned = gb->usage != GGML_BACKEND_BUFFER_USAGE_WEIGHTS;
        out.buf    = buf_index(b->fd, b->size, pinned);
        out.type   = (uint32_t) t->type;
        out.offset = (uint64_t) ((const uint8_t *) t->data - b->base);
        out.flags  = 0;
        for (int i = 0; i < 4; i++) {
            if ((uint64_t) t->ne[i] > std::numeric_limits<uint32_t>::max() ||
                (uint64_t) t->nb[i] > std::numeric_limits<uint32_t>::max()) {
                error = std::string("tensor '") + t->name + "' is too large for 32-bit descriptors";
                return false;
            }
            out.ne[i] = (uint32_t) t->ne[i];
            out.nb[i] = (uint32_t) t->nb[i];
        }
        return true;
    }

    std::vector<htp_buf_desc> bufs_;
    std::unordered_map<int, uint32_t> fd_index_;
    std::vector<htp_op_desc> ops_;
    std::vector<const ggml_tensor *> nodes_;  // the node each op writes
    std::vector<const char *> names_;
    std::vector<bool> act_reused_;
    bool fuse_ = true;
};

bool htp_node_is_noop(const ggml_tensor * node) {
    return htp_op_is_view(node) || ggml_is_empty(node);
}

std::string htp_shape(const ggml_tensor * t) {
    char buf[128];
    snprintf(buf, sizeof(buf), "%s[%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]", ggml_type_name(t->type),
             t->ne[0], t->ne[1], t->ne[2], t->ne[3]);
    return buf;
}

// path: the NPU kernel when it is not the op's own (htp_batch::npu_path), logged as "(kernel ...)";
// act_reused: the op's activation was prepared by the MUL_MAT before it (host fusion).
void htp_log_op(const htp_device & d, const char * op_name, const ggml_tensor * node, const std::string & path,
                bool act_reused) {
    std::string srcs;
    for (int i = 0; i < GGML_MAX_SRC && node->src[i]; i++) {
        srcs += (i ? ", " : "") + htp_shape(node->src[i]);
    }
    const std::string kernel = path.empty() ? "" : " (kernel " + path + ")";
    HTP_LOG_REQUESTED("%s: op %s '%s' %s <- %s%s%s", d.spec.name.c_str(), op_name, node->name, htp_shape(node).c_str(),
                      srcs.c_str(), kernel.c_str(), act_reused ? " (activation reused)" : "");
}

// Sends the batch and checks the answer.
ggml_status htp_batch_send(htp_registry & reg, htp_device & d, htp_batch & batch) {
    uint32_t flags = 0;
    uint32_t trace_buf = HTP_NO_BUF;
    if (reg.cfg.profile >= 1) {
        flags |= HTP_MSG_FLAG_PROFILE;
    }
    if (reg.cfg.stage) {
        flags |= HTP_MSG_FLAG_STAGE;  // GGML_HEXAGON_OPSTAGE=1: the NPU runs no kernel
    }
    if (d.trace) {
        flags |= HTP_MSG_FLAG_TRACE;
        trace_buf = batch.add_buffer(d.trace->fd(), d.trace->size());
        d.trace->arm();
    }
    if (reg.cfg.verbose >= 1) {
        for (size_t i = 0; i < batch.size(); i++) {
            htp_log_op(d, batch.op_name(i), batch.nodes()[i], batch.npu_path(i), batch.act_reused(i));
        }
    }

    const uint64_t seq = ++d.seq;
    const size_t   n   = d.sessions.size();
    std::vector<std::vector<uint8_t>> msgs(n), resps;
    if (n == 1) {
        msgs[0] = batch.serialize(seq, flags, trace_buf);
    } else {
        // One message per member, the same but for mdev_idx (and the trace, member 0's only).
        const uint32_t fence_buf = batch.add_buffer(d.fence.fd, d.fence.size);
        msgs[0] = batch.serialize(seq, flags, trace_buf, (uint32_t) n, fence_buf, d.fence_seq);
        d.fence_seq += (uint32_t) batch.size() + 2;  // the batch uses at most n_ops + 1 barriers
        for (size_t m = 1; m < n; m++) {
            msgs[m] = msgs[0];
            htp_msg_header h;
            memcpy(&h, msgs[m].data(), sizeof(h));
            h.mdev_idx = (uint32_t) m;
            h.flags &= ~(uint32_t) HTP_MSG_FLAG_TRACE;
            memcpy(msgs[m].data(), &h, sizeof(h));
        }
    }
    std::vector<htp_session *> sessions;
    for (auto & s : d.sessions) {
        sessions.push_back(s.get());
    }
    std::string error;
    if (!htp_session::exchange_all(sessions, msgs, resps, error)) {
        HTP_LOG_ERROR("%s: message transport failed: %s", d.spec.name.c_str(), error.c_str());
        return GGML_STATUS_FAILED;
    }
    if (d.trace) {
        d.trace->collect();
    }

    // Every member answers; the first failure is reported (a member whose peer failed answers
    // with the peer's status at the barrier where it stopped).
    htp_batch_response r = {};
    for (size_t m = 0; m < n; m++) {
        const std::vector<uint8_t> & mr   = resps[m];
        const std::string            name = n == 1 ? d.spec.name : d.spec.name + " member " + std::to_string(m);
        if (mr.size() < sizeof(r)) {
            HTP_LOG_ERROR("%s: short response (%zu bytes)", name.c_str(), mr.size());
            return GGML_STATUS_FAILED;
        }
        memcpy(&r, mr.data(), sizeof(r));
        if (r.magic != HTP_RESP_MAGIC || r.seq != seq) {
            HTP_LOG_ERROR("%s: malformed response (magic %08x, seq %" PRIu64 " for %" PRIu64 ")", name.c_str(), r.magic,
                          r.seq, seq);
            return GGML_STATUS_FAILED;
        }
        if (r.status != HTP_STATUS_OK) {
            const ggml_tensor * node = r.failed_op < batch.size() ? batch.nodes()[r.failed_op] : nullptr;
            HTP_LOG_ERROR("%s: op %u (%s '%s') failed on the NPU: %s", name.c_str(), r.failed_op,
                          node ? batch.op_name(r.failed_op) : "?", node ? node->name : "?", htp_status_name(r.status));
            return GGML_STATUS_FAILED;
        }
    }
    memcpy(&r, resps[0].data(), sizeof(r));  // member 0's timings are the profile's
    const std::vector<uint8_t> & resp = resps[0];
    if (reg.cfg.profile >= 1 && resp.size() >= htp_response_size(r.n_ops)) {
        const auto * t = (const htp_op_timing *) (resp.data() + sizeof(r));
        for (uint32_t i = 0; i < r.n_ops && i < batch.size(); i++) {
            const ggml_tensor * node = batch.nodes()[i];
            HTP_LOG_REQUESTED("%s: profile %-10s %-28s %8u us %12" PRIu64 " cycles %u threads%s%s", d.spec.name.c_str(),
                         batch.op_name(i), node->name, t[i].usecs, t[i].cycles, t[i].n_threads,
                         batch.npu_path(i).empty() ? "" : " ", batch.npu_path(i).c_str());
        }
    }
    return GGML_STATUS_SUCCESS;
}

}  // namespace

ggml_status htp_graph_compute(htp_registry & reg, htp_device & d, ggml_cgraph * graph) {
    htp_repack_graph_prepare(d.caps, graph);
    htp_batch batch;
    batch.set_fuse(reg.cfg.fuse);
    const int n_nodes = ggml_graph_n_nodes(graph);
    for (int i = 0; i < n_nodes; i++) {
        const ggml_tensor * node = ggml_graph_node(graph, i);
        if (htp_node_is_noop(node)) {
            continue;
        }
        std::string  error;
        htp_fused_op fused;
        if (reg.cfg.fuse && htp_find_fusion(d.caps, graph, i, fused)) {
            if (!batch.add_fused(fused, error)) {
                HTP_LOG_ERROR("%s: cannot run %s '%s': %s", d.spec.name.c_str(), fused.name, fused.dst->name,
                              error.c_str());
                return GGML_STATUS_FAILED;
            }
            i += fused.n_nodes - 1;
        } else if (!batch.add(d, node, error)) {
            HTP_LOG_ERROR("%s: cannot run %s '%s': %s", d.spec.name.c_str(), ggml_op_desc(node), node->name,
                          error.c_str());
            return GGML_STATUS_FAILED;
        }
        if (batch.size() >= reg.cfg.opbatch) {
            ggml_status st = htp_batch_send(reg, d, batch);
            if (st != GGML_STATUS_SUCCESS) {
                return st;
            }
            batch.clear();
        }
    }
    return batch.empty() ? GGML_STATUS_SUCCESS : htp_batch_send(reg, d, batch);
}

void htp_unmap_everywhere(int fd, uint64_t size) {
    htp_registry & reg = htp_get_registry();
    for (auto & d : reg.devices) {
        std::vector<uint8_t> msg(htp_msg_size(1, 0));
        htp_msg_header h = {};
        h.magic       = HTP_MSG_MAGIC;
        h.abi_version = HTP_ABI_VERSION;
        h.kind        = HTP_MSG_UNMAP;
        h.n_bufs      = 1;
        h.seq         = ++d->seq;
        h.trace_buf   = HTP_NO_BUF;
        const htp_buf_desc b = { fd, 0, size };
        memcpy(msg.data(), &h, sizeof(h));
        memcpy(msg.data() + sizeof(h), &b, sizeof(b));
        for (auto & s : d->sessions) {
            std::vector<uint8_t> resp;
            std::string error;
            if (!s->exchange(msg, resp, error)) {
                HTP_LOG_ERROR("%s: cannot unmap buffer fd %d: %s", d->spec.name.c_str(), fd, error.c_str());
            }
        }
    }
}
