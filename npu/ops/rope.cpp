// ROPE F32 / F16, modes normal, neox and multi-section (MROPE / IMROPE / VISION; ggml's
// rope_yarn numerics; VISION is neox over the whole row, n_dims = ne0: host/ops/rope.cpp);
// ROPE_BACK as ROPE with the sines negated; the rotated lanes start at n_offs. Per chunk (all rows of a
// chunk share one plane i2, hence one position) the scalar core computes cos / sin once per
// pair, into a stack copy, and writes per-lane tables C and S to VTCM a whole vector at a
// time; HVX then computes y = x * C + partner(x) * S where partner(x) is x[i ^ 1] (normal)
// or x[i +- n_dims / 2] (neox). Lanes outside [n_offs, n_offs + n_dims) have C = 1, S = 0: they
// are copied.
#include "hvx-util.h"
#include "op-table.h"
#include "row-stream.h"

using namespace htp_ops;

namespace {

constexpr uint32_t kMaxPairs = 256;  // n_dims <= 512 (the host checks)

union lanes_f32 {
    HVX_Vector v;
    float      f[32];
};

struct rope_op : row_op<htp_rope_params> {
    // The plane whose cos / sin tables this thread's VTCM holds (a chunk never crosses a
    // plane, and the angles depend on the plane's position only): built once per plane, not
    // once per chunk.
    uint32_t tables_i2 = UINT32_MAX;
    // The frequency factors (src2, n_dims / 2 floats; null: none), copied to the stack once
    // per thread by start: they are a model weight, which on a v81 with 64-bit DMA
    // bases lies above 4 GiB where only DMA reaches it (docs/vhtp.md "64-bit DMA bases").
    const float * ff = nullptr;
    lanes_f32     ff_copy[kMaxPairs / 32];

    // Before the row stream starts (start_op, row-stream.h): DMA the factors into
    // this thread's sin table, which build_tables fills only later, and bring them to the
    // stack with HVX loads (the core reads neither DDR above 4 GiB nor VTCM).
    // Returns an htp_status.
    int start() {
        if (!octx->src[2].data) {
            return HTP_STATUS_OK;
        }
        const dma_addr_t at    = vtcm_at(octx->ctx, p->split, ith, p->vsin);
        const uint32_t   bytes = p->n_dims / 2 * 4;
        if (!dma_queue_push_1d(q, at, octx->src[2].data, bytes)) {
            return HTP_STATUS_DMA_ERROR;
        }
        dma_queue_pop(q);
        const HVX_Vector * v = vptr(at);
        for (uint32_t i = 0; i < (bytes + 127) / 128; i++) {
            hvx_vmem_store(&ff_copy[i].v, hvx_vmem_load(v + i));
        }
        ff = ff_copy[0].f;
        return HTP_STATUS_OK;
    }

    uint32_t elem_size() const { return p->type == HTP_TYPE_F16 ? 2 : 4; }

    int fetch(uint32_t r, uint32_t n, uint32_t slot) {
        return fetch_chunk(octx, p, ith, q, r, n, slot, p->ne0 * elem_size());
    }

    // Position theta of pair k (the section's position for mrope) times theta_scale^k.
    struct plane_pos {
        float t, h, w, e;
    };

    float section_theta(const plane_pos & th, int32_t sector) const {
        const int32_t * sec = p->sections;
        if (p->sect_layout == HTP_ROPE_SECT_IMROPE) {
            if (sector % 3 == 1 && sector < 3 * sec[1]) {
                return th.h;
            }
            if (sector % 3 == 2 && sector < 3 * sec[2]) {
                return th.w;
            }
            if (sector % 3 == 0 && sector < 3 * sec[0]) {
                return th.t;
            }
            return th.e;
        }
        const int32_t sec_w = sec[0] + sec[1];
        if (sector >= sec[0] && sector < sec_w) {
            return th.h;
        }
        if (sector >= sec_w && sector < sec_w + sec[2]) {
            return th.w;
        }
        return sector >= sec_w + sec[2] ? th.e : th.t;
    }

    // VISION: the angle of the section that starts at this sector restarts from its position
    // (ggml_mrope_cache_init's independent sections; one restart per sector, t first, as there).
    void restart_section(plane_pos & th, const plane_pos & base, int32_t sector) const {
        const int32_t * sec = p->sections;
        if (sector == 0) {
            th.t = base.t;
        } else if (sector == sec[0]) {
            th.h = base.h;
        } else if (sector == sec[0] + sec[1]) {
            th.w = base.w;
        } else if (sector == sec[0] + sec[1] + sec[2]) {
            th.e = base.e;
        }
    }

