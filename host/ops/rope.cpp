// Host side of ROPE and ROPE_BACK (the inverse rotation: the sines negated): normal, neox and
// multi-section (MROPE / IMROPE / VISION) modes, F32 / F16, freq_factors, a rotated range that
// starts at n_offs (ggml_rope_set_offset), ext / yarn parameters as ggml's CPU computes them
// (theta_scale, corr dims and mscale are made here once). VISION is the multi-section path with
// the neox pairs spread over the whole row: pair k is (k, k + n_dims) for k < n_dims = ne0 / 2,
// so the kernel rotates ne0 lanes, with theta_scale and the yarn corr dims still of n_dims.
#include <cmath>
#include <cstring>

#include "encode-util.h"
#include "htp-abi/htp-types.h"

using namespace htp_enc;

namespace {

constexpr int kMaxDims = 512;  // kMaxPairs * 2 of npu/ops/rope.cpp

struct rope_args {
    int   n_dims, mode, n_ctx_orig, n_offs;
    int   sections[4];
    float freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow;

    bool vision() const { return mode == GGML_ROPE_TYPE_VISION; }

    bool multi_section() const {
        return mode == GGML_ROPE_TYPE_MROPE || mode == GGML_ROPE_TYPE_IMROPE || vision();
    }

    // Lanes the kernel rotates (htp_rope_params.n_dims): VISION's pairs span the whole row.
    int rotated_lanes() const { return vision() ? 2 * n_dims : n_dims; }
};

rope_args read_args(const ggml_tensor * op) {
    const int32_t * ip = (const int32_t *) op->op_params;
    rope_args       a;
    a.n_dims     = ip[1];
    a.mode       = ip[2];
    a.n_ctx_orig = ip[4];
    std::memcpy(&a.freq_base, ip + 5, sizeof(float));
    std::memcpy(&a.freq_scale, ip + 6, sizeof(float));
    std::memcpy(&a.ext_factor, ip + 7, sizeof(float));
    std::memcpy(&a.attn_factor, ip + 8, sizeof(float));
    std::memcpy(&a.beta_fast, ip + 9, sizeof(float));
    std::memcpy(&a.beta_slow, ip + 10, sizeof(float));
    std::memcpy(a.sections, ip + 11, sizeof(a.sections));
    a.n_offs = ip[15];
    return a;
}

uint32_t n_vec_of(const ggml_tensor * op) {
    return ((uint32_t) op->ne[0] + 31) / 32;
}

// F16 rows are widened into f32 scratch rows of 2 * ceil(ne0 / 64) vectors (+ 1 guard vector
// that neox's partner loads may touch).
uint32_t f32_scratch_bytes(const ggml_tensor * op) {
    return (2 * (((uint32_t) op->ne[0] + 63) / 64) + 1) * 128;
}

stream_need rope_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * a     = op->src[0];
    const uint32_t      es    = (uint32_t) ggml_type_size(a->type);
    const uint32_t      pitch = align_up((uint32_t) a->ne[0] * es, 128);
    stream_need         need  = {};
    need.total_rows           = (uint32_t) ggml_nrows(op);
    need.chunk_divides        = (uint32_t) a->ne[1];
    need.bytes_per_row        = 2 * pitch;
    need.bytes_fixed          = 2 * n_vec_of(op) * 128 + (a->type == GGML_TYPE_F16 ? 2 * f32_scratch_bytes(op) : 0);
    need.desc_per_chunk       = 2;
    need.multi_row_ok = dma_field_ok(caps, (uint64_t) a->ne[0] * es) && dma_field_ok(caps, pitch) &&
                        dma_field_ok(caps, a->nb[1]) && dma_field_ok(caps, op->nb[1]) && dma_field_ok(caps, (uint64_t) a->ne[1]);
    return need;
}

