// ARGSORT F32 -> I32: a bitonic sorting network per row, all in HVX registers and VTCM.
// Keys become order-preserving int32 (negative floats get their magnitude bits flipped), so
// compares are integer and exact. Stages with distance >= 32 compare whole vectors; shorter
// distances pair lane i with lane i ^ d through rotations. Indices follow their keys. TOP_K
// sorts descending and writes the first k indices of each row (ggml leaves their order open).
// A TOP_K row longer than a thread's VTCM share streams as segments, one per chunk, a row's in
// order on one thread (host/ops/argsort.cpp top_k_seg_encode): each segment's keys join the
// n_cand best so far in a work buffer, which the same network sorts; its first n_cand entries
// are the candidates for the next segment, its first k indices after the last the result.
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

// m ? a : b per bit (m: all-ones or all-zero lanes).
static inline HVX_Vector select(HVX_Vector m, HVX_Vector a, HVX_Vector b) {
    return Q6_V_vxor_VV(b, Q6_V_vand_VV(Q6_V_vxor_VV(a, b), m));
}

struct argsort_op : row_op<htp_argsort_params> {
    // lane = 0, 1, ..., 31: an inclusive scan of ones, minus one (a few instructions; each
    // pass makes its own, so no vector lives across the row loop's calls).
    static HVX_Vector lane_index() {
        HVX_Vector lane = Q6_V_vsplat_R(1);
        for (int32_t s = 4; s < 128; s <<= 1) {
            lane = Q6_Vw_vadd_VwVw(lane, Q6_V_vlalign_VVR(lane, Q6_V_vzero(), s));
        }
        return Q6_Vw_vsub_VwVw(lane, Q6_V_vsplat_R(1));
    }

    // One compare-exchange stage with distance d >= 32 (block size k): whole vectors.
    HTP_COMPUTE void compute_stage_vectors(HVX_Vector * key, HVX_Vector * idx, uint32_t n_vec, uint32_t k,
                                           uint32_t d) const {
        const uint32_t dv   = d / 32;
        const bool     desc = p->descending != 0;
        for (uint32_t i = 0; i < n_vec; i++) {
            if (i & dv) {
                continue;
            }
            const uint32_t       j    = i + dv;
            const bool           asc  = (((i * 32) & k) == 0) != desc;
            const HVX_Vector     ka = hvx_vmem_load(&key[i]), kb = hvx_vmem_load(&key[j]);
            const HVX_Vector     ia = hvx_vmem_load(&idx[i]), ib = hvx_vmem_load(&idx[j]);
            const HVX_VectorPred swap = asc ? Q6_Q_vcmp_gt_VwVw(ka, kb) : Q6_Q_vcmp_gt_VwVw(kb, ka);
            hvx_vmem_store(&key[i], Q6_V_vmux_QVV(swap, kb, ka));
            hvx_vmem_store(&key[j], Q6_V_vmux_QVV(swap, ka, kb));
            hvx_vmem_store(&idx[i], Q6_V_vmux_QVV(swap, ib, ia));
            hvx_vmem_store(&idx[j], Q6_V_vmux_QVV(swap, ia, ib));
        }
    }

