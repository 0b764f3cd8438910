// An op batch (batch.h): collecting ops, the messages for the sessions, and one exchange with
// them, its answers checked and its profile lines printed.
#include "batch.h"
#include "buffer.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <limits>
#include <mutex>

#include "log.h"
#include "profile.h"

namespace {
constexpr uint64_t kWindowPage = 4096;  // the window maps whole pages
}  // namespace

uint64_t htp_window_span(uint64_t size) {
    return (size + kWindowPage - 1) / kWindowPage * kWindowPage;
}

bool htp_buffer_is_pinned(const ggml_tensor * t) {
    const ggml_backend_buffer_t gb = t->view_src ? t->view_src->buffer : t->buffer;
    return gb->usage != GGML_BACKEND_BUFFER_USAGE_WEIGHTS;
}

std::vector<std::pair<const htp_buffer *, const ggml_tensor *>> htp_distinct_buffers(
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

std::string htp_shape(const ggml_tensor * t) {
    char buf[128];
    snprintf(buf, sizeof(buf), "%s[%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]", ggml_type_name(t->type),
             t->ne[0], t->ne[1], t->ne[2], t->ne[3]);
    return buf;
}

void htp_batch::clear() {
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

std::string htp_batch::npu_path(size_t i) const {
    const htp_op_desc & d    = ops_[i];
    const char *        name = htp_opcode_name(d.opcode);
    std::string         s    = name && strcmp(name, names_[i]) != 0 ? name : "";
    if (d.opcode == HTP_OP_MUL_MAT_HMX && d.params.mul_mat_hmx.rt_repack) {
        s += "+rt-repack";
    }
    return s;
}

uint64_t htp_batch::window_bytes_added(const std::vector<const ggml_tensor *> & tensors) const {
    uint64_t added = 0;
    for (const auto & [b, t] : htp_distinct_buffers(tensors)) {
        if (!fd_index_.count(b->fd)) {
            added += counts_against_window(b->fd, b->size, htp_buffer_is_pinned(t));
        }
    }
    return added;
}

bool htp_batch::add(const ggml_tensor * node, const htp_encode_context & ctx, std::string & error) {
    size_t n_src = 0;  // optional sources may be absent in the middle (SOFT_MAX: sinks without a mask)
    for (size_t i = 0; i < GGML_MAX_SRC; i++) {
        n_src = node->src[i] ? i + 1 : n_src;
    }
    htp_op_desc desc;
    if (!describe_op(node, node->src, n_src, desc, error)) {
        return false;
    }
    const htp_op_encoder * enc = htp_find_op_encoder(node);
    // DDR the kernel uses after the dst (a long ARGSORT row's merge): the device buffer type
    // reserves it (get_alloc_size); a dst placed otherwise (a view, a host buffer) has none.
    const uint64_t scratch = htp_op_dst_scratch(dev_.caps, node);
    if (scratch && (node->view_src || !node->buffer ||
                    ggml_backend_buffer_get_alloc_size(node->buffer, node) < ggml_nbytes(node) + scratch)) {
        error = "its output has no room for the " + std::to_string(scratch) +
                " bytes of DDR the kernel merges in after it (not allocated by the HTP device buffer type)";
        return false;
    }
    enc->encode(dev_.caps, node, desc, ctx);
    if (params_check_) {
        check_params_written(*enc, node, desc, ctx);
    }
    push(desc, node, ggml_op_desc(node), std::vector<const ggml_tensor *>(node->src, node->src + n_src));
    return true;
}

bool htp_batch::add_fused(const htp_fused_op & f, std::string & error) {
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

bool htp_batch::add_host_op(const htp_op_encoder & enc, const char * name, const ggml_tensor * dst,
                            const std::vector<const ggml_tensor *> & srcs, const std::string & srcs_text,
                            std::string & error) {
    htp_op_desc desc;
    if (!describe_op(dst, srcs.data(), srcs.size(), desc, error)) {
        return false;
    }
    htp_encode_context ctx;  // a host op (ALLREDUCE): no weights
    ctx.mm = dev_.mm;
    enc.encode(dev_.caps, dst, desc, ctx);
    push(desc, dst, name, srcs);
    srcs_text_.back() = srcs_text;
    return true;
}

std::vector<uint8_t> htp_batch::serialize(uint64_t seq, uint32_t flags, uint32_t trace_buf, uint64_t trace_offset,
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

// GGML_HEXAGON_PARAMS_CHECK=1: the op encoded once more into params full of a pattern must
// give the same params struct (the host zeroes params, so a field an encoder forgets reads
// as 0 and goes unnoticed until a kernel needs it to be something else). Logs the offsets
// once per opcode.
void htp_batch::check_params_written(const htp_op_encoder & enc, const ggml_tensor * node, const htp_op_desc & desc,
                                     const htp_encode_context & ctx) const {
    htp_op_desc poisoned = desc;
    memset(&poisoned.params, 0xA5, sizeof(poisoned.params));
    enc.encode(dev_.caps, node, poisoned, ctx);
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
        HTP_LOG_ERROR("%s: the encoder of %s ('%s') leaves params bytes unset at offsets%s", dev_.spec.name.c_str(),
                      htp_opcode_name(desc.opcode), node->name, unset.c_str());
    }
}

void htp_batch::push(htp_op_desc & desc, const ggml_tensor * node, const char * name,
                     std::vector<const ggml_tensor *> srcs) {
    const bool reused = fuse_ && !ops_.empty() && htp_mm_act_reuse(ops_.back(), desc);
    ops_.push_back(desc);
    nodes_.push_back(node);
    srcs_.push_back(std::move(srcs));
    names_.push_back(name);
    act_reused_.push_back(reused);
    srcs_text_.emplace_back();
}

uint64_t htp_batch::counts_against_window(int fd, uint64_t size, bool pinned) const {
    return pinned && dev_.resident_pinned.count(fd) ? 0 : htp_window_span(size);
}

uint32_t htp_batch::buf_index(int fd, uint64_t size, bool pinned) {
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
bool htp_batch::describe_op(const ggml_tensor * dst, const ggml_tensor * const * srcs, size_t n, htp_op_desc & desc,
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

bool htp_batch::describe(const ggml_tensor * t, htp_tensor_desc & out, std::string & error) {
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

namespace {

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
                                      " ms, past GGML_HEXAGON_WATCHDOG: its DSP process was stopped"
                                : " killed its DSP process (" +
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

}  // namespace

htp_sent_batch htp_batch_prepare(const htp_config & cfg, htp_device & d, htp_batch & batch,
                                 const htp_comm_member * comm) {
    htp_sent_batch sb;
    uint32_t flags = 0;
    uint32_t trace_buf = HTP_NO_BUF;
    if (cfg.profile >= 1) {
        flags |= HTP_MSG_FLAG_PROFILE;
    }
    if (cfg.profile >= 2) {
        flags |= HTP_MSG_FLAG_COUNTERS;  // level 2: the sessions count what each op executes
    }
    if (!(cfg.opstage & HTP_OPSTAGE_COMPUTE)) {
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
        if (cfg.profile >= 1) {
            sb.ops[i].prof = htp_profile_label(batch.op_name(i), batch.nodes()[i], batch.srcs(i), batch.desc(i),
                                               sb.ops[i].path);
        }
        if (cfg.verbose >= 1) {
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
              d.fence_seq.fetch_add(htp_batch_fence_span(batch.size())) };
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
        if ((b.flags & HTP_BUF_PINNED) && d.resident_pinned.emplace(b.fd, htp_window_span(b.size)).second) {
            d.resident_pinned_bytes += htp_window_span(b.size);
        }
    }
    return sb;
}

ggml_status htp_batch_run(const htp_config & cfg, htp_device & d, const htp_sent_batch & sb,
                          htp_window_counters & window) {
    if (!(cfg.opstage & HTP_OPSTAGE_QUEUE)) {
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
            const uint32_t seq = d.fence_seq.fetch_add(htp_batch_fence_span(sb.ops.size()));
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
    if (cfg.profile >= 1) {
        // Every member's own lines (docs/profiling.md): a group's members as HTP0/m0, HTP0/m1, ...
        const uint32_t mhz = d.profile.clock_mhz;
        const htp_cost_model * model = cfg.profile >= 2 ? htp_cost_model_of(d.profile.arch) : nullptr;
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
                    htp_profile_op_line(session, sb.ops[i].prof, t[i], mhz, d.profile.arch, d.hvx_sharing, cfg);
                HTP_LOG_PROFILE("%s", line.c_str());
                est += model ? htp_estimate_usec(*model, t[i], d.hvx_sharing) : 0;
            }
            slowest = std::max(slowest, est);
            const uint64_t start = r.n_ops ? t[0].start_ns : 0;
            HTP_LOG_PROFILE("%s", htp_profile_batch_line(session, r.n_ops, r.cycles, start, mhz, cfg).c_str());
        }
        window.est_usec += slowest;
    }
    return GGML_STATUS_SUCCESS;
}
