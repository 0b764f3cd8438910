// Host side of ADD / SUB / MUL / DIV (F32, F16 or BF16, or BF16 rows with an F32 src1; ggml
// broadcasting of src1 over src0, src1 of any strides: a permuted src1 is gathered).
#include "encode-util.h"

using namespace htp_enc;

// F16 / BF16 rows convert 64 elements (one 16-bit vector, two F32 vectors) at a time.
static uint32_t conv_pitch(uint32_t ne0) {
    return (ne0 + 63) / 64 * 256;
}

// The dst slot's row pitch: F32-sized, BF16 rows whole pairs of vectors (the kernel computes
// them there in F32 and narrows them in place after the chunk's rows).
static uint32_t dst_pitch(ggml_type t, uint32_t ne0) {
    return t == GGML_TYPE_BF16 ? conv_pitch(ne0) : align_up(ne0 * 4, 128);
}

// A large op of one row over same-shape, contiguous tensors (1 x 1M, say) runs *flat*: its
// elements as rows of one 128-byte line each (kFlatRowBytes), so that it fits VTCM whatever
// its length and a device group splits it by elements in whole lines (npu/ops/binary.cpp,
// mdev_partition_elements); the kernel sees a row length that differs from dst's ne0.
static constexpr uint32_t kFlatRowBytes = 128;
static constexpr uint64_t kFlatMinBytes = 64 * 1024;

static bool binary_flat(const ggml_tensor * op) {
    const ggml_tensor * a  = op->src[0];
    const ggml_tensor * b  = op->src[1];
    const uint64_t      es = ggml_type_size(op->type);
    const uint64_t      n  = (uint64_t) ggml_nelements(op);
    return ggml_nrows(op) == 1 && b->type == op->type && ggml_are_same_shape(a, b) && ggml_is_contiguous(a) && ggml_is_contiguous(b) &&
           ggml_is_contiguous(op) && (n * es) % kFlatRowBytes == 0 && n * es >= kFlatMinBytes;
}

// The rows the kernel streams: the tensor's own, or for a flat op n * es / 128 rows of one line.
struct binary_rows {
    uint32_t ne0, ne10;        // elements per row of src0 / dst and of src1
    uint32_t ne1;              // rows per plane (flat: all of them)
    uint32_t nrows;            // rows in all
    uint32_t b_ne1;            // src1 rows per plane (1: one row serves all)
    bool     flat;
};

static binary_rows rows_of(const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    const ggml_tensor * b = op->src[1];
    binary_rows         r;
    r.flat = binary_flat(op);
    if (r.flat) {
        const uint32_t es = (uint32_t) ggml_type_size(op->type);
        r.ne0 = r.ne10 = kFlatRowBytes / es;
        r.nrows = r.ne1 = r.b_ne1 = (uint32_t) ((uint64_t) ggml_nelements(op) / r.ne0);
        return r;
    }
    r.ne0   = (uint32_t) a->ne[0];
    r.ne10  = (uint32_t) b->ne[0];
    r.ne1   = (uint32_t) a->ne[1];
    r.nrows = (uint32_t) ggml_nrows(op);
    r.b_ne1 = (uint32_t) b->ne[1];
    return r;
}

// src1's element size (F32 under BF16 rows, else the op's type's).
static uint32_t src1_es(const ggml_tensor * op) {
    return (uint32_t) ggml_type_size(op->src[1]->type);
}

// src1's elements are not adjacent (a permuted src1, e.g. test-backend-ops' perm1): each src1
// row comes by a 2-D DMA of one element per DMA row, one row per chunk.
static bool src1_gather(const ggml_tensor * op) {
    const ggml_tensor * b = op->src[1];
    return b->ne[0] > 1 && b->nb[0] != src1_es(op) && !binary_flat(op);
}

static stream_need binary_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * a    = op->src[0];
    const ggml_tensor * b    = op->src[1];
    const binary_rows   r    = rows_of(op);
    const uint32_t      p0   = align_up(r.ne0 * 4, 128);
    const uint32_t      pd   = dst_pitch(op->type, r.ne0);
    const uint32_t      p1   = align_up(r.ne10 * 4, 128);
    const uint64_t      nb1a = r.flat ? (uint64_t) r.ne0 * ggml_type_size(op->type) : a->nb[1];
    const uint64_t      nb1b = r.flat ? nb1a : b->nb[1];
    const uint64_t      nb1d = r.flat ? nb1a : op->nb[1];
    stream_need         need = {};
    need.total_rows          = r.nrows;
    // A chunk's src1 rows must not wrap around ne11 mid-chunk.
    need.chunk_divides       = r.b_ne1 > 1 && r.b_ne1 < r.ne1 ? r.b_ne1 : r.ne1;
    need.bytes_per_row       = p0 + pd + (r.b_ne1 > 1 ? p1 : 0);
    need.bytes_per_slot      = r.b_ne1 > 1 ? 0 : p1;
    need.bytes_fixed         = r.ne0 != r.ne10 ? p0 + 128 : 0;
    if (op->type != GGML_TYPE_F32) {
        need.bytes_fixed += 3 * conv_pitch(r.ne0);
    }
    need.desc_per_chunk      = 3;
    need.multi_row_ok        = !src1_gather(op) && dma_field_ok(caps, (uint64_t) r.ne0 * 4) && dma_field_ok(caps, p0) &&
                        dma_field_ok(caps, p1) && dma_field_ok(caps, nb1a) && dma_field_ok(caps, nb1b) &&
                        dma_field_ok(caps, nb1d) && dma_field_ok(caps, (uint64_t) r.ne1);
    return need;
}

