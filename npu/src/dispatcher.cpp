#include "dispatcher.h"

#include <string.h>

#include "htp-abi/htp-types.h"
#include "op-table.h"
#include "htp/counters.h"

#if HTP_COUNTERS
// Level-2 counting (htp/counters.h): how many of the library's sessions run a message with
// HTP_MSG_FLAG_COUNTERS now. A count, not a flag: sessions of one process share the library,
// and one that finishes must not stop another's counting (each thread's block, set by the
// runtime, says which session it counts for).
int htp_counting = 0;
#endif

// Turns the session's level-2 counters on or off for one message.
static void counting(int on) {
#if HTP_COUNTERS
    __atomic_fetch_add(&htp_counting, on ? 1 : -1, __ATOMIC_RELAXED);
#endif
    htp_counters_enable(on);
}

void htp_dispatcher_init(struct htp_dispatcher * d, const struct htp_session_info * info) {
    memset(d, 0, sizeof(*d));
    struct htp_context * ctx = &d->ctx;
    ctx->info       = info;
    ctx->work_queue = info->work_queue;
    ctx->vtcm_base  = info->vtcm_base;
    ctx->vtcm_size  = info->vtcm_size;
    ctx->n_hvx      = info->n_hvx;
    for (uint32_t i = 0; i < HTP_MAX_HVX_THREADS; i++) {
        ctx->dma[i]          = info->dma[i];
        ctx->trace[i].thread = (uint8_t) i;
    }
    ctx->session_trace.thread = 0xff;
    for (uint32_t i = 0; i < HTP_MAX_MAPPINGS; i++) {
        d->maps[i].fd = -1;
    }
}

void htp_dispatcher_release(struct htp_dispatcher * d) {
    for (uint32_t i = 0; i < HTP_MAX_MAPPINGS; i++) {
        if (d->maps[i].fd >= 0) {
            htp_mem_unmap(d->maps[i].fd);
            d->maps[i].fd = -1;
        }
    }
}

static struct htp_mapping * find_mapping(struct htp_dispatcher * d, int32_t fd) {
    for (uint32_t i = 0; i < HTP_MAX_MAPPINGS; i++) {
        if (d->maps[i].fd == fd) {
            return &d->maps[i];
        }
    }
    return NULL;
}

// Gives up the weight mapping that the batch being prepared does not name and that was named
// most recently. A model's graph walks its weights in the same order every token, so the
// buffer used last is the one needed again last: least-recently-used would give up exactly
// the next one needed and remap the whole model every token once it exceeds the budget; this
// keeps the start of the walk mapped and slides only the rest (docs/large-models.md).
// Returns 0 when there is none (everything left is pinned or in use).
static int evict_one(struct htp_dispatcher * d) {
    struct htp_mapping * victim = NULL;
    for (uint32_t i = 0; i < HTP_MAX_MAPPINGS; i++) {
        struct htp_mapping * m = &d->maps[i];
        if (m->fd < 0 || m->pinned || m->last_batch == d->batch) {
            continue;
        }
        if (!victim || m->last_batch > victim->last_batch) {
            victim = m;
        }
    }
    if (!victim) {
        return 0;
    }
    htp_mem_unmap(victim->fd);
    victim->fd = -1;
    d->stats.n_unmaps++;
    return 1;
}

// Every weight mapping, the current batch's too: the next prep places them afresh.
static void drop_unpinned(struct htp_dispatcher * d) {
    for (uint32_t i = 0; i < HTP_MAX_MAPPINGS; i++) {
        struct htp_mapping * m = &d->maps[i];
        if (m->fd >= 0 && !m->pinned) {
            htp_mem_unmap(m->fd);
            m->fd = -1;
            d->stats.n_unmaps++;
        }
    }
}

