// Host side of SET_ROWS: F32 rows into F32 / F16 / Q8_0 rows, F16 rows into F16 / F32 rows (deepseek4's
// compressed-state cache writes), named by I32 / I64 indices.
#include "encode-util.h"

using namespace htp_enc;

namespace {

// Q8_0 vdst row: quants (32 per block, whole vectors of 4 blocks), fp16 scales (64 per
// vector), fp32 scale scratch (an even number of vectors for the fp16 conversion).
struct q8_layout {
    uint32_t scale_offset, dscratch_offset, pitch;
};

q8_layout set_rows_q8_layout(uint32_t ne0) {
    const uint32_t nb    = ne0 / 32;
    const uint32_t n_out = (nb + 63) / 64;
    q8_layout      l;
    l.scale_offset    = align_up(nb * 32, 128);
    l.dscratch_offset = l.scale_offset + n_out * 128;
    l.pitch           = l.dscratch_offset + n_out * 256;
    return l;
}

void set_rows_pitches(const ggml_tensor * op, uint32_t & ps, uint32_t & pd) {
    const uint32_t ne0 = (uint32_t) op->src[0]->ne[0];
    const bool     f16 = op->type == GGML_TYPE_F16;
    if (op->src[0]->type == GGML_TYPE_F16) {  // copied, or widened by pairs of vectors
        ps = align_up(ne0 * 2, 128);
        pd = f16 ? ps : align_up(ne0 * 4, 256);
        return;
    }
    ps                 = align_up(ne0 * 4, f16 ? 256 : 128);
    pd                 = op->type == GGML_TYPE_Q8_0 ? set_rows_q8_layout(ne0).pitch : align_up(ne0 * (f16 ? 2 : 4), 128);
}

stream_need set_rows_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * s = op->src[0];
    uint32_t            ps, pd;
    set_rows_pitches(op, ps, pd);
    stream_need need    = {};
    need.total_rows     = (uint32_t) ggml_nrows(s);
    need.chunk_divides  = (uint32_t) s->ne[1];
    need.bytes_per_row  = ps + pd;
    need.desc_per_chunk = 1;
    need.desc_per_row   = op->type == GGML_TYPE_Q8_0 ? 2 : 1;
    need.multi_row_ok   = dma_field_ok(caps, (uint64_t) s->ne[0] * ggml_type_size(s->type)) && dma_field_ok(caps, ps) &&
                        dma_field_ok(caps, s->nb[1]) && dma_field_ok(caps, (uint64_t) s->ne[1]);
    return need;
}

bool set_rows_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * s = op->src[0];
    const ggml_tensor * i = op->src[1];
    const bool f32_src = s->type == GGML_TYPE_F32 &&
                         (op->type == GGML_TYPE_F32 || op->type == GGML_TYPE_F16 || op->type == GGML_TYPE_Q8_0);
    const bool f16_src = s->type == GGML_TYPE_F16 && (op->type == GGML_TYPE_F32 || op->type == GGML_TYPE_F16);
    if (!f32_src && !f16_src) {
        return false;
    }
    // Q8_0: whole blocks; the interleaving descriptors step 34 bytes over n_blocks rows
    if (op->type == GGML_TYPE_Q8_0 && (s->ne[0] % 32 != 0 || !dma_field_ok(caps, (uint64_t) s->ne[0] / 32))) {
        return false;
    }
    if ((i->type != GGML_TYPE_I32 && i->type != GGML_TYPE_I64) || op->ne[0] != s->ne[0]) {
        return false;
    }
    if (s->nb[0] != ggml_type_size(s->type) || op->nb[0] != ggml_type_size(op->type) || !fits_u32(s) || !fits_u32(i) || !fits_u32(op)) {
        return false;
    }
    if (s->ne[2] != op->ne[2] || s->ne[3] != op->ne[3] || i->ne[0] != s->ne[1] || s->ne[2] % i->ne[1] != 0 ||
        s->ne[3] % i->ne[2] != 0) {
        return false;
    }
    if (!dma_1d_ok((uint64_t) s->ne[0] * 4)) {
        return false;
    }
    return rows_plan_ok(caps, set_rows_need(caps, op));
}

void set_rows_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor *   s = op->src[0];
    const ggml_tensor *   i = op->src[1];
    htp_set_rows_params & p = desc.params.set_rows;
    desc.opcode             = HTP_OP_SET_ROWS;
    plan_rows(caps, set_rows_need(caps, op), p.split);
    uint32_t ps, pd;
    set_rows_pitches(op, ps, pd);
    p.dst_type      = op->type;
    p.src_type      = s->type;  // ggml_type values are the ABI's htp_type values
    p.idx_i64       = i->type == GGML_TYPE_I64;
    p.ne0           = (uint32_t) s->ne[0];
    p.shape         = rows_shape((uint32_t) s->ne[1], (uint32_t) s->ne[2]);
    p.mod_ne11      = htp_fastdiv_init((uint32_t) i->ne[1]);
    p.mod_ne12      = htp_fastdiv_init((uint32_t) i->ne[2]);
    p.src0          = rows_strides(s->nb[1], s->nb[2], s->nb[3]);
    p.idx           = rows_strides(i->nb[0], i->nb[1], i->nb[2]);
    p.dst           = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    p.dst_row_bytes = (uint32_t) ggml_row_size(op->type, op->ne[0]);
    uint32_t off    = 0;
    p.vsrc          = stream_at(off, p.split, ps, p.split.rows_per_chunk);
    p.vdst          = stream_at(off, p.split, pd, p.split.rows_per_chunk);
    const q8_layout l = set_rows_q8_layout(p.ne0);
    p.n_blocks           = p.ne0 / 32;
    p.q8_scale_offset    = op->type == GGML_TYPE_Q8_0 ? l.scale_offset : 0;
    p.q8_dscratch_offset = op->type == GGML_TYPE_Q8_0 ? l.dscratch_offset : 0;
}

}  // namespace

extern const htp_op_encoder htp_set_rows_encoder = { set_rows_supports, set_rows_encode };
