// The activation rows one MUL_MAT chunk / pass works on (and the loop over them), the same for the flat HVX, tiled HVX
// and HMX paths: rows [i1_0, i1_0 + n) of plane (i2, i3); or, when src1_off is set (MUL_MAT_ID:
// rows gathered per expert by mm_id_route, mul-mat-id.h), row j at src1 + src1_off[j], its
// results at dst + dst_off[j] (one descriptor per row).
#pragma once
#include <stdint.h>

#include "htp-abi/htp-abi.h"
#include "htp-abi/htp-types.h"
#include "hvx-util.h"

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

// fp16 (BF16 = false) or bf16 -> fp32 in place with hvx-util.h's conversions: the 64 * n_in
// elements of v[0, n_in) become v[0, 2 n_in), last vector first (vector i's outputs overwrite
// vectors 2i and 2i + 1: i itself or vectors already widened). Exact, as ggml-cpu's
// ggml_cpu_fp16_to_fp32 / ggml_cpu_bf16_to_fp32.
template <bool BF16> static inline void mm_widen_in_place(HVX_Vector * v, uint32_t n_in) {
    HTP_NO_UNROLL
    for (uint32_t i = n_in; i-- > 0;) {
        const HVX_Vector     x = hvx_vmem_load(&v[i]);
        const HVX_VectorPair w = BF16 ? bf16_to_f32_pair(x) : f16_scales_f32(x);
        hvx_vmem_store(&v[2 * i], Q6_V_lo_W(w));
        hvx_vmem_store(&v[2 * i + 1], Q6_V_hi_W(w));
    }
}

// The one conversion step of 16-bit activations (htp_mm_act.type F16 / BF16), for every path
// that stages activation rows: the DMA has written each element at half the byte offset the
// path's F32 staging layout gives it (a plain row at the slot's start; the flat path's split
// planes at half their offsets), so widening the slot's first n_in vectors in place leaves the
// F32 layout over 2 n_in vectors, which the path then prepares as an F32 row. F32: nothing.
static inline void mm_widen_staged(HVX_Vector * slot, const htp_mm_act & act, uint32_t n_in) {
    if (act.type == HTP_TYPE_F16) {
        mm_widen_in_place<false>(slot, n_in);
    } else if (act.type == HTP_TYPE_BF16) {
        mm_widen_in_place<true>(slot, n_in);
    }
}

}  // namespace htp_ops
