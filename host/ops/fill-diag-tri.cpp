// Host side of FILL (F32 / F16), TRI, DIAG and ARANGE (F32). ARANGE's 1-D dst is cut into rows:
// one row up to kArangeRow elements, else rows of kArangeRow (the length must be a multiple).
#include <cstring>

#include "encode-util.h"

using namespace htp_enc;

namespace {

constexpr uint32_t kArangeRow = 1024;
constexpr uint32_t kArangeMax = 1u << 22;  // int_to_sf_small's exact range (npu/ops/fill-diag-tri.cpp)

// ARANGE's rows: elements per row and rows.
static void arange_rows(const ggml_tensor * op, uint32_t & ne0, uint32_t & rows) {
    const uint32_t n = (uint32_t) op->ne[0];
    ne0              = n <= kArangeRow ? n : kArangeRow;
    rows             = n / ne0;
}

static stream_need arange_need(const htp_device_caps & caps, const ggml_tensor * op) {
    uint32_t ne0, rows;
    arange_rows(op, ne0, rows);
    stream_need need    = {};
    need.total_rows     = rows;
    need.chunk_divides  = rows;
    need.bytes_per_row  = align_up(ne0 * 4, 128);
    need.desc_per_chunk = 1;
    need.multi_row_ok   = dma_fields_ok(caps, { ne0 * 4, rows });
    return need;
}

static uint32_t dst_pitch(const ggml_tensor * op) {
    return align_up((uint32_t) (op->ne[0] * ggml_type_size(op->type)), 128);
}

static stream_need fill_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * a      = op->src[0];
    const bool          fetch  = op->op != GGML_OP_FILL;
    const uint32_t      pitch  = dst_pitch(op);
    stream_need         need   = {};
    need.total_rows            = (uint32_t) ggml_nrows(op);
    need.chunk_divides         = (uint32_t) op->ne[1];
    need.bytes_per_row         = fetch ? 2 * pitch : pitch;
    need.desc_per_chunk        = fetch ? 2 : 1;
    need.multi_row_ok = dma_field_ok(caps, pitch + 4) && dma_field_ok(caps, op->nb[1]) &&
                        dma_field_ok(caps, (uint64_t) op->ne[0] * ggml_type_size(op->type)) &&
                        dma_field_ok(caps, (uint64_t) op->ne[1]) && (op->op != GGML_OP_TRI || dma_field_ok(caps, a->nb[1]));
    return need;
}

static bool fill_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    if (op->op == GGML_OP_ARANGE) {
        htp_split_params sp;
        return op->type == GGML_TYPE_F32 && ggml_is_contiguous(op) && op->ne[0] > 0 && op->ne[0] < kArangeMax &&
               (op->ne[0] <= kArangeRow || op->ne[0] % kArangeRow == 0) && plan_rows(caps, arange_need(caps, op), sp);
    }
    if (!fits_u32(op) || !fits_u32(a) || ggml_nelements(op) == 0 || op->nb[0] != ggml_type_size(op->type) ||
        !dma_1d_ok((uint64_t) op->ne[0] * ggml_type_size(op->type))) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_FILL:
            if (op->type != GGML_TYPE_F32 && op->type != GGML_TYPE_F16) {
                return false;
            }
            break;
        case GGML_OP_TRI: {
            const int32_t t = op->op_params[0];
            if (op->type != GGML_TYPE_F32 || a->type != GGML_TYPE_F32 || !ggml_are_same_shape(a, op) || a->nb[0] != 4 ||
                t < GGML_TRI_TYPE_UPPER_DIAG || t > GGML_TRI_TYPE_LOWER) {
                return false;
            }
            break;
        }
        case GGML_OP_DIAG:
            if (op->type != GGML_TYPE_F32 || a->type != GGML_TYPE_F32 || a->nb[0] != 4 || a->ne[1] != 1 ||
                op->ne[0] != a->ne[0] || op->ne[1] != a->ne[0] || op->ne[2] != a->ne[2] || op->ne[3] != a->ne[3]) {
                return false;
            }
            break;
        default:
            return false;
    }
    return rows_plan_ok(caps, fill_need(caps, op));
}

