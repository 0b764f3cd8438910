// F32 rows quantized into the K-quants Q2_K .. Q6_K (super-blocks of 256) as SET_ROWS and CPY
// write them, bit for bit ggml's quantize_row_*_ref (ggml/src/ggml-quants.c; checked by
// tests/kernels/test_npu_ops.cpp against ggml's own). A row goes 32 vectors (32 sub-blocks of
// 32, or 64 of 16: 4 super-blocks) at a time, a "group": transposed (npu/ops/transpose.h) so
// that a lane is a sub-block and row i its element i (sub-blocks of 16: rows 0..15 the even
// ones, 16..31 the odd), the scale search runs on the lanes (npu/ops/quantize-search.h), the
// super-block step is scalar per super-block (npu/ops/quantize-kscales.h), the codes are redone
// with the rounded scales lane by lane, transposed back (a row per 32 values) and packed.
// The group scratch lives at the row's v_dscratch (htp_quant_row): element rows, best codes,
// trial codes (32 vectors each) and the lane vectors. Packed blocks go to dense arrays that
// quant_row_store's DMAs join: the quants (Q2_K / Q3_K 64 bytes a super-block, the others
// 128), the high bits (Q3_K's hmask and Q5_K's qh 32 bytes, Q6_K's qh 64) and the header
// bytes (scales, d, dmin: npu/ops/quantize-kscales.h), those not a whole vector by unaligned
// stores (their arrays end with 128 bytes of slack).
#pragma once
#include "quantize-kscales.h"
#include "quantize-search.h"
#include "transpose.h"

namespace htp_ops {

// Vectors of the group scratch (htp_quant_row v_dscratch; host/ops/encode-util.cpp sizes it).
static_assert(HTP_QUANT_ROW_KQ_SCRATCH == 106, "the scratch below: 3 x 32 rows and 10 lane vectors");
enum : uint32_t {
    kKqRows  = 0,   // element rows of the group's x
    kKqBest  = 32,  // best codes
    kKqAux   = 64,  // trial codes, then the final ones
    kKqLanes = 96,  // lane values, a pair per quantity (set A: sub-blocks of 32, or the even ones of
                    // 16; set B: the odd ones): +0/+1 scales, +2/+3 mins (the_min), +4/+5 rounded d,
                    // +6/+7 rounded dm, +8 the weights' av, +9 the zero mask (Q6_K's zero super-blocks)
};

// The group's 32 vectors of x (fewer at a row's end: the last one repeated, its lanes unused).
HTP_INLINE void kq_load_group(HVX_Vector * s, const HVX_Vector * x, uint32_t left) {
    HTP_NO_UNROLL
    for (uint32_t v = 0; v < 32; v++) {
        hvx_vmem_store(&s[v], hvx_vmem_load(&x[v < left ? v : left - 1]));
    }
}

// Q4_K / Q5_K weights: av = sqrtf(sum_x2 / 32), sum_x2 = sum x * x in element order.
static HTP_COMPUTE void compute_k32_weights(HVX_Vector * s) {
    HVX_Vector sum = Q6_V_vzero();
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < 32; i++) {
        const HVX_Vector xi = hvx_vmem_load(&s[kKqRows + i]);
        sum                 = Q6_Vsf_vadd_VsfVsf(sum, Q6_Vsf_vmpy_VsfVsf(xi, xi));
    }
    hvx_vmem_store(&s[kKqLanes + 8], sqrt_lanes(Q6_Vsf_vmpy_VsfVsf(sum, splat_f32(0.03125f))));  // / 32: exact
}

// The final codes with the rounded scales: clamp(nearest_int(x / d), LO, HI) + OFF, MIN:
// (x + dm) / d; where d = 0 the search's codes stay; a zero super-block's are 0. Rows below
// set_rows take the set A lanes (d +4, dm +6), the others set B (+5, +7).
template <int LO, int HI, int OFF, bool MIN> static HTP_COMPUTE void compute_kq_codes(HVX_Vector * s, uint32_t set_rows) {
    const HVX_Vector keep = Q6_V_vnot_V(hvx_vmem_load(&s[kKqLanes + 9]));
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < 32; i++) {
        const uint32_t   set = i < set_rows ? 0 : 1;
        const HVX_Vector d   = hvx_vmem_load(&s[kKqLanes + 4 + set]);
        HVX_Vector       x   = hvx_vmem_load(&s[kKqRows + i]);
        if (MIN) {
            x = Q6_Vsf_vadd_VsfVsf(x, hvx_vmem_load(&s[kKqLanes + 6 + set]));
        }
        const HVX_Vector l = Q6_Vw_vadd_VwVw(clamp_w(nearest_int_sf(div_lanes(x, d)), LO, HI), Q6_V_vsplat_R(OFF));
        const HVX_Vector c = Q6_V_vmux_QVV(eq_sf(d, Q6_V_vzero()), hvx_vmem_load(&s[kKqBest + i]), l);
        hvx_vmem_store(&s[kKqAux + i], Q6_V_vand_VV(c, keep));
    }
}

