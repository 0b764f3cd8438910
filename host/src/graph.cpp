// Graph -> op batches: each supported node becomes an htp_op_desc (tensors as buffer index +
// offset, kernel_params from the op's encoder); up to GGML_HEXAGON_OPBATCH ops travel in one
// message to the device's session, which answers with a status and per-op timings.
#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <ctime>
#include <limits>
#include <mutex>
#include <string>
#include <unordered_map>

#include "context.h"
#include "fusions.h"
#include "log.h"
#include "profile.h"
#include "weight-repack.h"

extern const htp_op_encoder htp_allreduce_encoder;  // host/ops/allreduce.cpp

namespace {

constexpr uint64_t kWindowPage = 4096;  // the window maps whole pages

uint64_t window_span(uint64_t size) {
    return (size + kWindowPage - 1) / kWindowPage * kWindowPage;
}

std::string mib(uint64_t bytes) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%.1f MiB", (double) bytes / (1 << 20));
    return buf;
}

// Weights are delayed mappings (the NPU maps them when a batch names them); every other buffer
// (KV cache, compute buffers) is pinned: mapped once, kept until freed.
bool htp_buffer_is_pinned(const ggml_tensor * t) {
    const ggml_backend_buffer_t gb = t->view_src ? t->view_src->buffer : t->buffer;
    return gb->usage != GGML_BACKEND_BUFFER_USAGE_WEIGHTS;
}

// The distinct buffers an op's tensors live in, each with the first tensor naming it.
std::vector<std::pair<const htp_buffer *, const ggml_tensor *>> distinct_buffers(
    const std::vector<const ggml_tensor *> & tensors) {
    std::vector<std::pair<const htp_buffer *, const ggml_tensor *>> out;
    for (const ggml_tensor * t : tensors) {
        const htp_buffer * b = htp_tensor_buffer(t);
        if (b && std::none_of(out.begin(), out.end(), [b](const auto & x) { return x.first->fd == b->fd; })) {
            out.emplace_back(b, t);
        }
    }
    return out;
}

// Barrier sequence numbers a batch of n_ops uses at most on its group's fence slots
// (npu/src/dispatcher.cpp): one before each op, one after a failing op, one before the answer.
constexpr uint32_t batch_fence_span(size_t n_ops) {
    return (uint32_t) n_ops + 2;
}

// Where a batch's session stands in a group (npu/src/mdev.h): count 1 when alone; else its
// index, the group's fence slots (a buffer-table index) and the sequence number its barriers
// count on from.
struct htp_group_place {
    uint32_t count = 1, idx = 0, fence_buf = HTP_NO_BUF, fence_seq = 0;
};

class htp_batch {
  public:
    explicit htp_batch(const htp_device & d) : dev_(d) {}

    void clear() {
        bufs_.clear();
        fd_index_.clear();
        window_bytes_ = 0;
        ops_.clear();
        nodes_.clear();
        srcs_.clear();
        names_.clear();
        act_reused_.clear();
        srcs_text_.clear();
    }

    bool empty() const { return ops_.empty(); }
    size_t size() const { return ops_.size(); }
    const std::vector<const ggml_tensor *> & nodes() const { return nodes_; }
    const std::vector<const ggml_tensor *> & srcs(size_t i) const { return srcs_[i]; }  // as desc(i) names them
    const htp_op_desc & desc(size_t i) const { return ops_[i]; }
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
    const std::string & srcs_text(size_t i) const { return srcs_text_[i]; }  // host ops: "" otherwise
    const std::vector<htp_buf_desc> & buffers() const { return bufs_; }

    // Window bytes the batch needs beyond the pinned buffers the sessions already hold: its
    // weight buffers and the pinned buffers not mapped yet (page-rounded, as the window maps).
    uint64_t window_bytes() const { return window_bytes_; }
    // What an op naming `tensors` would add to window_bytes().
    uint64_t window_bytes_added(const std::vector<const ggml_tensor *> & tensors) const {
        uint64_t added = 0;
        for (const auto & [b, t] : distinct_buffers(tensors)) {
            if (!fd_index_.count(b->fd)) {
                added += counts_against_window(b->fd, b->size, htp_buffer_is_pinned(t));
            }
        }
        return added;
    }

    // Fusions on (GGML_HEXAGON_OPFUSION): a MUL_MAT may reuse the activation its predecessor prepared.
    void set_fuse(bool on) { fuse_ = on; }

