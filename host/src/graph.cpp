// Graph -> op batches: walks the graph's nodes (fusing where a fuser says so) into batches
// (batch.h) of up to GGML_HEXAGON_OPBATCH ops whose buffers fit the session window, and sends
// each batch to the device's session, at once or through the device's stream.
#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <ctime>
#include <string>

#include "batch.h"
#include "graph.h"
#include "support.h"
#include "weight-layout.h"
#include "log.h"
#include "profile.h"

namespace {

std::string mib(uint64_t bytes) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%.1f MiB", (double) bytes / (1 << 20));
    return buf;
}

// Views, empty tensors (and SET_ROWS of no rows), and nodes the graph does not want computed (no GGML_TENSOR_FLAG_COMPUTE:
// ggml's meta backend disables a device's node whose slice is empty; ggml's CPU backend skips
// them too).
bool htp_node_is_noop(const ggml_tensor * node) {
    return htp_op_is_view(node) || htp_op_writes_nothing(node) || !(node->flags & GGML_TENSOR_FLAG_COMPUTE);
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
    for (const auto & [b, t] : htp_distinct_buffers(tensors)) {
        parts += std::string(parts.empty() ? "" : ", ") + "'" + t->name + "' in a " + mib(b->size) +
                 (htp_buffer_is_pinned(t) ? " buffer" : " weights buffer");
    }
    return d.spec.name + ": op " + op + " '" + dst->name + "' needs " + mib(need) + " of buffers mapped at once (" +
           parts + ") besides the " + mib(d.resident_pinned_bytes) +
           " of pinned buffers the session holds, more than its window budget of " +
           mib(d.profile.vmem_budget) + " (GGML_HEXAGON_VMEM, MiB)";
}

// The trace and fence buffers travel with every batch: count them as held from the start.
void hold_batch_companions(htp_device & d) {
    std::vector<std::pair<int, uint64_t>> always;
    if (d.trace) {
        always.emplace_back(d.trace->fd(), d.trace->size());
    }
    if (d.sessions.size() > 1) {
        always.emplace_back(d.fence.fd, d.fence.size);
    }
    for (const auto & [fd, size] : always) {
        if (d.resident_pinned.emplace(fd, htp_window_span(size)).second) {
            d.resident_pinned_bytes += htp_window_span(size);
        }
    }
}

// ggml's meta backend (a tensor split) hands us nodes supports_op never saw: refused here
// (one line) rather than encoded when they cannot run.
bool refused(const htp_registry & reg, const htp_device & d, const ggml_tensor * node) {
    if (htp_device_supports_op(reg, d, node)) {
        return false;
    }
    HTP_LOG_ERROR("%s: cannot run %s '%s' %s: the NPU does not take it (supports_op refuses it)",
                  d.spec.name.c_str(), ggml_op_desc(node), node->name, htp_shape(node).c_str());
    return true;
}

// The graph_compute span's arguments in a PROFILE=3 trace.
std::string graph_span_args(const htp_device & d, ggml_cgraph * graph, bool async) {
    return "\"device\":\"" + d.spec.name + "\",\"nodes\":" + std::to_string(ggml_graph_n_nodes(graph)) +
           ",\"async\":" + (async ? "true" : "false");
}

// GGML_HEXAGON_PROFILE >= 1: the graph's window line (and at 2 its profile-graph line), once
// its batches have run: at once, or after them in the stream when async.
void report_graph(htp_registry & reg, htp_device & d, ggml_cgraph * graph,
                  const std::shared_ptr<htp_window_counters> & window, uint64_t graph_start, bool async) {
    const uint64_t budget = d.profile.vmem_budget;
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
            const htp_cost_model * m = htp_cost_model_of(d.profile.arch);
            g.est_mhz  = m ? m->clock_mhz : 0;
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
        d.stream->enqueue(print, false);
    } else {
        print(false);
    }
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
    htp_tiling_graph_prepare(d.caps, d.mm, graph, [&stream] { stream.synchronize(); });
    hold_batch_companions(d);
    // Asynchronous: each batch goes to the device's stream as soon as it is planned, so the
    // NPU computes one batch while the host plans the next. Otherwise the batches run here, in
    // turn, once what the stream holds (a queued copy) is done: on two host cores planning
    // beside the NPU's threads costs more than it saves, and a failing batch stops the graph.
    if (!async) {
        stream.synchronize();
    }
    auto        window = std::make_shared<htp_window_counters>();
    const uint64_t graph_start = reg.cfg.profile >= 2 ? htp_now_ns() : 0;  // the profile-graph line
    htp_host_span  span("graph_compute", htp_trace_host_on() ? graph_span_args(d, graph, async) : std::string());
    ggml_status ran    = GGML_STATUS_SUCCESS;  // !async: the batches' status so far
    auto        send   = [&](htp_batch & b) {
        auto sb = std::make_shared<htp_sent_batch>(htp_batch_prepare(reg.cfg, d, b));
        b.clear();
        if (!async) {
            ran = htp_batch_run(reg.cfg, d, *sb, *window);
            return;
        }
        stream.enqueue([&reg, &d, sb, window](bool skip) {
            return skip ? GGML_STATUS_FAILED : htp_batch_run(reg.cfg, d, *sb, *window);
        });
    };
    const uint64_t budget = d.profile.vmem_budget;
    htp_batch batch(d, reg.cfg.fuse, reg.cfg.params_check);
    bool planned = true;  // false: an op cannot be sent at all (logged)
    const int n_nodes = ggml_graph_n_nodes(graph);
    for (int i = 0; i < n_nodes; i++) {
        const ggml_tensor * node = ggml_graph_node(graph, i);
        if (htp_node_is_noop(node)) {
            continue;
        }
        // What the encoders read besides the node (each source's weight layout): resolved once,
        // for the fusers and for the node's own encoder.
        const htp_encode_context ctx = htp_encode_context_of(d.mm, node);
        htp_fused_op             fused;
        const bool               is_fused = reg.cfg.fuse && htp_find_fusion(d.caps, graph, i, fused, ctx);
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
        if (check_nodes && !is_fused && refused(reg, d, node)) {
            planned = false;
            break;
        }
        std::string error;
        if (!(is_fused ? batch.add_fused(fused, error) : batch.add(node, ctx, error))) {
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
        report_graph(reg, d, graph, window, graph_start, async);
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