// Q4_K / Q5_K quants of the group's super-blocks from their code rows c (8 a super-block):
// byte l of part p = code l of sub-block 2p | code l of sub-block 2p + 1 << 4; Q5_K's qh byte
// l: bit s = bit 4 of sub-block s's code l.
template <bool HIGH>
static HTP_COMPUTE void compute_k32_pack(const HVX_Vector * c, HVX_Vector * quants, uint8_t * high, uint32_t sb0,
                                         uint32_t nb) {
    const HVX_Vector lo4 = Q6_V_vsplat_R(0xF);
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4 && sb0 + k < nb; k++) {
        const HVX_Vector * r = c + 8 * k;
        HVX_Vector         q = Q6_V_vzero(), h = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t p = 0; p < 4; p++) {
            const HVX_Vector a = hvx_vmem_load(&r[2 * p]), b = hvx_vmem_load(&r[2 * p + 1]);
            q = Q6_V_valign_VVR(word_bytes(Q6_V_vor_VV(Q6_V_vand_VV(a, lo4), Q6_Vw_vasl_VwR(Q6_V_vand_VV(b, lo4), 4))), q, 32);
            if (HIGH) {
                h = Q6_V_vor_VV(h, Q6_Vw_vasl_VwR(Q6_Vuw_vlsr_VuwR(a, 4), (int32_t) (2 * p)));
                h = Q6_V_vor_VV(h, Q6_Vw_vasl_VwR(Q6_Vuw_vlsr_VuwR(b, 4), (int32_t) (2 * p + 1)));
            }
        }
        hvx_vmem_store(&quants[sb0 + k], q);
        if (HIGH) {
            hvx_vmemu_store(high + 32 * (sb0 + k), word_bytes(h));
        }
    }
}

// Q6_K quants from the code rows c (8 a super-block, row r = values 32 r ..): per half h,
// ql = rows 4h | 4h + 2 << 4, then 4h + 1 | 4h + 3 << 4 (low nibbles); qh = the four rows'
// bits 4-5 at 0, 2, 4, 6.
static HTP_COMPUTE void compute_q6_k_pack(const HVX_Vector * c, HVX_Vector * quants, uint8_t * high, uint32_t sb0,
                                          uint32_t nb) {
    const HVX_Vector lo4 = Q6_V_vsplat_R(0xF);
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4 && sb0 + k < nb; k++) {
        HVX_Vector ql = Q6_V_vzero(), qh = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t h = 0; h < 2; h++) {
            const HVX_Vector * r  = c + 8 * k + 4 * h;
            const HVX_Vector   a0 = hvx_vmem_load(&r[0]), a1 = hvx_vmem_load(&r[1]);
            const HVX_Vector   a2 = hvx_vmem_load(&r[2]), a3 = hvx_vmem_load(&r[3]);
            ql = Q6_V_valign_VVR(word_bytes(Q6_V_vor_VV(Q6_V_vand_VV(a0, lo4), Q6_Vw_vasl_VwR(Q6_V_vand_VV(a2, lo4), 4))), ql, 32);
            ql = Q6_V_valign_VVR(word_bytes(Q6_V_vor_VV(Q6_V_vand_VV(a1, lo4), Q6_Vw_vasl_VwR(Q6_V_vand_VV(a3, lo4), 4))), ql, 32);
            const HVX_Vector b = Q6_V_vor_VV(
                Q6_V_vor_VV(Q6_Vuw_vlsr_VuwR(a0, 4), Q6_Vw_vasl_VwR(Q6_Vuw_vlsr_VuwR(a1, 4), 2)),
                Q6_V_vor_VV(Q6_Vw_vasl_VwR(Q6_Vuw_vlsr_VuwR(a2, 4), 4), Q6_Vw_vasl_VwR(Q6_Vuw_vlsr_VuwR(a3, 4), 6)));
            qh = Q6_V_valign_VVR(word_bytes(b), qh, 32);
        }
        hvx_vmem_store(&quants[sb0 + k], ql);
        hvx_vmemu_store(high + 64 * (sb0 + k), Q6_V_vror_VR(qh, 64));
    }
}