static void fill_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    htp_fill_params &   p = desc.params.fill;
    p.step                = 0.0f;
    if (op->op == GGML_OP_ARANGE) {
        uint32_t ne0, rows;
        arange_rows(op, ne0, rows);
        plan_rows(caps, arange_need(caps, op), p.split);
        desc.opcode  = HTP_OP_ARANGE;
        p.kind       = HTP_FILL_ARANGE;
        p.ne0        = ne0;
        p.esize      = 4;
        std::memcpy(&p.value, op->op_params, 4);     // start
        std::memcpy(&p.step, op->op_params + 2, 4);  // step (op params: start, stop, step)
        p.keep_lo    = 0;
        p.keep_hi    = 0;
        p.rel_lo     = 0;
        p.rel_hi     = 0;
        p.shape      = rows_shape(rows, 1);
        p.src0       = rows_strides(0, 0, 0);
        p.dst        = rows_strides((uint64_t) ne0 * 4, (uint64_t) ne0 * 4 * rows, (uint64_t) ne0 * 4 * rows);
        uint32_t off = 0;
        p.vsrc       = stream_at(off, p.split, 128, 0);
        p.vdst       = stream_at(off, p.split, align_up(ne0 * 4, 128), p.split.rows_per_chunk);
        return;
    }
    plan_rows(caps, fill_need(caps, op), p.split);
    p.ne0     = (uint32_t) op->ne[0];
    p.esize   = (uint32_t) ggml_type_size(op->type);
    p.value   = 0.0f;
    p.keep_lo = 0;
    p.keep_hi = (int32_t) op->ne[0];
    p.rel_lo  = 0;
    p.rel_hi  = 0;
    switch (op->op) {
        case GGML_OP_FILL: {
            desc.opcode   = HTP_OP_FILL;
            p.kind        = HTP_FILL_CONST;
            float c;
            std::memcpy(&c, op->op_params, sizeof(c));
            if (op->type == GGML_TYPE_F16) {
                const ggml_fp16_t h    = ggml_fp32_to_fp16(c);
                const uint32_t    bits = (uint32_t) h | ((uint32_t) h << 16);
                std::memcpy(&p.value, &bits, 4);
            } else {
                p.value = c;
            }
            break;
        }
        case GGML_OP_TRI:
            desc.opcode = HTP_OP_TRI;
            p.kind      = HTP_FILL_TRI;
            switch ((ggml_tri_type) op->op_params[0]) {
                case GGML_TRI_TYPE_LOWER:      p.keep_hi = 0; p.rel_hi = 1; break;  // i0 <  i1
                case GGML_TRI_TYPE_LOWER_DIAG: p.keep_hi = 1; p.rel_hi = 1; break;  // i0 <= i1
                case GGML_TRI_TYPE_UPPER:      p.keep_lo = 1; p.rel_lo = 1; break;  // i0 >  i1
                case GGML_TRI_TYPE_UPPER_DIAG: p.keep_lo = 0; p.rel_lo = 1; break;  // i0 >= i1
            }
            break;
        default:  // DIAG: only column i1
            desc.opcode = HTP_OP_DIAG;
            p.kind      = HTP_FILL_DIAG;
            p.keep_lo   = 0;
            p.rel_lo    = 1;
            p.keep_hi   = 1;
            p.rel_hi    = 1;
            break;
    }
    p.shape      = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.src0       = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.dst        = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, dst_pitch(op), op->op == GGML_OP_FILL ? 0 : p.split.rows_per_chunk);
    p.vdst       = stream_at(off, p.split, dst_pitch(op), p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_fill_encoder = { fill_supports, fill_encode };
