// Host side of RMS_NORM (F32) and SCALE (F32 or BF16), one row in, one row out.
#include <cstring>

#include "encode-util.h"
#include "fusions.h"
#include "ggml-impl.h"

using namespace htp_enc;

static bool rowwise_f32_ok(const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    return op->type == GGML_TYPE_F32 && a->type == GGML_TYPE_F32 && ggml_are_same_shape(a, op) && a->nb[0] == 4 &&
           op->nb[0] == 4 && fits_u32(a) && fits_u32(op) && dma_1d_ok((uint64_t) a->ne[0] * 4);
}

// Bytes of one element of the rows: SCALE also takes BF16 rows.
static uint32_t rowwise_elem(const ggml_tensor * op) {
    return op->type == GGML_TYPE_BF16 ? 2 : 4;
}

static stream_need rowwise_need(const htp_device_caps & caps, const ggml_tensor * op) {
    return rows_in_out_need(caps, op, align_up((uint32_t) op->src[0]->ne[0] * rowwise_elem(op), 128));
}

// RMS_NORM fused with MUL by a weight row: one more fixed row per thread, one more descriptor.
static stream_need rms_norm_mul_need(const htp_device_caps & caps, const ggml_tensor * norm) {
    stream_need need = rowwise_need(caps, norm);
    need.bytes_fixed += align_up((uint32_t) norm->ne[0] * 4, 128);
    need.desc_per_chunk += 1;
    return need;
}

static bool rowwise_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    htp_split_params sp;
    return rowwise_f32_ok(op) && plan_rows(caps, rowwise_need(caps, op), sp);
}

// Common fields; returns the VTCM offset after the two streams. `dst` is op itself, or the
// last node of a fusion (same shape, its own strides).
template <class P>
static uint32_t rowwise_fill(const htp_device_caps & caps, const ggml_tensor * op, const ggml_tensor * dst,
                             const stream_need & need, P & p) {
    const ggml_tensor * a = op->src[0];
    plan_rows(caps, need, p.split);
    const uint32_t pitch = align_up((uint32_t) a->ne[0] * rowwise_elem(op), 128);
    p.ne0                = (uint32_t) a->ne[0];
    return rows_in_out(p, a, op, dst, pitch);
}

// RMS_NORM's eps (op_params[0]).
static float op_eps(const ggml_tensor * op) {
    float eps;
    std::memcpy(&eps, op->op_params, sizeof(float));
    return eps;
}

static void rms_norm_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    htp_norm_params & p = desc.params.norm;
    desc.opcode         = HTP_OP_RMS_NORM;
    rowwise_fill(caps, op, op, rowwise_need(caps, op), p);
    norm_fields(p, HTP_NORM_RMS, p.ne0, op_eps(op));
}

// RMS_NORM -> MUL(norm, w) with w one contiguous F32 row of ne0 (the norm weight of every
// transformer layer): the normalized rows never go back to DDR before being scaled.
bool htp_fuse_rms_norm_mul(const htp_device_caps & caps, const ggml_cgraph * graph, int i, htp_fused_op & f,
                           const htp_encode_context &) {
    static const ggml_op ops[] = { GGML_OP_RMS_NORM, GGML_OP_MUL };
    if (!ggml_can_fuse(graph, i, ops, 2)) {
        return false;
    }
    const ggml_tensor * norm = graph->nodes[i];
    const ggml_tensor * mul  = graph->nodes[i + 1];
    const ggml_tensor * w    = mul->src[0] == norm ? mul->src[1] : mul->src[0];
    if (!rowwise_f32_ok(norm) || mul->type != GGML_TYPE_F32 || mul->nb[0] != 4 || !fits_u32(mul) ||
        w->type != GGML_TYPE_F32 || w->ne[0] != norm->ne[0] || ggml_nrows(w) != 1 || w->nb[0] != 4) {
        return false;
    }
    const stream_need need = rms_norm_mul_need(caps, norm);
    htp_split_params  sp;
    if (!plan_rows(caps, need, sp)) {
        return false;
    }
    htp_norm_params & p    = f.desc.params.norm;
    f.desc.opcode          = HTP_OP_RMS_NORM;
    const uint32_t    vmul = rowwise_fill(caps, norm, mul, need, p);
    norm_fields(p, HTP_NORM_RMS, p.ne0, op_eps(norm));
    p.has_mul    = 1;
    p.vmul       = vmul;
    f.n_nodes    = 2;
    f.name       = "RMS_NORM+MUL";
    f.dst        = mul;
    f.src[0]     = norm->src[0];
    f.src[1]     = w;
    return true;
}

// SCALE: F32 rows, or BF16 rows as ggml_compute_forward_scale_bf16 takes them (contiguous).
static bool scale_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context & ec) {
    const ggml_tensor * a = op->src[0];
    if (op->type != GGML_TYPE_BF16) {
        return rowwise_supports(caps, op, ec);
    }
    htp_split_params sp;
    return a->type == GGML_TYPE_BF16 && ggml_are_same_shape(a, op) && ggml_is_contiguous(a) &&
           ggml_is_contiguous(op) && fits_u32(a) && fits_u32(op) && dma_1d_ok((uint64_t) a->ne[0] * 2) &&
           plan_rows(caps, rowwise_need(caps, op), sp);
}

static void scale_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    htp_scale_params & p = desc.params.scale;
    desc.opcode          = HTP_OP_SCALE;
    rowwise_fill(caps, op, op, rowwise_need(caps, op), p);
    float sb[2];
    std::memcpy(sb, op->op_params, sizeof(sb));
    p.scale    = sb[0];
    p.bias     = sb[1];
    p.has_bias = sb[1] != 0.0f;
    p.bf16     = op->type == GGML_TYPE_BF16;
}

extern const htp_op_encoder htp_rms_norm_encoder = { rowwise_supports, rms_norm_encode };
extern const htp_op_encoder htp_scale_encoder    = { scale_supports, scale_encode };
