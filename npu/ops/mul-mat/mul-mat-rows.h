// The activation rows one MUL_MAT chunk / pass works on (and the loop over them), the same for the flat HVX, tiled HVX
// and HMX paths: rows [i1_0, i1_0 + n) of plane (i2, i3); or, when src1_off is set (MUL_MAT_ID:
// rows gathered per expert by mm_id_route, mul-mat-id.h), row j at src1 + src1_off[j], its
// results at dst + dst_off[j] (one descriptor per row).
#pragma once
#include <stdint.h>

#include "htp-abi/htp-abi.h"

namespace htp_ops {

struct mm_act_rows {
    uint32_t         i1_0, n, i2, i3;
    const uint32_t * src1_off;
    const uint32_t * dst_off;
};

// The plane loop of the three paths: fn(c, i02, i03) for every chunk of up to `rows`
// activation rows of every plane act describes (i02, i03: the weight plane it reads). Stops
// at the first status other than HTP_STATUS_OK and returns it.
template <typename F> static inline int mm_for_each_chunk(const htp_mm_act & act, uint32_t rows, F && fn) {
    mm_act_rows c = { 0, 0, 0, 0, nullptr, nullptr };
    for (uint32_t plane = 0; plane < act.n_planes; plane++) {
        c.i3               = htp_fastdiv(plane, &act.div_ne12);
        c.i2               = plane - c.i3 * act.ne12;
        const uint32_t i02 = htp_fastdiv(c.i2, &act.div_r2);
        const uint32_t i03 = htp_fastdiv(c.i3, &act.div_r3);
        for (uint32_t i1 = 0; i1 < act.ne11; i1 += rows) {
            c.i1_0       = i1;
            c.n          = act.ne11 - i1 < rows ? act.ne11 - i1 : rows;
            const int st = fn(c, i02, i03);
            if (st != HTP_STATUS_OK) {
                return st;
            }
        }
    }
    return HTP_STATUS_OK;
}

}  // namespace htp_ops
