// Host side of IM2COL (1-D and 2-D) and IM2COL_3D: F32 image -> F32 / F16 columns, as ggml-cpu's
// ggml_compute_forward_im2col_f32 / _f16 and _im2col_3d_f32 / _f16 (the kernel tensor only
// gives KW, KH, KD), on one kernel (npu/ops/im2col.cpp). IM2COL_3D's image is [IW, IH, ID,
// N * IC] (channel ic of image n at (n * IC + ic) * nb3) and its dst [K, OW, OH, OD * N], which
// ggml-cpu writes as contiguous: the encoder takes a contiguous dst only.
#include "encode-util.h"
#include "htp-abi/htp-types.h"

using namespace htp_enc;

namespace {

struct im2col_geom {
    bool     is_2d;
    uint32_t N, IC, IH, IW, KH, KW, OH, OW;
    uint64_t nb_img, nb_ic, nb_ih;
    int32_t  s0, s1, p0, p1, d0, d1;
    uint32_t ID, KD, OD;              // 1 but for IM2COL_3D
    int32_t  s2, p2, d2;
    uint64_t nb_id;
};

// IM2COL_3D's op params: s0, s1, s2, p0, p1, p2, d0, d1, d2, IC.
static im2col_geom geom_3d(const ggml_tensor * op) {
    const ggml_tensor * a  = op->src[0];
    const ggml_tensor * b  = op->src[1];
    const int32_t *     pp = op->op_params;
    im2col_geom         g;
    g.is_2d = true;  // oh = i2, i3 = image * OD + od
    g.s0 = pp[0]; g.s1 = pp[1]; g.s2 = pp[2]; g.p0 = pp[3]; g.p1 = pp[4]; g.p2 = pp[5];
    g.d0 = pp[6]; g.d1 = pp[7]; g.d2 = pp[8];
    g.IC     = pp[9] > 0 ? (uint32_t) pp[9] : 0;
    g.N      = g.IC ? (uint32_t) (b->ne[3] / g.IC) : 0;
    g.IW     = (uint32_t) b->ne[0];
    g.IH     = (uint32_t) b->ne[1];
    g.ID     = (uint32_t) b->ne[2];
    g.KW     = (uint32_t) a->ne[0];
    g.KH     = (uint32_t) a->ne[1];
    g.KD     = (uint32_t) a->ne[2];
    g.OW     = (uint32_t) op->ne[1];
    g.OH     = (uint32_t) op->ne[2];
    g.OD     = g.N ? (uint32_t) (op->ne[3] / g.N) : 0;
    g.nb_ic  = b->nb[3];
    g.nb_img = (uint64_t) g.IC * b->nb[3];
    g.nb_id  = b->nb[2];
    g.nb_ih  = b->nb[1];
    return g;
}

static im2col_geom geom(const ggml_tensor * op) {
    if (op->op == GGML_OP_IM2COL_3D) {
        return geom_3d(op);
    }
    const ggml_tensor * a = op->src[0];
    const ggml_tensor * b = op->src[1];
    im2col_geom         g;
    const int32_t *     pp = op->op_params;
    g.s0 = pp[0]; g.s1 = pp[1]; g.p0 = pp[2]; g.p1 = pp[3]; g.d0 = pp[4]; g.d1 = pp[5];
    g.is_2d  = pp[6] == 1;
    if (!g.is_2d) {  // no second spatial dimension: ih = 0 always
        g.s1 = 1;
        g.p1 = 0;
        g.d1 = 1;
    }
    g.N      = (uint32_t) (g.is_2d ? b->ne[3] : b->ne[2]);
    g.IC     = (uint32_t) (g.is_2d ? b->ne[2] : b->ne[1]);
    g.IH     = (uint32_t) (g.is_2d ? b->ne[1] : 1);
    g.IW     = (uint32_t) b->ne[0];
    g.KH     = (uint32_t) (g.is_2d ? a->ne[1] : 1);
    g.KW     = (uint32_t) a->ne[0];
    g.OH     = (uint32_t) (g.is_2d ? op->ne[2] : 1);
    g.OW     = (uint32_t) op->ne[1];
    g.nb_img = g.is_2d ? b->nb[3] : b->nb[2];
    g.nb_ic  = g.is_2d ? b->nb[2] : b->nb[1];
    g.nb_ih  = g.is_2d ? b->nb[1] : 0;
    g.ID = g.KD = g.OD = 1;  // no depth: id = kd = od = 0
    g.s2 = 1; g.p2 = 0; g.d2 = 1;
    g.nb_id = 0;
    return g;
}

static uint32_t stage_pitch(const ggml_tensor * op) {
    return align_up((uint32_t) op->ne[0] * 4, 256);  // F16 conversion reads vector pairs
}

static uint32_t dst_pitch(const ggml_tensor * op) {
    return op->type == GGML_TYPE_F16 ? stage_pitch(op) / 2 : stage_pitch(op);
}

static stream_need im2col_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const im2col_geom g    = geom(op);
    stream_need       need = {};
    need.total_rows        = (uint32_t) ggml_nrows(op);
    need.chunk_divides     = g.OW;
    need.bytes_per_row     = stage_pitch(op) + dst_pitch(op);
    need.desc_per_chunk    = 2;  // the kernel bounds its gathers itself (dma-tickets.h)
    need.multi_row_ok = dma_field_ok(caps, (uint64_t) g.s0 * 4) && dma_field_ok(caps, stage_pitch(op)) &&
                        dma_field_ok(caps, dst_pitch(op)) && dma_field_ok(caps, op->nb[1]) &&
                        dma_field_ok(caps, (uint64_t) op->ne[0] * ggml_type_size(op->type)) &&
                        dma_field_ok(caps, (uint64_t) g.OW);
    return need;
}

