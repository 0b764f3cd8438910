// Host side of CONV_2D_DW (ggml_conv_2d_dw_direct: depthwise 2-D convolution of vision
// encoders), CONV_2D (ggml_conv_2d_direct) and CONV_3D (ggml_conv_3d_direct), on
// npu/ops/conv-2d-dw.cpp. ggml-cpu's conv_2d_dw reads a contiguous (WHCN) image with a
// contiguous kernel and dst, or a channels-contiguous (CWHN) image with kernel and dst packed
// the same way, and indexes them as if so; the kernel follows the strides, so the encoder takes
// exactly those two layouts (any other would make the two disagree). ggml-cpu's conv_2d and
// conv_3d follow the image's and dst's strides and assert a contiguous kernel: so does the
// encoder. All refuse an image / dst other than F32, kernels wider than HTP_CONV_MAX_KW, and
// sizes beyond the DMA fields, int32 coordinates or VTCM (a row's IC * KD * KH * KW planes, two
// slots, in a thread's share).
#include "encode-util.h"
#include "htp-abi/htp-types.h"

using namespace htp_enc;

namespace {

struct dw_geom {
    int64_t C, N, IW, IH, KW, KH, OW, OH;
    int32_t s0, s1, p0, p1, d0, d1;
    int64_t IC;                // input channels per dst value (CONV_2D_DW: 1)
    int64_t ID, KD, OD;        // CONV_3D's depth (1 otherwise)
    int32_t s2, p2, d2;
    int64_t taps;              // IC * KD * KH * KW
};

dw_geom geom(const ggml_tensor * op) {
    const ggml_tensor * k  = op->src[0];
    const ggml_tensor * x  = op->src[1];
    const int32_t *     pp = op->op_params;
    const bool          dw = op->op == GGML_OP_CONV_2D_DW;
    dw_geom g = { op->ne[2], x->ne[3], x->ne[0], x->ne[1], k->ne[0], k->ne[1], op->ne[0], op->ne[1],
                  pp[0],     pp[1],    pp[2],    pp[3],    pp[4],    pp[5],    dw ? 1 : x->ne[2],
                  1,         1,        1,        1,        0,        1,        0 };
    if (op->op == GGML_OP_CONV_3D) {  // op params s0, s1, s2, p0, p1, p2, d0, d1, d2, IC, N, OC
        g.s0 = pp[0]; g.s1 = pp[1]; g.s2 = pp[2]; g.p0 = pp[3]; g.p1 = pp[4]; g.p2 = pp[5];
        g.d0 = pp[6]; g.d1 = pp[7]; g.d2 = pp[8];
        g.IC = pp[9]; g.N = pp[10]; g.C = pp[11];
        g.ID = x->ne[2]; g.KD = k->ne[2]; g.OD = op->ne[2];
    }
    g.taps = g.IC * g.KD * g.KH * g.KW;
    return g;
}

// t has the strides ggml-cpu assumes: WHCN, nb0 .. nb3 packed in that order; CWHN, channel
// first (its stride es), then x, y and (image and dst) the batch. The channel is ne3 of the
// kernel [KW, KH, 1, C], ne2 of the image and dst.
bool packed_as(const ggml_tensor * t, bool cwhn, bool kernel) {
    if (!cwhn) {
        return ggml_is_contiguous(t);
    }
    const uint64_t es   = ggml_type_size(t->type);
    const int64_t  C    = kernel ? t->ne[3] : t->ne[2];
    const uint64_t c_nb = kernel ? t->nb[3] : t->nb[2];
    return c_nb == es && t->nb[0] == C * es && t->nb[1] == t->ne[0] * t->nb[0] &&
           (kernel || t->nb[3] == t->ne[1] * t->nb[1]);
}

uint32_t plane_pitch(const dw_geom & g) {
    return align_up((uint32_t) g.OW * 4, 128);
}

uint32_t w_pitch(const dw_geom & g) {  // F16 widening writes whole vector pairs
    return align_up((uint32_t) g.taps * 4, 256);
}

stream_need dw_need(const ggml_tensor * op) {
    const dw_geom g     = geom(op);
    stream_need   need  = {};
    need.total_rows     = (uint32_t) ggml_nrows(op);
    need.chunk_divides  = (uint32_t) g.OH;
    need.bytes_per_row  = (uint32_t) (g.taps + 1) * plane_pitch(g);
    need.bytes_per_slot = 2 * w_pitch(g);  // the channel's weights, raw then as F32
    need.desc_per_chunk = 2;    // the kernel bounds its gathers itself (dma-tickets.h)
    need.multi_row_ok   = true;
    return need;
}

// What both ops check once their layouts are: shapes, parameters, int32 coordinates, DMA
// fields, VTCM.
bool conv_fits(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * k = op->src[0];
    const ggml_tensor * x = op->src[1];
    const dw_geom       g = geom(op);
    if (g.KW > HTP_CONV_MAX_KW || g.s0 < 1 || g.s1 < 1 || g.s2 < 1 || g.d0 < 1 || g.d1 < 1 || g.d2 < 1 ||
        g.p0 < 0 || g.p1 < 0 || g.p2 < 0 || g.IC < 1 || g.taps > (1 << 20)) {
        return false;
    }
    // int32 coordinates on the NPU; conv_out_bounds divides values below IW + p0 + s0 by s0.
    if (g.OW * g.s0 + g.KW * g.d0 >= (1 << 30) || g.OH * g.s1 + g.KH * g.d1 >= (1 << 30) ||
        g.IW + g.p0 + g.s0 >= (1 << 30) || g.IH + g.p1 >= (1 << 30) || g.OD * g.s2 + g.KD * g.d2 >= (1 << 30) ||
        g.ID + g.p2 >= (1 << 30)) {
        return false;
    }
    const uint64_t es = ggml_type_size(k->type);
    if (!dma_fields_ok(caps, { (uint64_t) g.s0 * x->nb[0], (uint64_t) g.OW, (uint64_t) g.KW, k->nb[0] * 1, es,
                               op->nb[0] * 1, op->nb[1] * 1, plane_pitch(g), (uint64_t) g.OW * 4, (uint64_t) g.OH }) ||
        !dma_1d_ok((uint64_t) g.taps * es)) {
        return false;
    }
    return rows_plan_ok(caps, dw_need(op));
}

bool types_ok(const ggml_tensor * op) {
    const ggml_tensor * k = op->src[0];
    const ggml_tensor * x = op->src[1];
    return x->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 &&
           (k->type == GGML_TYPE_F32 || k->type == GGML_TYPE_F16) && fits_u32(x) && fits_u32(k) && fits_u32(op);
}

bool dw_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * k = op->src[0];
    const ggml_tensor * x = op->src[1];
    if (!types_ok(op)) {
        return false;
    }
    const bool cwhn = !ggml_is_contiguous(x) && ggml_is_contiguous_channels(x);
    if (!packed_as(x, cwhn, false) || !packed_as(k, cwhn, true) || !packed_as(op, cwhn, false) || k->ne[2] != 1 ||
        k->ne[3] != x->ne[2] || op->ne[2] != x->ne[2] || op->ne[3] != x->ne[3]) {
        return false;
    }
    return conv_fits(caps, op);
}

