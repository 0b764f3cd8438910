// Host side of SOLVE_TRI (F32, left, lower, non-unit diagonal: the only variant ggml builds):
// X = A^-1 B per batch, as ggml_compute_forward_solve_tri_f32. A chunk is one batch.
#include "encode-util.h"

using namespace htp_enc;

namespace {

constexpr uint32_t kMaxN = 512;  // the kernel copies one row of A to its stack

static uint32_t a_pitch(const ggml_tensor * op) {
    return align_up((uint32_t) op->src[0]->ne[0] * 4, 128);
}

static uint32_t b_pitch(const ggml_tensor * op) {
    return align_up((uint32_t) op->ne[0] * 4, 128);
}

static stream_need solve_tri_need(const htp_device_caps &, const ggml_tensor * op) {
    const uint32_t n    = (uint32_t) op->ne[1];
    stream_need    need = {};
    need.total_rows     = (uint32_t) (op->ne[2] * op->ne[3]);
    need.chunk_divides  = 1;
    need.bytes_per_row  = n * a_pitch(op) + 2 * n * b_pitch(op);  // A, B and X of one batch
    need.desc_per_chunk = 3;
    need.multi_row_ok   = false;
    return need;
}

static bool solve_tri_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    const ggml_tensor * b = op->src[1];
    if (a->type != GGML_TYPE_F32 || b->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 ||
        a->nb[0] != 4 || b->nb[0] != 4 || op->nb[0] != 4 || !fits_u32(a) || !fits_u32(b) || !fits_u32(op) ||
        ggml_nelements(op) == 0) {
        return false;
    }
    const int64_t n = a->ne[0];
    if (a->ne[1] != n || b->ne[1] != n || !ggml_are_same_shape(b, op) || a->ne[2] != b->ne[2] || a->ne[3] != b->ne[3] ||
        n > kMaxN) {
        return false;
    }
    // One 2-D descriptor per matrix: n rows.
    if (n > 1 && (!dma_field_ok(caps, (uint64_t) n) || !dma_field_ok(caps, a->nb[1]) || !dma_field_ok(caps, b->nb[1]) ||
                  !dma_field_ok(caps, op->nb[1]) || !dma_field_ok(caps, a_pitch(op)) || !dma_field_ok(caps, b_pitch(op)) ||
                  !dma_field_ok(caps, (uint64_t) n * 4) || !dma_field_ok(caps, (uint64_t) op->ne[0] * 4))) {
        return false;
    }
    if (!dma_1d_ok((uint64_t) n * 4) || !dma_1d_ok((uint64_t) op->ne[0] * 4)) {
        return false;
    }
    return rows_plan_ok(caps, solve_tri_need(caps, op));
}

static void solve_tri_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor *    a = op->src[0];
    const ggml_tensor *    b = op->src[1];
    htp_solve_tri_params & p = desc.params.solve_tri;
    desc.opcode              = HTP_OP_SOLVE_TRI;
    plan_rows(caps, solve_tri_need(caps, op), p.split);
    p.n          = (uint32_t) a->ne[0];
    p.k          = (uint32_t) op->ne[0];
    p.shape      = rows_shape((uint32_t) op->ne[2], (uint32_t) op->ne[3]);
    p.a          = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.b          = rows_strides(b->nb[1], b->nb[2], b->nb[3]);
    p.x          = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off = 0;
    p.va         = stream_at(off, p.split, a_pitch(op), p.n);
    p.vb         = stream_at(off, p.split, b_pitch(op), p.n);
    p.vx         = stream_at(off, p.split, b_pitch(op), p.n);
}

}  // namespace

extern const htp_op_encoder htp_solve_tri_encoder = { solve_tri_supports, solve_tri_encode };
