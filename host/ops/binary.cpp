// Host side of ADD / SUB / MUL / DIV (F32 or F16, ggml broadcasting of src1 over src0).
#include "encode-util.h"

using namespace htp_enc;

// F16 rows convert 64 elements (one F16 vector, two F32 vectors) at a time.
static uint32_t conv_pitch(uint32_t ne0) {
    return (ne0 + 63) / 64 * 256;
}

static stream_need binary_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * a  = op->src[0];
    const ggml_tensor * b  = op->src[1];
    const uint32_t      p0 = align_up((uint32_t) a->ne[0] * 4, 128);
    const uint32_t      p1 = align_up((uint32_t) b->ne[0] * 4, 128);
    stream_need         need = {};
    need.total_rows          = (uint32_t) ggml_nrows(op);
    // A chunk's src1 rows must not wrap around ne11 mid-chunk.
    need.chunk_divides       = (uint32_t) (b->ne[1] > 1 && b->ne[1] < a->ne[1] ? b->ne[1] : a->ne[1]);
    need.bytes_per_row       = 2 * p0 + (b->ne[1] > 1 ? p1 : 0);
    need.bytes_per_slot      = b->ne[1] > 1 ? 0 : p1;
    need.bytes_fixed         = a->ne[0] != b->ne[0] ? p0 + 128 : 0;
    if (op->type == GGML_TYPE_F16) {
        need.bytes_fixed += 3 * conv_pitch((uint32_t) a->ne[0]);
    }
    need.desc_per_chunk      = 3;
    need.multi_row_ok        = dma_field_ok(caps, (uint64_t) a->ne[0] * 4) && dma_field_ok(caps, p0) &&
                        dma_field_ok(caps, p1) && dma_field_ok(caps, a->nb[1]) && dma_field_ok(caps, b->nb[1]) &&
                        dma_field_ok(caps, op->nb[1]) && dma_field_ok(caps, (uint64_t) a->ne[1]);
    return need;
}

static bool binary_supports(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    const ggml_tensor * b = op->src[1];
    if ((op->type != GGML_TYPE_F32 && op->type != GGML_TYPE_F16) || a->type != op->type || b->type != op->type) {
        return false;
    }
    if (!ggml_are_same_shape(a, op) || !ggml_can_repeat(b, a)) {
        return false;
    }
    const size_t es = ggml_type_size(op->type);
    if (a->nb[0] != es || b->nb[0] != es || op->nb[0] != es) {
        return false;
    }
    if (!fits_u32(a) || !fits_u32(b) || !fits_u32(op) || !dma_1d_ok((uint64_t) a->ne[0] * 4)) {
        return false;
    }
    htp_split_params sp;
    return plan_rows(caps, binary_need(caps, op), sp);
}

static void binary_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc) {
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

    const uint32_t p0     = align_up((uint32_t) a->ne[0] * 4, 128);
    const uint32_t p1     = align_up((uint32_t) b->ne[0] * 4, 128);
    p.ne0                 = (uint32_t) a->ne[0];
    p.ne10                = (uint32_t) b->ne[0];
    p.nr0                 = p.ne0 / p.ne10;
    p.shape               = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.mod_ne11            = htp_fastdiv_init((uint32_t) b->ne[1]);
    p.mod_ne12            = htp_fastdiv_init((uint32_t) b->ne[2]);
    p.mod_ne13            = htp_fastdiv_init((uint32_t) b->ne[3]);
    p.src0                = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.src1                = rows_strides(b->nb[1], b->nb[2], b->nb[3]);
    p.dst                 = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    p.src1_rows_per_chunk = b->ne[1] > 1 ? p.split.rows_per_chunk : 1;
    p.src1_vtcm_row_step  = b->ne[1] > 1 ? p1 : 0;
    uint32_t off          = 0;
    p.vsrc0               = stream_at(off, p.split, p0, p.split.rows_per_chunk);
    p.vsrc1               = stream_at(off, p.split, p1, p.src1_rows_per_chunk);
    p.vdst                = stream_at(off, p.split, p0, p.split.rows_per_chunk);
    p.vbcast              = off;
    const bool f16 = op->type == GGML_TYPE_F16;
    p.f16          = f16 ? 1 : 0;
    p.conv_pitch   = f16 ? conv_pitch(p.ne0) : 0;
    p.vconv        = f16 ? off + (a->ne[0] != b->ne[0] ? p0 + 128 : 0) : 0;
}

extern const htp_op_encoder htp_binary_encoder = { binary_supports, binary_encode };