// CONV_2D: ggml-cpu follows the image's and dst's strides (elements of 4 bytes) and asserts a
// contiguous kernel [KW, KH, IC, OC].
bool conv_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * k = op->src[0];
    const ggml_tensor * x = op->src[1];
    if (!types_ok(op) || !ggml_is_contiguous(k) || k->ne[2] != x->ne[2] || op->ne[2] != k->ne[3] ||
        op->ne[3] != x->ne[3] || x->nb[0] % 4 != 0 || op->nb[0] % 4 != 0) {
        return false;
    }
    return conv_fits(caps, op);
}

// CONV_3D: kernel [KW, KH, KD, IC * OC] contiguous (ggml-cpu asserts it), image [IW, IH, ID,
// IC * N] and dst [OW, OH, OD, OC * N] at their strides, as ggml-cpu's conv_3d.
bool conv_3d_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * k = op->src[0];
    const ggml_tensor * x = op->src[1];
    const dw_geom       g = geom(op);
    if (!types_ok(op) || !ggml_is_contiguous(k) || g.IC < 1 || g.N < 1 || g.C < 1 || k->ne[3] != g.IC * g.C ||
        x->ne[3] != g.IC * g.N || op->ne[3] != g.C * g.N || x->nb[0] % 4 != 0 || op->nb[0] % 4 != 0) {
        return false;
    }
    return conv_fits(caps, op);
}

