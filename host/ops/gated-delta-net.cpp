// Host side of GATED_DELTA_NET (F32; scalar or per-channel (KDA) gate; K state snapshots;
// q / k heads broadcast over v heads), as ggml_compute_forward_gated_delta_net_f32.
#include <algorithm>
#include <cmath>

#include "encode-util.h"

using namespace htp_enc;

namespace {

constexpr uint32_t kMaxSv = 256;  // the kernel's compute_tokens<NV>: NV <= 8 vectors per state row
constexpr uint32_t kBufs  = 2;    // slots per block stream (split.n_bufs): the kernel's double buffer
constexpr uint32_t kMaxK  = 8;    // snapshot buffers per slot in VTCM

struct gdn_layout {
    uint32_t tb;                      // tokens per block
    uint32_t pitch, g_pitch;
    uint32_t q_size, g_size, beta_size, snap_size, state_size;
    uint32_t total;                   // VTCM bytes per thread
};

static gdn_layout layout_for(const ggml_tensor * op, uint32_t tb) {
    const ggml_tensor * v   = op->src[2];
    const ggml_tensor * g   = op->src[3];
    const uint32_t      S_v = (uint32_t) v->ne[0];
    const uint32_t      K   = (uint32_t) op->op_params[0];
    const bool          kda = g->ne[0] == v->ne[0] && v->ne[0] != 1;
    gdn_layout          l;
    l.tb         = tb;
    l.pitch      = align_up(S_v * 4, 128);
    l.g_pitch    = kda ? l.pitch : 4;
    l.q_size     = tb * l.pitch;
    l.g_size     = kda ? tb * l.pitch : align_up(tb * 4, 128);
    l.beta_size  = align_up(tb * 4, 128);
    l.state_size = S_v * l.pitch;
    l.snap_size  = K * l.state_size;
    // 2 state regions + 2 slots of (q, k, v, attn, g, beta, snapshots)
    l.total = 2 * l.state_size + kBufs * (4 * l.q_size + l.g_size + l.beta_size + l.snap_size);
    return l;
}

static bool choose_layout(const htp_device_caps & caps, const ggml_tensor * op, gdn_layout & l) {
    const uint32_t tb0 = (uint32_t) std::min<int64_t>(op->src[2]->ne[2], 1024);
    return fit_token_block(caps, tb0, [op](uint32_t tb) { return layout_for(op, tb); }, l);
}

static bool gdn_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const auto [q, k, v, g, b, st] = op_srcs<6>(op);
    if (op->type != GGML_TYPE_F32) {
        return false;
    }
    for (int i = 0; i < 6; i++) {
        const ggml_tensor * s = op->src[i];
        if (s->type != GGML_TYPE_F32 || s->nb[0] != 4 || !fits_u32(s)) {
            return false;
        }
    }
    if (!ggml_is_contiguous(g) || !ggml_is_contiguous(b) || !ggml_is_contiguous(st) || !ggml_is_contiguous(op) ||
        !fits_u32(op)) {
        return false;
    }
    const int64_t S_v = v->ne[0], H = v->ne[1], T = v->ne[2], n_seqs = v->ne[3];
    const int64_t K   = op->op_params[0];
    if (S_v < 1 || S_v > kMaxSv || H < 1 || T < 1 || n_seqs < 1 || K < 1 || K > kMaxK) {
        return false;
    }
    if (q->ne[0] != S_v || k->ne[0] != S_v || q->ne[2] != T || k->ne[2] != T || q->ne[1] < 1 || k->ne[1] < 1 ||
        q->ne[3] < 1 || k->ne[3] < 1 || n_seqs % q->ne[3] != 0 || n_seqs % k->ne[3] != 0) {
        return false;
    }
    if ((g->ne[0] != 1 && g->ne[0] != S_v) || g->ne[1] != H || g->ne[2] != T || g->ne[3] != n_seqs || b->ne[0] != 1 ||
        b->ne[1] != H || b->ne[2] != T || b->ne[3] != n_seqs) {
        return false;
    }
    if (st->ne[0] != S_v || st->ne[1] != S_v || st->ne[2] != H || st->ne[3] != n_seqs) {
        return false;
    }
    if (op->ne[0] != S_v * H || op->ne[1] != T * n_seqs + K * S_v * n_seqs || op->ne[2] != 1 || op->ne[3] != 1) {
        return false;
    }
    gdn_layout l;
    if (!choose_layout(caps, op, l)) {
        return false;
    }
    // 2-D descriptors: token blocks (q, k, v, g, beta rows; attention rows) and the transposed
    // state (S_v one-element rows, S_v * 4 bytes apart).
    return dma_fields_ok(caps, { (uint64_t) S_v, (uint64_t) S_v * 4, l.pitch, l.tb, q->nb[2], k->nb[2], v->nb[2],
                                g->nb[2], b->nb[2], (uint64_t) H * S_v * 4 });
}

