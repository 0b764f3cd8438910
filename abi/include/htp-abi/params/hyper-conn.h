// kernel_params of the hyper-connection ops of deepseek4 and its kin (glm5-next, kimi-k3,
// qwen4exp): DSV4_HC_PRE, DSV4_HC_POST, DSV4_HC_COMB. Each struct starts with struct
// htp_split_params `split`; list every struct of this family in
// HTP_KERNEL_PARAMS_MEMBERS_HYPER_CONN so it joins union htp_kernel_params.
#pragma once
#include <stdint.h>

enum htp_hc_kind {
    HTP_HC_PRE = 0,    // y[:, t] = scale * sum_h x[:, h, t] * w[h, t]
    HTP_HC_PRE_GATED,  // y[:, t] = scale * sum_h x[:, h, t] * sigmoid(g[:, h, t])
    HTP_HC_POST,       // y[:, d, t] = x[:, t] * post[d, t] + sum_s r[:, s, t] * comb[d, s, t]
    HTP_HC_POST_ID,    // y[:, d, t] = x[:, t] * post[d, t] + r[:, d, t] (no comb)
};

// PRE / POST, one split row per token. Per token a slot holds: vx the x rows (PRE: hc of
// them, POST: one), vw PRE's gate rows (gated) or weights (hc floats), POST's residual rows,
// vs POST's post (hc floats, at 0) and comb (hc * hc floats, at 128) and vdst the dst rows
// (PRE: one, POST: hc). Stream rows inside a token's slot are `pitch` bytes apart.
struct htp_hc_params {
    struct htp_split_params split;
    uint32_t kind;                   // enum htp_hc_kind
    uint32_t n_embd;                 // elements per row
    uint32_t hc;                     // streams
    uint32_t row_bytes;              // n_embd * 4
    uint32_t pitch;                  // VTCM bytes between stream rows (multiple of 128)
    float scale;                     // PRE: the sum's factor
    uint32_t nb_x1, nb_x2;           // PRE: x's stream, token strides; POST: x's token stride (nb_x1)
    uint32_t nb_w1, nb_w2;           // PRE: weights' token stride (nb_w1); gated: gate stream, token
    uint32_t nb_r1, nb_r2;           // POST: residual's stream, token strides
    uint32_t nb_p1, nb_c2;           // POST: post's and comb's token strides
    uint32_t nb_d1, nb_d2;           // dst: PRE token (nb_d1); POST stream, token
    struct htp_vtcm_stream vx, vw, vs, vdst;
};

// COMB (hc 4, as ggml asserts): per token, comb = softmax over d of (mixes[8 + d + 4 s] *
// scale[2] + base[8 + d + 4 s]) + eps per source s, then the columns normalised, then n_iter - 1
// times the rows and the columns (Sinkhorn). Tokens lie in vector lanes: a chunk of up to 32
// tokens is gathered as 16 vectors (vx, one per matrix entry: 2-D DMAs of one element per token)
// and scattered back the same way from vdst. vconst holds scale (at 0), base (at 128) and the
// splats of scale[2] and base[8 ..] made from them (17 vectors from 256).
struct htp_hc_comb_params {
    struct htp_split_params split;
    float eps;
    uint32_t n_iter;
    uint32_t nb_m1;                  // mixes' token stride
    uint32_t nb_d2;                  // dst's token stride (dst [4, 4, n_tokens] is contiguous per token)
    uint32_t scale_bytes, base_bytes;  // bytes of the scale and base vectors fetched into vconst
    uint32_t vconst;                 // per-thread offset of the scale / base copy (19 vectors)
    struct htp_vtcm_stream vx, vdst;
};

#define HTP_KERNEL_PARAMS_MEMBERS_HYPER_CONN  \
    struct htp_hc_params      hc;             \
    struct htp_hc_comb_params hc_comb;
