// F32 rows quantized into the blocks-of-32 formats (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL), and
// through npu/ops/quantize-kquants.h into the K-quants (Q2_K .. Q6_K), through
// npu/ops/quantize-fp4.h into MXFP4 and NVFP4, through npu/ops/quantize-ternary.h into
// TQ1_0 and TQ2_0, as
// SET_ROWS and CPY write them: a row lands in its VTCM dst row as the dense arrays of
// htp_quant_row (abi/include/htp-abi/params/core.h) and quant_row_store joins them into the
// blocks of the DDR row by one 2-D DMA per field.
//
// The roundings are ggml's, bit for bit (tests/kernels/test_npu_ops.cpp checks them against
// ggml's own quantizers): Q4_0 .. Q5_1 and IQ4_NL as quantize_row_*_ref, which ggml-cpu's
// quantize_row_* call; Q8_0 as ggml-cpu's x86 quantize_row_q8_0 (d = amax / 127, quants
// round(x * (127 / amax)) half to even), which is what test-backend-ops compares with. Each
// block's statistics come to a scalar (vextract), its scale and reciprocal are scalar IEEE
// divisions as in the C code, and the block's 32 values are coded in F32 / I32 lanes (HVX
// has no byte arithmetic we need), then packed to bytes.
#pragma once
#include "hvx-math.h"
#include "quant-luts.h"
#include "quantize-fp4.h"
#include "quantize-kquants.h"
#include "quantize-ternary.h"
#include "quantize-lanes.h"
#include "row-stream.h"

namespace htp_ops {

// The F32 scales (or mins) of nb blocks at scr, 32 a vector, to FP16 at out: whole pairs of
// vectors, the odd group's partner zeroed first.
HTP_INLINE void quant_scales_to_f16(HVX_Vector * out, HVX_Vector * scr, uint32_t nb) {
    const uint32_t groups = (nb + 31) / 32;
    if (groups % 2) {
        hvx_vmem_store(&scr[groups], Q6_V_vzero());
    }
    f32_to_f16_vectors(out, scr, (nb + 63) / 64);
}

// The value of largest magnitude, the first of them (quantize_row_q4_0_ref's `max`: its strict
// comparison keeps the first; +0 when every value is zero). idx: lane_index().
HTP_INLINE float first_absmax_sf(HVX_Vector x, HVX_Vector idx) {
    const HVX_Vector a = Q6_V_vand_VV(x, Q6_V_vsplat_R(0x7fffffff));
    HVX_Vector       m = a;  // float bits without the sign order like their integers
    for (int s = 64; s >= 4; s >>= 1) {
        m = Q6_Vw_vmax_VwVw(m, Q6_V_vror_VR(m, s));
    }
    HVX_Vector k = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(a, m), idx, Q6_V_vsplat_R(32));
    for (int s = 64; s >= 4; s >>= 1) {
        k = Q6_Vw_vmin_VwVw(k, Q6_V_vror_VR(k, s));
    }
    if (Q6_R_vextract_VR(m, 0) == 0) {
        return 0.0f;
    }
    return lane_f32(x, (uint32_t) Q6_R_vextract_VR(k, 0));
}

// Smallest and largest value (the order key of hvx-math.h: an integer min / max tree).
HTP_INLINE void min_max_sf(HVX_Vector x, float & mn, float & mx) {
    const HVX_Vector k  = sf_key(x);
    HVX_Vector       lo = k, hi = k;
    for (int s = 64; s >= 4; s >>= 1) {
        lo = Q6_Vw_vmin_VwVw(lo, Q6_V_vror_VR(lo, s));
        hi = Q6_Vw_vmax_VwVw(hi, Q6_V_vror_VR(hi, s));
    }
    mn = lane0_f32(sf_key(lo));
    mx = lane0_f32(sf_key(hi));
}

// ((t0 + t1) + t2) + ... + t31 in lane 0, in the order of a C loop (IQ4_NL's sums).
HTP_INLINE float ordered_sum_sf(HVX_Vector t) {
    HVX_Vector s = t;
    HTP_NO_UNROLL
    for (int32_t j = 1; j < 32; j++) {
        s = Q6_Vsf_vadd_VsfVsf(s, Q6_V_vror_VR(t, 4 * j));
    }
    return lane0_f32(s);
}

