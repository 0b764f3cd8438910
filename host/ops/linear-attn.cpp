// Host side of RWKV_WKV6, RWKV_WKV7 and GATED_LINEAR_ATTN (F32), as ggml-cpu's
// ggml_compute_forward_rwkv_wkv6_f32 / _rwkv_wkv7_f32 / _gla_f32: one kernel_params struct
// (htp_wkv_params) and one plan; the kernels are npu/ops/linear-attn.cpp.
#include <algorithm>
#include <cstring>

#include "encode-util.h"

using namespace htp_enc;

namespace {

constexpr uint32_t kMaxS = 256;  // the kernel's compute_tokens<NV>: NV <= 8 vectors per state row
constexpr uint32_t kBufs = 2;    // slots per block stream (split.n_bufs): the kernel's double buffer

enum wkv_kind { WKV6, WKV7, GLA };

struct wkv_shape {
    uint32_t n_in;      // per-token input streams
    uint32_t n_src;     // ggml sources (the state last)
};

static wkv_shape shape_of(wkv_kind kind) {
    switch (kind) {
        case WKV6: return { 4, 6 };  // k v r td (+ tf), state
        case WKV7: return { 6, 7 };  // r w k v a b, state
        default: return { 4, 5 };    // k v q g, state
    }
}

struct wkv_layout {
    uint32_t tb, pitch, blk_size, state_size, total;
};

static wkv_layout layout_for(wkv_kind kind, uint32_t S, uint32_t tb) {
    wkv_layout l;
    l.tb         = tb;
    l.pitch      = align_up(S * 4, 128);
    l.blk_size   = tb * l.pitch;
    l.state_size = S * l.pitch;
    // 2 state regions (+ 2 time_faaaa rows) + 2 slots of (inputs, output)
    l.total = 2 * l.state_size + (kind == WKV6 ? 2 * l.pitch : 0) + kBufs * (shape_of(kind).n_in + 1) * l.blk_size;
    return l;
}

static bool choose_layout(const htp_device_caps & caps, wkv_kind kind, uint32_t S, uint32_t T, wkv_layout & l) {
    return fit_token_block(caps, std::min(T, 1024u), [kind, S](uint32_t tb) { return layout_for(kind, S, tb); }, l);
}

static bool wkv_supports(wkv_kind kind, const htp_device_caps & caps, const ggml_tensor * op) {
    const wkv_shape     sh = shape_of(kind);
    const ggml_tensor * st = op->src[sh.n_src - 1];
    const ggml_tensor * k  = op->src[kind == WKV7 ? 2 : 0];
    if (op->type != GGML_TYPE_F32 || !ggml_is_contiguous(op) || !fits_u32(op)) {
        return false;
    }
    for (uint32_t i = 0; i < sh.n_src; i++) {
        const ggml_tensor * s = op->src[i];
        if (s == nullptr || s->type != GGML_TYPE_F32 || !ggml_is_contiguous(s) || !fits_u32(s)) {
            return false;
        }
    }
    const int64_t S = k->ne[0], H = k->ne[1], n_tokens = k->ne[2], n_seqs = st->ne[1];
    if (S < 1 || S > kMaxS || H < 1 || n_tokens < 1 || n_seqs < 1 || n_tokens % n_seqs != 0 || k->ne[3] != 1) {
        return false;
    }
    for (uint32_t i = 0; i + 1 < sh.n_src; i++) {
        const ggml_tensor * s = op->src[i];
        if (kind == WKV6 && i == 3) {  // time_faaaa: [S, H]
            if (s->ne[0] != S || s->ne[1] != H || s->ne[2] != 1 || s->ne[3] != 1) {
                return false;
            }
        } else if (s->ne[0] != S || s->ne[1] != H || s->ne[2] != n_tokens || s->ne[3] != 1) {
            return false;
        }
    }
    if (st->ne[0] != S * S * H || st->ne[2] != 1 || st->ne[3] != 1) {
        return false;
    }
    if (op->ne[0] != S * H || op->ne[1] != n_tokens + S * n_seqs || op->ne[2] != 1 || op->ne[3] != 1) {
        return false;
    }
    wkv_layout l;
    if (!choose_layout(caps, kind, (uint32_t) S, (uint32_t) (n_tokens / n_seqs), l)) {
        return false;
    }
    // 2-D descriptors: token blocks (tb rows, H * S * 4 apart), the state (S rows; WKV7: S
    // one-element rows S * 4 bytes apart, S of them).
    return dma_fields_ok(caps, { (uint64_t) S, (uint64_t) S * 4, l.pitch, l.tb, (uint64_t) H * S * 4 });
}

static void wkv_encode(wkv_kind kind, htp_opcode opcode, const htp_device_caps & caps, const ggml_tensor * op,
                       htp_op_desc & desc) {
    const wkv_shape     sh = shape_of(kind);
    const ggml_tensor * st = op->src[sh.n_src - 1];
    const ggml_tensor * k  = op->src[kind == WKV7 ? 2 : 0];
    htp_wkv_params &    p  = desc.params.wkv;
    desc.opcode            = opcode;

    const uint32_t n_seqs   = (uint32_t) st->ne[1];
    const uint32_t n_tokens = (uint32_t) k->ne[2];
    p.S                     = (uint32_t) k->ne[0];
    p.H                     = (uint32_t) k->ne[1];
    p.T                     = n_tokens / n_seqs;
    p.scale                 = 1.0f;
    if (kind == GLA) {
        std::memcpy(&p.scale, op->op_params, 4);  // ggml_gated_linear_attn's scale
    }
    p.div_H                 = htp_fastdiv_init(p.H);
    p.tok_nb                = p.H * p.S * 4;
    p.state_nb              = p.H * p.S * p.S * 4;
    p.out_bytes             = n_tokens * p.tok_nb;
    wkv_layout l;
    choose_layout(caps, kind, p.S, p.T, l);
    p.tok_block = l.tb;
    p.n_blocks  = (p.T + l.tb - 1) / l.tb;
    p.pitch     = l.pitch;
    p.blk_size  = l.blk_size;

    // Rows are (head, sequence) pairs; one pair at a time per thread, blocks of tokens pipelined.
    const uint32_t off = split_pairs(caps, p.H * n_seqs, kBufs, vtcm_budget(caps), l.state_size, p.split, p.v_state);
    const uint32_t u   = kind == WKV6 ? l.pitch : 0;  // WKV6's u row per state copy
    place_regions(place_regions(off, 1, { { &p.v_u[0], u }, { &p.v_u[1], u } }), kBufs,
                  { { &p.v_in, sh.n_in * l.blk_size }, { &p.v_out, l.blk_size } });
}

static bool wkv6_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    return wkv_supports(WKV6, caps, op);
}

static bool wkv7_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    return wkv_supports(WKV7, caps, op);
}

static bool gla_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    return wkv_supports(GLA, caps, op);
}

static void wkv6_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    wkv_encode(WKV6, HTP_OP_RWKV_WKV6, caps, op, desc);
}

static void wkv7_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    wkv_encode(WKV7, HTP_OP_RWKV_WKV7, caps, op, desc);
}

static void gla_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    wkv_encode(GLA, HTP_OP_GATED_LINEAR_ATTN, caps, op, desc);
}

}  // namespace

extern const htp_op_encoder htp_rwkv_wkv6_encoder         = { wkv6_supports, wkv6_encode };
extern const htp_op_encoder htp_rwkv_wkv7_encoder         = { wkv7_supports, wkv7_encode };
extern const htp_op_encoder htp_gated_linear_attn_encoder = { gla_supports, gla_encode };
