// What a device runs (support.cpp): supports_op, from static tensor properties only.
#pragma once
#include "context.h"

bool htp_device_supports_op(const htp_registry & reg, const htp_device & d, const ggml_tensor * op);
// VIEW, RESHAPE, PERMUTE, TRANSPOSE, NONE: nothing to run.
bool htp_op_is_view(const ggml_tensor * op);
// Nothing to run either: an empty tensor, or a SET_ROWS of no rows (its result is its dst,
// unchanged).
bool htp_op_writes_nothing(const ggml_tensor * op);