// One block's codes (32 words) and its scalars, per format. d: the scale, m: the min (Q4_1,
// Q5_1); the 5-bit codes keep their fifth bit (bit 4).
struct block_q4_0_codes {
    static HTP_INLINE HVX_Vector codes(HVX_Vector x, HVX_Vector idx, float & d, float &) {
        d              = first_absmax_sf(x, idx) / -8;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        const HVX_Vector t = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(x, splat_f32(id)), splat_f32(8.5f));
        return Q6_Vw_vmin_VwVw(trunc_code(t), Q6_V_vsplat_R(15));
    }
};

struct block_q5_0_codes {
    static HTP_INLINE HVX_Vector codes(HVX_Vector x, HVX_Vector idx, float & d, float &) {
        d              = first_absmax_sf(x, idx) / -16;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        const HVX_Vector t = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(x, splat_f32(id)), splat_f32(16.5f));
        return Q6_Vw_vmin_VwVw(trunc_code(t), Q6_V_vsplat_R(31));
    }
};

// Q4_1 (MAXQ 15, clamped) and Q5_1 (MAXQ 31: its C code casts without a clamp; the codes cannot
// pass 31).
template <int MAXQ> struct block_min_codes {
    static HTP_INLINE HVX_Vector codes(HVX_Vector x, HVX_Vector, float & d, float & m) {
        float mx;
        min_max_sf(x, m, mx);
        d              = (mx - m) / MAXQ;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        const HVX_Vector t =
            Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vsub_VsfVsf(x, splat_f32(m)), splat_f32(id)), splat_f32(0.5f));
        return MAXQ == 15 ? Q6_Vw_vmin_VwVw(trunc_code(t), Q6_V_vsplat_R(15)) : trunc_code(t);
    }
};

// IQ4_NL as quantize_row_iq4_nl_ref (no importance weights, no scale search): d0 = max / -127,
// each value's code the nearest of kvalues_iq4nl to x / d0 (iq4nl_nearest), then the scale
// that fits those codes best with weights x^2, d = sum(w q x) / sum(w q^2), summed in element
// order. A block whose |x| stays below 1e-15 gets d = 0 (its codes do not matter: they decode
// to 0).
struct block_iq4_nl_codes {
    static HTP_INLINE HVX_Vector codes(HVX_Vector x, HVX_Vector idx, float & d, float &) {
        const float max = first_absmax_sf(x, idx);
        d               = 0.0f;
        if (__builtin_fabsf(max) < 1e-15f) {
            return Q6_V_vzero();
        }
        const float      id = 1.0f / (max / -127.0f);
        HVX_Vector       q;
        const HVX_Vector l     = iq4nl_nearest(Q6_Vsf_vmpy_VsfVsf(x, splat_f32(id)), q);
        const HVX_Vector wq    = Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(x, x), q);
        const float      sumqx = ordered_sum_sf(Q6_Vsf_vmpy_VsfVsf(wq, x));
        const float      sumq2 = ordered_sum_sf(Q6_Vsf_vmpy_VsfVsf(wq, q));
        d                      = sumq2 > 0 ? sumqx / sumq2 : 0.0f;
        return l;
    }
};

