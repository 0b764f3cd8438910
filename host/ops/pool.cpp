// Host side of POOL_2D and POOL_1D: F32 max / average pooling with padding (minimax-m3's block
// maxima of its sparse-attention scores; the pooling of vision / audio encoders), on
// npu/ops/pool.cpp. POOL_1D is POOL_2D with k1 = s1 = 1, p1 = 0, its average divided by the
// in-range count (ggml-cpu's pool_1d) where POOL_2D's divides by k0 * k1.
#include <algorithm>

#include "encode-util.h"

using namespace htp_enc;

namespace {

constexpr int kMaxK1 = 8;  // window rows ky per dst row (each a 2-D DMA, plus one per padded window)

struct pool_args {
    int op, k0, k1, s0, s1, p0, p1;
};

pool_args read_args(const ggml_tensor * op) {
    const int32_t * o = (const int32_t *) op->op_params;
    if (op->op == GGML_OP_POOL_1D) {  // op, k0, s0, p0
        return { o[0], o[1], 1, o[2], 1, o[3], 0 };
    }
    return { o[0], o[1], o[2], o[3], o[4], o[5], o[6] };
}

// The windows ox in [lo, hi) lie inside the source row (the others overlap the padding).
struct mid_range {
    uint32_t lo, hi;
};

mid_range mid_windows(const pool_args & a, int64_t iw, int64_t ne0) {
    const int64_t lo   = std::min<int64_t>(ne0, (a.p0 + a.s0 - 1) / a.s0);
    const int64_t last = iw + a.p0 - a.k0;  // the last in-range window's start ox * s0
    const int64_t hi   = last < 0 ? 0 : std::min<int64_t>(ne0, last / a.s0 + 1);
    return { (uint32_t) lo, (uint32_t) std::max(lo, hi) };
}

uint32_t win_pitch(const pool_args & a) {
    return align_up((uint32_t) a.k0 * 4, 128);
}

stream_need pool_need(const htp_device_caps &, const ggml_tensor * op) {
    const pool_args a   = read_args(op);
    stream_need     need = {};
    need.total_rows     = (uint32_t) ggml_nrows(op);
    need.chunk_divides  = (uint32_t) op->ne[1];
    need.bytes_per_row  = (uint32_t) a.k1 * (uint32_t) op->ne[0] * win_pitch(a) + align_up((uint32_t) op->ne[0] * 4, 128);
    const mid_range m   = mid_windows(a, op->src[0]->ne[0], op->ne[0]);
    need.desc_per_row   = (uint32_t) a.k1 * (1 + (uint32_t) op->ne[0] - (m.hi - m.lo));  // 2-D middle + 1-D edges
    need.desc_per_chunk = 1;
    need.multi_row_ok   = false;  // one dst row per chunk: npu/ops/pool.cpp computes a chunk as one row
    return need;
}

bool pool_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * s = op->src[0];
    const pool_args     a = read_args(op);
    if (s->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || s->nb[0] != 4 || !ggml_is_contiguous(op) ||
        !fits_u32(s) || !fits_u32(op)) {
        return false;
    }
    if ((a.op != GGML_OP_POOL_MAX && a.op != GGML_OP_POOL_AVG) || a.p0 < 0 || a.p1 < 0 || a.k0 < 1 || a.k1 < 1 ||
        a.k1 > kMaxK1 || a.s0 < 1 || a.s1 < 1 || op->ne[2] != s->ne[2] || op->ne[3] != s->ne[3] ||
        s->ne[0] > INT32_MAX / 2 || s->ne[1] > INT32_MAX / 2) {
        return false;
    }
    if (op->op == GGML_OP_POOL_1D && op->ne[1] != s->ne[1]) {
        return false;
    }
    if (!dma_fields_ok(caps, { (uint64_t) a.s0 * 4, (uint64_t) a.k0 * 4, win_pitch(a), (uint64_t) op->ne[0] })) {
        return false;
    }
    return rows_plan_ok(caps, pool_need(caps, op));
}

void pool_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor * s = op->src[0];
    const pool_args     a = read_args(op);
    htp_pool_params &   p = desc.params.pool;
    desc.opcode           = HTP_OP_POOL_2D;
    plan_rows(caps, pool_need(caps, op), p.split);
    p.is_max     = a.op == GGML_OP_POOL_MAX ? 1 : 0;
    p.k0         = (uint32_t) a.k0;
    p.k1         = (uint32_t) a.k1;
    p.s0         = (uint32_t) a.s0;
    p.s1         = (uint32_t) a.s1;
    p.ne0        = (uint32_t) op->ne[0];
    p.win_pitch  = win_pitch(a);
    p.tail_bytes = (uint32_t) a.k0 * 4 % 128;
    p.ka         = (float) (a.k0 * a.k1);
    p.inv_ka     = 1.0f / p.ka;
    p.p0         = (uint32_t) a.p0;
    p.p1         = (uint32_t) a.p1;
    p.iw         = (uint32_t) s->ne[0];
    p.ih         = (uint32_t) s->ne[1];
    const mid_range m = mid_windows(a, s->ne[0], op->ne[0]);
    p.mid_lo     = m.lo;
    p.mid_hi     = m.hi;
    p.avg_count  = op->op == GGML_OP_POOL_1D ? 1 : 0;
    p.shape      = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.src0       = rows_strides(s->nb[1], s->nb[2], s->nb[3]);
    p.dst        = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, p.k1 * p.ne0 * p.win_pitch, p.split.rows_per_chunk);
    p.vdst       = stream_at(off, p.split, align_up(p.ne0 * 4, 128), p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_pool_2d_encoder = { pool_supports, pool_encode };
extern const htp_op_encoder htp_pool_1d_encoder = { pool_supports, pool_encode };
