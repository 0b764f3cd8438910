// Rows of the blocks-of-32 KV cache types (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL) as F32, for
// the ops that read a quantized K / V cache: FLASH_ATTN_EXT's K / V chunks
// (npu/ops/flash-attn.cpp) and LIGHTNING_INDEXER's K chunk (npu/ops/lightning-indexer.cpp);
// and of Q1_0 / Q2_0 (blocks of 128 / 64: FP16 d and 16 quant bytes, split as Q4_0's), for
// FLASH_ATTN_EXT, by GET_ROWS' dequantizers (hvx-util.h q1_0_to_f32_vectors, q2_0_...).
// The rows arrive by DMA as a dense copy; VTCM -> VTCM descriptors queued after it (the queue
// is FIFO) split the blocks into dense arrays of scales d, mins m (Q4_1, Q5_1), high bits qh
// (Q5_0, Q5_1) and quants, at the offsets of an htp_fa_kv_layout (the host plans it:
// host/ops/encode-util.h kv_blocks_plan); kv_blocks_to_f32 then converts them with HVX.
#pragma once
#include "htp-abi/htp-abi.h"
#include "hvx-util.h"
#include "hvx-vmem.h"
#include "quant-luts.h"
#include "row-stream.h"

namespace htp_ops {

constexpr uint32_t kKvNibbleBytes = 16;  // Q4_0 / Q4_1 / Q5_0 / Q5_1 / IQ4_NL: 16 bytes of 32 nibbles at a block's end
                                         // (Q1_0 / Q2_0: of 128 bits / 64 2-bit codes)

// The split descriptors of n rows of `blocks` blocks each (row_bytes a row), dense at slot:
// push(dst, src, dst_stride, src_stride, row_size, nrows) -> false when it queued nothing.
// Counts the descriptors in k; false as soon as a push fails.
template <class PUSH>
static inline bool kv_blocks_split(PUSH && push, dma_addr_t slot, const htp_fa_kv_layout & l, uint32_t type,
                                   uint32_t row_bytes, uint32_t blocks, uint32_t n, int & k) {
    const uint32_t nb = n * blocks;
    const uint32_t qb = type == HTP_TYPE_Q8_0 ? HTP_QK8_0 : kKvNibbleBytes;
    const uint32_t bs = row_bytes / blocks;  // d [m] [qh] qs
    if (!push(slot + l.scales, slot, 2, bs, 2, nb) || !push(slot + l.quants, slot + bs - qb, qb, bs, qb, nb)) {
        return false;
    }
    k += 2;
    if (l.mins) {
        if (!push(slot + l.mins, slot + 2, 2, bs, 2, nb)) {
            return false;
        }
        k++;
    }
    if (l.qh) {
        if (!push(slot + l.qh, slot + bs - qb - 4, 4, bs, 4, nb)) {
            return false;
        }
        k++;
    }
    return true;
}

// Flat Q4_0 / Q4_1 / Q5_0 / Q5_1 / IQ4_NL -> F32 over nb blocks (8 blocks, 128 quant bytes, per
// step). Low nibbles are a block's elements 0..15, high nibbles 16..31: each widens
// b -> h -> hf -> sf in order into vectors of two blocks' halves (A: lows of blocks 2k,
// 2k + 1; B: their highs); a 64-byte rotate and mux pair makes block 2k = [A lo, B lo] and
// 2k + 1 = [A hi, B hi]. IQ4_NL (lut): the codes become kvalues_iq4nl through vlut32 first
// (kLutIq4nl, the table GET_ROWS and MUL_MAT decode it with). Q5: bit e of the block's qh
// adds 16 to element e (lane e of the block's vector: qh splat AND 1 << lane). Then
// (q - off) * d (+ m).
static HTP_COMPUTE void compute_nibble_blocks_f32(HVX_Vector * y, const HVX_Vector * scales, const HVX_Vector * mins,
                                            const HVX_Vector * qhv, const HVX_Vector * quants, uint32_t nb, float off,
                                            const int8_t * lut) {
    // Scales, mins and high bits of the current groups stay in registers (vextract per
    // block); lane_bit = 1 << lane, built by shifting the words in from the top.
    HVX_Vector lane_bit = Q6_V_vzero();
    for (int32_t l = 31; l >= 0; l--) {
        lane_bit = Q6_V_valign_VVR(lane_bit, Q6_V_vsplat_R((int32_t) (1u << l)), 124);
    }
    const HVX_Vector     m4      = Q6_V_vsplat_R(0x0f0f0f0f);
    const HVX_Vector     voff    = splat_f32(off);
    const HVX_Vector     sixteen = splat_f32(16.0f);
    const HVX_VectorPred half    = Q6_Q_vsetq_R(64);
    const HVX_Vector     vlut    = lut ? hvx_vmem_load_at(lut) : Q6_V_vzero();
    HVX_VectorPair       d       = f16_scales_f32(hvx_vmem_load(&scales[0]));
    HVX_VectorPair       mn      = mins ? f16_scales_f32(hvx_vmem_load(&mins[0])) : d;
    HTP_NO_UNROLL
    for (uint32_t b0 = 0; b0 < nb; b0 += 8) {
        if ((b0 & 63) == 0) {
            d = f16_scales_f32(hvx_vmem_load(&scales[b0 / 64]));
            if (mins) {
                mn = f16_scales_f32(hvx_vmem_load(&mins[b0 / 64]));
            }
        }
        const HVX_Vector qv = hvx_vmem_load(&quants[b0 / 8]);
        HVX_Vector       lo = Q6_V_vand_VV(qv, m4);
        HVX_Vector       hi = Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(qv, 4), m4);
        if (lut) {
            lo = Q6_Vb_vlut32_VbVbR(lo, vlut, 0);
            hi = Q6_Vb_vlut32_VbVbR(hi, vlut, 0);
        }
        HVX_Vector A[4], B[4];
        i8_to_f32_vectors4(lo, A);
        i8_to_f32_vectors4(hi, B);
        for (uint32_t k = 0; k < 8; k++) {
            HVX_Vector x = (k & 1) ? Q6_V_vmux_QVV(half, Q6_V_vror_VR(A[k / 2], 64), B[k / 2]) :
                                     Q6_V_vmux_QVV(half, A[k / 2], Q6_V_vror_VR(B[k / 2], 64));
            const uint32_t b = b0 + k;
            if (qhv) {
                const int32_t        qh   = Q6_R_vextract_VR(hvx_vmem_load(&qhv[b0 / 32]), (int32_t) (4 * (b & 31)));
                const HVX_Vector     bits = Q6_V_vand_VV(Q6_V_vsplat_R(qh), lane_bit);
                const HVX_VectorPred zero = Q6_Q_vcmp_eq_VwVw(bits, Q6_V_vzero());
                x = Q6_Vsf_vadd_VsfVsf(x, Q6_V_vmux_QVV(zero, Q6_V_vzero(), sixteen));
            }
            x = Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vsub_VsfVsf(x, voff), block_scale(d, b));
            if (mins) {
                x = Q6_Vsf_vadd_VsfVsf(x, block_scale(mn, b));
            }
            hvx_vmem_store(&y[b], x);
        }
    }
}

