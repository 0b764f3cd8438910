// Host side of CPY / CONT / DUP between F32 and F16, between F32 and I32 (glm5-next's and
// minimax-m3's position casts), and of BF16 or I32 to the same type (the i32 CONT of
// deepseek32's sparse-attention indices). Equal shapes are walked dim by dim (any
// strides; a non-unit element stride becomes a per-element 2-D DMA gather or scatter);
// different shapes are accepted when one side is contiguous (walked with the other's shape).
#include "encode-util.h"

using namespace htp_enc;

namespace {

struct cpy_walk {
    uint32_t ne0, ne1, ne2, ne3;
    uint64_t src_nb[4], dst_nb[4];
};

bool cpy_walk_of(const ggml_tensor * op, cpy_walk & w) {
    const ggml_tensor * s = op->src[0];
    if (ggml_are_same_shape(s, op)) {
        w = { (uint32_t) s->ne[0], (uint32_t) s->ne[1], (uint32_t) s->ne[2], (uint32_t) s->ne[3], {}, {} };
        for (int i = 0; i < 4; i++) {
            w.src_nb[i] = s->nb[i];
            w.dst_nb[i] = op->nb[i];
        }
        return true;
    }
    // Different shapes copy in logical element order. When one side is contiguous it can be
    // walked with the other side's shape (e.g. CONT of a permuted [256,4,512] into [1024,512]).
    const size_t es = ggml_type_size(s->type), ed = ggml_type_size(op->type);
    const bool   s_flat = ggml_is_contiguous(s), d_flat = ggml_is_contiguous(op);
    if (!s_flat && !d_flat) {
        return false;
    }
    const ggml_tensor * shape = d_flat ? s : op;  // the side whose strides are kept
    w = { (uint32_t) shape->ne[0], (uint32_t) shape->ne[1], (uint32_t) shape->ne[2], (uint32_t) shape->ne[3], {}, {} };
    uint64_t flat_s = es, flat_d = ed;
    for (int i = 0; i < 4; i++) {
        w.src_nb[i] = s_flat ? flat_s : s->nb[i];
        w.dst_nb[i] = d_flat ? flat_d : op->nb[i];
        flat_s *= (uint64_t) shape->ne[i];
        flat_d *= (uint64_t) shape->ne[i];
    }
    return true;
}

uint32_t type_size(ggml_type t) {
    return t == GGML_TYPE_F16 || t == GGML_TYPE_BF16 ? 2 : 4;
}

// VTCM pitches: conversions read or write whole pairs of vectors (64 elements).
void cpy_pitches(ggml_type ts, ggml_type td, uint32_t ne0, uint32_t & ps, uint32_t & pd) {
    ps = align_up(ne0 * type_size(ts), ts == GGML_TYPE_F32 && td == GGML_TYPE_F16 ? 256 : 128);
    pd = align_up(ne0 * type_size(td), ts == GGML_TYPE_F16 && td == GGML_TYPE_F32 ? 256 : 128);
}

stream_need cpy_need(const htp_device_caps & caps, const ggml_tensor * op, const cpy_walk & w) {
    uint32_t ps, pd;
    cpy_pitches(op->src[0]->type, op->type, w.ne0, ps, pd);
    const bool  gather  = w.src_nb[0] != type_size(op->src[0]->type);
    const bool  scatter = w.dst_nb[0] != type_size(op->type);
    stream_need need    = {};
    need.total_rows     = w.ne1 * w.ne2 * w.ne3;
    need.chunk_divides  = w.ne1;
    need.bytes_per_row  = ps + pd;
    need.desc_per_chunk = 2;
    need.multi_row_ok   = !gather && !scatter && dma_field_ok(caps, (uint64_t) w.ne0 * 4) && dma_field_ok(caps, ps) &&
                        dma_field_ok(caps, pd) && dma_field_ok(caps, w.src_nb[1]) && dma_field_ok(caps, w.dst_nb[1]) &&
                        dma_field_ok(caps, w.ne1);
    return need;
}

bool cpy_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * s = op->src[0];
    const auto          f = [](ggml_type t) { return t == GGML_TYPE_F32 || t == GGML_TYPE_F16; };
    const auto          same = [](ggml_type t) { return t == GGML_TYPE_BF16 || t == GGML_TYPE_I32; };  // copies only
    const bool          i32_f32 = (s->type == GGML_TYPE_I32 && op->type == GGML_TYPE_F32) ||
                         (s->type == GGML_TYPE_F32 && op->type == GGML_TYPE_I32);
    const bool          types_ok = (f(s->type) && f(op->type)) || (same(s->type) && s->type == op->type) || i32_f32;
    if (!types_ok || ggml_nelements(s) != ggml_nelements(op) || !fits_u32(s) || !fits_u32(op)) {
        return false;
    }
    cpy_walk w;
    if (!cpy_walk_of(op, w) || !dma_1d_ok((uint64_t) w.ne0 * 4)) {
        return false;
    }
    // Element gathers / scatters are 2-D descriptors: ne0 rows of one element, stride nb0.
    if (w.src_nb[0] != type_size(s->type) && (!dma_field_ok(caps, w.src_nb[0]) || !dma_field_ok(caps, w.ne0))) {
        return false;
    }
    if (w.dst_nb[0] != type_size(op->type) && (!dma_field_ok(caps, w.dst_nb[0]) || !dma_field_ok(caps, w.ne0))) {
        return false;
    }
    return rows_plan_ok(caps, cpy_need(caps, op, w));
}

void cpy_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    htp_cpy_params & p = desc.params.cpy;
    desc.opcode        = HTP_OP_CPY;
    cpy_walk w;
    cpy_walk_of(op, w);
    plan_rows(caps, cpy_need(caps, op, w), p.split);
    uint32_t ps, pd;
    cpy_pitches(op->src[0]->type, op->type, w.ne0, ps, pd);
    p.src_type    = op->src[0]->type;
    p.dst_type    = op->type;
    p.ne0         = w.ne0;
    p.shape       = rows_shape(w.ne1, w.ne2);
    p.src_nb0     = (uint32_t) w.src_nb[0];
    p.dst_nb0     = (uint32_t) w.dst_nb[0];
    p.src         = rows_strides(w.src_nb[1], w.src_nb[2], w.src_nb[3]);
    p.dst         = rows_strides(w.dst_nb[1], w.dst_nb[2], w.dst_nb[3]);
    p.src_gather  = p.src_nb0 != type_size(op->src[0]->type);
    p.dst_scatter = p.dst_nb0 != type_size(op->type);
    uint32_t off  = 0;
    p.vsrc        = stream_at(off, p.split, ps, p.split.rows_per_chunk);
    p.vdst        = stream_at(off, p.split, pd, p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_cpy_encoder = { cpy_supports, cpy_encode };
