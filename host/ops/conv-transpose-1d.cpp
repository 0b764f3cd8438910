// Host side of CONV_TRANSPOSE_1D (ggml_conv_transpose_1d: the upsampling convolutions of audio
// decoders), CONV_TRANSPOSE_2D (ggml_conv_transpose_2d_p0: image decoders' upsampling) and
// COL2IM_1D (ggml_col2im_1d: the overlap-add of a transposed convolution done as MUL_MAT +
// COL2IM_1D), on npu/ops/conv-transpose-1d.cpp. CONV_TRANSPOSE_1D refuses an F16 kernel
// (ggml-cpu then rounds the input to F16 as well, a path no test or model here uses), p0 != 0
// or d0 != 1 (ggml asserts both) and an input of more than one batch (ggml_conv_transpose_1d
// takes a matrix); CONV_TRANSPOSE_2D takes F32 and F16 kernels (the input then rounded to F16
// on the NPU, as ggml-cpu converts it), a contiguous kernel and dst (ggml-cpu indexes both as
// packed); all refuse sizes whose rows (with the input rows) do not fit a thread's VTCM or the
// DMA fields.
#include "encode-util.h"
#include "htp-abi/htp-types.h"

using namespace htp_enc;

namespace {

enum t_kind { T1D, T2D, COL2IM };

struct t_sizes {
    t_kind   kind;
    uint32_t L, H, Cin, K, KH, s0, OL, es, crop;
    uint32_t in_rows;  // input rows fetched per dst row (0: CONV_TRANSPOSE_1D's input once per thread)
    uint32_t k_pitch, in_pitch, dst_pitch;
};

t_kind kind_of(const ggml_tensor * op) {
    return op->op == GGML_OP_COL2IM_1D ? COL2IM : (op->op == GGML_OP_CONV_TRANSPOSE_2D ? T2D : T1D);
}

t_sizes sizes(const ggml_tensor * op) {
    const ggml_tensor * a  = op->src[0];
    const int32_t *     pp = (const int32_t *) op->op_params;
    t_sizes             z  = {};
    z.kind = kind_of(op);
    z.s0   = (uint32_t) pp[0];
    z.OL   = (uint32_t) op->ne[0];
    z.es   = (uint32_t) ggml_type_size(a->type);
    z.H    = 1;
    z.KH   = 1;
    if (z.kind == COL2IM) {  // columns [K * OC, L]; op params s0, OC, p0
        z.L    = (uint32_t) a->ne[1];
        z.Cin  = 1;
        z.K    = pp[1] > 0 ? (uint32_t) (a->ne[0] / pp[1]) : 0;
        z.crop = (uint32_t) pp[2];
    } else {  // input [L, H, Cin, N] (1-D: [L, Cin]), kernel [K, KH, Cout, Cin] (1-D: [K, Cout, Cin])
        const ggml_tensor * b = op->src[1];
        const bool          d2 = z.kind == T2D;
        z.L   = (uint32_t) b->ne[0];
        z.H   = d2 ? (uint32_t) b->ne[1] : 1;
        z.Cin = (uint32_t) b->ne[d2 ? 2 : 1];
        z.K   = (uint32_t) a->ne[0];
        z.KH  = d2 ? (uint32_t) a->ne[1] : 1;
    }
    if (z.kind == T2D && z.s0 > 0) {
        const uint32_t reach = (z.KH + z.s0 - 1) / z.s0;  // input rows a dst row can get
        z.in_rows = reach < z.H ? reach : z.H;
    }
    const bool round = z.kind == T2D && z.es == 2;
    z.k_pitch  = align_up(z.K * z.es, 128);
    z.in_pitch = z.kind == COL2IM ? 0 : align_up(z.L * 4, round ? 256 : 128);
    // a row's F32 vectors summed at each il: COL2IM_1D's whole widened pieces, else ceil(K / 32)
    const uint32_t f32_bytes = z.kind == COL2IM ? (z.es == 4 ? z.k_pitch : 2 * z.k_pitch) : align_up(z.K * 4, 128);
    z.dst_pitch = align_up((z.L - 1) * z.s0 * 4 + f32_bytes, 256);  // the last il's vectors fit
    return z;
}

stream_need t_need(const ggml_tensor * op) {
    const t_sizes z    = sizes(op);
    stream_need   need = {};
    need.total_rows    = (uint32_t) ggml_nrows(op);
    need.chunk_divides = 1;
    need.multi_row_ok  = false;  // a row's kernel slice is its own 2-D descriptor
    if (z.kind == T2D) {
        need.bytes_per_row  = z.in_rows * z.Cin * (z.k_pitch + z.in_pitch) + z.dst_pitch;
        need.bytes_fixed    = z.es == 2 ? z.Cin * 2 * z.k_pitch : 0;  // one slice widened at a time
        need.desc_per_chunk = 2 * z.in_rows + 1;
        return need;
    }
    const bool col2im   = z.kind == COL2IM;
    need.bytes_per_row  = (col2im ? z.L : z.Cin) * z.k_pitch + z.dst_pitch + (z.es == 4 ? 0 : z.dst_pitch / 2);
    need.bytes_fixed    = col2im ? 2 * z.k_pitch : z.Cin * z.in_pitch;
    need.desc_per_chunk = 2;
    return need;
}

// The sizes all three share: int32 positions, DMA fields, VTCM.
bool t_fits(const htp_device_caps & caps, const ggml_tensor * op, uint64_t slice_nb) {
    const t_sizes z = sizes(op);
    if (z.K == 0 || z.L == 0 || z.s0 == 0 || (uint64_t) z.L * z.s0 * 4 + 2ull * z.k_pitch >= (1u << 30)) {
        return false;
    }
    const uint32_t out_es = z.kind == COL2IM ? z.es : 4;
    if (!dma_fields_ok(caps, { z.k_pitch, slice_nb, (uint64_t) z.K * z.es, z.kind == COL2IM ? z.L : z.Cin }) ||
        !dma_1d_ok((uint64_t) z.OL * out_es)) {
        return false;
    }
    if (z.kind != COL2IM && !dma_fields_ok(caps, { z.in_pitch, op->src[1]->nb[z.kind == T2D ? 2 : 1],
                                                   (uint64_t) z.L * 4, z.Cin })) {
        return false;
    }
    return rows_plan_ok(caps, t_need(op));
}

bool t_types_ok(const ggml_tensor * op, bool f16_kernel) {
    const auto [k, x] = op_srcs<2>(op);
    const bool kt     = k->type == GGML_TYPE_F32 || (f16_kernel && k->type == GGML_TYPE_F16);
    return kt && x->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && k->nb[0] == ggml_type_size(k->type) &&
           x->nb[0] == 4 && op->nb[0] == 4 && fits_u32(k) && fits_u32(x) && fits_u32(op);
}

bool t1d_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const auto [k, x] = op_srcs<2>(op);
    const int32_t * pp = (const int32_t *) op->op_params;
    if (!t_types_ok(op, false)) {
        return false;
    }
    if (pp[0] < 1 || pp[1] != 0 || pp[2] != 1 || x->ne[2] != 1 || x->ne[3] != 1 || k->ne[3] != 1 ||
        k->ne[2] != x->ne[1] || op->ne[1] != k->ne[1] || op->ne[2] != 1 || op->ne[3] != 1) {
        return false;
    }
    const t_sizes z = sizes(op);
    return (uint64_t) (z.L - 1) * z.s0 + z.K == z.OL && t_fits(caps, op, k->nb[2]);
}

