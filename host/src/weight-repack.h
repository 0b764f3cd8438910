// Weight repacking in HTP device buffers (docs/tiled-formats.md, "In the backend"). Its
// functions are htp_tiling_* (a buffer's tiling records), apart from the repacker they call
// (repack/, htp_repack_*).
// A device buffer keeps a record per tensor whose bytes it holds tiled; set_tensor repacks
// into it, get_tensor un-repacks out of it, and anything else that would see the bytes
// (another op, a raw copy, memset) first turns the tensor flat again (un-repack in place).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "ggml-backend-impl.h"
#include "op-encoders.h"

struct htp_buffer;
struct htp_tiling_state;

// repack_mode: GGML_HEXAGON_REPACK (0 never, 1 weight buffers, 2 every device buffer).
htp_tiling_state * htp_tiling_state_new(int repack_mode);
void htp_tiling_state_free(htp_tiling_state * s);

// Bytes the buffer type allocates for t: its tiled size when it may be repacked.
size_t htp_tiling_alloc_size(const ggml_tensor * t, int repack_mode);

// set_tensor / get_tensor: true when they moved the bytes (the range touched tiled data or
// created a record); false: the caller does a plain memcpy.
bool htp_tiling_set(ggml_backend_buffer_t buffer, ggml_tensor * t, const void * data, size_t offset, size_t size);
bool htp_tiling_get(ggml_backend_buffer_t buffer, const ggml_tensor * t, void * data, size_t offset, size_t size);

// Turns every tiled record overlapping [p, p + size) of the buffer flat (un-repack in place).
void htp_tiling_flatten(htp_buffer * b, const uint8_t * p, size_t size);
// Forgets all records (the buffer's bytes are about to be overwritten as a whole).
void htp_tiling_forget_all(htp_buffer * b);

// The record of w (or of the tensor w views, when w covers whole planes of it with the same row
// layout) in buffer b: true (tw filled, host/ops/encode-context.h) when its bytes are tiled.
bool htp_tiling_lookup(const htp_buffer * b, const ggml_tensor * w, htp_tiled_weight & tw);
// True when b holds nothing tiled.
bool htp_tiling_empty(const htp_buffer * b);
