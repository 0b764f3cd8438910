// GET_ROWS to F32 from F32 / F16 / BF16 rows, from the blocks-of-32 quantized rows (Q8_0,
// Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4), from the K-quant rows (Q2_K .. Q6_K, super-blocks
// of 256: compute_kquant_row, which also takes IQ4_XS) and from the rows of one scale field and
// one quant field a block (Q1_0, Q2_0: compute_lowbit_row; NVFP4, TQ1_0, TQ2_0: dequant-lowbit.h)
// and of the IQ codebook types (compute_iq_row, get-rows-iq.h; both headers are shared with
// MUL_MAT's weight prep, npu/ops/mul-mat/mul-mat-flat.h), picked by
// I32 indices (I32 rows: copied). The index
// is a scalar load from DDR (it forms the DMA address); with idx_identity there is none and a
// dst row reads the src0 row of its own coordinates (CPY / CONT / DUP of a block-quantized
// source to F32: host/ops/get-rows.cpp dequant_rows_encode). A quantized row is split by 2-D DMAs
// into dense arrays in VTCM (htp_get_rows_params: scales, mins, fifth bits, quants), laid out
// so that HVX sees each block's 32 values in element order: the 4-bit types' 16 quant bytes
// come twice, the first copy read for its low nibbles (elements 0..15), the second for its
// high nibbles (16..31), as ggml's dequantize_row_* number them.
#include "dequant-lowbit.h"
#include "get-rows-iq.h"
#include "hvx-util.h"
#include "hvx-vmem.h"
#include "op-table.h"
#include "quant-luts.h"
#include "row-stream.h"

using namespace htp_ops;
using lowbit_rows::nibbles;

