// Host side of CONV_TRANSPOSE_1D (ggml_conv_transpose_1d: the upsampling convolutions of audio
// decoders) and COL2IM_1D (ggml_col2im_1d: the overlap-add of a transposed convolution done as
// MUL_MAT + COL2IM_1D), on npu/ops/conv-transpose-1d.cpp. CONV_TRANSPOSE_1D refuses an F16
// kernel (ggml-cpu then rounds the input to F16 as well, a path no test or model here uses),
// p0 != 0 or d0 != 1 (ggml asserts both) and an input of more than one batch
// (ggml_conv_transpose_1d takes a matrix); both refuse sizes whose rows (with
// CONV_TRANSPOSE_1D's input copy) do not fit a thread's VTCM or the DMA fields.
#include "encode-util.h"
#include "htp-abi/htp-types.h"

using namespace htp_enc;

namespace {

struct t1d_sizes {
    bool     col2im;
    uint32_t L, Cin, K, s0, OL, es, crop;
    uint32_t k_pitch, in_pitch, dst_pitch;
};

t1d_sizes sizes(const ggml_tensor * op) {
    const ggml_tensor * a  = op->src[0];
    const int32_t *     pp = (const int32_t *) op->op_params;
    t1d_sizes           z;
    z.col2im = op->op == GGML_OP_COL2IM_1D;
    z.s0     = (uint32_t) pp[0];
    z.OL     = (uint32_t) op->ne[0];
    z.es     = (uint32_t) ggml_type_size(a->type);
    if (z.col2im) {  // columns [K * OC, L]; op params s0, OC, p0
        z.L    = (uint32_t) a->ne[1];
        z.Cin  = 1;
        z.K    = pp[1] > 0 ? (uint32_t) (a->ne[0] / pp[1]) : 0;
        z.crop = (uint32_t) pp[2];
    } else {
        z.L    = (uint32_t) op->src[1]->ne[0];
        z.Cin  = (uint32_t) op->src[1]->ne[1];
        z.K    = (uint32_t) a->ne[0];
        z.crop = 0;
    }
    z.k_pitch   = align_up(z.K * z.es, 128);
    z.in_pitch  = z.col2im ? 0 : align_up(z.L * 4, 128);
    const uint32_t f32_bytes = z.es == 4 ? z.k_pitch : 2 * z.k_pitch;  // a row's F32 vectors
    z.dst_pitch = align_up((z.L - 1) * z.s0 * 4 + f32_bytes, 256);   // the last il's vectors fit
    return z;
}

stream_need t1d_need(const ggml_tensor * op) {
    const t1d_sizes z   = sizes(op);
    stream_need     need = {};
    need.total_rows     = (uint32_t) ggml_nrows(op);
    need.chunk_divides  = 1;
    need.bytes_per_row  = (z.col2im ? z.L : z.Cin) * z.k_pitch + z.dst_pitch + (z.es == 4 ? 0 : z.dst_pitch / 2);
    need.bytes_fixed    = z.col2im ? 2 * z.k_pitch : z.Cin * z.in_pitch;
    need.desc_per_chunk = 2;
    need.multi_row_ok   = false;  // a row's kernel slice is its own 2-D descriptor
    return need;
}

// The sizes both ops share: int32 positions, DMA fields, VTCM.
bool t1d_fits(const htp_device_caps & caps, const ggml_tensor * op, uint64_t slice_nb) {
    const t1d_sizes z = sizes(op);
    if (z.K == 0 || z.L == 0 || (uint64_t) z.L * z.s0 * 4 + 2ull * z.k_pitch >= (1u << 30)) {
        return false;
    }
    if (!dma_fields_ok(caps, { z.k_pitch, slice_nb, (uint64_t) z.K * z.es, z.col2im ? z.L : z.Cin }) ||
        !dma_1d_ok((uint64_t) z.OL * z.es)) {
        return false;
    }
    return rows_plan_ok(caps, t1d_need(op));
}

bool t1d_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const auto [k, x] = op_srcs<2>(op);
    const int32_t * pp = (const int32_t *) op->op_params;
    if (k->type != GGML_TYPE_F32 || x->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || k->nb[0] != 4 ||
        x->nb[0] != 4 || op->nb[0] != 4 || !fits_u32(k) || !fits_u32(x) || !fits_u32(op)) {
        return false;
    }
    if (pp[0] < 1 || pp[1] != 0 || pp[2] != 1 || x->ne[2] != 1 || x->ne[3] != 1 || k->ne[3] != 1 ||
        k->ne[2] != x->ne[1] || op->ne[1] != k->ne[1] || op->ne[2] != 1 || op->ne[3] != 1) {
        return false;
    }
    const t1d_sizes z = sizes(op);
    if ((uint64_t) (z.L - 1) * z.s0 + z.K != z.OL ||
        !dma_fields_ok(caps, { z.in_pitch, x->nb[1], (uint64_t) z.L * 4, z.Cin })) {
        return false;
    }
    return t1d_fits(caps, op, k->nb[2]);
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
    const t1d_sizes z = sizes(op);
    if ((int64_t) (z.L - 1) * z.s0 + z.K - 2 * (int64_t) z.crop != (int64_t) z.OL) {
        return false;
    }
    return t1d_fits(caps, op, a->nb[1]);
}

void t1d_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor *            a = op->src[0];
    const t1d_sizes                z = sizes(op);
    htp_conv_transpose_1d_params & p = desc.params.conv_transpose_1d;
    desc.opcode = z.col2im ? HTP_OP_COL2IM_1D : HTP_OP_CONV_TRANSPOSE_1D;
    plan_rows(caps, t1d_need(op), p.split);
    p.L        = z.L;
    p.Cin      = z.Cin;
    p.K        = z.K;
    p.s0       = z.s0;
    p.OL       = z.OL;
    p.in_nb1   = z.col2im ? 0 : (uint32_t) op->src[1]->nb[1];
    p.w_nb1    = z.col2im ? z.K * z.es : (uint32_t) a->nb[1];  // COL2IM_1D: oc's pieces are K values apart
    p.w_nb2    = (uint32_t) (z.col2im ? a->nb[1] : a->nb[2]);
    p.dst_nb1  = (uint32_t) op->nb[1];
    p.k_pitch  = z.k_pitch;
    p.in_pitch = z.in_pitch;
    p.col2im   = z.col2im ? 1 : 0;
    p.type     = a->type == GGML_TYPE_F16 ? HTP_TYPE_F16 : (a->type == GGML_TYPE_BF16 ? HTP_TYPE_BF16 : HTP_TYPE_F32);
    p.crop     = z.crop;
    uint32_t off = 0;
    p.vw       = stream_at(off, p.split, z.k_pitch, z.col2im ? z.L : z.Cin);
    p.vdst     = stream_at(off, p.split, z.dst_pitch, 1);
    p.vout     = stream_at(off, p.split, z.es == 4 ? 0 : z.dst_pitch / 2, 1);
    p.v_in     = off;
    p.v_wide   = off;  // CONV_TRANSPOSE_1D's input or COL2IM_1D's widened piece
}

}  // namespace

extern const htp_op_encoder htp_conv_transpose_1d_encoder = { t1d_supports, t1d_encode };
extern const htp_op_encoder htp_col2im_1d_encoder         = { col2im_supports, t1d_encode };