    // Adds a node; false with a reason when a tensor cannot be described to the NPU.
    bool add(const htp_device & d, const ggml_tensor * node, std::string & error) {
        size_t n_src = 0;  // optional sources may be absent in the middle (SOFT_MAX: sinks without a mask)
        for (size_t i = 0; i < GGML_MAX_SRC; i++) {
            n_src = node->src[i] ? i + 1 : n_src;
        }
        htp_op_desc desc;
        if (!describe_op(node, node->src, n_src, desc, error)) {
            return false;
        }
        const htp_op_encoder * enc = htp_find_op_encoder(node);
        enc->encode(d.caps, node, desc);
        if (htp_get_registry().cfg.params_check) {
            check_params_written(d, *enc, node, desc);
        }
        push(desc, node, ggml_op_desc(node), std::vector<const ggml_tensor *>(node->src, node->src + n_src));
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
        push(desc, f.dst, f.name, std::vector<const ggml_tensor *>(f.src, f.src + HTP_MAX_SRC));
        return true;
    }

    // Adds an op the host issues itself (HOST rows of the op list): dst and srcs are described
    // as they are, then `enc` sets opcode and params (with desc.n_src = srcs.size()).
    // srcs_text: what the verbose log shows as its sources.
    bool add_host_op(const htp_device & d, const htp_op_encoder & enc, const char * name, const ggml_tensor * dst,
                     const std::vector<const ggml_tensor *> & srcs, const std::string & srcs_text, std::string & error) {
        htp_op_desc desc;
        if (!describe_op(dst, srcs.data(), srcs.size(), desc, error)) {
            return false;
        }
        enc.encode(d.caps, dst, desc);
        push(desc, dst, name, srcs);
        srcs_text_.back() = srcs_text;
        return true;
    }

    // Adds a buffer that is not a tensor's (the trace buffer); returns its index.
    uint32_t add_buffer(int fd, uint64_t size) {
        return buf_index(fd, size, true);
    }