static bool binary_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    const ggml_tensor * b = op->src[1];
    if ((op->type != GGML_TYPE_F32 && op->type != GGML_TYPE_F16 && op->type != GGML_TYPE_BF16) || a->type != op->type ||
        (b->type != op->type && !(op->type == GGML_TYPE_BF16 && b->type == GGML_TYPE_F32))) {
        return false;
    }
    if (!ggml_are_same_shape(a, op) || !ggml_can_repeat(b, a)) {
        return false;
    }
    const size_t es = ggml_type_size(op->type);
    if (a->nb[0] != es || op->nb[0] != es) {
        return false;
    }
    if (src1_gather(op) && (!dma_field_ok(caps, b->nb[0]) || !dma_field_ok(caps, (uint64_t) b->ne[0]))) {
        return false;  // the gather's DMA rows: ne10 of them, nb10 apart
    }
    if (!fits_u32(a) || !fits_u32(b) || !fits_u32(op) ||
        (!binary_flat(op) && !dma_1d_ok((uint64_t) a->ne[0] * 4))) {
        return false;
    }
    return rows_plan_ok(caps, binary_need(caps, op));
}

static void binary_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    const ggml_tensor * b = op->src[1];
    htp_binary_params & p = desc.params.binary;
    switch (op->op) {
        case GGML_OP_ADD: desc.opcode = HTP_OP_ADD; p.kind = HTP_BINARY_ADD; break;
        case GGML_OP_SUB: desc.opcode = HTP_OP_SUB; p.kind = HTP_BINARY_SUB; break;
        case GGML_OP_MUL: desc.opcode = HTP_OP_MUL; p.kind = HTP_BINARY_MUL; break;
        default:          desc.opcode = HTP_OP_DIV; p.kind = HTP_BINARY_DIV; break;
    }
    plan_rows(caps, binary_need(caps, op), p.split);

    const binary_rows r   = rows_of(op);
    const uint32_t    p0  = align_up(r.ne0 * 4, 128);
    const uint32_t    p1  = align_up(r.ne10 * 4, 128);
    p.ne0                 = r.ne0;
    p.ne10                = r.ne10;
    p.nr0                 = p.ne0 / p.ne10;
    if (r.flat) {
        const uint64_t row = (uint64_t) r.ne0 * ggml_type_size(op->type);
        const uint64_t all = row * r.nrows;
        p.shape            = rows_shape(r.nrows, 1);
        p.mod_ne11         = htp_fastdiv_init(r.nrows);
        p.mod_ne12         = htp_fastdiv_init(1);
        p.mod_ne13         = htp_fastdiv_init(1);
        p.src0 = p.src1 = p.dst = rows_strides(row, all, all);
    } else {
        p.shape    = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
        p.mod_ne11 = htp_fastdiv_init((uint32_t) b->ne[1]);
        p.mod_ne12 = htp_fastdiv_init((uint32_t) b->ne[2]);
        p.mod_ne13 = htp_fastdiv_init((uint32_t) b->ne[3]);
        p.src0     = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
        p.src1     = rows_strides(b->nb[1], b->nb[2], b->nb[3]);
        p.dst      = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    }
    p.src1_rows_per_chunk = r.b_ne1 > 1 ? p.split.rows_per_chunk : 1;
    p.src1_vtcm_row_step  = r.b_ne1 > 1 ? p1 : 0;
    uint32_t off          = 0;
    p.vsrc0               = stream_at(off, p.split, p0, p.split.rows_per_chunk);
    p.vsrc1               = stream_at(off, p.split, p1, p.src1_rows_per_chunk);
    p.vdst                = stream_at(off, p.split, dst_pitch(op->type, r.ne0), p.split.rows_per_chunk);
    p.vbcast              = off;
    const bool half = op->type != GGML_TYPE_F32;
    p.half          = half ? op->type : 0;  // ggml_type values are the ABI's htp_type values
    p.conv_pitch    = half ? conv_pitch(p.ne0) : 0;
    p.vconv         = half ? off + (r.ne0 != r.ne10 ? p0 + 128 : 0) : 0;
    p.src1_gather   = src1_gather(op) ? 1 : 0;
    p.src1_nb0      = (uint32_t) b->nb[0];
    p.src1_f32      = b->type != op->type ? 1 : 0;
}

extern const htp_op_encoder htp_binary_encoder = { binary_supports, binary_encode };
