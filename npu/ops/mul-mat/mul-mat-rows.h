// The activation rows one MUL_MAT chunk / pass works on, the same for the flat HVX, tiled HVX
// and HMX paths: rows [i1_0, i1_0 + n) of plane (i2, i3); or, when src1_off is set (MUL_MAT_ID:
// rows gathered per expert by mm_id_route, mul-mat-id.h), row j at src1 + src1_off[j], its
// results at dst + dst_off[j] (one descriptor per row).
#pragma once
#include <stdint.h>

namespace htp_ops {

struct mm_act_rows {
    uint32_t         i1_0, n, i2, i3;
    const uint32_t * src1_off;
    const uint32_t * dst_off;
};

}  // namespace htp_ops
