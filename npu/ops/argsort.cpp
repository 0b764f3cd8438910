// ARGSORT F32 -> I32: a bitonic sorting network per row, all in HVX registers and VTCM.
// Keys become order-preserving int32 (negative floats get their magnitude bits flipped), so
// compares are integer and exact; a real key is kept off INT32_MIN and INT32_MAX (a NaN with
// every magnitude bit set would map there), which only the padding and TOP_K's placeholder
// candidates take, so a real element always sorts before them. Stages with distance >= 32
// compare whole vectors; shorter distances pair lane i with lane i ^ d through rotations.
// Indices follow their keys. TOP_K sorts descending and writes the first k indices of each row
// (ggml leaves their order open).
// A TOP_K row longer than a thread's VTCM share streams as segments of n_work (a power of two)
// elements, one per chunk, a row's in order on one thread (host/ops/argsort.cpp
// top_k_seg_encode): each segment is sorted ascending in its slot, and the n_cand best so far
// (descending) take lane by lane the better of themselves and the segment's n_cand largest
// (its last n_cand, ascending): a bitonic sequence holding the n_cand best of both, which
// log2(n_cand) merge stages sort descending again. After the last segment the first k
// candidates' indices are the result.
// An ARGSORT row longer than a thread's VTCM share (argsort_runs) is sorted in runs of n_run
// keys (ascending; a descending row's keys inverted), written with their indices to DDR after
// the dst (host/ops/argsort.cpp htp_op_dst_scratch), then merged pairwise through DDR in blocks:
// a carry block and the next block of the run whose next key is smaller, read backwards, give
// the n_blk smallest (out) and the rest (the new carry), each then sorted by the merge stages.
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

// All-ones in the lanes whose index has `bit` clear (their partner at distance bit is i + bit),
// zero elsewhere: a vector mask, not a predicate (the stage loops need the 4 predicate
// registers for their compares).
static inline HVX_Vector lanes_clear(HVX_Vector lane, int32_t bit) {
    const HVX_Vector zero = Q6_V_vzero();
    return Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(Q6_V_vand_VV(lane, Q6_V_vsplat_R(bit)), zero), Q6_V_vsplat_R(-1), zero);
}

// Lane i of v from lane i ^ d (d < 32; low: lanes_clear(lane, d)), by two rotations.
static inline HVX_Vector partner_lanes(HVX_Vector v, HVX_Vector low, uint32_t d) {
    return select(low, Q6_V_valign_VVR(v, v, (int32_t) (4 * d)), Q6_V_vlalign_VVR(v, v, (int32_t) (4 * d)));
}