// Q2_K / Q3_K quants (2 bits: codes & 3) from the code rows c: per half h, byte l = rows 4h ..
// 4h + 3 at bits 0, 2, 4, 6 (64 bytes a super-block); Q3_K's hmask byte l: bit v = bit 2 of
// row v's code l.
template <bool HMASK>
static HTP_COMPUTE void compute_k2bit_pack(const HVX_Vector * c, uint8_t * quants, uint8_t * high, uint32_t sb0,
                                           uint32_t nb) {
    const HVX_Vector lo2 = Q6_V_vsplat_R(3);
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4 && sb0 + k < nb; k++) {
        HVX_Vector q = Q6_V_vzero(), hm = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t h = 0; h < 2; h++) {
            HVX_Vector b = Q6_V_vzero();
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < 4; j++) {
                const HVX_Vector r = hvx_vmem_load(&c[8 * k + 4 * h + j]);
                b                  = Q6_V_vor_VV(b, Q6_Vw_vasl_VwR(Q6_V_vand_VV(r, lo2), (int32_t) (2 * j)));
                if (HMASK) {
                    const HVX_Vector bit = Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(r, 2), Q6_V_vsplat_R(1));
                    hm                   = Q6_V_vor_VV(hm, Q6_Vw_vasl_VwR(bit, (int32_t) (4 * h + j)));
                }
            }
            q = Q6_V_valign_VVR(word_bytes(b), q, 32);
        }
        hvx_vmemu_store(quants + 64 * (sb0 + k), Q6_V_vror_VR(q, 64));
        if (HMASK) {
            hvx_vmemu_store(high + 32 * (sb0 + k), word_bytes(hm));
        }
    }
}

// The group steps of each type (K::compute_group: the group's element rows at the row's
// scratch, its super-blocks sb0 .. sb0 + 3 of the row's n_blocks).
struct kq_group {
    HVX_Vector *s, *lanes, *quants;
    uint8_t *   scales, *high;
    uint32_t    nb;

    HTP_INLINE kq_group(HVX_Vector * y, const htp_quant_row * L)
        : s(y + L->v_dscratch / 128),
          lanes(s + kKqLanes),
          quants(y + L->v_quants / 128),
          scales((uint8_t *) (y + L->v_scales / 128)),
          high((uint8_t *) (y + L->v_high / 128)),
          nb(L->n_blocks) {}
};

// Q4_K (NMAX 15: make_qkx2_quants(32, 15, .., -1, 0.1, 20)) and Q5_K (31: -0.5, 0.1, 15).
inline constexpr qkx2_params kQkx2Q4K = { 15, -1.0f, 0.1f, 20 };
inline constexpr qkx2_params kQkx2Q5K = { 31, -0.5f, 0.1f, 15 };
inline constexpr qkx2_params kQkx2Q2K = { 3, -0.5f, 0.1f, 15 };

template <int NMAX> struct kquant_k32 {
    static HTP_COMPUTE void compute_group(HVX_Vector * y, const htp_quant_row * L, uint32_t sb0) {
        const kq_group g(y, L);
        compute_k32_weights(g.s);
        compute_qkx2_lanes<false>(g.s + kKqRows, 32, g.lanes + 8, NMAX == 15 ? &kQkx2Q4K : &kQkx2Q5K,
                                  g.s + kKqBest, g.s + kKqAux, g.lanes, 2);
        compute_k32_scales(g.lanes, g.scales, sb0, g.nb);
        compute_kq_codes<0, NMAX, 0, true>(g.s, 32);
        compute_transpose_32x32(g.s + kKqAux, 1, g.s + kKqAux, 1);
        compute_k32_pack<NMAX == 31>(g.s + kKqAux, g.quants, g.high, sb0, g.nb);
    }
};

// Q6_K: make_qx_quants(16, 32, .., 1, NULL) per sub-block of 16.
struct kquant_q6_k {
    static HTP_COMPUTE void compute_group(HVX_Vector * y, const htp_quant_row * L, uint32_t sb0) {
        const kq_group g(y, L);
        compute_qx_lanes(g.s + kKqRows, 16, 32, g.s + kKqBest, g.s + kKqAux, g.lanes);
        compute_qx_lanes(g.s + kKqRows + 16, 16, 32, g.s + kKqBest + 16, g.s + kKqAux + 16, g.lanes + 1);
        compute_q6_k_scales(g.lanes, g.scales, sb0, g.nb);
        compute_kq_codes<-32, 31, 32, false>(g.s, 16);
        compute_transpose_32x32(g.s + kKqAux, 1, g.s + kKqAux, 1);
        compute_q6_k_pack(g.s + kKqAux, g.quants, g.high, sb0, g.nb);
    }
};

