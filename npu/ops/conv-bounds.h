// The outputs a convolution tap reads inside its input row: output x reads input
// x * s + off (off = k * d - p for tap k), which lies in [0, in_len) for x in [lo, hi), clamped
// to [0, out_len). IM2COL, IM2COL_3D and CONV_2D_DW gather exactly those with one strided DMA
// descriptor per tap and leave the others (the padding) zero.
#pragma once
#include <stdint.h>

#include "htp-abi/htp-fastdiv.h"

namespace htp_ops {

struct out_bounds {
    int32_t lo, hi;
};

// Both numerators stay in [0, 2^30) (the host bounds in_len + p + s): fastdiv by s.
static inline out_bounds conv_out_bounds(int32_t off, int32_t in_len, int32_t out_len, int32_t s,
                                         const struct htp_fastdiv * div_s) {
    int32_t       lo  = off >= 0 ? 0 : (int32_t) htp_fastdiv((uint32_t) (-off + s - 1), div_s);
    const int32_t top = in_len - 1 - off;
    int32_t       hi  = top < 0 ? 0 : (int32_t) htp_fastdiv((uint32_t) top, div_s) + 1;
    if (hi > out_len) {
        hi = out_len;
    }
    if (lo > hi) {
        lo = hi;
    }
    return { lo, hi };
}

}  // namespace htp_ops
