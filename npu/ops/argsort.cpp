// ARGSORT F32 -> I32: a bitonic sorting network per row, all in HVX registers and VTCM.
// Keys become order-preserving int32 (negative floats get their magnitude bits flipped), so
// compares are integer and exact. Stages with distance >= 32 compare whole vectors; shorter
// distances pair lane i with lane i ^ d through rotations. Indices follow their keys.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

static inline uint32_t log2_u32(uint32_t x) {
    uint32_t l = 0;
    while ((1u << l) < x) {
        l++;
    }
    return l;
}

struct argsort_op {
    const htp_op_context *     octx;
    const htp_argsort_params * p;
    uint32_t                   ith;
    dma_queue *                q;

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        return fetch_chunk(octx, p, ith, q, r, n, slot, p->ne0 * 4);
    }

    // One compare-exchange stage (block size k, distance d) over the row's n_vec vectors.
    void stage(HVX_Vector * key, HVX_Vector * idx, uint32_t n_vec, uint32_t k, uint32_t d, HVX_Vector lane) const {
        if (d >= 32) {
            const uint32_t dv = d / 32;
            for (uint32_t i = 0; i < n_vec; i++) {
                if (i & dv) {
                    continue;
                }
                const uint32_t       j    = i + dv;
                const bool           asc  = (((i * 32) & k) == 0) != (p->descending != 0);
                const HVX_VectorPred swap = asc ? Q6_Q_vcmp_gt_VwVw(key[i], key[j]) : Q6_Q_vcmp_gt_VwVw(key[j], key[i]);
                const HVX_Vector     ka = key[i], kb = key[j], ia = idx[i], ib = idx[j];
                key[i]                    = Q6_V_vmux_QVV(swap, kb, ka);
                key[j]                    = Q6_V_vmux_QVV(swap, ka, kb);
                idx[i]                    = Q6_V_vmux_QVV(swap, ib, ia);
                idx[j]                    = Q6_V_vmux_QVV(swap, ia, ib);
            }
            return;
        }
        const HVX_Vector     zero = Q6_V_vzero();
        const HVX_Vector     one  = Q6_V_vsplat_R(1);
        const uint32_t       ld = log2_u32(d), lk = log2_u32(k);
        const HVX_VectorPred low  = Q6_Q_vcmp_eq_VwVw(Q6_V_vand_VV(lane, Q6_V_vsplat_R((int32_t) d)), zero);  // partner i + d
        const HVX_Vector     want = Q6_V_vsplat_R(p->descending ? 1 : 0);
        for (uint32_t i = 0; i < n_vec; i++) {
            // Lane i keeps the smaller key when bit d and bit k of its global index agree (ascending).
            const HVX_Vector     g    = Q6_Vw_vadd_VwVw(lane, Q6_V_vsplat_R((int32_t) (i * 32)));
            const HVX_Vector     x    = Q6_V_vand_VV(Q6_V_vxor_VV(Q6_Vuw_vlsr_VuwR(g, ld), Q6_Vuw_vlsr_VuwR(g, lk)), one);
            const HVX_VectorPred tmin = Q6_Q_vcmp_eq_VwVw(x, want);
            const HVX_Vector     kv = key[i], iv = idx[i];
            const HVX_Vector     kp = Q6_V_vmux_QVV(low, Q6_V_valign_VVR(kv, kv, (int32_t) (4 * d)), Q6_V_vlalign_VVR(kv, kv, (int32_t) (4 * d)));
            const HVX_Vector     ip = Q6_V_vmux_QVV(low, Q6_V_valign_VVR(iv, iv, (int32_t) (4 * d)), Q6_V_vlalign_VVR(iv, iv, (int32_t) (4 * d)));
            const HVX_VectorPred take = Q6_Q_or_QQ(Q6_Q_and_QQ(tmin, Q6_Q_vcmp_gt_VwVw(kv, kp)),
                                                   Q6_Q_and_QQ(Q6_Q_not_Q(tmin), Q6_Q_vcmp_gt_VwVw(kp, kv)));
            key[i] = Q6_V_vmux_QVV(take, kp, kv);
            idx[i] = Q6_V_vmux_QVV(take, ip, iv);
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t, uint32_t n, uint32_t slot) {
        HVX_Vector *   k0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *   i0    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t n_vec = p->n_sort / 32;
        const uint32_t n_val = (p->ne0 + 31) / 32;  // vectors holding src values
        // lane = 0, 1, ..., 31: an inclusive scan of ones, minus one
        HVX_Vector lane = Q6_V_vsplat_R(1);
        for (int32_t s = 4; s < 128; s <<= 1) {
            lane = Q6_Vw_vadd_VwVw(lane, Q6_V_vlalign_VVR(lane, Q6_V_vzero(), s));
        }
        lane                     = Q6_Vw_vsub_VwVw(lane, Q6_V_vsplat_R(1));
        const HVX_Vector pad     = Q6_V_vsplat_R(p->descending ? INT32_MIN : INT32_MAX);
        const HVX_Vector mag     = Q6_V_vsplat_R(0x7fffffff);
        for (uint32_t j = 0; j < n; j++) {
            HVX_Vector * key = k0 + j * n_vec;
            HVX_Vector * idx = i0 + j * n_vec;
            for (uint32_t i = 0; i < n_vec; i++) {
                idx[i] = Q6_Vw_vadd_VwVw(lane, Q6_V_vsplat_R((int32_t) (i * 32)));
                if (i >= n_val) {
                    key[i] = pad;
                    continue;
                }
                const HVX_Vector b = key[i];
                HVX_Vector       t = Q6_V_vxor_VV(b, Q6_V_vand_VV(Q6_Vw_vasr_VwR(b, 31), mag));
                if (i == n_val - 1 && p->tail_bytes) {
                    t = Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) p->tail_bytes), t, pad);
                }
                key[i] = t;
            }
            for (uint32_t k = 2; k <= p->n_sort; k <<= 1) {
                for (uint32_t d = k / 2; d > 0; d >>= 1) {
                    stage(key, idx, n_vec, k, d, lane);
                }
            }
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        return store_chunk(octx, p, ith, q, r, n, slot, p->ne0 * 4);
    }
};

}  // namespace

int htp_op_argsort(struct htp_op_context * octx) {
    return run_rows<argsort_op>(octx, octx->params->argsort);
}