// A row of the 4-bit index formats (Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL) from nb blocks of F32 at x,
// block by block (compute_quant_row_scales converts the scales after). MIN: mins too; HIGH:
// the fifth bits.
template <class B, bool MIN, bool HIGH>
HTP_COMPUTE void compute_quant_row_4bit(const HVX_Vector * x, HVX_Vector * y, const htp_quant_row * L) {
    const quant_row_arrays a(y, *L);
    const uint32_t         nb  = L->n_blocks;
    const HVX_Vector       idx = lane_index();
    piece_collector<16>    qc  = { Q6_V_vzero() };
    piece_collector<4>     dc = { Q6_V_vzero() }, mc = { Q6_V_vzero() }, hc = { Q6_V_vzero() };
    HTP_NO_UNROLL
    for (uint32_t b = 0; b < nb; b++) {
        float            d = 0.0f, m = 0.0f;
        const HVX_Vector c = B::codes(hvx_vmem_load(&x[b]), idx, d, m);
        qc.push(nibble_bytes(c), a.quants, b, nb);
        dc.push(splat_f32(d), a.dscr, b, nb);
        if (MIN) {
            mc.push(splat_f32(m), a.mscr, b, nb);
        }
        if (HIGH) {  // qh bit k: code k's bit 4
            const HVX_Vector bit4 = Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(c, 4), Q6_V_vsplat_R(1));
            HVX_Vector       h    = Q6_V_vand_VV(Q6_Vw_vsub_VwVw(Q6_V_vzero(), bit4), hvx_vmem_load_at(kLanePow2.v));
            for (int s = 64; s >= 4; s >>= 1) {
                h = Q6_V_vor_VV(h, Q6_V_vror_VR(h, s));
            }
            hc.push(h, a.high, b, nb);
        }
    }
}

// x * 127 / amax rounded half to even (adding 1.5 * 2^23 leaves the rounded integer in the low
// bits); d = amax / 127.
HTP_INLINE HVX_Vector q8_0_codes(HVX_Vector x, float & d) {
    const float amax = max_abs_sf(&x, 1);
    d                = amax / 127.f;
    const float      id    = amax != 0.0f ? 127.f / amax : 0.0f;
    const HVX_Vector magic = splat_f32(12582912.0f);
    return Q6_Vw_vsub_VwVw(Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(x, splat_f32(id)), magic), magic);
}

// A Q8_0 row, block by block.
static HTP_COMPUTE void compute_quant_row_q8_0(const HVX_Vector * x, HVX_Vector * y, const htp_quant_row * L) {
    const quant_row_arrays a(y, *L);
    const uint32_t         nb = L->n_blocks;
    piece_collector<32>    qc = { Q6_V_vzero() };
    piece_collector<4>     dc = { Q6_V_vzero() };
    HTP_NO_UNROLL
    for (uint32_t b = 0; b < nb; b++) {
        float            d = 0.0f;
        const HVX_Vector c = q8_0_codes(hvx_vmem_load(&x[b]), d);
        qc.push(word_bytes(c), a.quants, b, nb);
        dc.push(splat_f32(d), a.dscr, b, nb);
    }
}

// lane 0: s + t0 + t1 + ... + t31, added in that order (a C loop's sum carried across vectors).
HTP_INLINE HVX_Vector ordered_add_sf(HVX_Vector s, HVX_Vector t) {
    HTP_NO_UNROLL
    for (int32_t j = 0; j < 32; j++) {
        s = Q6_Vsf_vadd_VsfVsf(s, Q6_V_vror_VR(t, 4 * j));
    }
    return s;
}

// The OR of lanes l .. l + 16 / (n lanes) in lane l (a rotate-or tree over n = 32 or 16 lanes).
template <int N> HTP_INLINE HVX_Vector or_lanes(HVX_Vector h) {
    for (int s = 2 * N; s >= 4; s >>= 1) {
        h = Q6_V_vor_VV(h, Q6_V_vror_VR(h, s));
    }
    return h;
}

