// Host side of GET_ROWS: F32 / F16 / BF16 / Q8_0 rows (flat layout) picked by I32 indices, to
// F32; I32 rows to I32 (a copy, as ggml_get_rows keeps I32).
#include "encode-util.h"

using namespace htp_enc;

namespace {

// VTCM pitches of one src row and one dst row; Q8_0 rows hold scales then quants.
void get_rows_pitches(const ggml_tensor * op, uint32_t & ps, uint32_t & pd, uint32_t & q8_off) {
    const ggml_tensor * s   = op->src[0];
    const uint32_t      ne0 = (uint32_t) s->ne[0];
    q8_off                  = 0;
    if (s->type == GGML_TYPE_Q8_0) {
        const uint32_t nb = ne0 / 32;
        q8_off            = align_up(nb * 2, 128);
        ps                = q8_off + align_up(nb * 32, 128);
        pd                = align_up(ne0 * 4, 512);  // 4 blocks = 4 vectors per step
    } else if (s->type == GGML_TYPE_F16 || s->type == GGML_TYPE_BF16) {
        ps = align_up(ne0 * 2, 128);
        pd = align_up(ne0 * 4, 256);
    } else {
        ps = pd = align_up(ne0 * 4, 128);
    }
}

stream_need get_rows_need(const htp_device_caps & caps, const ggml_tensor * op) {
    uint32_t ps, pd, q8;
    get_rows_pitches(op, ps, pd, q8);
    stream_need need    = {};
    need.total_rows     = (uint32_t) ggml_nrows(op);
    need.chunk_divides  = (uint32_t) op->ne[1];
    need.bytes_per_row  = ps + pd;
    need.desc_per_chunk = 1;
    need.desc_per_row   = op->src[0]->type == GGML_TYPE_Q8_0 ? 2 : 1;
    need.multi_row_ok   = dma_field_ok(caps, (uint64_t) op->ne[0] * 4) && dma_field_ok(caps, pd) &&
                        dma_field_ok(caps, op->nb[1]) && dma_field_ok(caps, (uint64_t) op->ne[1]);
    return need;
}

bool get_rows_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * s = op->src[0];
    const ggml_tensor * i = op->src[1];
    if (s->type != GGML_TYPE_F32 && s->type != GGML_TYPE_F16 && s->type != GGML_TYPE_BF16 &&
        s->type != GGML_TYPE_Q8_0 && s->type != GGML_TYPE_I32) {
        return false;
    }
    const ggml_type dst_type = s->type == GGML_TYPE_I32 ? GGML_TYPE_I32 : GGML_TYPE_F32;
    if (i->type != GGML_TYPE_I32 || op->type != dst_type || op->ne[0] != s->ne[0] || op->nb[0] != 4) {
        return false;
    }
    if (s->nb[0] != ggml_type_size(s->type) || !fits_u32(s) || !fits_u32(i) || !fits_u32(op)) {
        return false;
    }
    if (!dma_1d_ok(ggml_row_size(s->type, s->ne[0])) || !dma_1d_ok((uint64_t) op->ne[0] * 4)) {
        return false;
    }
    if (s->type == GGML_TYPE_Q8_0 && !dma_field_ok(caps, (uint64_t) s->ne[0] / 32)) {
        return false;  // blocks per row is the row count of the split descriptors
    }
    return rows_plan_ok(caps, get_rows_need(caps, op));
}

void get_rows_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor *   s = op->src[0];
    const ggml_tensor *   i = op->src[1];
    htp_get_rows_params & p = desc.params.get_rows;
    desc.opcode             = HTP_OP_GET_ROWS;
    plan_rows(caps, get_rows_need(caps, op), p.split);
    uint32_t ps, pd, q8;
    get_rows_pitches(op, ps, pd, q8);
    p.src_type        = s->type;
    p.ne0             = (uint32_t) s->ne[0];
    p.src_row_bytes   = (uint32_t) ggml_row_size(s->type, s->ne[0]);
    p.n_blocks        = s->type == GGML_TYPE_Q8_0 ? p.ne0 / 32 : 0;
    p.shape           = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.src0            = rows_strides(s->nb[1], s->nb[2], s->nb[3]);
    p.idx             = rows_strides(i->nb[0], i->nb[1], i->nb[2]);
    p.dst             = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off      = 0;
    p.vsrc            = stream_at(off, p.split, ps, p.split.rows_per_chunk);
    p.q8_quant_offset = q8;
    p.vdst            = stream_at(off, p.split, pd, p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_get_rows_encoder = { get_rows_supports, get_rows_encode };
