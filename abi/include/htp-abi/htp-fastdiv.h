// Division by a run-time constant without a divide instruction (Hexagon has none).
// The host computes the constants once (htp_fastdiv_init) into kernel_params; kernels only
// call htp_fastdiv / htp_fastmod. Valid for numerators below 2^31.
#pragma once
#include <stdint.h>

struct htp_fastdiv {
    uint32_t mp;  // magic multiplier
    uint32_t l;   // shift
    uint32_t d;   // the divisor itself (for htp_fastmod)
};

// d == 0 (an empty dimension: nothing will be divided by it) gives constants that are never used.
static inline struct htp_fastdiv htp_fastdiv_init(uint32_t d) {
    struct htp_fastdiv f;
    if (d == 0) {
        f.mp = 0;
        f.l  = 0;
        f.d  = 0;
        return f;
    }
    uint32_t l = 0;
    while (l < 32 && ((uint64_t) 1 << l) < d) {
        l++;
    }
    f.mp = (uint32_t) ((((uint64_t) 1 << 32) * (((uint64_t) 1 << l) - d)) / d + 1);
    f.l  = l;
    f.d  = d;
    return f;
}

static inline uint32_t htp_fastdiv(uint32_t n, const struct htp_fastdiv * f) {
    const uint32_t hi = (uint32_t) (((uint64_t) n * f->mp) >> 32);
    return (hi + n) >> f->l;
}

static inline uint32_t htp_fastmod(uint32_t n, const struct htp_fastdiv * f) {
    return n - htp_fastdiv(n, f) * f->d;
}