// Maps one buffer of the batch (or finds it mapped). A mapping stays between messages: pinned
// ones until the host frees the buffer (HTP_MSG_UNMAP), weights until their room is needed.
// A buffer seen again with a different size is remapped.
static int prep_buffer(struct htp_dispatcher * d, const struct htp_buf_desc * b, dma_addr_t * addr) {
    const uint32_t       pinned = (b->flags & HTP_BUF_PINNED) != 0;
    struct htp_mapping * m      = find_mapping(d, b->fd);
    if (m && m->size == b->size) {
        m->last_batch = d->batch;
        m->pinned     = pinned;
        *addr         = m->addr;
        return HTP_STATUS_OK;
    }
    if (m) {
        htp_mem_unmap(m->fd);
        m->fd = -1;
        d->stats.n_unmaps++;
    }
    m = find_mapping(d, -1);
    if (!m && evict_one(d)) {
        m = find_mapping(d, -1);
    }
    if (!m) {
        return HTP_STATUS_NO_MEMORY;
    }
    int st;
    while ((st = htp_mem_map(b->fd, b->size, (int) pinned, addr)) == HTP_STATUS_NO_MEMORY && evict_one(d)) {
    }
    if (st != HTP_STATUS_OK) {
        return st;
    }
    m->fd         = b->fd;
    m->addr       = *addr;
    m->size       = b->size;
    m->last_batch = d->batch;
    m->pinned     = pinned;
    d->stats.n_maps++;
    d->stats.bytes_mapped += b->size;
    return HTP_STATUS_OK;
}

// Buffer preparation for a batch (the host keeps a batch's buffers within the budget). When
// the budget would hold them but the window's free space is cut into pieces too small, every
// weight mapping is given up once and the batch's are placed again, side by side.
static int prep_buffers(struct htp_dispatcher * d, const struct htp_buf_desc * bufs, uint32_t n_bufs,
                        dma_addr_t * buf_addr) {
    for (int attempt = 0;; attempt++) {
        int st = HTP_STATUS_OK;
        for (uint32_t i = 0; i < n_bufs && st == HTP_STATUS_OK; i++) {
            st = prep_buffer(d, &bufs[i], &buf_addr[i]);
        }
        if (st != HTP_STATUS_NO_MEMORY || attempt == 1) {
            return st;
        }
        drop_unpinned(d);
    }
}

static void unmap_buffer(struct htp_dispatcher * d, int32_t fd) {
    struct htp_mapping * m = find_mapping(d, fd);
    if (m) {
        htp_mem_unmap(fd);
        m->fd = -1;
    }
}

// Bytes the dispatcher holds mapped (pinned and weights).
static uint64_t mapped_bytes(const struct htp_dispatcher * d) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < HTP_MAX_MAPPINGS; i++) {
        if (d->maps[i].fd >= 0) {
            n += d->maps[i].size;
        }
    }
    return n;
}

static uint32_t respond(const struct htp_dispatcher * d, uint8_t * resp, uint32_t resp_cap,
                        const struct htp_msg_header * h, int status, uint32_t failed_op, uint32_t n_timings,
                        uint64_t cycles) {
    struct htp_batch_response r;
    memset(&r, 0, sizeof(r));
    r.n_maps        = d->stats.n_maps;
    r.n_unmaps      = d->stats.n_unmaps;
    r.bytes_mapped  = d->stats.bytes_mapped;
    r.window_mapped = mapped_bytes(d);
    r.magic     = HTP_RESP_MAGIC;
    r.status    = status;
    r.failed_op = failed_op;
    r.n_ops     = n_timings;
    r.seq       = h ? h->seq : 0;
    r.cycles    = cycles;
    if (resp_cap < sizeof(r)) {
        return 0;
    }
    memcpy(resp, &r, sizeof(r));
    return (uint32_t) htp_response_size(n_timings);
}

// One past the last byte a tensor's elements occupy, from its first (dim 0 in storage units:
// elements, or blocks of a quantized type); 0 when the shape cannot be (a partial block, an
// unknown type's extent is not checked: 1).
static uint64_t tensor_extent(const struct htp_tensor_desc * td) {
    uint32_t       elems = 1;
    const uint32_t unit  = htp_type_unit(td->type, &elems);
    if (unit == 0) {
        return 1;
    }
    uint64_t end = 0;
    for (int i = 0; i < 4; i++) {
        if (td->ne[i] == 0) {
            return 1;  // an empty tensor touches nothing
        }
    }
    if (td->ne[0] % elems != 0) {
        return 0;
    }
    end += (uint64_t) (td->ne[0] / elems - 1) * td->nb[0];
    for (int i = 1; i < 4; i++) {
        end += (uint64_t) (td->ne[i] - 1) * td->nb[i];
    }
    return end + unit;
}

