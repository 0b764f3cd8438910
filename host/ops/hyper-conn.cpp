// Host side of the hyper-connection ops (deepseek4, glm5-next, kimi-k3, qwen4exp):
// DSV4_HC_PRE (plain and gated), DSV4_HC_POST (with or without comb) and DSV4_HC_COMB, all F32,
// on npu/ops/hyper-conn.cpp. Rows of n_embd elements must be adjacent elements; the small
// per-token vectors (weights, post, comb) must be contiguous per token.
#include <cstring>

#include "encode-util.h"

using namespace htp_enc;

namespace {

constexpr uint32_t kMaxHcPost = 8;   // comb's hc * hc floats fit the 256 bytes after post
constexpr uint32_t kMaxHcPre  = 256;  // the weights row of a token: hc floats in 8 vectors

float param_f32(const ggml_tensor * op, int i) {
    float v;
    std::memcpy(&v, (const char *) op->op_params + 4 * i, 4);
    return v;
}

int32_t param_i32(const ggml_tensor * op, int i) {
    int32_t v;
    std::memcpy(&v, (const char *) op->op_params + 4 * i, 4);
    return v;
}

bool f32_ok(const ggml_tensor * t) {
    return t->type == GGML_TYPE_F32 && t->nb[0] == 4 && fits_u32(t);
}

bool pre_gated(const ggml_tensor * op) {
    return param_i32(op, 1) != 0;
}

uint32_t hc_of(const ggml_tensor * op) {
    return (uint32_t) (op->op == GGML_OP_DSV4_HC_PRE ? op->src[0]->ne[1] : op->src[1]->ne[1]);
}

stream_need hc_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const uint32_t n_embd = (uint32_t) op->ne[0];
    const uint32_t hc     = hc_of(op);
    const uint32_t pitch  = align_up(n_embd * 4, 128);
    stream_need    need   = {};
    need.total_rows       = (uint32_t) (op->op == GGML_OP_DSV4_HC_PRE ? op->ne[1] : op->ne[2]);
    need.chunk_divides    = need.total_rows;
    if (op->op == GGML_OP_DSV4_HC_PRE) {
        const bool gated   = pre_gated(op);
        need.bytes_per_row = hc * pitch + (gated ? hc * pitch : align_up(hc * 4, 128)) + pitch;
        need.desc_per_row  = 2;
        need.desc_per_chunk = 1;
        need.multi_row_ok  = dma_fields_ok(caps, { pitch, op->nb[1], (uint64_t) n_embd * 4 });
    } else {
        need.bytes_per_row  = pitch + hc * pitch + 384 + hc * pitch;
        need.desc_per_row   = 4;  // residual, post, comb; the store
        need.desc_per_chunk = 1;  // x
        need.multi_row_ok   = dma_fields_ok(caps, { pitch, op->src[0]->nb[1], (uint64_t) n_embd * 4 });
    }
    return need;
}

bool hc_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * x = op->src[0];
    const ggml_tensor * w = op->src[1];
    const uint32_t      hc = hc_of(op);
    if (!f32_ok(op) || !f32_ok(x) || !f32_ok(w) || hc == 0 || !dma_1d_ok((uint64_t) op->ne[0] * 4)) {
        return false;
    }
    const uint64_t rb = (uint64_t) op->ne[0] * 4;
    if (op->op == GGML_OP_DSV4_HC_PRE) {
        if (hc > kMaxHcPre || !dma_fields_ok(caps, { x->nb[1], hc, rb })) {
            return false;
        }
        if (pre_gated(op) ? !dma_field_ok(caps, w->nb[1]) : w->nb[0] != 4) {
            return false;
        }
    } else {
        const ggml_tensor * post = op->src[2];
        const ggml_tensor * comb = op->src[3];
        if (hc > kMaxHcPost || !f32_ok(post) || !dma_fields_ok(caps, { w->nb[1], op->nb[1], hc, rb })) {
            return false;
        }
        if (comb && (!f32_ok(comb) || comb->nb[1] != hc * 4)) {
            return false;
        }
    }
    return rows_plan_ok(caps, hc_need(caps, op));
}