namespace {

// Byte tables (in .rodata, read by HVX loads).
constexpr byte_perm make_table(int kind) {
    byte_perm t{};
    for (int l = 0; l < 128; l++) {
        switch (kind) {
            case 0:  // the low-nibble half of every 32-byte block
                t.v[l] = (l % 32) < 16 ? 0xff : 0;
                break;
            case 1:  // Q5_*: byte l <- fifth-bit byte (l % 32) / 8 of block l / 32 (4 bytes a block)
                t.v[l] = vlut32_perm_index(4 * (l / 32) + (l % 32) / 8);
                break;
            case 2:  // Q5_*: the bit of that byte element l % 32 takes
                t.v[l] = (uint8_t) (1 << (l % 8));
                break;
            default:  // 3, IQ4_XS: byte l <- quant byte 16 (l / 32) + l % 16 (sub-block l / 32's 16 bytes twice)
                t.v[l] = vlut32_perm_index(16 * (l / 32) + l % 16);
                break;
        }
    }
    return t;
}

constexpr byte_perm kLowHalf    = make_table(0);
constexpr byte_perm kHighIdx    = make_table(1);
constexpr byte_perm kHighBit    = make_table(2);
constexpr byte_perm kIq4xsIdx   = make_table(3);

// MXFP4's E8M0 scale byte e as ggml_e8m0_to_fp32_half, splatted.
inline HVX_Vector e8m0_half(uint32_t e) {
    return Q6_V_vsplat_R((int32_t) e8m0_half_bits(e));
}

struct get_rows_op : row_op<htp_get_rows_params> {
    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c = row_coords(p->shape, r);  // (i10, i11, i12); a chunk stays in one plane
        const dma_addr_t v = vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot);
        for (uint32_t j = 0; j < n; j++) {
            // idx_identity (a CPY of a quantized source): src0's own row, no index tensor
            const uint32_t   row = p->idx_identity ? c.i1 + j
                                                   : (uint32_t) *(const int32_t *) htp_va(
                                                         octx->src[1].data + row_offset(p->idx, c.i1 + j, c.i2, c.i3));
            const dma_addr_t s   = octx->src[0].data + row_offset(p->src0, row, c.i2, c.i3);
            const dma_addr_t vj  = v + j * p->vsrc.row_pitch;
            if (p->n_fields == 0) {
                if (!dma_queue_push_1d(q, vj, s, p->src_row_bytes)) {
                    return -1;
                }
                continue;
            }
            for (uint32_t f = 0; f < p->n_fields; f++) {
                const htp_block_field & fd = p->field[f];
                if (!dma_queue_push(q, vj + fd.vtcm_off, s + fd.src_off, fd.vtcm_step, p->block_bytes, fd.bytes,
                                    p->n_blocks)) {
                    return -1;
                }
            }
        }
        return (int) (p->n_fields == 0 ? n : n * p->n_fields);
    }

    // Q5_0 / Q5_1: the fifth bit (0x10) of blocks b0..b0+3's elements.
    static HVX_Vector fifth_bits(const uint8_t * high, uint32_t b0, HVX_Vector idx, HVX_Vector bit) {
        const HVX_Vector h   = hvx_vmem_load((const HVX_Vector *) high + b0 / 32);
        const HVX_Vector sel = permute_bytes(Q6_V_vror_VR(h, (int32_t) (4 * b0 % 128)), idx);
        return Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VbVb(Q6_V_vand_VV(sel, bit), bit), Q6_V_vsplat_R(0x10101010), Q6_V_vzero());
    }

    // One row of a 4-bit / 5-bit type with FP16 scales: Q4_0 and IQ4_NL <false, false>, Q4_1
    // <true, false>, Q5_0 <false, true>, Q5_1 <true, true>. One instance per type, so a loop
    // keeps live only its own type's tables; each block's scale (and min) is splatted as it is
    // used, not four at a time (tools.inspect_spills_gate).
    template <bool kHasMin, bool kFive> HTP_COMPUTE void compute_nibble_row(HVX_Vector * y, const uint8_t * x) const {
        const HVX_Vector low_half = hvx_vmem_load((const HVX_Vector *) kLowHalf.v);
        // the value of a code: Q4_0 code - 8, Q5_0 code - 16, IQ4_NL its table; the types with
        // a min keep the code
        const HVX_Vector lut    = hvx_vmem_load_at(p->src_type == HTP_TYPE_Q4_0 ? kLutQ4_0
                                                   : (p->src_type == HTP_TYPE_Q5_0 ? kLutQ5_0 : kLutIq4nl));
        const HVX_Vector bcast0 = hvx_vmem_load((const HVX_Vector *) kWordBcast0.v);
        const HVX_Vector * scales = (const HVX_Vector *) (x + p->v_scales);
        const HVX_Vector * mins   = (const HVX_Vector *) (x + p->v_mins);
        const HVX_Vector * quants = (const HVX_Vector *) (x + p->v_quants);
        HVX_VectorPair     d      = f16_scales_f32(hvx_vmem_load(&scales[0]));
        HVX_VectorPair     m      = kHasMin ? f16_scales_f32(hvx_vmem_load(&mins[0])) : d;
        HTP_NO_UNROLL
        for (uint32_t b0 = 0; b0 < p->n_blocks; b0 += 4) {
            if ((b0 & 63) == 0) {
                d = f16_scales_f32(hvx_vmem_load(&scales[b0 / 64]));
                if (kHasMin) {
                    m = f16_scales_f32(hvx_vmem_load(&mins[b0 / 64]));
                }
            }
            HVX_Vector v = nibbles(hvx_vmem_load(&quants[b0 / 4]), low_half);
            if (kFive) {
                v = Q6_V_vor_VV(v, fifth_bits(x + p->v_high, b0, hvx_vmem_load((const HVX_Vector *) kHighIdx.v),
                                              hvx_vmem_load((const HVX_Vector *) kHighBit.v)));
            }
            if (!kHasMin) {
                v = Q6_Vb_vlut32_VbVbR(v, lut, 0);
            }
            HVX_Vector f[4];
            i8_to_f32_vectors4(v, f);
            for (uint32_t k = 0; k < 4; k++) {
                HVX_Vector r = Q6_Vsf_vmpy_VsfVsf(f[k], block_bcast(d, b0 + k, bcast0));
                if (kHasMin) {
                    r = Q6_Vsf_vadd_VsfVsf(r, block_bcast(m, b0 + k, bcast0));
                }
                hvx_vmem_store(&y[b0 + k], r);
            }
        }
    }

    // One MXFP4 row: E8M0 scale bytes (dense), doubled quant bytes.
    HTP_COMPUTE void compute_mxfp4_row(HVX_Vector * y, const uint8_t * x) const {
        const HVX_Vector   low_half = hvx_vmem_load((const HVX_Vector *) kLowHalf.v);
        const HVX_Vector   lut      = hvx_vmem_load_at(kLutMxfp4x2);
        const HVX_Vector * scales   = (const HVX_Vector *) (x + p->v_scales);
        const HVX_Vector * quants   = (const HVX_Vector *) (x + p->v_quants);
        HTP_NO_UNROLL
        for (uint32_t b0 = 0; b0 < p->n_blocks; b0 += 4) {
            const HVX_Vector v = Q6_Vb_vlut32_VbVbR(nibbles(hvx_vmem_load(&quants[b0 / 4]), low_half), lut, 0);
            // the 4 scale bytes of blocks b0..b0+3 are one word (b0 % 4 == 0)
            const uint32_t   e  = (uint32_t) Q6_R_vextract_VR(hvx_vmem_load(&scales[b0 / 128]), (int32_t) (b0 % 128));
            HVX_Vector       f[4];
            i8_to_f32_vectors4(v, f);
            for (uint32_t k = 0; k < 4; k++) {
                hvx_vmem_store(&y[b0 + k], Q6_Vsf_vmpy_VsfVsf(f[k], e8m0_half((e >> (8 * k)) & 0xff)));
            }
        }
    }

    // K-quant super-block m's 256 codes in element order, c[0] elements 0..127, c[1]
    // 128..255, as int8 with value = scale * code (- min): Q2_K 0..3, Q3_K -4..3, Q4_K 0..15,
    // Q5_K 0..31, Q6_K -32..31, IQ4_XS its kLutIq4nl values (dequantize_row_q*_K's element numbering; the bit fields of a
    // group of 32 elements sit in one 32-byte quarter, made by rep_quarter / quarter_lsr; the
    // biased codes go through kLutQ3_K / kLutQ6_K). qs: the low bits, hs: the high bits.
    template <uint32_t T>
    static void kquant_codes(const HVX_Vector * qs, const HVX_Vector * hs, uint32_t m, HVX_Vector c[2]) {
        const HVX_Vector     m4  = Q6_V_vsplat_R(0x0f0f0f0f);
        const HVX_Vector     one = Q6_V_vsplat_R(0x01010101);
        const HVX_Vector     m2  = Q6_V_vsplat_R(0x03030303);
        const HVX_VectorPred q64 = Q6_Q_vsetq_R(64);
        if (T == HTP_TYPE_Q2_K || T == HTP_TYPE_Q3_K) {  // qs: 64 bytes, element 128h + 32j + l: qs[32h + l] bits 2j
            const HVX_Vector v = hvx_vmem_load(&qs[m / 2]);
            for (uint32_t h = 0; h < 2; h++) {
                c[h] = Q6_V_vand_VV(quarter_lsr(rep_quarter(v, 2 * (m % 2) + h), 0, 2), m2);
            }
            if (T == HTP_TYPE_Q3_K) {  // hmask: 32 bytes, bit 4h + j of byte l; clear: - 4
                const HVX_Vector lut = hvx_vmem_load((const HVX_Vector *) kLutQ3_K.v);
                const HVX_Vector hm  = rep_quarter(hvx_vmem_load(&hs[m / 4]), m % 4);
                for (uint32_t h = 0; h < 2; h++) {
                    const HVX_Vector bit = Q6_V_vand_VV(quarter_lsr(hm, (int32_t) (4 * h), 1), one);
                    c[h] = Q6_Vb_vlut32_VbVbR(Q6_V_vor_VV(c[h], Q6_Vh_vasl_VhR(bit, 2)), lut, 0);
                }
            }
        } else if (T == HTP_TYPE_IQ4_XS) {  // qs: 128 bytes, 16 per 32-element sub-block (IQ4_NL's order)
            const HVX_Vector q   = hvx_vmem_load(&qs[m]);
            const HVX_Vector idx = hvx_vmem_load((const HVX_Vector *) kIq4xsIdx.v);
            const HVX_Vector low = hvx_vmem_load((const HVX_Vector *) kLowHalf.v);
            const HVX_Vector lut = hvx_vmem_load_at(kLutIq4nl);
            for (uint32_t h = 0; h < 2; h++) {  // sources 64h + ...: index + 32 in every byte (vlut32_perm_index)
                const HVX_Vector ih = Q6_Vh_vadd_VhVh(idx, Q6_V_vsplat_R((int32_t) (0x20202020u * h)));
                c[h] = Q6_Vb_vlut32_VbVbR(nibbles(permute_bytes(q, ih), low), lut, 0);
            }
        } else if (T == HTP_TYPE_Q6_K) {  // ql: 128 bytes; element 128h + b: ql[64h + b % 64], low nibble for b < 64
            const HVX_Vector ql = hvx_vmem_load(&qs[m]);
            const HVX_Vector qr = Q6_V_vror_VR(ql, 64);
            c[0] = Q6_V_vmux_QVV(q64, Q6_V_vand_VV(ql, m4), Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(qr, 4), m4));
            c[1] = Q6_V_vmux_QVV(q64, Q6_V_vand_VV(qr, m4), Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(ql, 4), m4));
            const HVX_Vector qh  = hvx_vmem_load(&hs[m / 2]);  // 64 bytes: qh[32h + l] bits 2 * quarter
            const HVX_Vector lut = hvx_vmem_load((const HVX_Vector *) kLutQ6_K.v);
            for (uint32_t h = 0; h < 2; h++) {
                const HVX_Vector hi = Q6_V_vand_VV(quarter_lsr(rep_quarter(qh, 2 * (m % 2) + h), 0, 2), m2);
                const HVX_Vector k  = Q6_V_vor_VV(c[h], Q6_Vh_vasl_VhR(hi, 4));
                c[h] = Q6_V_vor_VV(Q6_Vb_vlut32_VbVbR(k, lut, 0), Q6_Vb_vlut32_VbVbR(k, lut, 1));
            }
        } else {  // Q4_K / Q5_K: qs 128 bytes, byte 32j + l: low nibble element 64j + l, high 64j + 32 + l
            const HVX_Vector     q  = hvx_vmem_load(&qs[m]);
            const HVX_Vector     lo = Q6_V_vand_VV(q, m4);
            const HVX_Vector     hi = Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(q, 4), m4);
            const HVX_VectorPred ev = Q6_Q_or_QQ(Q6_Q_vsetq_R(32), Q6_Q_and_QQ(Q6_Q_vsetq_R(96), Q6_Q_not_Q(q64)));
            const HVX_Vector     t0 = Q6_V_vmux_QVV(ev, lo, Q6_V_vror_VR(hi, 96));  // groups 0, 2 (lo, hi each)
            const HVX_Vector     t1 = Q6_V_vmux_QVV(ev, Q6_V_vror_VR(lo, 32), hi);  // groups 1, 3
            c[0] = Q6_V_vmux_QVV(q64, t0, Q6_V_vror_VR(t1, 64));
            c[1] = Q6_V_vmux_QVV(q64, Q6_V_vror_VR(t0, 64), t1);
            if (T == HTP_TYPE_Q5_K) {  // qh: 32 bytes, element 128h + b takes bit 4h + b / 32 of qh[b % 32]
                const HVX_Vector qh = rep_quarter(hvx_vmem_load(&hs[m / 4]), m % 4);
                for (uint32_t h = 0; h < 2; h++) {
                    const HVX_Vector bit = Q6_V_vand_VV(quarter_lsr(qh, (int32_t) (4 * h), 1), one);
                    c[h] = Q6_V_vor_VV(c[h], Q6_Vh_vasl_VhR(bit, 4));
                }
            }
        }
    }


    // One K-quant row (super-blocks of 256): the packed scales (v_scales, 16 bytes a super-
    // block, a word extracted per use) and the FP16 d, dmin (v_mins, 4 bytes a super-block, converted 32
    // super-blocks at a time) reach the core by vextract (it reads no VTCM); a sub-block's
    // scale (and min) is computed in float as dequantize_row_q*_K does and splatted (16-element
    // sub-blocks: two splats muxed, one per half vector).
    template <uint32_t T> HTP_COMPUTE void compute_kquant_row(HVX_Vector * y, const uint8_t * x) const {
        constexpr bool     kMin   = T == HTP_TYPE_Q2_K || T == HTP_TYPE_Q4_K || T == HTP_TYPE_Q5_K;
        constexpr bool     kSub16 = T == HTP_TYPE_Q2_K || T == HTP_TYPE_Q3_K || T == HTP_TYPE_Q6_K;
        const HVX_Vector * qs     = (const HVX_Vector *) (x + p->v_quants);
        const HVX_Vector * hs     = (const HVX_Vector *) (x + p->v_high);
        const HVX_Vector * scs    = (const HVX_Vector *) (x + p->v_scales);
        const HVX_Vector * dms    = (const HVX_Vector *) (x + p->v_mins);
        const uint32_t     n_sb   = p->n_blocks;
        HTP_NO_UNROLL
        for (uint32_t m = 0; m < n_sb; m++) {
            const HVX_Vector     sv = Q6_V_vror_VR(hvx_vmem_load(&scs[m / 8]), (int32_t) (16 * (m % 8)));
            const auto           byte = [sv](uint32_t i) { return (uint8_t) (word_at(sv, i & ~3u) >> (8 * (i % 4))); };
            const HVX_VectorPair dw   = f16_scales_f32(hvx_vmem_load(&dms[m / 32]));
            const HVX_Vector     dh   = Q6_V_vror_VR((m & 16) ? Q6_V_hi_W(dw) : Q6_V_lo_W(dw), (int32_t) (8 * (m % 16)));
            const float          d    = f32_from_bits(word_at(dh, 0));
            const float          dmin = f32_from_bits(word_at(dh, 4));
            HVX_Vector           c[2];
            kquant_codes<T>(qs, hs, m, c);
            // 64 elements (two groups of 32) a trip: no array of converted vectors
            for (uint32_t g2 = 0; g2 < 4; g2++) {
                const HVX_VectorPair w = i8_to_f32_half((g2 & 2) ? c[1] : c[0], g2 & 1);
                for (uint32_t k = 0; k < 2; k++) {
                    const uint32_t v = 2 * g2 + k;  // 32-element group of the super-block
                    HVX_Vector     scale, mn = Q6_V_vzero();
                    if (kSub16) {
                        float s0, s1, m0 = 0.0f, m1 = 0.0f;
                        if (T == HTP_TYPE_Q2_K) {
                            s0 = d * (float) (byte(2 * v) & 0xF);
                            s1 = d * (float) (byte(2 * v + 1) & 0xF);
                            m0 = dmin * (float) (byte(2 * v) >> 4);
                            m1 = dmin * (float) (byte(2 * v + 1) >> 4);
                        } else if (T == HTP_TYPE_Q3_K) {
                            s0 = d * (float) k3_scale(byte, (int) (2 * v));
                            s1 = d * (float) k3_scale(byte, (int) (2 * v + 1));
                        } else {
                            s0 = d * (float) (int8_t) byte(2 * v);
                            s1 = d * (float) (int8_t) byte(2 * v + 1);
                        }
                        scale = Q6_V_vmux_QVV(Q6_Q_vsetq_R(64), splat_f32(s0), splat_f32(s1));
                        if (kMin) {
                            mn = Q6_V_vmux_QVV(Q6_Q_vsetq_R(64), splat_f32(m0), splat_f32(m1));
                        }
                    } else if (T == HTP_TYPE_IQ4_XS) {  // scales_h (bytes 0, 1), scales_l (2..5)
                        const uint32_t sh = (uint32_t) byte(0) | (uint32_t) byte(1) << 8;
                        const int32_t  ls = (int32_t) (((byte(2 + v / 2) >> (4 * (v % 2))) & 0xF) | ((sh >> (2 * v)) & 3) << 4);
                        scale = splat_f32(d * (float) (ls - 32));
                    } else {
                        uint32_t scv, mnv;
                        k4_scale_min(byte, (int) v, scv, mnv);
                        scale = splat_f32(d * (float) scv);
                        mn    = splat_f32(dmin * (float) mnv);
                    }
                    HVX_Vector r = Q6_Vsf_vmpy_VsfVsf(k ? Q6_V_hi_W(w) : Q6_V_lo_W(w), scale);
                    if (kMin) {
                        r = Q6_Vsf_vsub_VsfVsf(r, mn);
                    }
                    hvx_vmem_store(&y[8 * m + v], r);
                }
            }
        }
    }

    // One Q1_0 (kQ1) or Q2_0 row: dense FP16 scales and 16-byte quants (hvx-util.h, shared with
    // FLASH_ATTN_EXT's K / V).
    template <bool kQ1> HTP_COMPUTE void compute_lowbit_row(HVX_Vector * y, const uint8_t * x) const {
        const HVX_Vector * scales = (const HVX_Vector *) (x + p->v_scales);
        const HVX_Vector * quants = (const HVX_Vector *) (x + p->v_quants);
        if (kQ1) {
            q1_0_to_f32_vectors(y, scales, quants, p->n_blocks);
        } else {
            q2_0_to_f32_vectors(y, scales, quants, p->n_blocks);
        }
    }

    // One row of an IQ codebook type (super-blocks whole, one a vector from v_quants = 0): the
    // loops are iq_rows::compute_iq_row's.
    template <uint32_t T> HTP_INLINE void compute_iq_row(HVX_Vector * y, const uint8_t * x) const {
        iq_rows::compute_iq_row<T>(y, (const HVX_Vector *) (x + p->v_quants), p->n_blocks);
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y0 = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * x = x0 + j * (p->vsrc.row_pitch / 128);
            HVX_Vector *       y = y0 + j * (p->vdst.row_pitch / 128);
            switch (p->src_type) {
                case HTP_TYPE_F32:
                case HTP_TYPE_I32:
                    copy_vectors(y, x, (p->ne0 + 31) / 32);
                    break;
                case HTP_TYPE_F16:
                    f16_to_f32_vectors(y, x, (p->ne0 + 63) / 64);
                    break;
                case HTP_TYPE_BF16:
                    bf16_to_f32_vectors(y, x, (p->ne0 + 63) / 64);
                    break;
                case HTP_TYPE_Q8_0:
                    q8_0_to_f32_vectors(y, x + p->v_scales / 128, x + p->v_quants / 128, p->n_blocks);
                    break;
                case HTP_TYPE_MXFP4:
                    compute_mxfp4_row(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_Q4_1:
                    compute_nibble_row<true, false>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_Q5_0:
                    compute_nibble_row<false, true>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_Q5_1:
                    compute_nibble_row<true, true>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_Q2_K:
                    compute_kquant_row<HTP_TYPE_Q2_K>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_Q3_K:
                    compute_kquant_row<HTP_TYPE_Q3_K>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_Q4_K:
                    compute_kquant_row<HTP_TYPE_Q4_K>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_Q5_K:
                    compute_kquant_row<HTP_TYPE_Q5_K>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_Q6_K:
                    compute_kquant_row<HTP_TYPE_Q6_K>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_IQ4_XS:
                    compute_kquant_row<HTP_TYPE_IQ4_XS>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_Q1_0:
                    compute_lowbit_row<true>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_Q2_0:
                    compute_lowbit_row<false>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_NVFP4:  // dequant-lowbit.h, shared with MUL_MAT's weight prep
                    lowbit_rows::compute_nvfp4_row(y, x + p->v_scales / 128, x + p->v_quants / 128, p->n_blocks);
                    break;
                case HTP_TYPE_TQ1_0:
                    lowbit_rows::compute_ternary_row<HTP_TYPE_TQ1_0>(y, x + p->v_scales / 128, x + p->v_quants / 128,
                                                                     p->n_blocks);
                    break;
                case HTP_TYPE_TQ2_0:
                    lowbit_rows::compute_ternary_row<HTP_TYPE_TQ2_0>(y, x + p->v_scales / 128, x + p->v_quants / 128,
                                                                     p->n_blocks);
                    break;
                case HTP_TYPE_IQ2_XXS:
                    compute_iq_row<HTP_TYPE_IQ2_XXS>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_IQ2_XS:
                    compute_iq_row<HTP_TYPE_IQ2_XS>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_IQ2_S:
                    compute_iq_row<HTP_TYPE_IQ2_S>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_IQ3_XXS:
                    compute_iq_row<HTP_TYPE_IQ3_XXS>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_IQ3_S:
                    compute_iq_row<HTP_TYPE_IQ3_S>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_IQ1_S:
                    compute_iq_row<HTP_TYPE_IQ1_S>(y, (const uint8_t *) x);
                    break;
                case HTP_TYPE_IQ1_M:
                    compute_iq_row<HTP_TYPE_IQ1_M>(y, (const uint8_t *) x);
                    break;
                default:  // Q4_0, IQ4_NL
                    compute_nibble_row<false, false>(y, (const uint8_t *) x);
                    break;
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        return store_chunk(octx, p, ith, q, r, n, slot, p->ne0 * 4);
    }
};

}  // namespace

int htp_op_get_rows(struct htp_op_context * octx) {
    return run_rows<get_rows_op>(octx, octx->params->get_rows);
}