struct argsort_op : row_op<htp_argsort_params> {
    bool sort_desc;  // the direction of the stages below (set by their callers)

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
        const bool     desc = sort_desc;
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
        const HVX_Vector     one  = Q6_V_vsplat_R(1);
        const uint32_t       ld = log2_u32(d), lk = log2_u32(k);
        const HVX_Vector     low  = lanes_clear(lane, (int32_t) d);  // lanes whose partner is i + d
        const HVX_Vector     want = Q6_V_vsplat_R(sort_desc ? 1 : 0);
        HTP_NO_UNROLL  // unrolled, the copies need more than the 4 predicate registers
        for (uint32_t i = 0; i < n_vec; i++) {
            // Lane i keeps the smaller key when bit d and bit k of its global index agree (ascending).
            const HVX_Vector     g    = Q6_Vw_vadd_VwVw(lane, Q6_V_vsplat_R((int32_t) (i * 32)));
            const HVX_Vector     x    = Q6_V_vand_VV(Q6_V_vxor_VV(Q6_Vuw_vlsr_VuwR(g, ld), Q6_Vuw_vlsr_VuwR(g, lk)), one);
            const HVX_VectorPred tmin = Q6_Q_vcmp_eq_VwVw(x, want);
            const HVX_Vector     kv = hvx_vmem_load(&key[i]), iv = hvx_vmem_load(&idx[i]);
            const HVX_Vector     kp = partner_lanes(kv, low, d), ip = partner_lanes(iv, low, d);
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
        // a long ARGSORT row's runs sort ascending, a descending row's keys inverted
        const bool       runs  = p->n_run != 0;
        const HVX_Vector pad   = Q6_V_vsplat_R(p->descending && !runs ? INT32_MIN : INT32_MAX);
        const HVX_Vector flip  = Q6_V_vsplat_R(p->descending && runs ? -1 : 0);
        const HVX_Vector mag   = Q6_V_vsplat_R(0x7fffffff);
        const HVX_Vector lo    = Q6_V_vsplat_R(INT32_MIN + 1);
        const HVX_Vector hi    = Q6_V_vsplat_R(INT32_MAX - 1);
        for (uint32_t i = 0; i < n_vec; i++) {
            hvx_vmem_store(&idx[i], Q6_Vw_vadd_VwVw(lane, Q6_V_vsplat_R((int32_t) (base + i * 32))));
            if (i >= n_val) {
                hvx_vmem_store(&key[i], pad);
                continue;
            }
            const HVX_Vector b = hvx_vmem_load(&src[i]);
            HVX_Vector       t = Q6_V_vxor_VV(b, Q6_V_vand_VV(Q6_Vw_vasr_VwR(b, 31), mag));
            t                  = Q6_V_vxor_VV(Q6_Vw_vmin_VwVw(Q6_Vw_vmax_VwVw(t, lo), hi), flip);  // off the padding's keys
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

    // The merge stages of a bitonic sequence of n_vec vectors into order (sort_desc): the last
    // stage block of the network (block 2 n_sort, so one direction for every lane).
    HTP_COMPUTE void compute_merge(HVX_Vector * key, HVX_Vector * idx, uint32_t n_vec) const {
        const uint32_t n_sort = n_vec * 32;
        for (uint32_t d = n_sort / 2; d > 0; d >>= 1) {
            if (d >= 32) {
                compute_stage_vectors(key, idx, n_vec, 2 * n_sort, d);
            } else {
                compute_stage_lanes(key, idx, n_vec, 2 * n_sort, d);
            }
        }
    }

    // Candidates (descending) take lane by lane the larger of themselves and the n_vec vectors
    // of a segment's largest keys in ascending order (sk, si): the n_vec * 32 best of both, a
    // bitonic sequence (a tie keeps the candidate).
    HTP_COMPUTE void compute_take_best(HVX_Vector * ck, HVX_Vector * ci, const HVX_Vector * sk, const HVX_Vector * si,
                                       uint32_t n_vec) const {
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < n_vec; i++) {
            const HVX_Vector     kc = hvx_vmem_load(&ck[i]), ks = hvx_vmem_load(&sk[i]);
            const HVX_Vector     ic = hvx_vmem_load(&ci[i]), is = hvx_vmem_load(&si[i]);
            const HVX_VectorPred take = Q6_Q_vcmp_gt_VwVw(ks, kc);
            hvx_vmem_store(&ck[i], Q6_V_vmux_QVV(take, ks, kc));
            hvx_vmem_store(&ci[i], Q6_V_vmux_QVV(take, is, ic));
        }
    }

    uint32_t seg_index(uint32_t r) const { return p->n_cand ? row_coords(p->shape, r).i1 : 0; }

    uint32_t seg_elems(uint32_t seg) const { return seg == p->n_seg - 1 ? p->last_ne0 : p->ne0; }

    // One segment of a long TOP_K row (virtual row r): the candidates (keys, then indices, at
    // vwork) start as keys no real one ties with at segment 0; the segment's keys replace its
    // values in the src slot, its indices in the row go to the buffer after the candidates.
    HTP_COMPUTE void compute_segment(uint32_t r, uint32_t slot) {
        HVX_Vector *   ck    = vptr(vtcm_at(octx->ctx, p->split, ith, p->vwork));
        const uint32_t n_cv  = p->n_cand / 32;
        const uint32_t n_sv  = p->n_work / 32;
        HVX_Vector *   ci    = ck + n_cv;
        HVX_Vector *   si    = ci + n_cv;
        HVX_Vector *   sk    = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        const uint32_t seg   = seg_index(r);
        const uint32_t elems = seg_elems(seg);
        if (seg == 0) {
            for (uint32_t i = 0; i < n_cv; i++) {
                hvx_vmem_store(&ck[i], Q6_V_vsplat_R(INT32_MIN));
                hvx_vmem_store(&ci[i], Q6_V_vzero());
            }
        }
        key_tail = elems * 4 % 128;
        key_base = seg * p->ne0;
        compute_keys(sk, sk, si, n_sv, (elems + 31) / 32);
        sort_desc = false;
        compute_network(sk, si, n_sv);
        compute_take_best(ck, ci, sk + n_sv - n_cv, si + n_sv - n_cv, n_cv);
        sort_desc = true;
        compute_merge(ck, ci, n_cv);
        if (seg == p->n_seg - 1) {
            HVX_Vector * out = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
            for (uint32_t i = 0; i < (p->n_out + 31) / 32; i++) {
                hvx_vmem_store(&out[i], hvx_vmem_load(&ci[i]));
            }
        }
    }

    // A run of a long ARGSORT row (n_run > 0; virtual row r): its keys in the src slot, its
    // indices in the dst slot, sorted ascending.
    uint32_t run_elems(uint32_t run) const {
        const uint32_t e0 = run * p->n_run;
        return e0 >= p->ne0 ? 0 : (p->ne0 - e0 < p->n_run ? p->ne0 - e0 : p->n_run);
    }

    HTP_COMPUTE void compute_run(uint32_t r, uint32_t slot) {
        HVX_Vector *   key   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *   idx   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t run   = row_coords(p->shape, r).i1;
        const uint32_t elems = run_elems(run);
        key_tail             = elems * 4 % 128;
        key_base             = run * p->n_run;
        sort_desc            = false;
        compute_keys(key, key, idx, p->n_run / 32, (elems + 31) / 32);
        compute_network(key, idx, p->n_run / 32);
    }

    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t n, uint32_t slot) {
        if (p->n_cand) {
            compute_segment(r, slot);
            return;
        }
        if (p->n_run) {
            compute_run(r, slot);
            return;
        }
        HVX_Vector *   key   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *   idx   = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const uint32_t n_vec = p->n_sort / 32;
        key_tail             = p->tail_bytes;
        key_base             = 0;
        sort_desc            = p->descending != 0;
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < n; j++) {
            compute_keys(key, key, idx, n_vec, (p->ne0 + 31) / 32);
            compute_network(key, idx, n_vec);
            key += n_vec;
            idx += n_vec;
        }
    }

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        if (p->n_run) {  // a run's values (none for a run of padding only)
            const row_pos  c     = row_coords(p->shape, r);
            const uint32_t elems = run_elems(c.i1);
            const dma_addr_t s   = octx->src[0].data + row_offset(p->src0, c.i1, c.i2, c.i3);
            return elems == 0 ? 0 : dma_queue_push_1d(q, vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot), s, elems * 4) ? 1 : -1;
        }
        return fetch_chunk(octx, p, ith, q, r, n, slot, seg_elems(seg_index(r)) * 4);
    }

    // Area a (0 or 1) of the long-row ARGSORT's DDR scratch, row R: n_pad keys, then n_pad indices.
    dma_addr_t area_row(uint32_t a, uint32_t R) const {
        return octx->dst.data + p->scratch_off + ((dma_addr_t) a * p->n_rows + R) * 8 * (dma_addr_t) p->n_pad;
    }

    // A long row's indices once, after its last segment; a run's keys and indices to area 0.
    int store(uint32_t r, uint32_t n, uint32_t slot) {
        if (p->n_run) {
            const row_pos    c = row_coords(p->shape, r);
            const dma_addr_t d = area_row(0, c.i2 + p->shape.ne2 * c.i3) + c.i1 * p->n_run * 4;
            const bool ok = dma_queue_push_1d(q, d, vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot), p->n_run * 4) &&
                            dma_queue_push_1d(q, d + 4 * p->n_pad, vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot), p->n_run * 4);
            return ok ? 2 : -1;
        }
        if (p->n_cand && seg_index(r) != p->n_seg - 1) {
            return 0;
        }
        return store_chunk(octx, p, ith, q, r, n, slot, p->n_out * 4);
    }

    // ---- A long ARGSORT row's merge passes (argsort_runs below): pass `pass` merges pairs of
    // runs of m = n_run << pass keys, area (pass & 1) into the other; the last one into dst.

    // Lane i of v from lane 31 - i: lane i ^ d for d = 16 .. 1 (mD: lanes_clear(lane, D)).
    static HTP_INLINE HVX_Vector reverse_lanes(HVX_Vector v, HVX_Vector m16, HVX_Vector m8, HVX_Vector m4, HVX_Vector m2,
                                               HVX_Vector m1) {
        return partner_lanes(partner_lanes(partner_lanes(partner_lanes(partner_lanes(v, m16, 16), m8, 8), m4, 4), m2, 2),
                             m1, 1);
    }

    // The first stage of merging the carry (hk, hx: n_vec vectors ascending) with a block (ck,
    // cx: ascending) read backwards: the smaller of each pair to the out block (ok, ox), the
    // larger back to the carry; both halves bitonic, every key of the first <= every one of the
    // second.
    HTP_COMPUTE void compute_flip(HVX_Vector * hk, HVX_Vector * hx, const HVX_Vector * ck, const HVX_Vector * cx,
                                  HVX_Vector * ok, HVX_Vector * ox, uint32_t n_vec) const {
        const HVX_Vector lane = lane_index();
        const HVX_Vector m16 = lanes_clear(lane, 16), m8 = lanes_clear(lane, 8), m4 = lanes_clear(lane, 4);
        const HVX_Vector m2 = lanes_clear(lane, 2), m1 = lanes_clear(lane, 1);
        HTP_NO_UNROLL
        for (uint32_t i = 0; i < n_vec; i++) {
            const HVX_Vector     h  = hvx_vmem_load(&hk[i]), hi = hvx_vmem_load(&hx[i]);
            const HVX_Vector     c  = reverse_lanes(hvx_vmem_load(&ck[n_vec - 1 - i]), m16, m8, m4, m2, m1);
            const HVX_Vector     ci = reverse_lanes(hvx_vmem_load(&cx[n_vec - 1 - i]), m16, m8, m4, m2, m1);
            const HVX_VectorPred sw = Q6_Q_vcmp_gt_VwVw(h, c);
            hvx_vmem_store(&ok[i], Q6_V_vmux_QVV(sw, c, h));
            hvx_vmem_store(&ox[i], Q6_V_vmux_QVV(sw, ci, hi));
            hvx_vmem_store(&hk[i], Q6_V_vmux_QVV(sw, h, c));
            hvx_vmem_store(&hx[i], Q6_V_vmux_QVV(sw, hi, ci));
        }
    }

    // The thread's merge blocks at VTCM offset 0 (where the runs' slots were): 0 the carry, 1
    // run A's next block, 2 run B's, 3 the out block; each n_blk keys, then n_blk indices.
    dma_addr_t mblock(uint32_t b) const { return vtcm_at(octx->ctx, p->split, ith, b * 8 * p->n_blk); }

    // Keys and indices of the block at element e of area row `in` into merge block b.
    bool fetch_block(dma_addr_t in, uint32_t e, uint32_t b) {
        const dma_addr_t v = mblock(b);
        return dma_queue_push_1d(q, v, in + e * 4, p->n_blk * 4) &&
               dma_queue_push_1d(q, v + 4 * p->n_blk, in + 4 * p->n_pad + e * 4, p->n_blk * 4);
    }

    // Merge block b out as the block at element e: keys and indices to area row `out`, or (the
    // last pass) the indices of the row's first ne0 elements into its dst row d. Returns the
    // descriptors pushed, -1 on failure.
    int write_block(uint32_t b, dma_addr_t out, dma_addr_t d, bool last, uint32_t e) {
        const dma_addr_t v = mblock(b);
        if (last) {
            const uint32_t n = e >= p->ne0 ? 0 : (p->ne0 - e < p->n_blk ? p->ne0 - e : p->n_blk);
            return n == 0 ? 0 : dma_queue_push_1d(q, d + e * 4, v + 4 * p->n_blk, n * 4) ? 1 : -1;
        }
        const bool ok = dma_queue_push_1d(q, out + e * 4, v, p->n_blk * 4) &&
                        dma_queue_push_1d(q, out + 4 * p->n_pad + e * 4, v + 4 * p->n_blk, p->n_blk * 4);
        return ok ? 2 : -1;
    }

    static int32_t key0(const HVX_Vector * k) { return (int32_t) word_at(hvx_vmem_load(k), 0); }

    // Merges runs 2 pair and 2 pair + 1 of row R (m keys each, nb blocks): the carry starts as
    // A's first block; each step takes the next block of the run whose next key is smaller, and
    // the carry and it give the out block (the n_blk smallest, none larger than a key still
    // unread) and the new carry. Every step waits for its DMA (the next block is chosen by it).
    int merge_pair(uint32_t pass, uint32_t R, uint32_t pair) {
        const uint32_t   m = p->n_run << pass, nb = m >> log2_u32(p->n_blk), nv = p->n_blk / 32, blk = p->n_blk;
        const bool       last = 2 * m == p->n_pad;
        const dma_addr_t in = area_row(pass & 1, R), out = area_row((pass + 1) & 1, R);
        const row_pos    c  = row_coords(p->shape, R << (log2_u32(p->n_pad) - log2_u32(p->n_run)));
        const dma_addr_t d  = octx->dst.data + row_offset(p->dst, 0, c.i2, c.i3);
        const uint32_t   a0 = 2 * pair * m, b0 = a0 + m;
        htp_trace *      tr = &octx->ctx->trace[ith];
        HVX_Vector *     hk = vptr(mblock(0));
        HVX_Vector *     ak = vptr(mblock(1));
        HVX_Vector *     bk = vptr(mblock(2));
        HVX_Vector *     ok = vptr(mblock(3));
        sort_desc           = false;
        if (!fetch_block(in, a0, 0) || !fetch_block(in, a0 + blk, 1) || !fetch_block(in, b0, 2)) {
            dma_queue_flush(q);
            return HTP_STATUS_DMA_ERROR;
        }
        uint32_t pending = 6, ia = 1, ib = 0;  // blocks of A and B taken
        for (uint32_t o = 0; o + 1 < 2 * nb; o++) {
            dma_pop_n(q, tr, pending, (uint16_t) o);
            const int32_t ka = key0(ak), kb = key0(bk);  // both, stale or not: counts fixed by the shape
            const bool   from_a = ib == nb || (ia < nb && ka <= kb);
            HVX_Vector * ck     = from_a ? ak : bk;
            htp_trace_event_start(tr, HTP_TRACE_EVT_HVX_COMP, (uint16_t) o);
            compute_flip(hk, hk + nv, ck, ck + nv, ok, ok + nv, nv);
            compute_merge(ok, ok + nv, nv);
            compute_merge(hk, hk + nv, nv);
            htp_trace_event_stop(tr, HTP_TRACE_EVT_HVX_COMP, (uint16_t) o);
            const int w = write_block(3, out, d, last, a0 + o * blk);
            const uint32_t next = from_a ? ++ia : ++ib;
            if (w < 0 || (next < nb && !fetch_block(in, (from_a ? a0 : b0) + next * blk, from_a ? 1 : 2))) {
                dma_queue_flush(q);
                return HTP_STATUS_DMA_ERROR;
            }
            pending = (uint32_t) w + (next < nb ? 2 : 0);
        }
        dma_pop_n(q, tr, pending, 0);
        const int w = write_block(0, out, d, last, a0 + (2 * nb - 1) * blk);
        if (w < 0) {
            dma_queue_flush(q);
            return HTP_STATUS_DMA_ERROR;
        }
        dma_pop_n(q, tr, (uint32_t) w, 0);
        return HTP_STATUS_OK;
    }
};

}  // namespace

