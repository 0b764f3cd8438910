// Host side of CONV_TRANSPOSE_1D (ggml_conv_transpose_1d: the upsampling convolutions of audio
// decoders), on npu/ops/conv-transpose-1d.cpp. Refused: an F16 kernel (ggml-cpu then rounds
// the input to F16 as well, a path no test or model here uses), p0 != 0 or d0 != 1 (ggml
// asserts both), an input of more than one batch (ggml_conv_transpose_1d takes a matrix), and
// sizes whose input copy plus a row's kernel slice do not fit a thread's VTCM or the DMA fields.
#include "encode-util.h"

using namespace htp_enc;

namespace {

struct t1d_sizes {
    uint32_t L, Cin, K, s0, OL;
    uint32_t k_pitch, in_pitch, dst_pitch;
};

t1d_sizes sizes(const ggml_tensor * op) {
    const auto [k, x] = op_srcs<2>(op);
    t1d_sizes z;
    z.L         = (uint32_t) x->ne[0];
    z.Cin       = (uint32_t) x->ne[1];
    z.K         = (uint32_t) k->ne[0];
    z.s0        = (uint32_t) ((const int32_t *) op->op_params)[0];
    z.OL        = (uint32_t) op->ne[0];
    z.k_pitch   = align_up(z.K * 4, 128);
    z.in_pitch  = align_up(z.L * 4, 128);
    z.dst_pitch = align_up((z.L - 1) * z.s0 * 4 + z.k_pitch, 128);  // the last il's vectors fit
    return z;
}

stream_need t1d_need(const ggml_tensor * op) {
    const t1d_sizes z   = sizes(op);
    stream_need     need = {};
    need.total_rows     = (uint32_t) ggml_nrows(op);
    need.chunk_divides  = 1;
    need.bytes_per_row  = z.Cin * z.k_pitch + z.dst_pitch;
    need.bytes_fixed    = z.Cin * z.in_pitch;
    need.desc_per_chunk = 2;
    need.multi_row_ok   = false;  // a row's kernel slice is its own 2-D descriptor
    return need;
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
    if ((uint64_t) (z.L - 1) * z.s0 + z.K != z.OL || (uint64_t) z.L * z.s0 * 4 + z.k_pitch >= (1u << 30)) {
        return false;
    }
    if (!dma_fields_ok(caps, { z.in_pitch, x->nb[1], (uint64_t) z.L * 4, z.Cin, z.k_pitch, k->nb[2],
                               (uint64_t) z.K * 4 }) ||
        !dma_1d_ok((uint64_t) z.OL * 4)) {
        return false;
    }
    return rows_plan_ok(caps, t1d_need(op));
}

void t1d_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const auto [k, x]                   = op_srcs<2>(op);
    const t1d_sizes                z    = sizes(op);
    htp_conv_transpose_1d_params & p    = desc.params.conv_transpose_1d;
    desc.opcode                         = HTP_OP_CONV_TRANSPOSE_1D;
    const stream_need              need = t1d_need(op);
    plan_rows(caps, need, p.split);
    p.L        = z.L;
    p.Cin      = z.Cin;
    p.K        = z.K;
    p.s0       = z.s0;
    p.OL       = z.OL;
    p.in_nb1   = (uint32_t) x->nb[1];
    p.w_nb1    = (uint32_t) k->nb[1];
    p.w_nb2    = (uint32_t) k->nb[2];
    p.dst_nb1  = (uint32_t) op->nb[1];
    p.k_pitch  = z.k_pitch;
    p.in_pitch = z.in_pitch;
    uint32_t off = 0;
    p.vw       = stream_at(off, p.split, z.k_pitch, z.Cin);
    p.vdst     = stream_at(off, p.split, z.dst_pitch, 1);
    p.v_in     = off;
}

}  // namespace

extern const htp_op_encoder htp_conv_transpose_1d_encoder = { t1d_supports, t1d_encode };
