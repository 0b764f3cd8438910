// Host side of CPY / CONT / DUP between F32, F16 and BF16, between F32 and I32 (glm5-next's and
// minimax-m3's position casts), of I32 to I32 (the i32 CONT of deepseek32's sparse-attention
// indices), and of F32 / F16 / BF16 rows into the quantized rows of htp_quant_row (Q8_0, Q4_0,
// Q4_1, Q5_0, Q5_1, IQ4_NL, Q1_0, Q2_0, Q2_K .. Q6_K, IQ4_XS, MXFP4, NVFP4, TQ1_0, TQ2_0:
// ggml-cpu's quantizing copy, a contiguous dst of whole blocks), and of quantized rows into
// the same type (a byte copy: block_copy); a block-quantized source to F32 runs on GET_ROWS'
// kernel (dequant_copy). Equal shapes are walked dim by dim (any
// strides; a non-unit element stride becomes a per-element 2-D DMA gather or scatter);
// different shapes when one side is contiguous (walked with the other's shape), or when rows
// have the same length on both sides (each side walked in its own shape: htp_cpy_params
// dst_shape).
#include <numeric>

#include "encode-util.h"

using namespace htp_enc;

namespace {

// A copy of quantized blocks into the same type (ggml-cpu's byte copy): rows of the same
// length of adjacent whole blocks on both sides (each side walked in its own shape); streamed
// as rows of 16-bit units (an F16 -> F16 copy: the kernel moves the bytes untouched), or of
// bytes (I8) when a row's size is odd (MXFP4's 17-byte blocks).
bool block_copy(const ggml_tensor * op) {
    const ggml_tensor * s = op->src[0];
    return ggml_is_quantized(op->type) && s->type == op->type && s->ne[0] == op->ne[0] &&
           s->nb[0] == ggml_type_size(s->type) && op->nb[0] == ggml_type_size(op->type) &&
           s->ne[0] % ggml_blck_size(s->type) == 0;
}

ggml_type block_unit(const ggml_tensor * op) {
    return ggml_row_size(op->type, op->ne[0]) % 2 ? GGML_TYPE_I8 : GGML_TYPE_F16;
}

// The types the kernel streams: block_unit's for a block copy, else the tensors' own.
ggml_type src_type_of(const ggml_tensor * op) {
    return block_copy(op) ? block_unit(op) : op->src[0]->type;
}

ggml_type dst_type_of(const ggml_tensor * op) {
    return block_copy(op) ? block_unit(op) : op->type;
}

// The rows walked: ne0 elements a row, src's rows in (ne1, ne2, ne3) and dst's in (dne1,
// dne2, ...) (the same shape unless each side keeps its own), with each side's strides.
struct cpy_walk {
    uint32_t ne0, ne1, ne2, ne3, dne1, dne2;
    uint64_t src_nb[4], dst_nb[4];
};

// Each side in its own shape and strides, rows of ne0 units of `unit` bytes.
void own_shapes(const ggml_tensor * op, uint32_t ne0, uint64_t unit, cpy_walk & w) {
    const ggml_tensor * s = op->src[0];
    w = { ne0, (uint32_t) s->ne[1], (uint32_t) s->ne[2], (uint32_t) s->ne[3], (uint32_t) op->ne[1], (uint32_t) op->ne[2], {}, {} };
    for (int i = 0; i < 4; i++) {
        w.src_nb[i] = i == 0 ? unit : s->nb[i];
        w.dst_nb[i] = i == 0 ? unit : op->nb[i];
    }
}

bool cpy_walk_of(const ggml_tensor * op, cpy_walk & w) {
    const ggml_tensor * s = op->src[0];
    if (block_copy(op)) {
        const uint64_t unit = block_unit(op) == GGML_TYPE_I8 ? 1 : 2;
        own_shapes(op, (uint32_t) (ggml_row_size(s->type, s->ne[0]) / unit), unit, w);
        w.src_nb[0] = w.dst_nb[0] = unit;
        return true;
    }
    if (quant_row_dst_type(op->type) && s->type != op->type) {  // src rows of ne00 into consecutive rows of the contiguous dst
        w = { (uint32_t) s->ne[0], (uint32_t) s->ne[1], (uint32_t) s->ne[2], (uint32_t) s->ne[3], (uint32_t) s->ne[1], (uint32_t) s->ne[2], {}, {} };
        uint64_t flat = ggml_row_size(op->type, s->ne[0]);
        for (int i = 0; i < 4; i++) {
            w.src_nb[i] = s->nb[i];
            w.dst_nb[i] = i == 0 ? ggml_type_size(op->type) : flat;
            flat *= i == 0 ? 1 : (uint64_t) s->ne[i];
        }
        return true;
    }
    if (ggml_are_same_shape(s, op)) {
        own_shapes(op, (uint32_t) s->ne[0], 0, w);
        w.src_nb[0] = s->nb[0];
        w.dst_nb[0] = op->nb[0];
        return true;
    }
    // Different shapes copy in logical element order. When one side is contiguous it can be
    // walked with the other side's shape (e.g. CONT of a permuted [256,4,512] into [1024,512]).
    const size_t es = ggml_type_size(s->type), ed = ggml_type_size(op->type);
    const bool   s_flat = ggml_is_contiguous(s), d_flat = ggml_is_contiguous(op);
    if (!s_flat && !d_flat) {  // both strided: rows of the same length, each side in its own shape
        if (s->ne[0] != op->ne[0]) {
            return false;
        }
        own_shapes(op, (uint32_t) s->ne[0], 0, w);
        w.src_nb[0] = s->nb[0];
        w.dst_nb[0] = op->nb[0];
        return true;
    }
    const ggml_tensor * shape = d_flat ? s : op;  // the side whose strides are kept
    w = { (uint32_t) shape->ne[0], (uint32_t) shape->ne[1], (uint32_t) shape->ne[2], (uint32_t) shape->ne[3],
          (uint32_t) shape->ne[1], (uint32_t) shape->ne[2], {}, {} };
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
    return quant_row_dst_type(t) || t == GGML_TYPE_I8 ? (uint32_t) ggml_type_size(t) : t == GGML_TYPE_F16 || t == GGML_TYPE_BF16 ? 2 : 4;
}

bool half(ggml_type t) {
    return t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
}

// VTCM pitches: conversions between F32 and a 16-bit type read or write whole pairs of
// vectors (64 elements); a quantized dst row is its htp_quant_row layout.
void cpy_pitches(ggml_type ts, ggml_type td, uint32_t ne0, uint32_t & ps, uint32_t & pd, htp_quant_row & q) {
    q = {};
    if (quant_row_dst_type(td)) {
        ps = align_up(ne0 * type_size(ts), 128);
        pd = quant_row_layout(td, ts, ne0, q);
        return;
    }
    ps = align_up(ne0 * type_size(ts), ts == GGML_TYPE_F32 && half(td) ? 256 : 128);
    pd = align_up(ne0 * type_size(td), half(ts) && td == GGML_TYPE_F32 ? 256 : 128);
}

stream_need cpy_need(const htp_device_caps & caps, const ggml_tensor * op, const cpy_walk & w) {
    uint32_t      ps, pd;
    htp_quant_row qr;
    cpy_pitches(src_type_of(op), dst_type_of(op), w.ne0, ps, pd, qr);
    const bool  gather  = w.src_nb[0] != type_size(src_type_of(op));
    const bool  scatter = w.dst_nb[0] != type_size(dst_type_of(op));
    const bool  quant   = quant_row_dst_type(op->type) && !block_copy(op);
    stream_need need    = {};
    need.total_rows     = w.ne1 * w.ne2 * w.ne3;
    need.chunk_divides  = std::gcd(w.ne1, w.dne1);  // a chunk's rows in one plane of both sides
    need.bytes_per_row  = ps + pd;
    need.desc_per_chunk = quant ? 1 : 2;  // a quantized row's fields go by per-row descriptors
    need.desc_per_row   = quant ? qr.n_fields : 0;
    need.multi_row_ok   = !gather && !scatter && dma_field_ok(caps, (uint64_t) w.ne0 * 4) && dma_field_ok(caps, ps) &&
                        dma_field_ok(caps, pd) && dma_field_ok(caps, w.src_nb[1]) && dma_field_ok(caps, w.dst_nb[1]) &&
                        dma_field_ok(caps, w.ne1);
    return need;
}

// A block-quantized source to F32 (ggml-cpu's dequantizing copy): GET_ROWS' kernel on src0's
// own rows (dequant_rows_supports).
bool dequant_copy(const ggml_tensor * op) {
    return ggml_is_quantized(op->src[0]->type) && op->type == GGML_TYPE_F32;
}

// A walk the kernel can run: rows within a 1-D descriptor, element gathers / scatters as 2-D
// descriptors of ne0 rows of one element (stride nb0), and a plan that fits.
bool walk_ok(const htp_device_caps & caps, const ggml_tensor * op, const cpy_walk & w) {
    if (!dma_1d_ok((uint64_t) w.ne0 * 4)) {
        return false;
    }
    if (w.src_nb[0] != type_size(src_type_of(op)) && (!dma_field_ok(caps, w.src_nb[0]) || !dma_field_ok(caps, w.ne0))) {
        return false;
    }
    if (w.dst_nb[0] != type_size(dst_type_of(op)) && (!dma_field_ok(caps, w.dst_nb[0]) || !dma_field_ok(caps, w.ne0))) {
        return false;
    }
    return rows_plan_ok(caps, cpy_need(caps, op, w));
}

// cpy_walk_of's walk, or, when its rows are too long for a thread's VTCM share (a transposed
// row of 2M elements), the same rows cut into k segments of ne0 / k (the fewest that fit, k a
// divisor): the segments become dim 1 and dims 1, 2 move up, so dim 3 must be 1 on both sides.
// Element types only (a quantized row's segments would cut its blocks).
bool cpy_plan_walk(const htp_device_caps & caps, const ggml_tensor * op, cpy_walk & w) {
    if (!cpy_walk_of(op, w)) {
        return false;
    }
    if (walk_ok(caps, op, w)) {
        return true;
    }
    if (quant_row_dst_type(op->type) || block_copy(op) || w.ne3 != 1 || w.ne1 * w.ne2 != w.dne1 * w.dne2) {
        return false;
    }
    for (uint32_t k = 2; k <= w.ne0 / 32; k++) {
        if (w.ne0 % k != 0) {
            continue;
        }
        const uint32_t l = w.ne0 / k;
        const cpy_walk s = { l, k, w.ne1, w.ne2, k, w.dne1,
                             { w.src_nb[0], l * w.src_nb[0], w.src_nb[1], w.src_nb[2] },
                             { w.dst_nb[0], l * w.dst_nb[0], w.dst_nb[1], w.dst_nb[2] } };
        if (walk_ok(caps, op, s)) {
            w = s;
            return true;
        }
    }
    return false;
}

bool cpy_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * s = op->src[0];
    if (dequant_copy(op)) {
        return dequant_rows_supports(caps, op);
    }
    const auto          f = [](ggml_type t) { return t == GGML_TYPE_F32 || half(t); };
    const bool          i32_f32 = (s->type == GGML_TYPE_I32 && op->type == GGML_TYPE_F32) ||
                         (s->type == GGML_TYPE_F32 && op->type == GGML_TYPE_I32);
    const bool          quant    = quant_row_dst_type(op->type) && !block_copy(op);
    const bool          types_ok = (f(s->type) && (f(op->type) || quant)) ||
                          (s->type == GGML_TYPE_I32 && op->type == GGML_TYPE_I32) || i32_f32 || block_copy(op);
    if (!types_ok || ggml_nelements(s) != ggml_nelements(op) || !fits_u32(s) || !fits_u32(op)) {
        return false;
    }
    // Quantized: rows of whole blocks, read as adjacent values, into a contiguous dst
    // (ggml-cpu's condition); the joining descriptors step a block over n_blocks rows.
    const int64_t bk = ggml_blck_size(op->type);
    if (quant && (s->ne[0] % bk != 0 || s->nb[0] != ggml_type_size(s->type) || !ggml_is_contiguous(op) ||
                  !dma_field_ok(caps, (uint64_t) (s->ne[0] / bk)))) {
        return false;
    }
    cpy_walk w;
    return cpy_plan_walk(caps, op, w);
}

