// Buffer types (buffer.cpp): device buffers of shared DDR, and the host buffer type.
#pragma once
#include "context.h"

void htp_buffer_types_init(htp_registry & reg);
// The htp_buffer behind a tensor, or nullptr when it is not in an HTP buffer.
const htp_buffer * htp_tensor_buffer(const ggml_tensor * t);
// Tells every session to drop a buffer from its window (before the fd closes).
void htp_unmap_everywhere(htp_registry & reg, int fd, uint64_t size);