// Q1_0 as quantize_row_q1_0_ref (blocks of 128, 4 vectors): d = sum |x| / 128, summed in
// element order (/ 128 exact as * 2^-7), bit j = x_j >= 0 (-0 too), 16 bytes.
static HTP_COMPUTE void compute_quant_row_q1_0(const HVX_Vector * x, HVX_Vector * y, const htp_quant_row * L) {
    const quant_row_arrays a(y, *L);
    const uint32_t         nb   = L->n_blocks;
    const HVX_Vector       pow2 = hvx_vmem_load_at(kLanePow2.v);
    piece_collector<16>    qc   = { Q6_V_vzero() };
    piece_collector<4>     dc   = { Q6_V_vzero() };
    HTP_NO_UNROLL
    for (uint32_t b = 0; b < nb; b++) {
        HVX_Vector s = Q6_V_vzero(), bits = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t v = 0; v < 4; v++) {
            const HVX_Vector     xv = hvx_vmem_load(&x[4 * b + v]);
            const HVX_VectorPred ge = Q6_Q_or_QQ(Q6_Q_vcmp_gt_VwVw(xv, Q6_V_vsplat_R(-1)),
                                                 Q6_Q_vcmp_eq_VwVw(xv, Q6_V_vsplat_R((int32_t) 0x80000000)));
            s    = ordered_add_sf(s, sf_abs(xv));
            bits = Q6_V_valign_VVR(or_lanes<32>(Q6_V_vand_VV(Q6_V_vand_QR(ge, -1), pow2)), bits, 4);
        }
        dc.push(Q6_Vsf_vmpy_VsfVsf(s, splat_f32(0.0078125f)), a.dscr, b, nb);
        qc.push(Q6_V_vror_VR(bits, 112), a.quants, b, nb);
    }
}

// Q2_0 as quantize_row_q2_0_ref (blocks of 64, 2 vectors): d = max |x|, codes roundf(x / d) + 1
// (ternary_codes), 2 bits each, 4 a byte, 16 bytes.
static HTP_COMPUTE void compute_quant_row_q2_0(const HVX_Vector * x, HVX_Vector * y, const htp_quant_row * L) {
    const quant_row_arrays a(y, *L);
    const uint32_t         nb   = L->n_blocks;
    const HVX_Vector       pow4 = hvx_vmem_load_at(kLanePow4.v);
    const HVX_VectorPred   lane1 = Q6_Q_vcmp_eq_VwVw(lane_index(), Q6_V_vsplat_R(1));
    piece_collector<8>     qc = { Q6_V_vzero() };
    piece_collector<4>     dc = { Q6_V_vzero() };
    HTP_NO_UNROLL
    for (uint32_t b = 0; b < nb; b++) {
        const float amax = max_abs_sf(&x[2 * b], 2);
        const float id   = amax > 0.0f ? 1.0f / amax : 0.0f;
        HTP_NO_UNROLL
        for (uint32_t v = 0; v < 2; v++) {
            const HVX_Vector q = ternary_codes(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(&x[2 * b + v]), splat_f32(id)));
            HVX_Vector       h = Q6_V_vand_VV(Q6_Vw_vsub_VwVw(Q6_V_vzero(), Q6_V_vand_VV(q, Q6_V_vsplat_R(1))), pow4);
            h = Q6_V_vor_VV(h, Q6_V_vand_VV(Q6_Vw_vsub_VwVw(Q6_V_vzero(), Q6_Vuw_vlsr_VuwR(q, 1)), Q6_Vw_vasl_VwR(pow4, 1)));
            h = or_lanes<16>(h);
            qc.push(Q6_V_vmux_QVV(lane1, Q6_V_vror_VR(h, 60), h), a.quants, 2 * b + v, 2 * nb);
        }
        dc.push(splat_f32(amax), a.dscr, b, nb);
    }
}

// The F32 scales (and mins) a row's blocks left in the scratch, to FP16: after the blocks, in
// a function of its own (its conversion loops kept apart from the block loop's registers).
static HTP_COMPUTE void compute_quant_row_scales(HVX_Vector * y, const htp_quant_row * L) {
    const quant_row_arrays a(y, *L);
    quant_scales_to_f16(a.scales, a.dscr, L->n_blocks);
    if (L->v_mins) {
        quant_scales_to_f16(a.mins, a.mscr, L->n_blocks);
    }
}

// n rows of F32 (x, px vectors apart) quantized to type into VTCM dst rows (y, py apart): one
// row loop per type. The blocks of 32 / 64 / 128 then turn their F32 scale scratch into FP16;
// the K-quants (SCALES false) write their header bytes whole.
template <bool SCALES = true, class R>
HTP_INLINE void quantize_rows_with(R row, const HVX_Vector * x, uint32_t px, HVX_Vector * y, uint32_t py, uint32_t n,
                                   const htp_quant_row * L) {
    HTP_NO_UNROLL
    for (uint32_t j = 0; j < n; j++) {
        row(x + j * px, y + j * py, L);
        if (SCALES) {
            compute_quant_row_scales(y + j * py, L);
        }
    }
}

