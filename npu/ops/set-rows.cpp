// SET_ROWS F32 -> F32 / F16 / Q8_0 and F16 -> F16 / F32: source rows stream in as chunks; each converted row is
// written back by its own DMA to the row its I32 / I64 index names (the KV-cache update).
// Q8_0 matches ggml-cpu's quantize_row_q8_0: amax = max |x| per 32 values, d = amax / 127
// (stored fp16), q = round-half-even(x * (127 / amax)); quants and scales are laid out
// apart in VTCM and two 2-D descriptors interleave them into 34-byte blocks.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

// Bytes [0, 64) of a and bytes [0, 64) of b, as one vector.
static inline HVX_Vector low_halves(HVX_Vector a, HVX_Vector b) {
    return Q6_V_vmux_QVV(Q6_Q_vsetq_R(64), a, Q6_V_vlalign_VVR(b, b, 64));
}

// The low bytes of the 64 words of a and b (each in [-128, 127]) as 64 int8 in bytes [0, 64).
static inline HVX_Vector words_to_bytes(HVX_Vector a, HVX_Vector b) {
    const HVX_Vector h = low_halves(Q6_Vh_vdeal_Vh(a), Q6_Vh_vdeal_Vh(b));  // 64 int16
    // Each word of h holds halfwords (lo0 | hi0 << 8, lo1 | hi1 << 8): make its low halfword lo0 | lo1 << 8.
    const HVX_Vector w = Q6_V_vor_VV(Q6_V_vand_VV(h, Q6_V_vsplat_R(0xff)),
                                     Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(h, 8), Q6_V_vsplat_R(0xff00)));
    return Q6_Vh_vdeal_Vh(w);
}

// One 32-value block to 32 int32 quants; its scale d enters dacc at lane 31.
static inline HVX_Vector quantize_block_q8_0(HVX_Vector x, HVX_Vector & dacc) {
    const float amax = max_abs_sf(&x, 1);
    const float d    = amax / 127.f;
    const float id   = amax != 0.0f ? 127.f / amax : 0.0f;
    dacc             = Q6_V_valign_VVR(splat_f32(d), dacc, 4);
    // x * id rounded half to even: adding 1.5 * 2^23 leaves the rounded integer in the low bits.
    const HVX_Vector magic = splat_f32(12582912.0f);
    const HVX_Vector r     = Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(x, splat_f32(id)), magic);
    return Q6_Vw_vsub_VwVw(r, magic);
}

struct set_rows_op {
    const htp_op_context *      octx;
    const htp_set_rows_params * p;
    uint32_t                    ith;
    dma_queue *                 q;

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        return fetch_chunk(octx, p, ith, q, r, n, slot, p->ne0 * (p->src_type == HTP_TYPE_F16 ? 2 : 4));
    }

    // ne0 values to n_blocks blocks: quants at y, fp16 scales and their fp32 scratch after them.
    HTP_COMPUTE void compute_q8_0_row(const HVX_Vector * x, HVX_Vector * y) const {
        const uint32_t nb     = p->n_blocks;
        HVX_Vector *   dtmp   = y + p->q8_dscratch_offset / 128;
        HVX_Vector     dacc   = Q6_V_vzero();
        const HVX_Vector zero = Q6_V_vzero();
        for (uint32_t g = 0; g * 4 < nb; g++) {  // 4 blocks -> one vector of quants
            HVX_Vector q[4];
            for (uint32_t k = 0; k < 4; k++) {
                const uint32_t b = g * 4 + k;
                q[k]             = b < nb ? quantize_block_q8_0(x[b], dacc) : zero;
                if (b < nb && (b % 32 == 31 || b == nb - 1)) {  // scales of blocks 32 * (b / 32) .. b, lane 0 first
                    dtmp[b / 32] = Q6_V_vror_VR(dacc, (int32_t) (128 - 4 * (b % 32 + 1)));
                }
            }
            y[g] = low_halves(words_to_bytes(q[0], q[1]), words_to_bytes(q[2], q[3]));
        }
        const uint32_t n_out = (nb + 63) / 64;
        if (((nb + 31) / 32) % 2) {
            dtmp[(nb + 31) / 32] = zero;  // the odd scratch vector's partner
        }
        f32_to_f16_vectors(y + p->q8_scale_offset / 128, dtmp, n_out);
    }

    // One row loop per destination type (no type branch per row).
    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        const HVX_Vector * x  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y  = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t     px = p->vsrc.row_pitch / 128;
        const uint32_t     py = p->vdst.row_pitch / 128;
        if (p->src_type == HTP_TYPE_F16) {  // F16 rows copied, or widened to F32
            const uint32_t n_in = (p->ne0 + 63) / 64;
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < n; j++) {
                if (p->dst_type == HTP_TYPE_F16) {
                    copy_vectors(y + j * py, x + j * px, n_in);
                } else {
                    f16_to_f32_vectors(y + j * py, x + j * px, n_in);
                }
            }
        } else if (p->dst_type == HTP_TYPE_Q8_0) {
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < n; j++) {
                compute_q8_0_row(x + j * px, y + j * py);
            }
        } else if (p->dst_type == HTP_TYPE_F16) {
            const uint32_t n_out = (p->ne0 + 63) / 64;
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < n; j++) {
                f32_to_f16_vectors(y + j * py, x + j * px, n_out);
            }
        } else {
            const uint32_t n_vec = (p->ne0 + 31) / 32;
            HTP_NO_UNROLL
            for (uint32_t j = 0; j < n; j++) {
                HTP_NO_UNROLL
                for (uint32_t i = 0; i < n_vec; i++) {
                    y[j * py + i] = x[j * px + i];
                }
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        const row_pos    c   = row_coords(p->shape, r);  // (i01, i02, i03)
        const uint32_t   i11 = htp_fastmod(c.i2, &p->mod_ne11);
        const uint32_t   i12 = htp_fastmod(c.i3, &p->mod_ne12);
        const dma_addr_t v   = vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot);
        for (uint32_t j = 0; j < n; j++) {
            const dma_addr_t ia  = octx->src[1].data + row_offset(p->idx, c.i1 + j, i11, i12);
            const uint32_t   row = p->idx_i64 ? (uint32_t) *(const int64_t *) htp_va(ia)
                                              : (uint32_t) *(const int32_t *) htp_va(ia);
            const dma_addr_t d   = octx->dst.data + row_offset(p->dst, row, c.i2, c.i3);
            const dma_addr_t s   = v + j * p->vdst.row_pitch;
            if (p->dst_type == HTP_TYPE_Q8_0) {  // quants after each block's 2-byte scale, then the scales
                if (!dma_queue_push(q, d + 2, s, 34, 32, 32, p->n_blocks) ||
                    !dma_queue_push(q, d, s + p->q8_scale_offset, 34, 2, 2, p->n_blocks)) {
                    return -1;
                }
            } else if (!dma_queue_push_1d(q, d, s, p->dst_row_bytes)) {
                return -1;
            }
        }
        return (int) (p->dst_type == HTP_TYPE_Q8_0 ? 2 * n : n);
    }
};

}  // namespace

int htp_op_set_rows(struct htp_op_context * octx) {
    return run_rows<set_rows_op>(octx, octx->params->set_rows);
}
