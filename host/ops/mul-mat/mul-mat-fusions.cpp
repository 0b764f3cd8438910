// MUL_MAT fusions that save traffic (docs/mul-mat.md "Fusions"):
//   - MUL_MAT -> ADD(bias): one op whose output stage adds the bias row, so the product never
//     goes back to DDR before the ADD reads it again (fuser htp_fuse_mul_mat_add);
//   - consecutive MUL_MATs of one message that read the same activation with the same
//     preparation quantize it once: the second one's act_ready skips phase 1 (htp_mm_act_reuse).
// Both decide per path at encode time (supports_op never depends on them).
#include <algorithm>

#include "fusions.h"
#include "ggml-impl.h"
#include "mul-mat-flat.h"
#include "mul-mat-paths.h"

using namespace htp_enc;

namespace {

// The bias operand of ADD(mm, bias): F32 rows of ne0 contiguous floats, one per plane or one
// for all (ne1 == 1; ne2 / ne3 either 1 or the product's). Null when the ADD is anything else.
const ggml_tensor * bias_of(const ggml_tensor * mm, const ggml_tensor * add) {
    const ggml_tensor * b = add->src[0] == mm ? add->src[1] : add->src[0];
    if (b == mm || b->type != GGML_TYPE_F32 || b->nb[0] != 4 || b->ne[0] != mm->ne[0] || b->ne[1] != 1 ||
        (b->ne[2] != 1 && b->ne[2] != mm->ne[2]) || (b->ne[3] != 1 && b->ne[3] != mm->ne[3]) || !fits_u32(b)) {
        return nullptr;
    }
    return b;
}

htp_rows_strides bias_strides(const ggml_tensor * b) {
    return rows_strides(0, b->ne[2] > 1 ? b->nb[2] : 0, b->ne[3] > 1 ? b->nb[3] : 0);
}

}  // namespace

// MUL_MAT -> ADD with a bias row: flat weights on the flat HVX path, tiled weights on the tiled
// HVX path. Weights bound for HMX (tiled, or flat through rt-repack: prompts) are not fused:
// the ADD runs on its own.
bool htp_fuse_mul_mat_add(const htp_device_caps & caps, const ggml_cgraph * graph, int i, htp_fused_op & f,
                          const htp_encode_context & ctx) {
    static const ggml_op ops[] = { GGML_OP_MUL_MAT, GGML_OP_ADD };
    if (!ggml_can_fuse(graph, i, ops, 2)) {
        return false;
    }
    const ggml_tensor * mm   = graph->nodes[i];
    const ggml_tensor * add  = graph->nodes[i + 1];
    const ggml_tensor * w    = mm->src[0];
    const ggml_tensor * a    = mm->src[1];
    const ggml_tensor * bias = bias_of(mm, add);
    if (!bias || add->type != GGML_TYPE_F32 || add->nb[0] != 4 || !fits_u32(add)) {
        return false;
    }
    htp_tiled_weight tw;
    if (ctx.tiled(0, tw)) {  // node i's src[0]: w
        if (htp_mm_route_tiled(caps, ctx.mm, mm, tw) != HTP_MM_ROUTE_TILED_HVX ||
            !mm_tiled_hvx_encode_bias(caps, mm, add, tw, f.desc)) {
            return false;
        }
        htp_mul_mat_tiled_params & p = f.desc.params.mul_mat_tiled;
        p.has_bias                   = 1;
        p.bias                       = bias_strides(bias);
        f.src_offset_delta[0]        = tw.data_offset;
        f.src_flags[0]               = HTP_TENSOR_TILED;
    } else if (htp_mm_route_flat(caps, ctx.mm, mm, tw) == HTP_MM_ROUTE_HMX) {
        return false;  // rt-repack on HMX (prompts): no bias stage there
    } else {
        uint32_t n_act = (uint32_t) std::min<int64_t>(a->ne[1], HTP_MM_MAX_ACT_ROWS);
        if (!dma_field_ok(caps, add->nb[1]) || !dma_field_ok(caps, a->ne[1])) {
            n_act = 1;
        }
        mm_plan pl;
        if (!mm_plan_flat(caps, w, n_act, false, pl, true)) {
            return false;
        }
        htp_mul_mat_params & p = f.desc.params.mul_mat;
        f.desc.opcode          = HTP_OP_MUL_MAT;
        mm_fill_flat(pl, w, a, add, p);
        p.has_bias = 1;
        p.bias     = bias_strides(bias);
    }
    f.n_nodes = 2;
    f.name    = "MUL_MAT+ADD";
    f.dst     = add;
    f.src[0]  = w;
    f.src[1]  = a;
    f.src[2]  = bias;
    return true;
}