    // cos / sin of every pair of plane i2, as ggml_rope_cache_init / ggml_mrope_cache_init
    // and rope_yarn compute them.
    void pair_angles(uint32_t i2, float * cs, float * sn) {
        const dma_addr_t pa  = octx->src[1].data + i2 * p->pos_nb;
        plane_pos        th  = {};
        th.t                 = (float) *(const int32_t *) htp_va(pa);
        if (p->mrope) {
            th.h = (float) *(const int32_t *) htp_va(pa + p->pos_sec_nb);
            th.w = (float) *(const int32_t *) htp_va(pa + 2 * p->pos_sec_nb);
            th.e = (float) *(const int32_t *) htp_va(pa + 3 * p->pos_sec_nb);
        }
        const plane_pos base    = th;
        const bool      restart = p->mrope && p->sect_layout == HTP_ROPE_SECT_VISION;
        int32_t         sector  = 0;  // k % sect_dims, kept incrementally
        for (uint32_t k = 0; k < p->n_dims / 2; k++) {
            if (restart) {
                restart_section(th, base, sector);
            }
            const float theta = p->mrope ? section_theta(th, sector) : th.t;
            const float te    = ff ? theta / ff[k] : theta;
            const float ti    = p->freq_scale * te;
            float       t     = ti;
            if (p->ext_factor != 0.0f) {
                const float y    = ((float) k - p->corr_low) * p->inv_corr_span;
                const float ramp = (1.0f - __builtin_fminf(1.0f, __builtin_fmaxf(0.0f, y))) * p->ext_factor;
                t                = ti * (1.0f - ramp) + te * ramp;
            }
            cs[k] = __builtin_cosf(t) * p->mscale;
            sn[k] = __builtin_sinf(t) * p->mscale * p->sin_sign;
            th.t *= p->theta_scale;
            th.h *= p->theta_scale;
            th.w *= p->theta_scale;
            th.e *= p->theta_scale;
            if (++sector == p->sect_dims) {
                sector = 0;
            }
        }
    }

    // Once per plane, out of line: the scalar core's cosf / sinf calls fill stack arrays,
    // which the HVX compute below never touches (docs/tools.md, "Spills").
    __attribute__((noinline)) void build_tables(uint32_t i2) {
        float cs[kMaxPairs], sn[kMaxPairs];
        pair_angles(i2, cs, sn);
        HVX_Vector *   ct   = vptr(vtcm_at(octx->ctx, p->split, ith, p->vcos));
        HVX_Vector *   st   = vptr(vtcm_at(octx->ctx, p->split, ith, p->vsin));
        const uint32_t nd   = p->n_dims;
        const uint32_t half = nd / 2;
        const uint32_t off  = p->n_offs;
        for (uint32_t v = 0; v < p->n_vec; v++) {
            lanes_f32 c, s;
            for (uint32_t l = 0; l < 32; l++) {
                const uint32_t i = 32 * v + l - off;  // wraps below n_offs: >= nd, copied
                if (i >= nd) {
                    c.f[l] = 1.0f;
                    s.f[l] = 0.0f;
                } else if (p->mode == HTP_ROPE_NEOX) {
                    const uint32_t k = i < half ? i : i - half;
                    c.f[l]           = cs[k];
                    s.f[l]           = i < half ? -sn[k] : sn[k];
                } else {
                    const uint32_t k = i / 2;
                    c.f[l]           = cs[k];
                    s.f[l]           = (i & 1) ? sn[k] : -sn[k];
                }
            }
            hvx_vmem_store(ct + v, hvx_vmem_load(&c.v));
            hvx_vmem_store(st + v, hvx_vmem_load(&s.v));
        }
    }

    // y = x * C + partner * S over n_vec vectors; neox: the partner is x[i + n] for lanes below h
    // (n_offs + n_dims / 2), x[i - n] from there on, n = n_dims / 2 = 32 hq + hr / 4.
    void rotate_row_neox(HVX_Vector * y, const HVX_Vector * x, const HVX_Vector * ct, const HVX_Vector * st,
                         uint32_t n_vec, uint32_t hq, uint32_t hr, int32_t h) const {
        HTP_NO_UNROLL
        for (uint32_t v = 0; v < n_vec; v++) {
            const int32_t t = h - (int32_t) (32 * v);  // lanes < t take x[i + n], the others x[i - n]
            HVX_Vector    pa = Q6_V_vzero(), pb = Q6_V_vzero();
            if (t > 0) {
                const HVX_Vector a0 = hvx_vmem_load(x + v + hq);
                pa = hr ? Q6_V_valign_VVR(hvx_vmem_load(x + v + hq + 1), a0, (int32_t) hr) : a0;
            }
            if (t < 32) {
                const uint32_t   j  = v - hq;  // >= 0 here
                const HVX_Vector b0 = hvx_vmem_load(x + j);
                pb = hr ? Q6_V_valign_VVR(b0, j ? hvx_vmem_load(x + j - 1) : b0, (int32_t) (128 - hr)) : b0;
            }
            const HVX_Vector pv = t >= 32 ? pa : t <= 0 ? pb : Q6_V_vmux_QVV(Q6_Q_vsetq_R(4 * t), pa, pb);
            hvx_vmem_store(y + v, Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(hvx_vmem_load(x + v), hvx_vmem_load(ct + v)),
                                                     Q6_Vsf_vmpy_VsfVsf(pv, hvx_vmem_load(st + v))));
        }
    }

