// The ggml backend (stream) of an HTP device: graph_compute sends op batches to its session.
#include <cstring>

#include "context.h"
#include "backend.h"
#include "buffer.h"
#include "graph-order.h"
#include "graph.h"
#include "log.h"

struct htp_backend_ctx {
    htp_device * device;
    // Driven by ggml's meta backend (a tensor split, comm.cpp): asynchronous, so that the
    // devices compute their slices at once, and every node is checked against supports_op
    // (the meta backend's slices are nodes llama's scheduler never asked about).
    bool meta = false;
    ggml_abort_callback abort_cb = nullptr;
    void * abort_data = nullptr;
};

static const char * htp_backend_get_name(ggml_backend_t backend) {
    return ((htp_backend_ctx *) backend->context)->device->spec.name.c_str();
}

static void htp_backend_free(ggml_backend_t backend) {
    auto * ctx = (htp_backend_ctx *) backend->context;
    htp_stream & stream = *ctx->device->stream;
    stream.synchronize();
    const htp_config & cfg = ctx->device->reg->cfg;
    if ((cfg.verbose >= 1 || cfg.profile >= 1) && stream.busy_ns() > 0) {
        // How much of the device's NPU time ran while another device's did too: llama's layer
        // split overlaps its devices (pipeline parallelism) only when this is above 0.
        HTP_LOG_REQUESTED("%s: stream: %.1f ms busy, %.1f ms of it while another device was busy", ctx->device->spec.name.c_str(),
                          stream.busy_ns() / 1e6, stream.overlap_ns() / 1e6);
    }
    ctx->device->n_backends--;
    delete ctx;
    delete backend;
}

static ggml_status htp_backend_graph_compute(ggml_backend_t backend, ggml_cgraph * graph) {
    auto * ctx = (htp_backend_ctx *) backend->context;
    if (ctx->abort_cb && ctx->abort_cb(ctx->abort_data)) {
        return GGML_STATUS_ABORTED;
    }
    // Asynchronous in a pipeline (the scheduler made events on the device) or a tensor split.
    return htp_graph_compute(*ctx->device->reg, *ctx->device, graph, ctx->meta || ctx->device->async(), ctx->meta);
}

// Waits for the device's queued batches (their failures are logged, and the next graph_compute
// returns them: the interface has no status here).
static void htp_backend_synchronize(ggml_backend_t backend) {
    ((htp_backend_ctx *) backend->context)->device->stream->synchronize();
}

static void htp_backend_event_record(ggml_backend_t backend, ggml_backend_event_t event) {
    htp_stream & stream = *((htp_backend_ctx *) backend->context)->device->stream;
    auto *       e      = (htp_event *) event->context;
    e->stream           = &stream;
    e->ticket           = stream.submitted();
}

// The backend's later work waits for the event; the caller does not.
static void htp_backend_event_wait(ggml_backend_t backend, ggml_backend_event_t event) {
    htp_stream & stream = *((htp_backend_ctx *) backend->context)->device->stream;
    const htp_event e = *(const htp_event *) event->context;
    if (e.stream && e.stream != &stream) {
        stream.enqueue([e](bool) {
            e.stream->wait(e.ticket);
            return GGML_STATUS_SUCCESS;
        }, false);
    }
}

