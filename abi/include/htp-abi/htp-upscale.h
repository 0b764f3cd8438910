// UPSCALE's taps (htp_upscale_params): the source index and weight of tap t of output i along
// one axis, from the axis' exact rationals. The host checks these indices against ggml-cpu's
// float formulas for the whole shape before it accepts the op (host/ops/upscale.cpp), and the
// NPU builds its tables and row weights from the same function (npu/ops/upscale.cpp).
// Only integer arithmetic, float add / mul and comparisons: no division, no libm.
#pragma once
#include <stdint.h>

#include "htp-ops.h"

// floor((a i + b) / d); a i + b + k d is >= 0 and < 2^31 (the host checked).
static inline int32_t htp_upscale_floor(const struct htp_upscale_axis * ax, uint32_t i, int32_t b) {
    return (int32_t) htp_fastdiv(ax->a * i + (uint32_t) b + ax->k * ax->d.d, &ax->d) - (int32_t) ax->k;
}

static inline int32_t htp_upscale_clamp(int32_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

// ggml-cpu's bicubic weights (alpha = -0.75, as PyTorch): weight1 for |x| <= 1, weight2 for 1 < |x| < 2.
static inline float htp_upscale_cubic1(float x) {
    const float a = -0.75f;
    return ((a + 2) * x - (a + 3)) * x * x + 1;
}

static inline float htp_upscale_cubic2(float x) {
    const float a = -0.75f;
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

// The smallest source index any tap of outputs >= i reads (tap 0 of output i: the taps'
// indices grow with i and t, and antialias' taps past the window repeat an index >= tap 0's):
// the first vector of a dst vector's gather window is this / 32.
static inline uint32_t htp_upscale_first(const struct htp_upscale_axis * ax, uint32_t mode, uint32_t i) {
    const int32_t f = htp_upscale_floor(ax, i, ax->b_lo) - (mode == HTP_UPSCALE_BICUBIC ? 1 : 0);
    return (uint32_t) htp_upscale_clamp(f, 0, (int32_t) ax->n_src - 1);
}

// Source index of tap t of output i, its weight in *w (antialias: before normalising over the
// taps; a tap past the window has weight 0 and repeats a valid index).
static inline uint32_t htp_upscale_tap(const struct htp_upscale_axis * ax, uint32_t mode, uint32_t i, uint32_t t,
                                       float * w) {
    const int32_t last = (int32_t) ax->n_src - 1;
    const int32_t f    = htp_upscale_floor(ax, i, ax->b_lo);
    const float   x    = (float) ((int32_t) (ax->a * i) + ax->b_pos) * ax->inv_d;
    switch (mode) {
        case HTP_UPSCALE_BILINEAR: {
            // ggml-cpu: x0 = floor(x) and x0 + 1 clamped; dx = x - x0 (clamped) kept in [0, 1].
            const int32_t x0 = htp_upscale_clamp(f, 0, last);
            float         dx = x - (float) x0;
            dx               = dx < 0.0f ? 0.0f : dx > 1.0f ? 1.0f : dx;
            *w               = t == 0 ? 1.0f - dx : dx;
            return (uint32_t) (t == 0 ? x0 : htp_upscale_clamp(f + 1, 0, last));
        }
        case HTP_UPSCALE_BICUBIC: {
            const float dx = x - (float) f;
            *w = t == 0 ? htp_upscale_cubic2(dx + 1) : t == 1 ? htp_upscale_cubic1(dx) : t == 2 ? htp_upscale_cubic1(1 - dx) :
                                                                                               htp_upscale_cubic2(2 - dx);
            return (uint32_t) htp_upscale_clamp(f + (int32_t) t - 1, 0, last);
        }
        case HTP_UPSCALE_BILINEAR_AA: {
            // ggml-cpu: sources [max(x - support + po, 0), min(x + support + po, n)), weight
            // max(1 - |sx - x + po| invscale, 0) with x the centre (no - po).
            const int32_t lo = f < 0 ? 0 : f;
            int32_t       hi = htp_upscale_floor(ax, i, ax->b_hi);
            hi               = hi > (int32_t) ax->n_src ? (int32_t) ax->n_src : hi;
            const int32_t sx = lo + (int32_t) t;
            if (sx >= hi) {
                *w = 0.0f;
                return (uint32_t) htp_upscale_clamp(hi > lo ? hi - 1 : lo, 0, last);
            }
            const float u  = (float) ((int32_t) ax->d.d * sx + ax->c - (int32_t) (ax->a * i) - ax->b_pos) * ax->inv_d *
                            ax->invscale;
            const float au = u < 0.0f ? -u : u;
            *w             = au < 1.0f ? 1.0f - au : 0.0f;
            return (uint32_t) sx;
        }
        default:  // nearest
            *w = 1.0f;
            return (uint32_t) htp_upscale_clamp(f, 0, last);
    }
}