// A descriptor of the batch -> the kernel's tensor: its buffer in the table, and every byte
// its shape and strides reach inside that buffer.
static int tensor_from_desc(const struct htp_tensor_desc * td, const dma_addr_t * buf_addr,
                            const struct htp_buf_desc * bufs, uint32_t n_bufs, struct htp_tensor * t) {
    memset(t, 0, sizeof(*t));
    if (td->buf == HTP_NO_BUF) {
        return HTP_STATUS_OK;
    }
    if (td->buf >= n_bufs || td->offset >= bufs[td->buf].size) {
        return HTP_STATUS_BAD_MESSAGE;
    }
    const uint64_t extent = tensor_extent(td);
    if (extent == 0 || extent > bufs[td->buf].size - td->offset) {
        return HTP_STATUS_BAD_MESSAGE;
    }
    t->data  = buf_addr[td->buf] + (dma_addr_t) td->offset;
    t->type  = td->type;
    t->flags = td->flags;
    for (int i = 0; i < 4; i++) {
        t->ne[i] = td->ne[i];
        t->nb[i] = td->nb[i];
    }
    return HTP_STATUS_OK;
}

// Bytes from a tensor's first to one past its last element (what an op writing it may touch).
static uint32_t tensor_bytes(const struct htp_tensor * t) {
    uint64_t end = 0;
    for (int i = 0; i < 4; i++) {
        end += (uint64_t) (t->ne[i] ? t->ne[i] - 1 : 0) * t->nb[i];
    }
    return (uint32_t) (end + t->nb[0]);
}

static void set_trace(struct htp_context * ctx, struct htp_trace_buffer_header * buf, uint16_t opcode) {
    for (uint32_t i = 0; i < HTP_MAX_HVX_THREADS; i++) {
        ctx->trace[i].buf    = buf;
        ctx->trace[i].opcode = opcode;
    }
    ctx->session_trace.buf    = buf;
    ctx->session_trace.opcode = opcode;
    htp_trace_bind(buf, opcode);  // the DMA engine's transfers
}

// A message being handled: its header and tables, where its buffers are mapped, and the trace
// buffer it names (NULL: none).
struct htp_message {
    struct htp_msg_header            h;
    const struct htp_buf_desc *      bufs;
    const struct htp_op_desc *       ops;
    dma_addr_t                       buf_addr[HTP_MAX_MAPPINGS];
    struct htp_trace_buffer_header * trace;
};

// Step 1: the header, the buffer table and the trace buffer's header inside its buffer, before
// anything is mapped. An UNMAP message has only its header checked (its table names buffers to
// give up). Returns an htp_status.
static int validate_message(struct htp_message * m, const uint8_t * msg, uint32_t msg_len, uint32_t resp_cap) {
    const struct htp_msg_header * h = &m->h;
    memcpy(&m->h, msg, sizeof(m->h));
    if (h->magic != HTP_MSG_MAGIC || h->abi_version != HTP_ABI_VERSION || h->n_ops > HTP_MAX_BATCH_OPS ||
        msg_len != htp_msg_size(h->n_bufs, h->n_ops) || resp_cap < htp_response_size(h->n_ops)) {
        return HTP_STATUS_BAD_MESSAGE;
    }
    m->bufs  = (const struct htp_buf_desc *) (msg + sizeof(m->h));
    m->ops   = (const struct htp_op_desc *) (m->bufs + h->n_bufs);
    m->trace = NULL;
    if (h->kind == HTP_MSG_UNMAP) {
        return HTP_STATUS_OK;
    }
    if (h->kind != HTP_MSG_OPS || h->n_bufs > HTP_MAX_MAPPINGS) {
        return HTP_STATUS_BAD_MESSAGE;
    }
    for (uint32_t i = 0; i < h->n_bufs; i++) {
        if (m->bufs[i].fd < 0 || m->bufs[i].size == 0) {
            return HTP_STATUS_BAD_MESSAGE;
        }
    }
    if ((h->flags & HTP_MSG_FLAG_TRACE) && h->trace_buf != HTP_NO_BUF &&
        (h->trace_buf >= h->n_bufs || h->trace_offset > m->bufs[h->trace_buf].size ||
         m->bufs[h->trace_buf].size - h->trace_offset < sizeof(struct htp_trace_buffer_header))) {
        return HTP_STATUS_BAD_MESSAGE;
    }
    return HTP_STATUS_OK;
}