// A copy between two HTP devices (layer split: one device's output is the next one's input)
// is queued on the destination's stream, after the source's queued work: the host goes on.
// Both are shared DDR the host maps, and activations are never tiled (only weights are), so it
// is a memcpy of the addresses taken now (the scheduler's tensors may be gone when it runs).
static bool htp_backend_cpy_tensor_async(ggml_backend_t backend_src, ggml_backend_t backend_dst,
                                         const ggml_tensor * src, ggml_tensor * dst) {
    if (!htp_backend_is_htp(backend_src) || !htp_tensor_buffer(src) || !htp_tensor_buffer(dst) ||
        !ggml_are_same_layout(src, dst) || ggml_backend_buffer_get_usage(src->buffer) == GGML_BACKEND_BUFFER_USAGE_WEIGHTS ||
        ggml_backend_buffer_get_usage(dst->buffer) == GGML_BACKEND_BUFFER_USAGE_WEIGHTS) {
        return false;
    }
    htp_stream &   from  = *((htp_backend_ctx *) backend_src->context)->device->stream;
    htp_stream &   to    = *((htp_backend_ctx *) backend_dst->context)->device->stream;
    const uint64_t after = from.submitted();
    const void *   s     = src->data;
    void *         d     = dst->data;
    const size_t   n     = ggml_nbytes(src);
    to.enqueue([&from, after, s, d, n](bool skip) {
        from.wait(after);
        if (!skip) {
            memcpy(d, s, n);
        }
        return GGML_STATUS_SUCCESS;
    });
    return true;
}

// Only reorders (never fuses): fusions are chosen at compute time, per path.
static void htp_backend_graph_optimize(ggml_backend_t backend, ggml_cgraph * graph, ggml_backend_graph_optimize_params *) {
    if (((htp_backend_ctx *) backend->context)->device->reg->cfg.fuse) {
        htp_graph_order_mul_mats(graph);
    }
}

static const ggml_backend_i htp_backend_iface = {
    /* .get_name            = */ htp_backend_get_name,
    /* .free                = */ htp_backend_free,
    /* .set_tensor_async    = */ nullptr,
    /* .get_tensor_async    = */ nullptr,
    /* .set_tensor_2d_async = */ nullptr,
    /* .get_tensor_2d_async = */ nullptr,
    /* .cpy_tensor_async    = */ htp_backend_cpy_tensor_async,
    /* .synchronize         = */ htp_backend_synchronize,
    /* .graph_plan_create   = */ nullptr,
    /* .graph_plan_free     = */ nullptr,
    /* .graph_plan_update   = */ nullptr,
    /* .graph_plan_compute  = */ nullptr,
    /* .graph_compute       = */ htp_backend_graph_compute,
    /* .event_record        = */ htp_backend_event_record,
    /* .event_wait          = */ htp_backend_event_wait,
    /* .graph_optimize      = */ htp_backend_graph_optimize,
};

static ggml_guid_t htp_backend_guid() {
    static ggml_guid guid = { 0x48, 0x45, 0x58, 0x41, 0x47, 0x4f, 0x4e, 0x2d,
                              0x76, 0x48, 0x54, 0x50, 0x00, 0x00, 0x00, 0x01 };
    return &guid;
}

bool htp_backend_is_htp(ggml_backend_t backend) {
    return backend && ggml_guid_matches(backend->guid, htp_backend_guid());
}

htp_device & htp_backend_device(ggml_backend_t backend) {
    return *((htp_backend_ctx *) backend->context)->device;
}

void htp_backend_set_meta(ggml_backend_t backend, bool meta) {
    ((htp_backend_ctx *) backend->context)->meta = meta;
}

ggml_backend_t htp_backend_init(htp_device & d) {
    if (d.n_backends++ > 0) {
        // llama's split over "-dev HTP0,HTP0": it works (both backends queue on the device's
        // one stream, in turn) but gains nothing, which is rarely what was meant.
        HTP_LOG_WARN("%s: a second backend on the same device (is it named twice in the device list, e.g. "
                     "-dev HTP0,HTP0?): both run on its one session, one after the other",
                     d.spec.name.c_str());
    }
    auto * ctx = new htp_backend_ctx{ &d };
    return new ggml_backend{ htp_backend_guid(), htp_backend_iface, &d.dev, ctx };
}

void htp_backend_set_abort_callback(ggml_backend_t backend, ggml_abort_callback cb, void * data) {
    auto * ctx = (htp_backend_ctx *) backend->context;
    ctx->abort_cb   = cb;
    ctx->abort_data = data;
}
