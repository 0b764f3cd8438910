// Which tensors a graph reads tiled (weight-layout.cpp).
#pragma once
#include <functional>

#include "ggml-backend-impl.h"
#include "op-encoders.h"

// Before a graph runs: tiled weights stay tiled only where a MUL_MAT (or MUL_MAT_ID that
// declares it) reads them through a path that takes them; everything else is turned flat.
// before_change runs once before the first tensor is turned flat (the caller waits there for
// queued work that may still read the tiled bytes).
void htp_tiling_graph_prepare(const htp_device_caps & caps, const htp_mm_settings & mm, ggml_cgraph * graph,
                              const std::function<void()> & before_change);

// True when w (or w->view_src, when w covers whole planes of it with the same row layout)
// holds tiled data; fills tw (host/ops/encode-context.h). False for flat data. From the
// buffer's tiling records (weight-repack.h).
bool htp_weight_tiled(const ggml_tensor * w, htp_tiled_weight & tw);

// What the encoders get for node (host/ops/encode-context.h): the device's MUL_MAT settings and
// each source's layout as its buffer holds it now.
htp_encode_context htp_encode_context_of(const htp_mm_settings & mm, const ggml_tensor * node);