    // One compare-exchange stage with distance d < 32: lane i against lane i ^ d by rotations.
    HTP_COMPUTE void compute_stage_lanes(HVX_Vector * key, HVX_Vector * idx, uint32_t n_vec, uint32_t k,
                                         uint32_t d) const {
        const HVX_Vector     lane = lane_index();
        const HVX_Vector     zero = Q6_V_vzero();
        const HVX_Vector     one  = Q6_V_vsplat_R(1);
        const uint32_t       ld = log2_u32(d), lk = log2_u32(k);
        // Lanes whose partner is i + d, as an all-ones vector mask (not a predicate: the loop
        // needs the 4 predicate registers for its compares).
        const HVX_Vector     low  = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(Q6_V_vand_VV(lane, Q6_V_vsplat_R((int32_t) d)), zero),
                                                  Q6_V_vsplat_R(-1), zero);
        const HVX_Vector     want = Q6_V_vsplat_R(p->descending ? 1 : 0);
        HTP_NO_UNROLL  // unrolled, the copies need more than the 4 predicate registers
        for (uint32_t i = 0; i < n_vec; i++) {
            // Lane i keeps the smaller key when bit d and bit k of its global index agree (ascending).
            const HVX_Vector     g    = Q6_Vw_vadd_VwVw(lane, Q6_V_vsplat_R((int32_t) (i * 32)));
            const HVX_Vector     x    = Q6_V_vand_VV(Q6_V_vxor_VV(Q6_Vuw_vlsr_VuwR(g, ld), Q6_Vuw_vlsr_VuwR(g, lk)), one);
            const HVX_VectorPred tmin = Q6_Q_vcmp_eq_VwVw(x, want);
            const HVX_Vector     kv = hvx_vmem_load(&key[i]), iv = hvx_vmem_load(&idx[i]);
            const HVX_Vector     kp = select(low, Q6_V_valign_VVR(kv, kv, (int32_t) (4 * d)), Q6_V_vlalign_VVR(kv, kv, (int32_t) (4 * d)));
            const HVX_Vector     ip = select(low, Q6_V_valign_VVR(iv, iv, (int32_t) (4 * d)), Q6_V_vlalign_VVR(iv, iv, (int32_t) (4 * d)));
            const HVX_VectorPred take = Q6_Q_or_QQ(Q6_Q_and_QQ(tmin, Q6_Q_vcmp_gt_VwVw(kv, kp)),
                                                   Q6_Q_and_QQ(Q6_Q_not_Q(tmin), Q6_Q_vcmp_gt_VwVw(kp, kv)));
            hvx_vmem_store(&key[i], Q6_V_vmux_QVV(take, kp, kv));
            hvx_vmem_store(&idx[i], Q6_V_vmux_QVV(take, ip, iv));
        }
    }

    // Set by the caller of compute_keys (members: its arguments stay in registers).
    uint32_t key_tail;  // bytes of the last src vector that are values (0: all)
    uint32_t key_base;  // index of the first key

    // n_vec vectors of keys from the n_val vectors at src (the last one's first key_tail bytes
    // valid): the values as order-preserving int32 keys (padding: keys that sort last), and
    // the indices key_base, key_base + 1, ... (src may be key: each vector is read first).
    HTP_COMPUTE void compute_keys(const HVX_Vector * src, HVX_Vector * key, HVX_Vector * idx, uint32_t n_vec,
                                  uint32_t n_val) const {
        const uint32_t   tail  = key_tail;
        const uint32_t   base  = key_base;
        const HVX_Vector lane  = lane_index();
        const HVX_Vector pad   = Q6_V_vsplat_R(p->descending ? INT32_MIN : INT32_MAX);
        const HVX_Vector mag   = Q6_V_vsplat_R(0x7fffffff);
        for (uint32_t i = 0; i < n_vec; i++) {
            hvx_vmem_store(&idx[i], Q6_Vw_vadd_VwVw(lane, Q6_V_vsplat_R((int32_t) (base + i * 32))));
            if (i >= n_val) {
                hvx_vmem_store(&key[i], pad);
                continue;
            }
            const HVX_Vector b = hvx_vmem_load(&src[i]);
            HVX_Vector       t = Q6_V_vxor_VV(b, Q6_V_vand_VV(Q6_Vw_vasr_VwR(b, 31), mag));
            if (i == n_val - 1 && tail) {
                t = Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) tail), t, pad);
            }
            hvx_vmem_store(&key[i], t);
        }
    }

    // The bitonic network over one row: its stage loops only call the passes above, so they
    // keep scalars alone across the calls.
    HTP_COMPUTE void compute_network(HVX_Vector * key, HVX_Vector * idx, uint32_t n_vec) const {
        const uint32_t n_sort = n_vec * 32;
        for (uint32_t k = 2; k <= n_sort; k <<= 1) {
            for (uint32_t d = k / 2; d > 0; d >>= 1) {
                if (d >= 32) {
                    compute_stage_vectors(key, idx, n_vec, k, d);
                } else {
                    compute_stage_lanes(key, idx, n_vec, k, d);
                }
            }
        }
    }

    uint32_t seg_index(uint32_t r) const { return p->n_cand ? row_coords(p->shape, r).i1 : 0; }

    uint32_t seg_elems(uint32_t seg) const { return seg == p->n_seg - 1 ? p->last_ne0 : p->ne0; }

    // One segment of a long TOP_K row (virtual row r): the candidates start as keys that sort
    // last at segment 0; the segment's keys follow them, with their indices in the row.
    HTP_COMPUTE void compute_segment(uint32_t r, uint32_t slot) {
        HVX_Vector *   key   = vptr(vtcm_at(octx->ctx, p->split, ith, p->vwork));
        HVX_Vector *   idx   = key + p->n_work / 32;
        const uint32_t n_cv  = p->n_cand / 32;
        const uint32_t seg   = seg_index(r);
        const uint32_t elems = seg_elems(seg);
        if (seg == 0) {
            for (uint32_t i = 0; i < n_cv; i++) {
                hvx_vmem_store(&key[i], Q6_V_vsplat_R(INT32_MIN));
                hvx_vmem_store(&idx[i], Q6_V_vzero());
            }
        }
        key_tail = elems * 4 % 128;
        key_base = seg * p->ne0;
        compute_keys(vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot)), key + n_cv, idx + n_cv,
                     p->n_work / 32 - n_cv, (elems + 31) / 32);
        compute_network(key, idx, p->n_work / 32);
        if (seg == p->n_seg - 1) {
            HVX_Vector * out = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
            for (uint32_t i = 0; i < (p->n_out + 31) / 32; i++) {
                hvx_vmem_store(&out[i], hvx_vmem_load(&idx[i]));
            }
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t n, uint32_t slot) {
        if (p->n_cand) {
            compute_segment(r, slot);
            return;
        }
        HVX_Vector *   key   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *   idx   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t n_vec = p->n_sort / 32;
        key_tail             = p->tail_bytes;
        key_base             = 0;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < n; j++) {
            compute_keys(key, key, idx, n_vec, (p->ne0 + 31) / 32);
            compute_network(key, idx, n_vec);
            key += n_vec;
            idx += n_vec;
        }
    }

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        return fetch_chunk(octx, p, ith, q, r, n, slot, seg_elems(seg_index(r)) * 4);
    }

    // A long row's indices once, after its last segment.
    int store(uint32_t r, uint32_t n, uint32_t slot) {
        if (p->n_cand && seg_index(r) != p->n_seg - 1) {
            return 0;
        }
        return store_chunk(octx, p, ith, q, r, n, slot, p->n_out * 4);
    }
};

}  // namespace

int htp_op_argsort(struct htp_op_context * octx) {
    const htp_argsort_params & p = octx->params->argsort;
    // a member of a device group takes whole rows: all n_seg segments of each (one chunk each)
    return run_rows_of<argsort_op>(octx, p, device_rows_by(octx->ctx, p.split, p.n_cand ? p.n_seg : p.split.rows_per_chunk));
}