void hc_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor * x = op->src[0];
    const ggml_tensor * w = op->src[1];
    htp_hc_params &     p = desc.params.hc;
    std::memset(&p, 0, sizeof(p));
    plan_rows(caps, hc_need(caps, op), p.split);
    p.n_embd    = (uint32_t) op->ne[0];
    p.hc        = hc_of(op);
    p.row_bytes = p.n_embd * 4;
    p.pitch     = align_up(p.row_bytes, 128);
    const uint32_t rpc = p.split.rows_per_chunk;
    uint32_t       off = 0;
    if (op->op == GGML_OP_DSV4_HC_PRE) {
        desc.opcode = HTP_OP_DSV4_HC_PRE;
        const bool gated = pre_gated(op);
        p.kind  = gated ? HTP_HC_PRE_GATED : HTP_HC_PRE;
        p.scale = param_f32(op, 0);
        p.nb_x1 = (uint32_t) x->nb[1];
        p.nb_x2 = (uint32_t) x->nb[2];
        p.nb_w1 = (uint32_t) w->nb[1];
        p.nb_w2 = (uint32_t) w->nb[2];
        p.nb_d1 = (uint32_t) op->nb[1];
        p.vx    = stream_at(off, p.split, p.hc * p.pitch, rpc);
        p.vw    = stream_at(off, p.split, gated ? p.hc * p.pitch : align_up(p.hc * 4, 128), rpc);
        p.vdst  = stream_at(off, p.split, p.pitch, rpc);
        return;
    }
    desc.opcode = HTP_OP_DSV4_HC_POST;
    p.kind      = op->src[3] ? HTP_HC_POST : HTP_HC_POST_ID;
    p.nb_x1     = (uint32_t) x->nb[1];
    p.nb_r1     = (uint32_t) w->nb[1];
    p.nb_r2     = (uint32_t) w->nb[2];
    p.nb_p1     = (uint32_t) op->src[2]->nb[1];
    p.nb_c2     = op->src[3] ? (uint32_t) op->src[3]->nb[2] : 0;
    p.nb_d1     = (uint32_t) op->nb[1];
    p.nb_d2     = (uint32_t) op->nb[2];
    p.vx        = stream_at(off, p.split, p.pitch, rpc);
    p.vw        = stream_at(off, p.split, p.hc * p.pitch, rpc);
    p.vs        = stream_at(off, p.split, 384, rpc);
    p.vdst      = stream_at(off, p.split, p.hc * p.pitch, rpc);
}

// COMB: 16 lanes-of-tokens vectors in and out per chunk of up to 32 tokens.
constexpr uint32_t kCombVecs  = 16;
constexpr uint32_t kConstSize = 19 * 128;

stream_need comb_need(const htp_device_caps & caps, const ggml_tensor * op) {
    stream_need need    = {};
    need.total_rows     = (uint32_t) op->ne[2];
    need.chunk_divides  = 32;  // tokens per chunk: at most one vector's lanes
    need.bytes_per_slot = 2 * kCombVecs * 128;
    need.bytes_per_row  = 4;   // (the slots are fixed-size; a token costs nothing more)
    need.bytes_fixed    = kConstSize;
    need.desc_per_chunk = 2 * kCombVecs;
    need.multi_row_ok   = dma_fields_ok(caps, { op->src[0]->nb[1], op->nb[2], 32 });
    return need;
}

bool comb_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * m = op->src[0];
    const ggml_tensor * s = op->src[1];
    const ggml_tensor * b = op->src[2];
    if (!f32_ok(op) || !f32_ok(m) || !f32_ok(s) || !f32_ok(b) || m->ne[0] != 24 || op->ne[0] != 4 ||
        op->ne[1] != 4 || op->nb[1] != 16 || s->ne[0] < 3 || b->ne[0] != 24 || param_i32(op, 1) < 1) {
        return false;
    }
    return rows_plan_ok(caps, comb_need(caps, op));
}

void comb_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    htp_hc_comb_params & p = desc.params.hc_comb;
    desc.opcode            = HTP_OP_DSV4_HC_COMB;
    plan_rows(caps, comb_need(caps, op), p.split);
    p.eps         = param_f32(op, 0);
    p.n_iter      = (uint32_t) param_i32(op, 1);
    p.nb_m1       = (uint32_t) op->src[0]->nb[1];
    p.nb_d2       = (uint32_t) op->nb[2];
    p.scale_bytes = 12;  // scale[0..2]: the kernel uses scale[2]
    p.base_bytes  = 24 * 4;
    uint32_t off  = 0;
    p.vx          = stream_at(off, p.split, 128, kCombVecs);
    p.vdst        = stream_at(off, p.split, 128, kCombVecs);
    p.vconst      = off;
}

}  // namespace

extern const htp_op_encoder htp_hc_encoder = { hc_supports, hc_encode };
extern const htp_op_encoder htp_dsv4_hc_comb_encoder = { comb_supports, comb_encode };
