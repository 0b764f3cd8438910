// Logging through ggml's logger (so llama's log callback sees it), always prefixed.
#pragma once
#include "ggml-impl.h"

#define HTP_LOG_ERROR(fmt, ...) GGML_LOG_ERROR("ggml-hexagon: " fmt "\n", ##__VA_ARGS__)
#define HTP_LOG_WARN(fmt, ...)  GGML_LOG_WARN("ggml-hexagon: " fmt "\n", ##__VA_ARGS__)
#define HTP_LOG_INFO(fmt, ...)  GGML_LOG_INFO("ggml-hexagon: " fmt "\n", ##__VA_ARGS__)
#define HTP_LOG_DEBUG(fmt, ...) GGML_LOG_DEBUG("ggml-hexagon: " fmt "\n", ##__VA_ARGS__)

// Output the user asked for with GGML_HEXAGON_VERBOSE / GGML_HEXAGON_PROFILE goes straight to
// stderr: llama.cpp tools hide ggml's info-level logs unless run with -lv 4.
#include <cstdio>
#define HTP_LOG_REQUESTED(fmt, ...) fprintf(stderr, "ggml-hexagon: " fmt "\n", ##__VA_ARGS__)
// GGML_HEXAGON_PROFILE's lines carry upstream's prefix, which its report script (and ours,
// tools/ggml-hexagon-profile.py) looks for.
#define HTP_LOG_PROFILE(fmt, ...) fprintf(stderr, "ggml-hex: " fmt "\n", ##__VA_ARGS__)