// Step 2: maps the message's buffers and starts the group's batch. A group member maps the
// fence slots first, so that any later failure reaches its peers. Returns an htp_status.
static int map_buffers(struct htp_dispatcher * d, struct htp_message * m) {
    const struct htp_msg_header * h   = &m->h;
    struct htp_context *          ctx = &d->ctx;
    d->batch++;  // the eviction clock: mappings this batch names are not evicted while it prepares
    const int grouped = h->mdev_count > 1;
    if (grouped && h->fence_buf >= h->n_bufs) {
        return HTP_STATUS_BAD_MESSAGE;
    }
    int st = grouped ? prep_buffer(d, &m->bufs[h->fence_buf], &m->buf_addr[h->fence_buf]) : HTP_STATUS_OK;
    if (st == HTP_STATUS_OK) {
        st = htp_mdev_begin_batch(&ctx->mdev, h, grouped ? m->buf_addr[h->fence_buf] : 0);
    }
    if (st != HTP_STATUS_OK) {
        return st;
    }
    st = prep_buffers(d, m->bufs, h->n_bufs, m->buf_addr);
    if (st != HTP_STATUS_OK) {
        htp_mdev_fail(&ctx->mdev, &ctx->session_trace, st, 0, 0);
        return st;
    }
    if ((h->flags & HTP_MSG_FLAG_TRACE) && h->trace_buf < h->n_bufs) {
        m->trace = (struct htp_trace_buffer_header *) htp_va(m->buf_addr[h->trace_buf] + (dma_addr_t) h->trace_offset);
        htp_mdev_share_trace(&ctx->mdev, m->trace);
    }
    return HTP_STATUS_OK;
}

// An op descriptor -> what its kernel gets, and the kernel. Returns an htp_status.
static int op_from_desc(const struct htp_context * ctx, const struct htp_message * m, const struct htp_op_desc * op,
                        struct htp_op_context * octx, htp_op_fn * fn) {
    octx->ctx    = (struct htp_context *) ctx;
    octx->opcode = op->opcode;
    octx->n_src  = op->n_src;
    octx->params = &op->params;
    int st       = tensor_from_desc(&op->dst, m->buf_addr, m->bufs, m->h.n_bufs, &octx->dst);
    for (uint32_t s = 0; s < HTP_MAX_SRC && st == HTP_STATUS_OK; s++) {
        st = tensor_from_desc(&op->src[s], m->buf_addr, m->bufs, m->h.n_bufs, &octx->src[s]);
    }
    if (st == HTP_STATUS_OK && op->n_src > HTP_MAX_SRC) {
        st = HTP_STATUS_BAD_MESSAGE;
    }
    *fn = htp_op_lookup(op->opcode);
    if (st == HTP_STATUS_OK && !*fn) {
        st = HTP_STATUS_UNSUPPORTED_OP;
    }
    if (st == HTP_STATUS_OK && op->params.split.n_threads > ctx->n_hvx) {
        st = HTP_STATUS_BAD_PARAMS;
    }
    return st;
}

// The kernel itself, bracketed by its trace event. An op that cannot split its output (a DEV0
// op, `split` 0) runs exactly as a single session would: mdev.count is 1 while it runs. A fault
// inside a worker (MMU, DMA) outranks whatever the kernel returned.
static int run_kernel(struct htp_context * ctx, htp_op_fn fn, struct htp_op_context * octx, uint32_t i, int split) {
    htp_trace_event_start(&ctx->session_trace, HTP_TRACE_EVT_OP, (uint16_t) i);
    int st;
    if (split) {
        st = fn(octx);
    } else {
        const struct htp_mdev group = ctx->mdev;
        ctx->mdev.count             = 1;
        st                          = fn(octx);
        ctx->mdev                   = group;
    }
    htp_trace_event_stop(&ctx->session_trace, HTP_TRACE_EVT_OP, (uint16_t) i);
    const int fault = htp_fault_take();
    return fault != HTP_STATUS_OK ? fault : st;
}

