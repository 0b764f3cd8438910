// The ggml backend (stream) of an HTP device: graph_compute sends op batches to its session.
#include "context.h"
#include "log.h"

struct htp_backend_ctx {
    htp_device * device;
    ggml_abort_callback abort_cb = nullptr;
    void * abort_data = nullptr;
};

static const char * htp_backend_get_name(ggml_backend_t backend) {
    return ((htp_backend_ctx *) backend->context)->device->spec.name.c_str();
}

static void htp_backend_free(ggml_backend_t backend) {
    delete (htp_backend_ctx *) backend->context;
    delete backend;
}

static ggml_status htp_backend_graph_compute(ggml_backend_t backend, ggml_cgraph * graph) {
    auto * ctx = (htp_backend_ctx *) backend->context;
    if (ctx->abort_cb && ctx->abort_cb(ctx->abort_data)) {
        return GGML_STATUS_ABORTED;
    }
    return htp_graph_compute(htp_get_registry(), *ctx->device, graph);
}

// Only reorders (never fuses): fusions are chosen at compute time, per path.
static void htp_backend_graph_optimize(ggml_backend_t, ggml_cgraph * graph, ggml_backend_graph_optimize_params *) {
    if (htp_get_registry().cfg.fuse) {
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
    /* .cpy_tensor_async    = */ nullptr,
    /* .synchronize         = */ nullptr,  // graph_compute returns when the NPU has answered
    /* .graph_plan_create   = */ nullptr,
    /* .graph_plan_free     = */ nullptr,
    /* .graph_plan_update   = */ nullptr,
    /* .graph_plan_compute  = */ nullptr,
    /* .graph_compute       = */ htp_backend_graph_compute,
    /* .event_record        = */ nullptr,
    /* .event_wait          = */ nullptr,
    /* .graph_optimize      = */ htp_backend_graph_optimize,
};

static ggml_guid_t htp_backend_guid() {
    static ggml_guid guid = { 0x48, 0x45, 0x58, 0x41, 0x47, 0x4f, 0x4e, 0x2d,
                              0x76, 0x48, 0x54, 0x50, 0x00, 0x00, 0x00, 0x01 };
    return &guid;
}

ggml_backend_t htp_backend_init(htp_device & d) {
    auto * ctx = new htp_backend_ctx{ &d };
    return new ggml_backend{ htp_backend_guid(), htp_backend_iface, &d.dev, ctx };
}

void htp_backend_set_abort_callback(ggml_backend_t backend, ggml_abort_callback cb, void * data) {
    auto * ctx = (htp_backend_ctx *) backend->context;
    ctx->abort_cb   = cb;
    ctx->abort_data = data;
}