// CONV_TRANSPOSE_2D: kernel [K, KH, Cout, Cin] F32 / F16 and dst contiguous (ggml-cpu reads and
// writes them as packed), input [L, H, Cin, N] F32 of any strides.
bool t2d_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const auto [k, x] = op_srcs<2>(op);
    const int32_t * pp = (const int32_t *) op->op_params;
    if (!t_types_ok(op, true) || !ggml_is_contiguous(k) || !ggml_is_contiguous(op) || pp[0] < 1) {
        return false;
    }
    const t_sizes z = sizes(op);
    if (k->ne[3] != x->ne[2] || op->ne[2] != k->ne[2] || op->ne[3] != x->ne[3] ||
        (uint64_t) (z.L - 1) * z.s0 + z.K != z.OL || (uint64_t) (z.H - 1) * z.s0 + z.KH != (uint64_t) op->ne[1]) {
        return false;
    }
    return t_fits(caps, op, k->nb[3]);
}

// COL2IM_1D: F32 / F16 / BF16 columns, contiguous (as ggml_col2im_1d makes them), dst of that type.
bool col2im_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a  = op->src[0];
    const int32_t *     pp = (const int32_t *) op->op_params;
    if ((a->type != GGML_TYPE_F32 && a->type != GGML_TYPE_F16 && a->type != GGML_TYPE_BF16) || op->type != a->type ||
        !ggml_is_contiguous(a) || !ggml_is_contiguous(op) || !fits_u32(a) || !fits_u32(op)) {
        return false;
    }
    if (pp[0] < 1 || pp[1] < 1 || pp[2] < 0 || a->ne[0] % pp[1] != 0 || a->ne[2] != 1 || a->ne[3] != 1 ||
        op->ne[1] != pp[1] || op->ne[2] != 1 || op->ne[3] != 1) {
        return false;
    }
    const t_sizes z = sizes(op);
    if ((int64_t) (z.L - 1) * z.s0 + z.K - 2 * (int64_t) z.crop != (int64_t) z.OL) {
        return false;
    }
    return t_fits(caps, op, a->nb[1]);
}