void dw_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor *     k = op->src[0];
    const ggml_tensor *     x = op->src[1];
    const dw_geom           g = geom(op);
    htp_conv_2d_dw_params & p = desc.params.conv_2d_dw;
    const bool              dw = op->op == GGML_OP_CONV_2D_DW;
    const bool              d3 = op->op == GGML_OP_CONV_3D;
    desc.opcode               = dw ? HTP_OP_CONV_2D_DW : (d3 ? HTP_OP_CONV_3D : HTP_OP_CONV_2D);
    plan_rows(caps, dw_need(op), p.split);
    p.w_type = k->type == GGML_TYPE_F16 ? HTP_TYPE_F16 : HTP_TYPE_F32;
    p.IW = (uint32_t) g.IW; p.IH = (uint32_t) g.IH; p.KW = (uint32_t) g.KW; p.KH = (uint32_t) g.KH;
    p.OW = (uint32_t) g.OW;
    p.s0 = g.s0; p.s1 = g.s1; p.p0 = g.p0; p.p1 = g.p1; p.d0 = g.d0; p.d1 = g.d1;
    p.div_s0      = htp_fastdiv_init((uint32_t) g.s0);
    p.zero_planes = g.p0 > 0 || g.p1 > 0 || g.p2 > 0 ? 1 : 0;
    p.shape       = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.src_nb0     = (uint32_t) x->nb[0];
    p.src         = rows_strides(x->nb[1], x->nb[2], x->nb[3]);
    p.w_nb0       = (uint32_t) k->nb[0];
    p.w_nb1       = (uint32_t) k->nb[1];
    p.w_nb3       = (uint32_t) k->nb[3];
    p.dst_nb0     = (uint32_t) op->nb[0];
    p.dst         = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    p.plane_pitch = plane_pitch(g);
    uint32_t off  = 0;
    p.vplanes     = stream_at(off, p.split, (uint32_t) g.taps * p.plane_pitch, p.split.rows_per_chunk);
    p.vdst        = stream_at(off, p.split, p.plane_pitch, p.split.rows_per_chunk);
    p.w_pitch     = w_pitch(g);
    p.vw          = stream_at(off, p.split, 2 * p.w_pitch, 1);
    p.IC          = (uint32_t) g.IC;
    p.img_c_nb    = dw ? (uint32_t) x->nb[2] : 0;  // CONV_2D_DW: dst channel c reads image channel c
    p.w_nb3       = (uint32_t) (d3 ? g.IC * k->nb[3] : k->nb[3]);  // CONV_3D: oc's IC kernel volumes
    p.w_packed    = ggml_is_contiguous(k) ? 1 : 0;
    p.is_3d       = d3 ? 1 : 0;
    p.KD = (uint32_t) g.KD; p.ID = (uint32_t) g.ID; p.s2 = g.s2; p.p2 = g.p2; p.d2 = g.d2;
    p.div_oc      = htp_fastdiv_init((uint32_t) g.C);
    p.ic_nb       = (uint32_t) (d3 ? x->nb[3] : x->nb[2]);
    p.img_nb      = (uint32_t) (d3 ? g.IC * x->nb[3] : x->nb[3]);
    p.z_nb        = (uint32_t) (d3 ? x->nb[2] : 0);
}

}  // namespace

extern const htp_op_encoder htp_conv_2d_dw_encoder = { dw_supports, dw_encode };
extern const htp_op_encoder htp_conv_2d_encoder    = { conv_supports, dw_encode };
extern const htp_op_encoder htp_conv_3d_encoder    = { conv_3d_supports, dw_encode };