// Blocks first .. first + nb - 1 split at slot (kv_blocks_split) -> F32, 32 values a vector,
// block first + b in y[b] (Q1_0: y[4b .. 4b + 3]; Q2_0: y[2b, 2b + 1], an odd nb writes one
// block more). first is a multiple of 64 (a vector of scales).
static inline void kv_blocks_to_f32(HVX_Vector * y, dma_addr_t slot, const htp_fa_kv_layout & l, uint32_t type,
                                    uint32_t first, uint32_t nb) {
    const HVX_Vector * scales = vptr(slot + l.scales) + first / 64;
    if (type == HTP_TYPE_Q8_0) {
        q8_0_to_f32_vectors(y, scales, vptr(slot + l.quants) + first / 4, nb);
        return;
    }
    if (type == HTP_TYPE_Q1_0 || type == HTP_TYPE_Q2_0) {
        const HVX_Vector * quants = vptr(slot + l.quants) + first / 8;
        if (type == HTP_TYPE_Q1_0) {
            q1_0_to_f32_vectors(y, scales, quants, nb);
        } else {
            q2_0_to_f32_vectors(y, scales, quants, nb);
        }
        return;
    }
    const float off = type == HTP_TYPE_Q4_0 ? 8.0f : type == HTP_TYPE_Q5_0 ? 16.0f : 0.0f;
    compute_nibble_blocks_f32(y, scales, l.mins ? vptr(slot + l.mins) + first / 64 : nullptr,
                         l.qh ? vptr(slot + l.qh) + first / 32 : nullptr, vptr(slot + l.quants) + first / 8, nb, off,
                         type == HTP_TYPE_IQ4_NL ? kLutIq4nl : nullptr);
}

}  // namespace htp_ops