namespace {

bool same_tensor(const htp_tensor_desc & x, const htp_tensor_desc & y) {
    if (x.buf != y.buf || x.offset != y.offset || x.type != y.type || x.flags != y.flags) {
        return false;
    }
    for (int i = 0; i < 4; i++) {
        if (x.ne[i] != y.ne[i] || x.nb[i] != y.nb[i]) {
            return false;
        }
    }
    return true;
}

// Bytes [first, last] a descriptor may touch (conservative: a whole element at the end).
void span(const htp_tensor_desc & t, uint64_t & first, uint64_t & last) {
    first = t.offset;
    last  = t.offset + 16;
    for (int i = 0; i < 4; i++) {
        last += (uint64_t) (t.ne[i] ? t.ne[i] - 1 : 0) * t.nb[i];
    }
}

bool overlap(const htp_tensor_desc & x, const htp_tensor_desc & y) {
    if (x.buf != y.buf) {
        return false;
    }
    uint64_t x0, x1, y0, y1;
    span(x, x0, x1);
    span(y, y0, y1);
    return x0 <= y1 && y0 <= x1;
}

// Flat path: same prepared rows at the same shared place; the whole activation is one chunk.
bool flat_reusable(const htp_mul_mat_params & a, const htp_mul_mat_params & b) {
    return a.act.n_planes == 1 && a.act.ne11 <= a.act_rows_per_chunk && b.act.ne11 <= b.act_rows_per_chunk &&
           a.act.ne11 == b.act.ne11 && a.path == b.path && a.ne00 == b.ne00 && a.k_vecs == b.k_vecs &&
           a.act.row_bytes == b.act.row_bytes && a.act_split_elems == b.act_split_elems &&
           a.act_b_offset == b.act_b_offset && a.n_lo == b.n_lo && a.act_planes == b.act_planes &&
           a.act_offset == b.act_offset && a.act_part_bytes == b.act_part_bytes && a.act_row_pitch == b.act_row_pitch;
}

// Tiled HVX path: same blocks at the same place. Private copies live at act_offset in each dot
// thread's share: the same shares, and every thread of b had its copy made by a.
bool tiled_reusable(const htp_mul_mat_tiled_params & a, const htp_mul_mat_tiled_params & b) {
    if (!(a.act.n_planes == 1 && a.act.ne11 <= a.act_rows_per_pass && b.act.ne11 <= b.act_rows_per_pass && a.act.ne11 == b.act.ne11 &&
          a.ne00 == b.ne00 && a.act_order == b.act_order && a.act.row_bytes == b.act.row_bytes &&
          a.act_private == b.act_private && a.act_offset == b.act_offset && a.act_row_pitch == b.act_row_pitch)) {
        return false;
    }
    return !a.act_private ||
           (a.split.vtcm_per_thread == b.split.vtcm_per_thread && b.split.n_threads <= a.split.n_threads);
}

}  // namespace

bool htp_mm_act_reuse(const htp_op_desc & prev, htp_op_desc & cur) {
    if (prev.opcode != cur.opcode || !same_tensor(prev.src[1], cur.src[1]) || overlap(prev.dst, cur.src[1])) {
        return false;
    }
    if (cur.opcode == HTP_OP_MUL_MAT && flat_reusable(prev.params.mul_mat, cur.params.mul_mat)) {
        cur.params.mul_mat.act_ready = 1;
        return true;
    }
    if (cur.opcode == HTP_OP_MUL_MAT_TILED && tiled_reusable(prev.params.mul_mat_tiled, cur.params.mul_mat_tiled)) {
        cur.params.mul_mat_tiled.act_ready = 1;
        return true;
    }
    return false;
}