// The input rows a dst row reaches and the strides: input channels / rows / images, kernel
// output / input channels / rows, dst rows (oy, oc, n).
void t_rows_strides(const ggml_tensor * op, const t_sizes & z, htp_conv_transpose_1d_params & p) {
    const ggml_tensor * a = op->src[0];
    const ggml_tensor * b = op->src[1];
    p.H                   = z.H;
    p.KH                  = z.KH;
    p.div_s0              = htp_fastdiv_init(z.s0);
    p.in_nb1    = z.kind == COL2IM ? 0 : (uint32_t) b->nb[z.kind == T2D ? 2 : 1];
    p.in_nb_row = z.kind == T2D ? (uint32_t) b->nb[1] : 0;
    p.in_nb_img = z.kind == T2D ? (uint32_t) b->nb[3] : 0;
    if (z.kind == COL2IM) {  // oc's pieces are K values apart, the columns' rows a->nb[1]
        p.w_nb1 = z.K * z.es;
        p.w_nb2 = (uint32_t) a->nb[1];
    } else {
        p.w_nb1 = (uint32_t) a->nb[z.kind == T2D ? 2 : 1];
        p.w_nb2 = (uint32_t) a->nb[z.kind == T2D ? 3 : 2];
    }
    p.w_nb_ky = z.kind == T2D ? (uint32_t) a->nb[1] : 0;
    if (z.kind == T2D) {  // dst rows (oy, oc, n)
        p.shape = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
        p.dst   = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    } else {  // dst rows (0, oc, 0)
        p.shape = rows_shape(1, (uint32_t) op->ne[1]);
        p.dst   = rows_strides(0, op->nb[1], 0);
    }
}

void t_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor *            a = op->src[0];
    const t_sizes                  z = sizes(op);
    htp_conv_transpose_1d_params & p = desc.params.conv_transpose_1d;
    desc.opcode = z.kind == COL2IM ? HTP_OP_COL2IM_1D
                                   : (z.kind == T2D ? HTP_OP_CONV_TRANSPOSE_2D : HTP_OP_CONV_TRANSPOSE_1D);
    plan_rows(caps, t_need(op), p.split);
    p.L         = z.L;
    p.Cin       = z.Cin;
    p.K         = z.K;
    p.s0        = z.s0;
    p.OL        = z.OL;
    t_rows_strides(op, z, p);
    p.k_pitch   = z.k_pitch;
    p.in_pitch  = z.in_pitch;
    p.in_rows   = z.in_rows;
    p.col2im    = z.kind == COL2IM ? 1 : 0;
    p.type      = a->type == GGML_TYPE_F16 ? HTP_TYPE_F16 : (a->type == GGML_TYPE_BF16 ? HTP_TYPE_BF16 : HTP_TYPE_F32);
    p.round_f16 = z.kind == T2D && a->type == GGML_TYPE_F16 ? 1 : 0;
    p.crop      = z.crop;
    const uint32_t slices = z.kind == COL2IM ? z.L : (z.in_rows > 0 ? z.in_rows : 1) * z.Cin;
    uint32_t       off    = 0;
    p.vin    = stream_at(off, p.split, z.in_pitch, z.in_rows * z.Cin);
    p.vw     = stream_at(off, p.split, z.k_pitch, slices);
    p.vdst   = stream_at(off, p.split, z.dst_pitch, 1);
    p.vout   = stream_at(off, p.split, z.kind == COL2IM && z.es != 4 ? z.dst_pitch / 2 : 0, 1);
    p.v_in   = off;
    p.v_wide = off;  // CONV_TRANSPOSE_1D's input, COL2IM_1D's widened piece or CONV_TRANSPOSE_2D's widened slices
}

}  // namespace

extern const htp_op_encoder htp_conv_transpose_1d_encoder = { t1d_supports, t_encode };
extern const htp_op_encoder htp_conv_transpose_2d_encoder = { t2d_supports, t_encode };
extern const htp_op_encoder htp_col2im_1d_encoder         = { col2im_supports, t_encode };