    // Normal mode: the partner of lane i is x[i ^ 1].
    static void rotate_row_normal(HVX_Vector * y, const HVX_Vector * x, const HVX_Vector * ct, const HVX_Vector * st,
                                  uint32_t n_vec, HVX_Vector even, HVX_Vector odd) {
        HTP_NO_UNROLL
        for (uint32_t v = 0; v < n_vec; v++) {
            const HVX_Vector xv = hvx_vmem_load(x + v);
            const HVX_Vector pv = Q6_V_vor_VV(Q6_V_vand_VV(Q6_V_vror_VR(xv, 4), even),     // even i: x[i + 1]
                                              Q6_V_vand_VV(Q6_V_vror_VR(xv, 124), odd));   // odd i:  x[i - 1]
            hvx_vmem_store(y + v, Q6_Vsf_vadd_VsfVsf(Q6_Vsf_vmpy_VsfVsf(xv, hvx_vmem_load(ct + v)),
                                                     Q6_Vsf_vmpy_VsfVsf(pv, hvx_vmem_load(st + v))));
        }
    }

    HTP_COMPUTE void compute_chunk(uint32_t r, uint32_t n, uint32_t slot) {
        const uint32_t i2 = row_coords(p->shape, r).i2;
        if (i2 != tables_i2) {
            build_tables(i2);
            tables_i2 = i2;
        }
        const HVX_Vector * x = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vsrc, slot));
        HVX_Vector *       y = vptr(vtcm_slot(octx->ctx, p->split, ith, p->vdst, slot));
        const bool         f16 = p->type == HTP_TYPE_F16;
        if (p->mode == HTP_ROPE_NEOX) {
            f16 ? compute_rows<true, true>(x, y, n) : compute_rows<true, false>(x, y, n);
        } else {
            f16 ? compute_rows<false, true>(x, y, n) : compute_rows<false, false>(x, y, n);
        }
    }

    // The chunk's rows, one row loop per mode and type; F16 rows are widened into the vx
    // scratch row, rotated into vy and narrowed back.
    template <bool kNeox, bool kF16> HTP_COMPUTE void compute_rows(const HVX_Vector * x, HVX_Vector * y, uint32_t n) {
        const HVX_Vector * ct    = vptr(vtcm_at(octx->ctx, p->split, ith, p->vcos));
        const HVX_Vector * st    = vptr(vtcm_at(octx->ctx, p->split, ith, p->vsin));
        HVX_Vector *       xf    = kF16 ? vptr(vtcm_at(octx->ctx, p->split, ith, p->vx)) : nullptr;
        HVX_Vector *       yf    = kF16 ? vptr(vtcm_at(octx->ctx, p->split, ith, p->vy)) : nullptr;
        const uint32_t     n_hv  = (p->ne0 + 63) / 64;
        const uint32_t     n_vec = p->n_vec;
        const uint32_t     px    = p->vsrc.row_pitch / 128;
        const uint32_t     py    = p->vdst.row_pitch / 128;
        const uint32_t     hq    = p->half_vec;
        const uint32_t     hr    = p->half_shift;
        const int32_t      h     = (int32_t) (p->n_offs + p->n_dims / 2);  // the partner flips at this lane
        const HVX_Vector   even  = Q6_Vh_vshuff_Vh(Q6_V_vsplat_R(0x0000ffff));  // all-ones in even words
        const HVX_Vector   odd   = Q6_V_vnot_V(even);
        HTP_NO_UNROLL
        for (uint32_t j = 0; j < n; j++) {
            const HVX_Vector * xr = x;
            HVX_Vector *       yr = y;
            if (kF16) {
                f16_to_f32_vectors(xf, x, n_hv);
                xr = xf;
                yr = yf;
            }
            if (kNeox) {
                rotate_row_neox(yr, xr, ct, st, n_vec, hq, hr, h);
            } else {
                rotate_row_normal(yr, xr, ct, st, n_vec, even, odd);
            }
            if (kF16) {
                f32_to_f16_vectors(y, yf, n_hv);
            }
            x += px;
            y += py;
        }
    }

    int store(uint32_t r, uint32_t n, uint32_t slot) {
        return store_chunk(octx, p, ith, q, r, n, slot, p->ne0 * elem_size());
    }
};

}  // namespace

int htp_op_rope(struct htp_op_context * octx) {
    return run_rows<rope_op>(octx, octx->params->rope);
}