// Step 3: runs op i of the message and records its timing. A staged message
// (HTP_MSG_FLAG_STAGE) runs no kernel at all; the group's barriers still run. Returns an
// htp_status; on failure *failed is the op it is reported for.
static int run_op(struct htp_dispatcher * d, const struct htp_message * m, uint32_t i, struct htp_op_timing * t,
                  int count, uint32_t * failed) {
    struct htp_context *       ctx = &d->ctx;
    const struct htp_op_desc * op  = &m->ops[i];
    struct htp_op_context      octx;
    htp_op_fn                  fn = NULL;
    int                        st = op_from_desc(ctx, m, op, &octx, &fn);

    const uint64_t t0 = htp_cycles();
    htp_session_op_begin(i, op->opcode);
    set_trace(ctx, m->trace, (uint16_t) op->opcode);
    *failed                            = i;
    const struct htp_dirty_range dst   = { octx.dst.data, tensor_bytes(&octx.dst) };
    st                                 = htp_mdev_before_op(&ctx->mdev, &ctx->session_trace, st, i, dst, failed);
    const int                    split = htp_opcode_mdev_split(op->opcode);
    const int skip = (m->h.flags & HTP_MSG_FLAG_STAGE) || !htp_mdev_runs_op(&ctx->mdev, split);
    if (st == HTP_STATUS_OK && !skip) {
        st = run_kernel(ctx, fn, &octx, i, split);
        htp_mdev_after_op(&ctx->mdev, &ctx->session_trace, st, dst);
    }
    memset(t, 0, sizeof(*t));
    t->start_ns  = t0;
    t->nsecs     = htp_cycles() - t0;
    t->n_threads = op->params.split.n_threads;
    if (count) {
        htp_counters_take(t->counters);
    }
    return st;
}

// Step 4: finishes the group's batch and answers. After a failed op (`st`, reported for op
// `failed`, n_done ops run before it) the peers are told; after the last op, the batch barrier.
static uint32_t finish_group(struct htp_dispatcher * d, const struct htp_message * m, int st, uint32_t failed,
                             uint32_t n_done, int count, uint64_t t_start, uint8_t * resp, uint32_t resp_cap) {
    struct htp_context * ctx = &d->ctx;
    if (count) {
        counting(0);
    }
    uint32_t n_timings = m->h.n_ops;
    if (st != HTP_STATUS_OK) {
        htp_mdev_fail(&ctx->mdev, &ctx->session_trace, st, (uint16_t) n_done, 1);
        n_timings = n_done;
    } else {
        st = htp_mdev_end_batch(&ctx->mdev, &ctx->session_trace, m->h.n_ops);
        if (st != HTP_STATUS_OK) {
            failed = n_timings = m->h.n_ops ? m->h.n_ops - 1 : 0;
        }
    }
    set_trace(ctx, NULL, 0);
    return respond(d, resp, resp_cap, &m->h, st, st == HTP_STATUS_OK ? 0 : failed, n_timings, htp_cycles() - t_start);
}

uint32_t htp_dispatcher_handle(struct htp_dispatcher * d, const uint8_t * msg, uint32_t msg_len, uint8_t * resp,
                               uint32_t resp_cap) {
    memset(&d->stats, 0, sizeof(d->stats));
    struct htp_message m;
    if (msg_len < sizeof(m.h)) {
        return respond(d, resp, resp_cap, NULL, HTP_STATUS_BAD_MESSAGE, 0, 0, 0);
    }
    int st = validate_message(&m, msg, msg_len, resp_cap);
    if (st != HTP_STATUS_OK) {
        return respond(d, resp, resp_cap, &m.h, st, 0, 0, 0);
    }
    if (m.h.kind == HTP_MSG_UNMAP) {
        for (uint32_t i = 0; i < m.h.n_bufs; i++) {
            unmap_buffer(d, m.bufs[i].fd);
        }
        return respond(d, resp, resp_cap, &m.h, HTP_STATUS_OK, 0, 0, 0);
    }

    const uint64_t t_start = htp_cycles();
    st                     = map_buffers(d, &m);
    if (st != HTP_STATUS_OK) {
        return respond(d, resp, resp_cap, &m.h, st, 0, 0, 0);
    }
    struct htp_op_timing * timings = (struct htp_op_timing *) (resp + sizeof(struct htp_batch_response));
    htp_fault_take();  // start every message with a clean fault status
    const int count = (m.h.flags & HTP_MSG_FLAG_COUNTERS) != 0;
    if (count) {
        counting(1);
    }
    uint32_t failed = 0, i = 0;
    for (; i < m.h.n_ops; i++) {
        st = run_op(d, &m, i, &timings[i], count, &failed);
        if (st != HTP_STATUS_OK) {
            break;
        }
    }
    return finish_group(d, &m, st, failed, i, count, t_start, resp, resp_cap);
}