static inline void quantize_rows(uint32_t type, const HVX_Vector * x, uint32_t px, HVX_Vector * y, uint32_t py,
                                 uint32_t n, const htp_quant_row * L) {
    switch (type) {
        case HTP_TYPE_Q8_0:
            quantize_rows_with(compute_quant_row_q8_0, x, px, y, py, n, L);
            break;
        case HTP_TYPE_Q4_0:
            quantize_rows_with(compute_quant_row_4bit<block_q4_0_codes, false, false>, x, px, y, py, n, L);
            break;
        case HTP_TYPE_Q4_1:
            quantize_rows_with(compute_quant_row_4bit<block_min_codes<15>, true, false>, x, px, y, py, n, L);
            break;
        case HTP_TYPE_Q5_0:
            quantize_rows_with(compute_quant_row_4bit<block_q5_0_codes, false, true>, x, px, y, py, n, L);
            break;
        case HTP_TYPE_Q5_1:
            quantize_rows_with(compute_quant_row_4bit<block_min_codes<31>, true, true>, x, px, y, py, n, L);
            break;
        case HTP_TYPE_IQ4_NL:
            quantize_rows_with(compute_quant_row_4bit<block_iq4_nl_codes, false, false>, x, px, y, py, n, L);
            break;
        case HTP_TYPE_Q1_0:
            quantize_rows_with(compute_quant_row_q1_0, x, px, y, py, n, L);
            break;
        case HTP_TYPE_Q2_0:
            quantize_rows_with(compute_quant_row_q2_0, x, px, y, py, n, L);
            break;
        case HTP_TYPE_MXFP4:
            quantize_rows_with<false>(compute_quant_row_mxfp4, x, px, y, py, n, L);
            break;
        case HTP_TYPE_NVFP4:
            quantize_rows_with<false>(compute_quant_row_nvfp4, x, px, y, py, n, L);
            break;
        case HTP_TYPE_TQ2_0:
            quantize_rows_with(compute_quant_row_tq2_0, x, px, y, py, n, L);
            break;
        case HTP_TYPE_TQ1_0:
            quantize_rows_with(compute_quant_row_tq1_0, x, px, y, py, n, L);
            break;
        case HTP_TYPE_Q4_K:
            quantize_rows_with<false>(compute_kquant_row<kquant_k32<15>>, x, px, y, py, n, L);
            break;
        case HTP_TYPE_Q5_K:
            quantize_rows_with<false>(compute_kquant_row<kquant_k32<31>>, x, px, y, py, n, L);
            break;
        case HTP_TYPE_Q6_K:
            quantize_rows_with<false>(compute_kquant_row<kquant_q6_k>, x, px, y, py, n, L);
            break;
        case HTP_TYPE_Q2_K:
            quantize_rows_with<false>(compute_kquant_row<kquant_q2_k>, x, px, y, py, n, L);
            break;
        case HTP_TYPE_Q3_K:
            quantize_rows_with<false>(compute_kquant_row<kquant_q3_k>, x, px, y, py, n, L);
            break;
        default:  // HTP_TYPE_IQ4_XS
            quantize_rows_with<false>(compute_kquant_row<kquant_iq4_xs>, x, px, y, py, n, L);
            break;
    }
}

// The DMAs that join a quantized VTCM row at v into the blocks of the DDR row at d, one per
// field; false when the queue refused one.
static inline bool quant_row_store(dma_queue * q, dma_addr_t d, dma_addr_t v, const htp_quant_row & L) {
    for (uint32_t f = 0; f < L.n_fields; f++) {
        const htp_block_field & fd = L.field[f];
        if (!dma_queue_push(q, d + fd.src_off, v + fd.vtcm_off, L.block_bytes, fd.vtcm_step, fd.bytes, L.n_blocks)) {
            return false;
        }
    }
    return true;
}

}  // namespace htp_ops