namespace {

// A long ARGSORT row (n_run > 0): its runs' sort on the row stream (whole rows per thread and
// per member of a device group), then the merge passes, one dispatch each (a pass reads what
// the one before wrote), the pairs of the session's rows spread over the threads.
int argsort_runs(htp_op_context * octx, const htp_argsort_params & p) {
    htp_context *  ctx    = octx->ctx;
    const uint32_t n_runs = p.n_pad >> log2_u32(p.n_run);  // (powers of two: no division)
    const op_rows  o      = device_rows_by(ctx, p.split, n_runs);
    int            rc     = run_rows_of<argsort_op>(octx, p, o);
    const uint32_t r0 = o.row_start >> log2_u32(n_runs), rows = o.nrows >> log2_u32(n_runs);
    for (uint32_t pass = 0; rc == HTP_STATUS_OK && (p.n_run << pass) < p.n_pad; pass++) {
        const uint32_t lp    = log2_u32(n_runs) - pass - 1;  // pairs per row: 1 << lp
        const uint32_t units = rows << lp;
        const uint32_t n_thr = units < p.split.n_threads ? units : p.split.n_threads;
        rc = run_threads(ctx, n_thr, [&](uint32_t ith) {
            argsort_op op = {};
            op.octx       = octx;
            op.p          = &p;
            op.ith        = ith;
            op.q          = ctx->dma[ith];
            for (uint32_t u = ith; u < units; u += n_thr) {
                if (const int st = op.merge_pair(pass, r0 + (u >> lp), u & ((1u << lp) - 1))) {
                    return st;
                }
            }
            return (int) HTP_STATUS_OK;
        });
    }
    return rc;
}

}  // namespace

int htp_op_argsort(struct htp_op_context * octx) {
    const htp_argsort_params & p = octx->params->argsort;
    if (p.n_run) {
        return argsort_runs(octx, p);
    }
    // a member of a device group takes whole rows: all n_seg segments of each (one chunk each)
    return run_rows_of<argsort_op>(octx, p, device_rows_by(octx->ctx, p.split, p.n_cand ? p.n_seg : p.split.rows_per_chunk));
}
