// One op batch on its way to a device: htp_batch collects the ops (tensors as buffer index +
// offset, kernel_params from the op's encoder), htp_batch_prepare turns it into one message per
// session, htp_batch_run sends those and checks the answers (replaying once after a fault).
// graph.cpp decides which nodes go into which batch; comm.cpp sends ALLREDUCE batches.
// Everything a batch reads from the configuration comes in as an argument (htp_config).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "context.h"
#include "fusions.h"

// The session window maps whole pages: what a buffer of `size` bytes takes of it.
uint64_t htp_window_span(uint64_t size);

// Weights are delayed mappings (the NPU maps them when a batch names them); every other buffer
// (KV cache, compute buffers) is pinned: mapped once, kept until freed.
bool htp_buffer_is_pinned(const ggml_tensor * t);

// The distinct buffers an op's tensors live in, each with the first tensor naming it.
std::vector<std::pair<const htp_buffer *, const ggml_tensor *>> htp_distinct_buffers(
    const std::vector<const ggml_tensor *> & tensors);

// "F32[4096,32,1,1]": how logs and errors show a tensor.
std::string htp_shape(const ggml_tensor * t);

// Barrier sequence numbers a batch of n_ops uses at most on its group's fence slots
// (npu/src/dispatcher.cpp): one before each op, one after a failing op, one before the answer.
constexpr uint32_t htp_batch_fence_span(size_t n_ops) {
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
    // fuse (GGML_HEXAGON_OPFUSION): a MUL_MAT may reuse the activation its predecessor prepared.
    // params_check (GGML_HEXAGON_PARAMS_CHECK): each op is encoded twice to find unset params.
    htp_batch(const htp_device & d, bool fuse, bool params_check) :
        dev_(d), fuse_(fuse), params_check_(params_check) {}

    void clear();

    bool empty() const { return ops_.empty(); }
    size_t size() const { return ops_.size(); }
    const std::vector<const ggml_tensor *> & nodes() const { return nodes_; }
    const std::vector<const ggml_tensor *> & srcs(size_t i) const { return srcs_[i]; }  // as desc(i) names them
    const htp_op_desc & desc(size_t i) const { return ops_[i]; }
    const char * op_name(size_t i) const { return names_[i]; }  // "RMS_NORM+MUL" for a fusion
    // The NPU kernel an op went to, when it is not the op's own name (MUL_MAT's paths;
    // "+rt-repack" when the HMX path repacks a flat weight at run time); "" otherwise.
    std::string npu_path(size_t i) const;
    bool act_reused(size_t i) const { return act_reused_[i]; }  // skips its activation prep
    const std::string & srcs_text(size_t i) const { return srcs_text_[i]; }  // host ops: "" otherwise
    const std::vector<htp_buf_desc> & buffers() const { return bufs_; }

    // Window bytes the batch needs beyond the pinned buffers the sessions already hold: its
    // weight buffers and the pinned buffers not mapped yet (page-rounded, as the window maps).
    uint64_t window_bytes() const { return window_bytes_; }
    // What an op naming `tensors` would add to window_bytes().
    uint64_t window_bytes_added(const std::vector<const ggml_tensor *> & tensors) const;

    // Adds a node, encoded with ctx (htp_encode_context_of(dev.mm, node): the caller resolves
    // it once per node, for the fusers and for this); false with a reason when a tensor cannot
    // be described to the NPU.
    bool add(const ggml_tensor * node, const htp_encode_context & ctx, std::string & error);
    // Adds a fused op (host/ops/fusions.h): its own sources and destination, params ready.
    bool add_fused(const htp_fused_op & f, std::string & error);
    // Adds an op the host issues itself (HOST rows of the op list): dst and srcs are described
    // as they are, then `enc` sets opcode and params (with desc.n_src = srcs.size()).
    // srcs_text: what the verbose log shows as its sources.
    bool add_host_op(const htp_op_encoder & enc, const char * name, const ggml_tensor * dst,
                     const std::vector<const ggml_tensor *> & srcs, const std::string & srcs_text, std::string & error);
    // Adds a buffer that is not a tensor's (the trace buffer); returns its index.
    uint32_t add_buffer(int fd, uint64_t size) { return buf_index(fd, size, true); }

    // The message for one session (abi/include/htp-abi/htp-abi.h: header, buffers, ops).
    std::vector<uint8_t> serialize(uint64_t seq, uint32_t flags, uint32_t trace_buf, uint64_t trace_offset,
                                   const htp_group_place & g) const;

  private:
    void check_params_written(const htp_op_encoder & enc, const ggml_tensor * node, const htp_op_desc & desc,
                              const htp_encode_context & ctx) const;
    void push(htp_op_desc & desc, const ggml_tensor * node, const char * name, std::vector<const ggml_tensor *> srcs);
    uint64_t counts_against_window(int fd, uint64_t size, bool pinned) const;
    uint32_t buf_index(int fd, uint64_t size, bool pinned);
    bool describe_op(const ggml_tensor * dst, const ggml_tensor * const * srcs, size_t n, htp_op_desc & desc,
                     std::string & error);
    bool describe(const ggml_tensor * t, htp_tensor_desc & out, std::string & error);

    std::vector<htp_buf_desc> bufs_;
    std::unordered_map<int, uint32_t> fd_index_;
    std::vector<htp_op_desc> ops_;
    std::vector<const ggml_tensor *> nodes_;  // the node each op writes
    std::vector<std::vector<const ggml_tensor *>> srcs_;  // the tensors its src descriptors name
    std::vector<const char *> names_;
    std::vector<bool> act_reused_;
    std::vector<std::string> srcs_text_;
    const htp_device & dev_;
    bool fuse_;
    bool params_check_;
    uint64_t window_bytes_ = 0;
};

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

// A batch that runs as member `idx` of a communicator's group (ALLREDUCE, comm.cpp) instead of
// on the device's own group.
struct htp_comm_member {
    const htp_shared_mem * fence;
    uint32_t               count, idx, fence_seq;
};

// Serializes the batch for the device's sessions. The pinned buffers it names count as held
// from now on: the host plans the next batches as if this one had run (the NPU maps them when
// it runs it, and keeps them until the buffer is freed).
htp_sent_batch htp_batch_prepare(const htp_config & cfg, htp_device & d, htp_batch & batch,
                                 const htp_comm_member * comm = nullptr);

// Sends a prepared batch to the device's sessions and checks every answer. A failure the NPU
// comes back from restarts the device's sessions (unless the runtime already did: a dead or
// hung process) and replays the batch once, on fresh fence sequence numbers; a second failure
// is the graph's (docs/vhtp.md "Faults and recovery").
ggml_status htp_batch_run(const htp_config & cfg, htp_device & d, const htp_sent_batch & sb,
                          htp_window_counters & window);