static void gdn_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const auto [q, k, v, g, b, st] = op_srcs<6>(op);
    htp_gdn_params &    p  = desc.params.gdn;
    desc.opcode            = HTP_OP_GATED_DELTA_NET;
    gdn_layout l;
    choose_layout(caps, op, l);

    p.S_v    = (uint32_t) v->ne[0];
    p.H      = (uint32_t) v->ne[1];
    p.T      = (uint32_t) v->ne[2];
    p.K      = (uint32_t) op->op_params[0];
    const uint32_t n_seqs = (uint32_t) v->ne[3];
    p.kda    = g->ne[0] == v->ne[0] && v->ne[0] != 1 ? 1 : 0;
    p.scale  = 1.0f / sqrtf((float) p.S_v);
    p.div_H    = htp_fastdiv_init(p.H);
    p.mod_neq1 = htp_fastdiv_init((uint32_t) q->ne[1]);                  // iq1 = h % neq1
    p.mod_nek1 = htp_fastdiv_init((uint32_t) k->ne[1]);
    p.div_rq3  = htp_fastdiv_init((uint32_t) (v->ne[3] / q->ne[3]));     // iq3 = s / rq3
    p.div_rk3  = htp_fastdiv_init((uint32_t) (v->ne[3] / k->ne[3]));
    p.q      = rows_strides(q->nb[1], q->nb[2], q->nb[3]);
    p.k      = rows_strides(k->nb[1], k->nb[2], k->nb[3]);
    p.v      = rows_strides(v->nb[1], v->nb[2], v->nb[3]);
    p.g      = rows_strides(g->nb[1], g->nb[2], g->nb[3]);
    p.beta   = rows_strides(b->nb[1], b->nb[2], b->nb[3]);
    p.state_nb3  = (uint32_t) st->nb[3];
    p.attn_elems = p.S_v * p.H * p.T * n_seqs;
    p.snap_elems = p.S_v * p.S_v * p.H * n_seqs;
    p.tok_block  = l.tb;
    p.n_blocks   = (p.T + l.tb - 1) / l.tb;
    p.pitch      = l.pitch;
    p.g_pitch    = l.g_pitch;

    // Rows are (head, sequence) pairs; one pair at a time per thread, blocks of tokens pipelined.
    const uint32_t off = split_pairs(caps, p.H * n_seqs, kBufs, vtcm_budget(caps), l.state_size, p.split, p.v_state);
    p.q_size = p.k_size = p.v_size = p.attn_size = l.q_size;
    p.g_size    = l.g_size;
    p.beta_size = l.beta_size;
    p.snap_size = l.snap_size;
    place_regions(off, kBufs, { { &p.v_q, p.q_size }, { &p.v_k, p.k_size }, { &p.v_v, p.v_size }, { &p.v_attn, p.attn_size },
                                { &p.v_g, p.g_size }, { &p.v_beta, p.beta_size }, { &p.v_snap, p.snap_size } });
}

}  // namespace

extern const htp_op_encoder htp_gated_delta_net_encoder = { gdn_supports, gdn_encode };