// Q2_K: make_qkx2_quants(16, 3, .., weights |x|, -0.5, 0.1, 15, use_mad) per sub-block of 16.
struct kquant_q2_k {
    static HTP_COMPUTE void compute_group(HVX_Vector * y, const htp_quant_row * L, uint32_t sb0) {
        const kq_group g(y, L);
        compute_qkx2_lanes<true>(g.s + kKqRows, 16, nullptr, &kQkx2Q2K, g.s + kKqBest, g.s + kKqAux, g.lanes, 2);
        compute_qkx2_lanes<true>(g.s + kKqRows + 16, 16, nullptr, &kQkx2Q2K, g.s + kKqBest + 16, g.s + kKqAux + 16,
                                 g.lanes + 1, 2);
        compute_q2_k_scales(g.lanes, g.scales, sb0, g.nb);
        compute_kq_codes<0, 3, 0, true>(g.s, 16);
        compute_transpose_32x32(g.s + kKqAux, 1, g.s + kKqAux, 1);
        compute_k2bit_pack<false>(g.s + kKqAux, (uint8_t *) g.quants, nullptr, sb0, g.nb);
    }
};

// Q3_K: make_q3_quants(16, 4, .., true) per sub-block of 16.
struct kquant_q3_k {
    static HTP_COMPUTE void compute_group(HVX_Vector * y, const htp_quant_row * L, uint32_t sb0) {
        const kq_group g(y, L);
        compute_q3_lanes(g.s + kKqRows, 16, 4, g.s + kKqBest, g.lanes);
        compute_q3_lanes(g.s + kKqRows + 16, 16, 4, g.s + kKqBest + 16, g.lanes + 1);
        compute_q3_k_scales(g.lanes, g.scales, sb0, g.nb);
        compute_kq_codes<-4, 3, 4, false>(g.s, 16);
        compute_transpose_32x32(g.s + kKqAux, 1, g.s + kKqAux, 1);
        compute_k2bit_pack<true>(g.s + kKqAux, (uint8_t *) g.quants, g.high, sb0, g.nb);
    }
};

// IQ4_XS codes: the nearest of kvalues_iq4nl to x / (d l) (x times the lanes' 1 / (d l)), and
// the quants of each super-block: its 8 code rows as IQ4_NL's 16 bytes each.
static HTP_COMPUTE void compute_iq4_xs_codes(HVX_Vector * s) {
    const HVX_Vector idl = hvx_vmem_load(&s[kKqLanes + 4]);
    HTP_NO_UNROLL
    for (uint32_t i = 0; i < 32; i++) {
        HVX_Vector q;
        hvx_vmem_store(&s[kKqAux + i], iq4nl_nearest(Q6_Vsf_vmpy_VsfVsf(idl, hvx_vmem_load(&s[kKqRows + i])), q));
    }
}

static HTP_COMPUTE void compute_iq4_xs_pack(const HVX_Vector * c, HVX_Vector * quants, uint32_t sb0, uint32_t nb) {
    HTP_NO_UNROLL
    for (uint32_t k = 0; k < 4 && sb0 + k < nb; k++) {
        HVX_Vector q = Q6_V_vzero();
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < 8; j++) {
            q = Q6_V_valign_VVR(nibble_bytes(hvx_vmem_load(&c[8 * k + j])), q, 16);
        }
        hvx_vmem_store(&quants[sb0 + k], q);
    }
}

// IQ4_XS: quantize_row_iq4_nl_impl(QK_K, 32, .., kvalues_iq4nl, NULL, 7) per super-block.
struct kquant_iq4_xs {
    static HTP_COMPUTE void compute_group(HVX_Vector * y, const htp_quant_row * L, uint32_t sb0) {
        const kq_group g(y, L);
        compute_iq4_lanes(g.s + kKqRows, 32, g.lanes);
        compute_iq4_xs_scales(g.lanes, g.scales, sb0, g.nb);
        compute_iq4_xs_codes(g.s);
        compute_transpose_32x32(g.s + kKqAux, 1, g.s + kKqAux, 1);
        compute_iq4_xs_pack(g.s + kKqAux, g.quants, sb0, g.nb);
    }
};

// A K-quant row of n_blocks super-blocks from F32 at x, a group (4 super-blocks) at a time.
template <class K> static HTP_COMPUTE void compute_kquant_row(const HVX_Vector * x, HVX_Vector * y, const htp_quant_row * L) {
    HVX_Vector *   s  = y + L->v_dscratch / 128;
    const uint32_t nv = 8 * L->n_blocks;
    HTP_NO_UNROLL
    for (uint32_t g = 0; 32 * g < nv; g++) {
        kq_load_group(s, x + 32 * g, nv - 32 * g);
        compute_transpose_32x32(s + kKqRows, 1, s + kKqRows, 1);
        K::compute_group(y, L, 4 * g);
    }
}

}  // namespace htp_ops