bool rope_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a   = op->src[0];
    const ggml_tensor * pos = op->src[1];
    const ggml_tensor * ff  = op->src[2];
    const rope_args     r   = read_args(op);
    if ((a->type != GGML_TYPE_F32 && a->type != GGML_TYPE_F16) || op->type != a->type || !ggml_are_same_shape(a, op)) {
        return false;
    }
    const bool multi = r.multi_section();
    if (r.mode != GGML_ROPE_TYPE_NORMAL && r.mode != GGML_ROPE_TYPE_NEOX && !multi) {
        return false;
    }
    if (multi && (r.sections[0] < 0 || r.sections[1] < 0 || r.sections[2] < 0 || r.sections[3] < 0 ||
                  r.sections[0] + r.sections[1] + r.sections[2] + r.sections[3] <= 0 ||
                  pos->ne[0] < 4 * a->ne[2])) {
        return false;
    }
    // VISION: ggml's CPU asserts n_dims == ne0 / 2 and n_offs == 0 (its pairs fill the row).
    if (r.vision() && (2 * (int64_t) r.n_dims != a->ne[0] || r.n_offs != 0)) {
        return false;
    }
    // n_dims 0 rotates nothing (ggml's CPU copies the rows): every lane is a copied one.
    const int rot = r.rotated_lanes();
    if (r.n_offs < 0 || r.n_offs % 2 != 0 || r.n_dims < 0 || r.n_dims % 2 != 0 ||
        (int64_t) r.n_offs + rot > a->ne[0] || rot > kMaxDims || a->ne[0] % 2 != 0) {
        return false;
    }
    if (pos->type != GGML_TYPE_I32 || pos->ne[0] < a->ne[2] || !fits_u32(pos)) {
        return false;
    }
    // One factor per rotated pair (VISION's n_dims pairs read n_dims of them).
    if (ff && (ff->type != GGML_TYPE_F32 || ff->ne[0] < rot / 2 || !ggml_is_contiguous(ff))) {
        return false;
    }
    const size_t es = ggml_type_size(a->type);
    if (a->nb[0] != es || op->nb[0] != es || !fits_u32(a) || !fits_u32(op) || !dma_1d_ok((uint64_t) a->ne[0] * es)) {
        return false;
    }
    return rows_plan_ok(caps, rope_need(caps, op));
}

void rope_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    const rope_args     r = read_args(op);
    htp_rope_params &   p = desc.params.rope;
    desc.opcode           = HTP_OP_ROPE;
    plan_rows(caps, rope_need(caps, op), p.split);

    const uint32_t es    = (uint32_t) ggml_type_size(a->type);
    const uint32_t pitch = align_up((uint32_t) a->ne[0] * es, 128);
    p.type               = a->type == GGML_TYPE_F16 ? HTP_TYPE_F16 : HTP_TYPE_F32;
    p.mode               = r.mode == GGML_ROPE_TYPE_NORMAL ? HTP_ROPE_NORMAL : HTP_ROPE_NEOX;
    p.mrope              = r.multi_section();
    p.sect_layout        = r.mode == GGML_ROPE_TYPE_IMROPE ? HTP_ROPE_SECT_IMROPE
                           : r.vision()                   ? HTP_ROPE_SECT_VISION
                                                          : HTP_ROPE_SECT_MROPE;
    std::memcpy(p.sections, r.sections, sizeof(p.sections));
    p.sect_dims  = r.sections[0] + r.sections[1] + r.sections[2] + r.sections[3];
    p.pos_sec_nb = (uint32_t) (a->ne[2] * op->src[1]->nb[0]);
    p.ne0                = (uint32_t) a->ne[0];
    p.n_dims             = (uint32_t) r.rotated_lanes();
    p.n_vec              = n_vec_of(op);
    p.half_vec           = (p.n_dims / 2 * 4) / 128;
    p.half_shift         = (p.n_dims / 2 * 4) % 128;
    p.theta_scale        = r.n_dims > 0 ? powf(r.freq_base, -2.0f / r.n_dims) : 1.0f;
    p.freq_scale         = r.freq_scale;
    p.ext_factor         = r.ext_factor;
    p.mscale             = r.attn_factor;
    if (r.ext_factor != 0.0f) {
        p.mscale *= 1.0f + 0.1f * logf(1.0f / r.freq_scale);
    }
    float corr[2];
    ggml_rope_yarn_corr_dims(r.n_dims, r.n_ctx_orig, r.freq_base, r.beta_fast, r.beta_slow, corr);
    p.corr_low      = corr[0];
    p.inv_corr_span = 1.0f / std::fmax(0.001f, corr[1] - corr[0]);
    p.pos_nb        = (uint32_t) op->src[1]->nb[0];
    uint32_t off = rows_in_out(p, a, op, pitch);
    p.vcos          = off;
    off += p.n_vec * 128;
    p.vsin = off;
    off += p.n_vec * 128;
    p.vx = off;
    p.vy = off;
    if (p.type == HTP_TYPE_F16) {
        p.vy = off + f32_scratch_bytes(op);
    }
    p.n_offs   = (uint32_t) r.n_offs;
    p.sin_sign = op->op == GGML_OP_ROPE_BACK ? -1.0f : 1.0f;
}

}  // namespace

extern const htp_op_encoder htp_rope_encoder = { rope_supports, rope_encode };
