// Host side of SET_ROWS: F32 or F16 rows into F32 / F16 / BF16 rows or rows of the quantized
// types of htp_quant_row (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL: the KV cache types llama.cpp
// offers; Q1_0, Q2_0, the K-quants Q2_K .. Q6_K and IQ4_XS, MXFP4, NVFP4, TQ1_0, TQ2_0),
// named by I32 / I64 indices.
#include "encode-util.h"

using namespace htp_enc;

namespace {

bool set_rows_dst_type(ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16 || quant_row_dst_type(t);
}

// VTCM pitches of a src row and a dst row: F32 sources narrowed and F16 sources widened read
// or write whole pairs of vectors (64 values); a quantized dst row is its htp_quant_row layout.
void set_rows_pitches(const ggml_tensor * op, uint32_t & ps, uint32_t & pd, htp_quant_row & q) {
    const uint32_t  ne0 = (uint32_t) op->src[0]->ne[0];
    const ggml_type ts = op->src[0]->type, td = op->type;
    q                  = {};
    if (quant_row_dst_type(td)) {
        ps = align_up(ne0 * (uint32_t) ggml_type_size(ts), 128);
        pd = quant_row_layout(td, ts, ne0, q);
        return;
    }
    const bool narrow = ts == GGML_TYPE_F32 && td != GGML_TYPE_F32;  // to F16 / BF16
    const bool widen  = ts == GGML_TYPE_F16 && td == GGML_TYPE_F32;
    ps                = align_up(ne0 * (uint32_t) ggml_type_size(ts), narrow ? 256 : 128);
    pd                = align_up(ne0 * (uint32_t) ggml_type_size(td), widen ? 256 : 128);
}

stream_need set_rows_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * s = op->src[0];
    uint32_t            ps, pd;
    htp_quant_row       q;
    set_rows_pitches(op, ps, pd, q);
    stream_need need    = {};
    need.total_rows     = (uint32_t) ggml_nrows(s);
    need.chunk_divides  = (uint32_t) s->ne[1];
    need.bytes_per_row  = ps + pd;
    need.desc_per_chunk = 1;
    need.desc_per_row   = quant_row_dst_type(op->type) ? q.n_fields : 1;
    need.multi_row_ok   = dma_field_ok(caps, (uint64_t) s->ne[0] * ggml_type_size(s->type)) && dma_field_ok(caps, ps) &&
                        dma_field_ok(caps, s->nb[1]) && dma_field_ok(caps, (uint64_t) s->ne[1]);
    return need;
}

bool set_rows_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * s = op->src[0];
    const ggml_tensor * i = op->src[1];
    if ((s->type != GGML_TYPE_F32 && s->type != GGML_TYPE_F16) || !set_rows_dst_type(op->type)) {
        return false;
    }
    // Quantized rows: whole blocks; the joining descriptors step a block over n_blocks rows
    const int64_t bk = ggml_blck_size(op->type);
    if (quant_row_dst_type(op->type) && (s->ne[0] % bk != 0 || !dma_field_ok(caps, (uint64_t) (s->ne[0] / bk)))) {
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
    set_rows_pitches(op, ps, pd, p.quant);
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
}

}  // namespace

extern const htp_op_encoder htp_set_rows_encoder = { set_rows_supports, set_rows_encode };