static bool im2col_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * b = op->src[1];
    if (b->type != GGML_TYPE_F32 || (op->type != GGML_TYPE_F32 && op->type != GGML_TYPE_F16) ||
        b->nb[0] != 4 || op->nb[0] != ggml_type_size(op->type) || !fits_u32(b) || !fits_u32(op) ||
        ggml_nelements(op) == 0 || ggml_nelements(b) == 0) {
        return false;
    }
    const im2col_geom g = geom(op);
    if (g.s0 <= 0 || g.s1 <= 0 || g.d0 <= 0 || g.d1 <= 0 || g.p0 < 0 || g.p1 < 0 || g.KW > HTP_IM2COL_MAX_KW ||
        (!g.is_2d && b->ne[3] != 1) || (uint64_t) g.IC * g.KD * g.KH * g.KW != (uint64_t) op->ne[0] ||
        (uint64_t) g.OH * g.N * g.OD * g.OW != (uint64_t) ggml_nrows(op) || !dma_1d_ok((uint64_t) op->ne[0] * 4)) {
        return false;
    }
    if (op->op == GGML_OP_IM2COL_3D &&  // depth: as the other two; ggml-cpu writes dst as contiguous
        (g.IC == 0 || (uint64_t) g.N * g.IC != (uint64_t) b->ne[3] || g.s2 <= 0 || g.d2 <= 0 || g.p2 < 0 ||
         !ggml_is_contiguous(op) || (uint64_t) g.OD * g.s2 + (uint64_t) g.KD * g.d2 >= (1u << 30) ||
         (uint64_t) g.ID + (uint64_t) g.p2 >= (1u << 30))) {
        return false;
    }
    // Coordinates are formed in int32 on the NPU; the ow bounds divide values below
    // IW + p0 + s0 by s0 with fastdiv (numerators below 2^31).
    if ((uint64_t) g.OW * g.s0 + (uint64_t) g.KW * g.d0 >= (1u << 30) ||
        (uint64_t) g.OH * g.s1 + (uint64_t) g.KH * g.d1 >= (1u << 30) ||
        (uint64_t) g.IW + (uint64_t) g.p0 + (uint64_t) g.s0 >= (1u << 30)) {
        return false;
    }
    return rows_plan_ok(caps, im2col_need(caps, op));
}

static void im2col_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const im2col_geom   g = geom(op);
    htp_im2col_params & p = desc.params.im2col;
    desc.opcode           = op->op == GGML_OP_IM2COL_3D ? HTP_OP_IM2COL_3D : HTP_OP_IM2COL;
    plan_rows(caps, im2col_need(caps, op), p.split);
    p.dst_type = op->type == GGML_TYPE_F16 ? HTP_TYPE_F16 : HTP_TYPE_F32;
    p.is_2d    = g.is_2d ? 1 : 0;
    p.IC = g.IC; p.IH = g.IH; p.IW = g.IW; p.KH = g.KH; p.KW = g.KW;
    p.s0 = g.s0; p.s1 = g.s1; p.p0 = g.p0; p.p1 = g.p1; p.d0 = g.d0; p.d1 = g.d1;
    p.div_s0 = htp_fastdiv_init((uint32_t) g.s0);
    p.nb_img = (uint32_t) g.nb_img;
    p.nb_ic  = (uint32_t) g.nb_ic;
    p.nb_ih  = (uint32_t) g.nb_ih;
    // Gather along ow (one descriptor per column of the chunk) unless there are more input
    // channels than rows per chunk and the channel stride fits a descriptor field.
    const bool ic_ok = g.IC > 1 && dma_field_ok(caps, g.nb_ic) && dma_field_ok(caps, (uint64_t) g.KD * g.KH * g.KW * 4) &&
                       dma_field_ok(caps, g.IC);
    p.mode        = ic_ok && g.IC > p.split.rows_per_chunk ? HTP_IM2COL_GATHER_IC : HTP_IM2COL_GATHER_OW;
    p.shape       = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.dst         = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    p.dst_row_bytes = (uint32_t) op->ne[0] * (uint32_t) ggml_type_size(op->type);
    uint32_t off  = 0;
    p.vstage      = stream_at(off, p.split, stage_pitch(op), p.split.rows_per_chunk);
    p.vdst        = stream_at(off, p.split, dst_pitch(op), p.split.rows_per_chunk);
    p.KD = g.KD; p.ID = g.ID; p.s2 = g.s2; p.p2 = g.p2; p.d2 = g.d2;
    p.div_od = htp_fastdiv_init(g.OD);
    p.nb_id  = (uint32_t) g.nb_id;
}

}  // namespace

extern const htp_op_encoder htp_im2col_encoder    = { im2col_supports, im2col_encode };
extern const htp_op_encoder htp_im2col_3d_encoder = { im2col_supports, im2col_encode };