void cpy_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    if (dequant_copy(op)) {
        dequant_rows_encode(caps, op, desc);
        return;
    }
    htp_cpy_params & p = desc.params.cpy;
    desc.opcode        = HTP_OP_CPY;
    cpy_walk w;
    cpy_plan_walk(caps, op, w);
    plan_rows(caps, cpy_need(caps, op, w), p.split);
    uint32_t ps, pd;
    cpy_pitches(src_type_of(op), dst_type_of(op), w.ne0, ps, pd, p.quant);
    p.src_type    = src_type_of(op);
    p.dst_type    = dst_type_of(op);
    p.ne0         = w.ne0;
    p.shape       = rows_shape(w.ne1, w.ne2);
    p.dst_shape   = rows_shape(w.dne1, w.dne2);
    p.src_nb0     = (uint32_t) w.src_nb[0];
    p.dst_nb0     = (uint32_t) w.dst_nb[0];
    p.src         = rows_strides(w.src_nb[1], w.src_nb[2], w.src_nb[3]);
    p.dst         = rows_strides(w.dst_nb[1], w.dst_nb[2], w.dst_nb[3]);
    p.src_gather  = p.src_nb0 != type_size(src_type_of(op));
    p.dst_scatter = p.dst_nb0 != type_size(dst_type_of(op));
    uint32_t off  = 0;
    p.vsrc        = stream_at(off, p.split, ps, p.split.rows_per_chunk);
    p.vdst        = stream_at(off, p.split, pd, p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_cpy_encoder = { cpy_supports, cpy_encode };
