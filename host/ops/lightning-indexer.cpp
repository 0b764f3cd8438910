// Host side of LIGHTNING_INDEXER (F32 q / weights; F32, F16, BF16 or blocks-of-32 quantized k:
// Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL; F16 mask), as ggml-cpu's
// ggml_compute_forward_lightning_indexer; the kernel is npu/ops/lightning-indexer.cpp.
#include <algorithm>

#include "encode-util.h"
#include "htp-abi/htp-types.h"

using namespace htp_enc;

namespace {

constexpr uint32_t kBufs     = 2;    // slots per block stream (split.n_bufs): the kernel's double buffer
constexpr uint32_t kMaxChunk = 256;  // keys per pair: the kernel's compute_token<NV>, NV <= 8

constexpr uint32_t kQuantKeys = 32;  // quantized K: keys dequantized (and transposed) at a time

struct li_layout {
    uint32_t chunk, tb;
    uint32_t k_pitch, k16_pitch, q_pitch, w_pitch, m_pitch;
    uint32_t k_size, k16_size, kf_size, q_size, w_size, m_size, out_size;
    htp_fa_kv_layout kq;  // quantized K: the staged chunk's split (kv_blocks_plan), else zero
    uint32_t total;
};

static li_layout layout_for(const ggml_tensor * op, uint32_t chunk, uint32_t tb) {
    const ggml_tensor * q     = op->src[0];
    const ggml_type     kt    = op->src[1]->type;
    const bool          quant = quant_row_type(kt);
    const bool          f16   = kt == GGML_TYPE_F16 || kt == GGML_TYPE_BF16;  // staged, converted by HVX
    const uint32_t      hsk = (uint32_t) q->ne[0], nh = (uint32_t) q->ne[1];
    li_layout           l;
    l.kq        = quant ? kv_blocks_plan(kt, hsk, chunk) : htp_fa_kv_layout{};
    l.chunk     = chunk;
    l.tb        = tb;
    l.k_pitch   = chunk * 4;
    l.k16_pitch = align_up(chunk * 2, 128);
    l.q_pitch   = align_up(hsk * 4, 128);
    l.w_pitch   = align_up(nh * 4, 128);
    l.m_pitch   = align_up(chunk * 2, 128);
    l.k_size    = hsk * l.k_pitch;
    l.k16_size  = f16 ? hsk * l.k16_pitch : quant ? l.kq.slot : 0;
    l.kf_size   = quant ? kQuantKeys * hsk * 4 : 0;  // kQuantKeys dequantized keys, key-major
    l.q_size    = tb * nh * l.q_pitch;
    l.w_size    = tb * l.w_pitch;
    l.m_size    = tb * l.m_pitch;
    l.out_size  = tb * l.k_pitch;
    l.total     = 2 * (l.k_size + l.k16_size) + l.kf_size + kBufs * (l.q_size + l.w_size + l.m_size + l.out_size);
    return l;
}

// Keys per pair: 256, halved (down to 64) while there are fewer pairs than HVX threads; tokens
// per block: up to 64, halved until the layout fits, then smaller chunks.
static bool choose_layout(const htp_device_caps & caps, const ggml_tensor * op, li_layout & l) {
    const uint32_t n_kv  = (uint32_t) op->src[1]->ne[2];
    const uint32_t ns    = (uint32_t) op->src[0]->ne[3];
    const uint32_t n_hvx = std::max(1u, std::min(caps.n_hvx, 8u));
    uint32_t       chunk = kMaxChunk;
    while (chunk > 64 && (chunk / 2 >= n_kv || ns * ((n_kv + chunk - 1) / chunk) < n_hvx)) {
        chunk /= 2;
    }
    const uint32_t tb0 = (uint32_t) std::min<int64_t>(op->src[0]->ne[2], 64);
    for (; chunk >= 64; chunk /= 2) {
        if (fit_token_block(caps, tb0, [op, chunk](uint32_t tb) { return layout_for(op, chunk, tb); }, l)) {
            return true;
        }
    }
    return false;
}

static bool li_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const auto [q, k, w, m] = op_srcs<4>(op);
    if (m == nullptr || op->type != GGML_TYPE_F32 || q->type != GGML_TYPE_F32 || w->type != GGML_TYPE_F32 ||
        m->type != GGML_TYPE_F16) {
        return false;
    }
    // Quantized keys: whole blocks, and 2 blocks a key, so that each group of kQuantKeys keys
    // starts on a vector of the split scales (64 blocks; npu/ops/kv-blocks.h).
    const bool quant = quant_row_type(k->type);
    if (!(k->type == GGML_TYPE_F32 || k->type == GGML_TYPE_F16 || k->type == GGML_TYPE_BF16 ||
          (quant && q->ne[0] % 64 == 0))) {
        return false;
    }
    for (const ggml_tensor * t : { op, q, k, w, m }) {
        if (t->nb[0] != ggml_type_size(t->type) || !fits_u32(t)) {
            return false;
        }
    }
    const int64_t hsk = q->ne[0], nh = q->ne[1], n_tok = q->ne[2], ns = q->ne[3], n_kv = k->ne[2];
    if (hsk < 1 || nh < 1 || n_tok < 1 || ns < 1 || n_kv < 1 || k->ne[0] != hsk || k->ne[1] != 1 ||
        k->ne[3] != ns || w->ne[0] != nh || w->ne[1] != n_tok || w->ne[2] != 1 || w->ne[3] != ns ||
        m->ne[0] != n_kv || m->ne[1] != n_tok || m->ne[2] != 1 || m->ne[3] < 1 || ns % m->ne[3] != 0 ||
        op->ne[0] != n_kv || op->ne[1] != n_tok || op->ne[2] != 1 || op->ne[3] != ns) {
        return false;
    }
    li_layout l;
    if (!choose_layout(caps, op, l)) {
        return false;
    }
    // 2-D descriptors: the transposed K chunk (up to chunk one-element rows, k->nb[2] apart;
    // quantized: chunk rows of the row's bytes, then the splits of chunk * hsk / 32 blocks),
    // q (nh rows per token), weights / mask / score rows of a block.
    return dma_fields_ok(caps, { (uint64_t) hsk * 4, (uint64_t) nh, l.chunk, l.tb, l.k_pitch, l.q_pitch, l.w_pitch,
                                l.m_pitch, l.k16_pitch, k->nb[2], q->nb[1], w->nb[1], m->nb[1], op->nb[1],
                                ggml_row_size(k->type, hsk), (uint64_t) l.chunk * (hsk / 32) });
}