    std::vector<uint8_t> serialize(uint64_t seq, uint32_t flags, uint32_t trace_buf, uint64_t trace_offset,
                                   const htp_group_place & g) const {
        htp_msg_header h = {};
        h.magic       = HTP_MSG_MAGIC;
        h.abi_version = HTP_ABI_VERSION;
        h.kind        = HTP_MSG_OPS;
        h.flags       = flags;
        h.n_bufs      = (uint32_t) bufs_.size();
        h.n_ops       = (uint32_t) ops_.size();
        h.seq         = seq;
        h.trace_buf   = trace_buf;
        h.trace_offset = trace_offset;
        h.mdev_count     = g.count;
        h.mdev_idx       = g.idx;
        h.mdev_count_div = htp_fastdiv_init(g.count);
        h.fence_buf      = g.fence_buf;
        h.fence_seq      = g.fence_seq;
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
    // GGML_HEXAGON_PARAMS_CHECK=1: the op encoded once more into params full of a pattern must
    // give the same params struct (the host zeroes params, so a field an encoder forgets reads
    // as 0 and goes unnoticed until a kernel needs it to be something else). Logs the offsets
    // once per opcode.
    static void check_params_written(const htp_device & d, const htp_op_encoder & enc, const ggml_tensor * node,
                                     const htp_op_desc & desc) {
        htp_op_desc poisoned = desc;
        memset(&poisoned.params, 0xA5, sizeof(poisoned.params));
        enc.encode(d.caps, node, poisoned);
        std::string unset;
        const uint32_t size = htp_opcode_params_size(desc.opcode);
        for (uint32_t b = 0; b + 4 <= size && b + 4 <= sizeof(desc.params); b += 4) {
            if (memcmp((const uint8_t *) &desc.params + b, (const uint8_t *) &poisoned.params + b, 4) != 0) {
                unset += " " + std::to_string(b);
            }
        }
        static std::mutex said_mu;
        static std::vector<bool> said(HTP_OP_COUNT, false);
        std::lock_guard<std::mutex> lock(said_mu);
        if (!unset.empty() && desc.opcode < HTP_OP_COUNT && !said[desc.opcode]) {
            said[desc.opcode] = true;
            HTP_LOG_ERROR("%s: the encoder of %s ('%s') leaves params bytes unset at offsets%s", d.spec.name.c_str(),
                          htp_opcode_name(desc.opcode), node->name, unset.c_str());
        }
    }

    void push(htp_op_desc & desc, const ggml_tensor * node, const char * name, std::vector<const ggml_tensor *> srcs) {
        const bool reused = fuse_ && !ops_.empty() && htp_mm_act_reuse(ops_.back(), desc);
        ops_.push_back(desc);
        nodes_.push_back(node);
        srcs_.push_back(std::move(srcs));
        names_.push_back(name);
        act_reused_.push_back(reused);
        srcs_text_.emplace_back();
    }

    uint64_t counts_against_window(int fd, uint64_t size, bool pinned) const {
        return pinned && dev_.resident_pinned.count(fd) ? 0 : window_span(size);
    }

    uint32_t buf_index(int fd, uint64_t size, bool pinned) {
        auto it = fd_index_.find(fd);
        if (it != fd_index_.end()) {
            return it->second;
        }
        window_bytes_ += counts_against_window(fd, size, pinned);
        const uint32_t idx = (uint32_t) bufs_.size();
        bufs_.push_back({ fd, pinned ? (uint32_t) HTP_BUF_PINNED : 0u, size });
        fd_index_[fd] = idx;
        return idx;
    }

    // desc with dst and srcs[0 .. n) described (a null source: absent), opcode and params zero.
    bool describe_op(const ggml_tensor * dst, const ggml_tensor * const * srcs, size_t n, htp_op_desc & desc,
                     std::string & error) {
        memset(&desc, 0, sizeof(desc));
        if (n > HTP_MAX_SRC) {
            error = "more than " + std::to_string(HTP_MAX_SRC) + " sources";
            return false;
        }
        if (!describe(dst, desc.dst, error)) {
            return false;
        }
        for (size_t i = 0; i < HTP_MAX_SRC; i++) {
            desc.src[i].buf = HTP_NO_BUF;
            if (i < n && srcs[i]) {
                if (!describe(srcs[i], desc.src[i], error)) {
                    return false;
                }
                desc.n_src = (uint32_t) i + 1;
            }
        }
        return true;
    }

    bool describe(const ggml_tensor * t, htp_tensor_desc & out, std::string & error) {
        const htp_buffer * b = htp_tensor_buffer(t);
        if (!b) {
            error = std::string("tensor '") + t->name + "' is not in an HTP buffer";
            return false;
        }
        out.buf    = buf_index(b->fd, b->size, htp_buffer_is_pinned(t));
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
    std::vector<std::vector<const ggml_tensor *>> srcs_;  // the tensors its src descriptors name
    std::vector<const char *> names_;
    std::vector<bool> act_reused_;
    std::vector<std::string> srcs_text_;
    bool fuse_ = true;
    const htp_device & dev_;
    uint64_t window_bytes_ = 0;
};

// Views, empty tensors, and nodes the graph does not want computed (no GGML_TENSOR_FLAG_COMPUTE:
// ggml's meta backend disables a device's node whose slice is empty; ggml's CPU backend skips
// them too).
bool htp_node_is_noop(const ggml_tensor * node) {
    return htp_op_is_view(node) || ggml_is_empty(node) || !(node->flags & GGML_TENSOR_FLAG_COMPUTE);
}

std::string htp_shape(const ggml_tensor * t) {
    char buf[128];
    snprintf(buf, sizeof(buf), "%s[%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]", ggml_type_name(t->type),
             t->ne[0], t->ne[1], t->ne[2], t->ne[3]);
    return buf;
}

// path: the NPU kernel when it is not the op's own (htp_batch::npu_path), logged as "(kernel ...)";
// act_reused: the op's activation was prepared by the MUL_MAT before it (host fusion).
// srcs_text: the sources of an op the host issued itself (node's own are not its sources).
void htp_log_op(const htp_device & d, const char * op_name, const ggml_tensor * node, const std::string & path,
                bool act_reused, const std::string & srcs_text) {
    std::string srcs = srcs_text;
    for (int i = 0; srcs_text.empty() && i < GGML_MAX_SRC && node->src[i]; i++) {
        srcs += (i ? ", " : "") + htp_shape(node->src[i]);
    }
    const std::string kernel = path.empty() ? "" : " (kernel " + path + ")";
    HTP_LOG_REQUESTED("%s: op %s '%s' %s <- %s%s%s", d.spec.name.c_str(), op_name, node->name, htp_shape(node).c_str(),
                      srcs.c_str(), kernel.c_str(), act_reused ? " (activation reused)" : "");
}

// A batch ready to go: one message per session, and what its answer is checked and reported
// against. Names are copied: a backend that runs asynchronously answers after graph_compute
// returned, when the graph's tensors may be gone.
struct htp_sent_batch {
    uint64_t seq = 0;
    std::vector<std::vector<uint8_t>> msgs;
    struct op_label {
        std::string op, node, path;  // "RMS_NORM+MUL", the node's name, htp_batch::npu_path
        std::string prof;            // GGML_HEXAGON_PROFILE: htp_profile_label
    };
    std::vector<op_label> ops;
    bool traced = false;
    bool comm   = false;  // an ALLREDUCE member's batch: its peers are other devices (no replay)
};

// The counters of one graph's batches (GGML_HEXAGON_PROFILE=1 prints them when the last is done).
struct htp_window_counters {
    uint64_t maps = 0, unmaps = 0, bytes_mapped = 0, window_mapped = 0, batches = 0;
    uint64_t n_ops = 0;
    double   est_usec = 0;  // level 2: the batches' estimated device time (profile-graph line)
};

// Serializes the batch for the device's sessions. The pinned buffers it names count as held
// from now on: the host plans the next batches as if this one had run (the NPU maps them when
// it runs it, and keeps them until the buffer is freed).
// comm: the batch runs as member comm->idx of a communicator's group (ALLREDUCE) instead of
// on the device's own group.
struct htp_comm_member {
    const htp_shared_mem * fence;
    uint32_t               count, idx, fence_seq;
};

htp_sent_batch htp_batch_prepare(htp_registry & reg, htp_device & d, htp_batch & batch,
                                 const htp_comm_member * comm = nullptr) {
    htp_sent_batch sb;
    uint32_t flags = 0;
    uint32_t trace_buf = HTP_NO_BUF;
    if (reg.cfg.profile >= 1) {
        flags |= HTP_MSG_FLAG_PROFILE;
    }
    if (reg.cfg.profile >= 2) {
        flags |= HTP_MSG_FLAG_COUNTERS;  // level 2: the sessions count what each op executes
    }
    if (!(reg.cfg.opstage & HTP_OPSTAGE_COMPUTE)) {
        flags |= HTP_MSG_FLAG_STAGE;  // GGML_HEXAGON_OPSTAGE without bit 1: the NPU runs no kernel
    }
    if (d.trace) {
        flags |= HTP_MSG_FLAG_TRACE;
        trace_buf = batch.add_buffer(d.trace->fd(), d.trace->size());
        sb.traced = true;
    }
    sb.ops.resize(batch.size());
    for (size_t i = 0; i < batch.size(); i++) {
        sb.ops[i] = { batch.op_name(i), batch.nodes()[i]->name, batch.npu_path(i), {} };
        if (reg.cfg.profile >= 1) {
            sb.ops[i].prof = htp_profile_label(batch.op_name(i), batch.nodes()[i], batch.srcs(i), batch.desc(i),
                                               sb.ops[i].path);
        }
        if (reg.cfg.verbose >= 1) {
            htp_log_op(d, batch.op_name(i), batch.nodes()[i], sb.ops[i].path, batch.act_reused(i), batch.srcs_text(i));
        }
    }

    sb.seq = ++d.seq;
    const size_t    n = d.sessions.size();
    htp_group_place g;
    if (comm) {  // a communicator's member (its device is one session)
        g = { comm->count, comm->idx, batch.add_buffer(comm->fence->fd, comm->fence->size), comm->fence_seq };
        sb.comm = true;
    } else if (n > 1) {
        g = { (uint32_t) n, 0, batch.add_buffer(d.fence.fd, d.fence.size),
              d.fence_seq.fetch_add(batch_fence_span(batch.size())) };
    }
    // One message per session: a group's members get the same but for mdev_idx and the
    // region of the trace buffer they write (each member's events are its own process in the
    // trace). A communicator's member writes its device's first region.
    sb.msgs.resize(n);
    for (size_t m = 0; m < n; m++) {
        if (m > 0) {
            g.idx = (uint32_t) m;
        }
        const uint64_t trace_offset = d.trace && !comm ? d.trace->region_offset((uint32_t) m) : 0;
        sb.msgs[m] = batch.serialize(sb.seq, flags, trace_buf, trace_offset, g);
    }
    for (const htp_buf_desc & b : batch.buffers()) {
        if ((b.flags & HTP_BUF_PINNED) && d.resident_pinned.emplace(b.fd, window_span(b.size)).second) {
            d.resident_pinned_bytes += window_span(b.size);
        }
    }
    return sb;
}

// "op 3 (MUL_MAT 'ffn_out-2')", the batch's op i.
std::string op_text(const htp_sent_batch & sb, int64_t i) {
    if (i < 0 || (size_t) i >= sb.ops.size()) {
        return "op " + std::to_string(i) + " (?)";
    }
    return "op " + std::to_string(i) + " (" + sb.ops[i].op + " '" + sb.ops[i].node + "')";
}

// One exchange of a prepared batch: its answers checked. The failures an NPU comes back from
// (its process died or hung, an MMU fault, a DMA error, a garbled answer: `recoverable`) are
// told apart from the rest, which replaying cannot mend. Logs nothing; `why` says what failed.
enum class htp_outcome { ok, recoverable, failed };
htp_outcome htp_batch_exchange(htp_device & d, const htp_sent_batch & sb, const std::vector<std::vector<uint8_t>> & msgs,
                               std::vector<std::vector<uint8_t>> & resps, std::string & why) {
    const size_t n = d.sessions.size();
    std::vector<htp_session *> sessions;
    for (auto & s : d.sessions) {
        sessions.push_back(s.get());
    }
    std::string        error;
    htp_session::loss  loss;
    if (!htp_session::exchange_all(sessions, msgs, resps, error, &loss)) {
        if (!loss.lost) {
            why = d.spec.name + ": message transport failed: " + error;
            return htp_outcome::failed;
        }
        if (loss.op_index >= 0) {  // this batch's own op: name it as the host knows it
            const char * sig = loss.signal ? sigabbrev_np(loss.signal) : nullptr;
            why = d.spec.name + ": " + op_text(sb, loss.op_index) +
                  (loss.hung_ms ? " ran for " + std::to_string(loss.hung_ms) +
                                      " ms, past GGML_HEXAGON_WATCHDOG: its NPU process was stopped"
                                : " killed its NPU process (" +
                                      (sig ? "SIG" + std::string(sig) : "signal " + std::to_string(loss.signal)) + ")");
        } else {
            why = d.spec.name + ": " + error;  // another session's fault took this batch along
        }
        return htp_outcome::recoverable;
    }
    // Every member answers; the first failure is reported (a member whose peer failed answers
    // with the peer's status at the barrier where it stopped).
    htp_batch_response r = {};
    for (size_t m = 0; m < n; m++) {
        const std::vector<uint8_t> & mr   = resps[m];
        const std::string            name = n == 1 ? d.spec.name : d.spec.name + " member " + std::to_string(m);
        if (mr.size() < sizeof(r)) {
            why = name + ": short response (" + std::to_string(mr.size()) + " bytes)";
            return htp_outcome::recoverable;
        }
        memcpy(&r, mr.data(), sizeof(r));
        // The answer is checked as the NPU checks the message: magic, sequence, op counts and
        // the length they imply.
        const bool ok_status = r.status == HTP_STATUS_OK;
        if (r.magic != HTP_RESP_MAGIC || r.seq != sb.seq || r.n_ops > sb.ops.size() ||
            (ok_status && r.n_ops != sb.ops.size()) || (!ok_status && r.failed_op >= sb.ops.size()) ||
            mr.size() < htp_response_size(r.n_ops)) {
            char text[192];
            snprintf(text, sizeof(text),
                     "malformed response (magic %08x, seq %" PRIu64 " for %" PRIu64 ", %u ops of %zu, %zu bytes)",
                     r.magic, r.seq, sb.seq, r.n_ops, sb.ops.size(), mr.size());
            why = name + ": " + text;
            return htp_outcome::recoverable;
        }
        if (r.status != HTP_STATUS_OK) {
            why = name + ": " + op_text(sb, r.failed_op) + " failed on the NPU: " + htp_status_name(r.status);
            const bool fault = r.status == HTP_STATUS_MMU_FAULT || r.status == HTP_STATUS_DMA_ERROR;
            return fault ? htp_outcome::recoverable : htp_outcome::failed;
        }
    }
    return htp_outcome::ok;
}

// Sends a prepared batch to the device's sessions and checks every answer. A failure the NPU
// comes back from restarts the device's sessions (unless the runtime already did: a dead or
// hung process) and replays the batch once, on fresh fence sequence numbers; a second failure
// is the graph's (docs/vhtp.md "Faults and recovery").
ggml_status htp_batch_run(const htp_registry & reg, htp_device & d, const htp_sent_batch & sb,
                          htp_window_counters & window) {
    if (!(reg.cfg.opstage & HTP_OPSTAGE_QUEUE)) {
        return GGML_STATUS_SUCCESS;  // GGML_HEXAGON_OPSTAGE without bit 0: nothing goes to the NPU
    }
    const size_t n = d.sessions.size();
    std::vector<std::vector<uint8_t>> resps;
    std::vector<std::vector<uint8_t>> replay;  // the batch again, when it is replayed
    htp_host_span span("batch", htp_trace_host_on() ? "\"device\":\"" + d.spec.name + "\",\"seq\":" + std::to_string(sb.seq) +
                                                      ",\"ops\":" + std::to_string(sb.ops.size()) : std::string());
    for (int attempt = 0;; attempt++) {
        if (sb.traced) {
            d.trace->arm();
        }
        std::string why;
        const htp_outcome o = htp_batch_exchange(d, sb, attempt ? replay : sb.msgs, resps, why);
        if (o == htp_outcome::ok) {
            break;
        }
        if (o == htp_outcome::failed || attempt > 0 || sb.comm) {
            HTP_LOG_ERROR("%s%s", why.c_str(), attempt > 0 ? " (again, after a restart)" : "");
            return GGML_STATUS_FAILED;
        }
        HTP_LOG_WARN("%s; restarting the session%s and replaying the batch", why.c_str(), n > 1 ? "s" : "");
        for (auto & s : d.sessions) {
            std::string error;
            if (!s->reset(error)) {
                HTP_LOG_ERROR("%s: cannot restart a session: %s", d.spec.name.c_str(), error.c_str());
                return GGML_STATUS_FAILED;
            }
        }
        replay = sb.msgs;
        if (n > 1) {  // barriers the failed attempt passed must not count for the replay's
            const uint32_t seq = d.fence_seq.fetch_add(batch_fence_span(sb.ops.size()));
            for (auto & m : replay) {
                memcpy(m.data() + offsetof(htp_msg_header, fence_seq), &seq, sizeof(seq));
            }
        }
    }
    if (sb.traced) {
        d.trace->collect();
    }
    htp_batch_response r = {};
    memcpy(&r, resps[0].data(), sizeof(r));  // member 0's window counters are the graph's
    window.maps += r.n_maps;
    window.unmaps += r.n_unmaps;
    window.bytes_mapped += r.bytes_mapped;
    window.window_mapped = r.window_mapped;
    window.batches++;
    window.n_ops += sb.ops.size();
    if (reg.cfg.profile >= 1) {
        // Every member's own lines (docs/profiling.md): a group's members as HTP0/m0, HTP0/m1, ...
        const uint32_t mhz = d.profile.clock_mhz;
        const htp_cost_model * model = reg.cfg.profile >= 2 ? htp_cost_model_of(d.profile.arch) : nullptr;
        double slowest = 0;  // the members run the batch together: its estimate is the slowest's
        for (size_t m = 0; m < n; m++) {
            const std::vector<uint8_t> & resp = resps[m];
            memcpy(&r, resp.data(), sizeof(r));
            if (resp.size() < htp_response_size(r.n_ops)) {
                continue;
            }
            const std::string session = n == 1 ? d.spec.name : d.spec.name + "/m" + std::to_string(m);
            const auto *      t       = (const htp_op_timing *) (resp.data() + sizeof(r));
            double est = 0;
            for (uint32_t i = 0; i < r.n_ops && i < sb.ops.size(); i++) {
                const std::string line =
                    htp_profile_op_line(session, sb.ops[i].prof, t[i], mhz, d.profile.arch, d.hvx_sharing, reg.cfg);
                HTP_LOG_PROFILE("%s", line.c_str());
                est += model ? htp_estimate_usec(*model, t[i], d.hvx_sharing) : 0;
            }
            slowest = std::max(slowest, est);
            const uint64_t start = r.n_ops ? t[0].start_ns : 0;
            HTP_LOG_PROFILE("%s", htp_profile_batch_line(session, r.n_ops, r.cycles, start, mhz, reg.cfg).c_str());
        }
        window.est_usec += slowest;
    }
    return GGML_STATUS_SUCCESS;
}

uint64_t htp_now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

// The tokens a graph computes, for the per-token estimate: the most activation rows any
// MUL_MAT takes (src1's ne[1]; MUL_MAT_ID: ne[2]). A llama graph's projections take every token
// (its output head only the ones with logits), so this is the batch's tokens. 0: no MUL_MAT.
uint32_t htp_graph_tokens(ggml_cgraph * graph) {
    int64_t tokens = 0;
    for (int i = 0; i < ggml_graph_n_nodes(graph); i++) {
        const ggml_tensor * t = ggml_graph_node(graph, i);
        if (t->op == GGML_OP_MUL_MAT && t->src[1]) {
            tokens = std::max(tokens, t->src[1]->ne[1]);  // attention's KQ: [head, tokens, heads]
        } else if (t->op == GGML_OP_MUL_MAT_ID && t->src[1]) {
            tokens = std::max(tokens, t->src[1]->ne[2]);
        }
    }
    return (uint32_t) std::min<int64_t>(tokens, UINT32_MAX);
}

// The tensors an op names (its destination and sources): what its buffers are.
std::vector<const ggml_tensor *> op_tensors(const ggml_tensor * node, const htp_fused_op * fused) {
    std::vector<const ggml_tensor *> ts;
    if (fused) {
        ts.push_back(fused->dst);
        for (const ggml_tensor * t : fused->src) {
            if (t) {
                ts.push_back(t);
            }
        }
        return ts;
    }
    ts.push_back(node);
    for (const ggml_tensor * t : node->src) {
        if (t) {
            ts.push_back(t);
        }
    }
    return ts;
}

// One line saying why an op cannot run on a session at all: its own buffers and the pinned
// ones do not fit the window's budget together.
std::string window_too_small(const htp_device & d, const char * op, const ggml_tensor * dst,
                             const std::vector<const ggml_tensor *> & tensors, uint64_t need) {
    std::string parts;
    for (const auto & [b, t] : distinct_buffers(tensors)) {
        parts += std::string(parts.empty() ? "" : ", ") + "'" + t->name + "' in a " + mib(b->size) +
                 (htp_buffer_is_pinned(t) ? " buffer" : " weights buffer");
    }
    return d.spec.name + ": op " + op + " '" + dst->name + "' needs " + mib(need) + " of buffers mapped at once (" +
           parts + ") besides the " + mib(d.resident_pinned_bytes) +
           " of pinned buffers the session holds, more than its window budget of " +
           mib(d.profile.vmem_budget) + " (GGML_HEXAGON_VMEM, MiB)";
}

}  // namespace

ggml_status htp_graph_compute(htp_registry & reg, htp_device & d, ggml_cgraph * graph, bool async, bool check_nodes) {
    htp_stream & stream = *d.stream;
    // An earlier graph that failed after graph_compute had returned (asynchronous backend):
    // its error line is logged; this is where the caller hears of it.
    if (stream.take_status() != GGML_STATUS_SUCCESS) {
        return GGML_STATUS_FAILED;
    }
    // Turning a tiled weight flat rewrites its bytes: queued batches must be done with it.
    htp_repack_graph_prepare(d.caps, graph, [&stream] { stream.synchronize(); });
    // The trace and fence buffers travel with every batch: count them as held from the start.
    std::vector<std::pair<int, uint64_t>> always;
    if (d.trace) {
        always.emplace_back(d.trace->fd(), d.trace->size());
    }
    if (d.sessions.size() > 1) {
        always.emplace_back(d.fence.fd, d.fence.size);
    }
    for (const auto & [fd, size] : always) {
        if (d.resident_pinned.emplace(fd, window_span(size)).second) {
            d.resident_pinned_bytes += window_span(size);
        }
    }
    // Asynchronous: each batch goes to the device's stream as soon as it is planned, so the
    // NPU computes one batch while the host plans the next. Otherwise the batches run here, in
    // turn, once what the stream holds (a queued copy) is done: on two host cores planning
    // beside the NPU's threads costs more than it saves, and a failing batch stops the graph.
    if (!async) {
        stream.synchronize();
    }
    auto        window = std::make_shared<htp_window_counters>();
    const uint64_t graph_start = reg.cfg.profile >= 2 ? htp_now_ns() : 0;  // the profile-graph line
    htp_host_span  span("graph_compute", htp_trace_host_on() ? "\"device\":\"" + d.spec.name + "\",\"nodes\":" +
                                                                 std::to_string(ggml_graph_n_nodes(graph)) +
                                                                 ",\"async\":" + (async ? "true" : "false")
                                                           : std::string());
    ggml_status ran    = GGML_STATUS_SUCCESS;  // !async: the batches' status so far
    auto        send   = [&](htp_batch & b) {
        auto sb = std::make_shared<htp_sent_batch>(htp_batch_prepare(reg, d, b));
        b.clear();
        if (!async) {
            ran = htp_batch_run(reg, d, *sb, *window);
            return;
        }
        stream.enqueue([&reg, &d, sb, window](bool skip) {
            return skip ? GGML_STATUS_FAILED : htp_batch_run(reg, d, *sb, *window);
        });
    };
    const uint64_t budget = d.profile.vmem_budget;
    htp_batch batch(d);
    batch.set_fuse(reg.cfg.fuse);
    bool planned = true;  // false: an op cannot be sent at all (logged)
    const int n_nodes = ggml_graph_n_nodes(graph);
    for (int i = 0; i < n_nodes; i++) {
        const ggml_tensor * node = ggml_graph_node(graph, i);
        if (htp_node_is_noop(node)) {
            continue;
        }
        htp_fused_op fused;
        const bool   is_fused = reg.cfg.fuse && htp_find_fusion(d.caps, graph, i, fused);
        const char * name     = is_fused ? fused.name : ggml_op_desc(node);
        const ggml_tensor * dst = is_fused ? fused.dst : node;
        // Plan for the window: a batch's buffers and the pinned ones must fit the budget at
        // once (the NPU then always finds room by unmapping weights of earlier batches).
        const std::vector<const ggml_tensor *> tensors = op_tensors(node, is_fused ? &fused : nullptr);
        uint64_t added = batch.window_bytes_added(tensors);
        if (!batch.empty() && d.resident_pinned_bytes + batch.window_bytes() + added > budget) {
            send(batch);
            added = batch.window_bytes_added(tensors);
        }
        if (ran != GGML_STATUS_SUCCESS) {
            break;
        }
        if (d.resident_pinned_bytes + added > budget) {
            HTP_LOG_ERROR("%s", window_too_small(d, name, dst, tensors, added).c_str());
            planned = false;
            break;
        }
        // ggml's meta backend (a tensor split) hands us nodes supports_op never saw: refuse
        // them here rather than encode what cannot run.
        if (check_nodes && !is_fused && !htp_device_supports_op(reg, d, node)) {
            HTP_LOG_ERROR("%s: cannot run %s '%s' %s: the NPU does not take it (supports_op refuses it)",
                          d.spec.name.c_str(), name, node->name, htp_shape(node).c_str());
            planned = false;
            break;
        }
        std::string error;
        if (!(is_fused ? batch.add_fused(fused, error) : batch.add(d, node, error))) {
            HTP_LOG_ERROR("%s: cannot run %s '%s': %s", d.spec.name.c_str(), name, dst->name, error.c_str());
            planned = false;
            break;
        }
        if (is_fused) {
            i += fused.n_nodes - 1;
        }
        if (batch.size() >= reg.cfg.opbatch) {
            send(batch);
        }
    }
    if (planned && ran == GGML_STATUS_SUCCESS && !batch.empty()) {
        send(batch);
    }
    if (planned && ran == GGML_STATUS_SUCCESS && reg.cfg.profile >= 1) {
        // The pinned bytes as planned now (the host's next graph may change them meanwhile).
        const uint32_t tokens = reg.cfg.profile >= 2 ? htp_graph_tokens(graph) : 0;
        auto print = [&reg, &d, window, budget, pinned = d.resident_pinned_bytes, graph_start, tokens](bool skip) {
            if (!skip && reg.cfg.profile >= 2 && window->batches > 0) {  // not a graph of no-ops
                htp_graph_profile g;
                g.batches  = window->batches;
                g.n_ops    = window->n_ops;
                g.host_ns  = htp_now_ns() - graph_start;
                g.tokens   = tokens;
                g.est_usec = window->est_usec;
                HTP_LOG_PROFILE("%s", htp_profile_graph_line(d.spec.name, g).c_str());
            }
            if (!skip) {
                HTP_LOG_REQUESTED("%s: window: %" PRIu64 " batches, %" PRIu64 " maps (%s), %" PRIu64
                                  " unmaps; %s of %s mapped (%s pinned)",
                                  d.spec.name.c_str(), window->batches, window->maps, mib(window->bytes_mapped).c_str(),
                                  window->unmaps, mib(window->window_mapped).c_str(), mib(budget).c_str(),
                                  mib(pinned).c_str());
            }
            return GGML_STATUS_SUCCESS;
        };
        if (async) {
            stream.enqueue(print, false);
        } else {
            print(false);
        }
    }
    if (!async) {
        return planned ? ran : GGML_STATUS_FAILED;
    }
    // A pipeline or a tensor split gets control back now (its failures come with the next call).
    if (planned) {
        return GGML_STATUS_SUCCESS;
    }
    stream.synchronize();  // this graph's batches queued so far, then the failure is this call's
    stream.take_status();
    return GGML_STATUS_FAILED;
}

void htp_unmap_everywhere(int fd, uint64_t size) {
    htp_registry & reg = htp_get_registry();
    for (auto & d : reg.devices) {
        d->stream->synchronize();  // queued batches may still name the buffer
        auto it = d->resident_pinned.find(fd);
        if (it != d->resident_pinned.end()) {
            d->resident_pinned_bytes -= it->second;
            d->resident_pinned.erase(it);
        }
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

bool htp_allreduce_send(htp_registry & reg, const std::vector<htp_device *> & devs, ggml_tensor * const * parts,
                        const htp_shared_mem & fence, uint32_t & fence_seq, std::string & why_not) {
    const size_t n = devs.size();
    const htp_op_encoder & enc = htp_allreduce_encoder;
    std::vector<const ggml_tensor *> srcs(parts, parts + n);
    for (size_t i = 0; i < n; i++) {
        const ggml_tensor * t = parts[i];
        if (!ggml_are_same_shape(t, parts[0]) || !ggml_are_same_stride(t, parts[0]) || !enc.supports(devs[i]->caps, t)) {
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
        htp_batch batch(d);
        std::string error;
        if (!batch.add_host_op(d, enc, "ALLREDUCE", parts[i], srcs, parts_text, error)) {
            why_not = error;
            return false;
        }
        if (d.resident_pinned_bytes + batch.window_bytes() + window_span(fence.size) > d.profile.vmem_budget) {
            why_not = d.spec.name + ": the parts do not fit the window budget with its pinned buffers";
            return false;
        }
        const htp_comm_member member = { &fence, (uint32_t) n, (uint32_t) i, fence_seq };
        sent[i] = std::make_shared<htp_sent_batch>(htp_batch_prepare(reg, d, batch, &member));
    }
    // Every member's stream runs its part at once: they meet at the op's barriers. A member
    // whose stream skips (an earlier failure) says so in its slot, so its peers stop waiting.
    const uint32_t first_barrier = fence_seq + 1;
    fence_seq += batch_fence_span(1);
    for (size_t i = 0; i < n; i++) {
        htp_device & d = *devs[i];
        auto window = std::make_shared<htp_window_counters>();
        auto * slot = (volatile htp_fence_slot *) (fence.host_ptr + i * HTP_FENCE_SLOT_SIZE);
        // A part the meta backend did not compute (its device's slice is empty) counts as zeros.
        void * zero = parts[i]->flags & GGML_TENSOR_FLAG_COMPUTE ? nullptr : parts[i]->data;
        const size_t zero_bytes = ggml_nbytes(parts[i]);
        d.stream->enqueue([&reg, &d, sb = sent[i], window, slot, first_barrier, zero, zero_bytes](bool skip) {
            if (zero && !skip) {
                memset(zero, 0, zero_bytes);  // shared DDR the host maps; the NPU reads it after the barrier
            }
            if (skip) {
                __atomic_store_n(&slot->status, (int32_t) HTP_STATUS_FENCE_ERROR, __ATOMIC_RELAXED);
                __atomic_store_n(&slot->seq, first_barrier, __ATOMIC_RELEASE);
                return GGML_STATUS_FAILED;
            }
            return htp_batch_run(reg, d, *sb, *window);
        });
    }
    return true;
}
