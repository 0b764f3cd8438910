// Which tensors a graph reads tiled, and what the encoders are told of it: the tensor-facing
// side of the buffers' tiling records (weight-repack.h keeps the records, buffer.h finds a
// tensor's buffer).
#include "weight-layout.h"

#include "buffer.h"
#include "mul-mat/mul-mat-paths.h"
#include "support.h"
#include "weight-repack.h"

bool htp_weight_tiled(const ggml_tensor * w, htp_tiled_weight & tw) {
    const htp_buffer * b = htp_tensor_buffer(w);
    return b && htp_tiling_lookup(b, w, tw);
}

htp_encode_context htp_encode_context_of(const htp_mm_settings & mm, const ggml_tensor * node) {
    htp_encode_context ctx;
    ctx.mm = mm;
    for (int i = 0; i < HTP_MAX_SRC && i < GGML_MAX_SRC; i++) {
        ctx.src_tiled[i] = node->src[i] && htp_weight_tiled(node->src[i], ctx.src_layout[i]);
    }
    return ctx;
}

void htp_tiling_graph_prepare(const htp_device_caps & caps, const htp_mm_settings & mm, ggml_cgraph * graph,
                              const std::function<void()> & before_change) {
    bool changing = false;
    const int n = ggml_graph_n_nodes(graph);
    for (int i = 0; i < n; i++) {
        ggml_tensor * node = ggml_graph_node(graph, i);
        if (htp_op_is_view(node) || ggml_is_empty(node)) {
            continue;
        }
        for (int j = -1; j < GGML_MAX_SRC; j++) {
            const ggml_tensor * t = j < 0 ? node : node->src[j];
            if (!t) {
                continue;
            }
            auto * b = (htp_buffer *) htp_tensor_buffer(t);
            if (!b || htp_tiling_empty(b)) {
                continue;
            }
            htp_tiled_weight tw;
            if (j == 0 && node->op == GGML_OP_MUL_MAT && htp_weight_tiled(t, tw) &&
                htp_mm_route_tiled(caps, mm, node, tw) != HTP_MM_ROUTE_NONE) {
                continue;
            }
            if (j == 0 && node->op == GGML_OP_MUL_MAT_ID && htp_weight_tiled(t, tw) &&
                mm_id_tiled_ok(caps, mm, node, tw)) {
                continue;
            }
            if (!changing) {
                before_change();
                changing = true;
            }
            htp_tiling_flatten(b, (const uint8_t *) t->data, ggml_nbytes(t));
        }
    }
}