static void li_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const auto [q, k, w, m] = op_srcs<4>(op);
    htp_lightning_params & p = desc.params.lightning;
    desc.opcode              = HTP_OP_LIGHTNING_INDEXER;
    li_layout l;
    choose_layout(caps, op, l);

    p.k_type     = k->type;  // ggml_type values are the ABI's htp_type values
    p.hsk        = (uint32_t) q->ne[0];
    p.nh         = (uint32_t) q->ne[1];
    p.n_tok      = (uint32_t) q->ne[2];
    p.n_kv       = (uint32_t) k->ne[2];
    p.kv_chunk   = l.chunk;
    p.n_chunks   = (p.n_kv + l.chunk - 1) / l.chunk;
    p.div_chunks = htp_fastdiv_init(p.n_chunks);
    p.mod_nm     = htp_fastdiv_init((uint32_t) m->ne[3]);
    p.q          = rows_strides(q->nb[1], q->nb[2], q->nb[3]);
    p.k          = rows_strides(k->nb[1], k->nb[2], k->nb[3]);
    p.w          = rows_strides(w->nb[1], w->nb[2], w->nb[3]);
    p.m          = rows_strides(m->nb[1], m->nb[2], m->nb[3]);
    p.d          = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    p.tok_block  = l.tb;
    p.n_blocks   = (p.n_tok + l.tb - 1) / l.tb;
    p.k_pitch    = l.k_pitch;
    p.k16_pitch  = l.k16_pitch;
    p.q_pitch    = l.q_pitch;
    p.w_pitch    = l.w_pitch;
    p.m_pitch    = l.m_pitch;

    // Rows are (stream, kv chunk) pairs; one pair at a time per thread, token blocks pipelined.
    const uint32_t pairs    = p.n_chunks * (uint32_t) q->ne[3];
    split_units(caps, pairs, kBufs, vtcm_budget(caps), p.split);

    p.kq               = l.kq;
    p.kq.f_pitch       = l.kf_size ? p.hsk * 4 : 0;
    const uint32_t off = place_regions(0, 1, { { &p.v_k[0], l.k_size }, { &p.v_k[1], l.k_size },
                                               { &p.v_k16[0], l.k16_size }, { &p.v_k16[1], l.k16_size },
                                               { &p.kq.f_at, l.kf_size } });
    p.q_size           = l.q_size;
    p.w_size           = l.w_size;
    p.m_size           = l.m_size;
    p.out_size         = l.out_size;
    place_regions(off, kBufs, { { &p.v_q, l.q_size }, { &p.v_w, l.w_size }, { &p.v_m, l.m_size }, { &p.v_out, l.out_size } });
}

}  // namespace

extern const htp_op_encoder htp_lightning_indexer_encoder = { li_supports, li_encode };
