// Host side of NORM and L2_NORM (F32, one row in, one row out; a transposed source gathered),
// and GROUP_NORM on NORM's
// kernel: a group of ne2 / n_groups channels of a contiguous tensor is one row of
// ne0 * ne1 * ne2 / n_groups adjacent elements, normalized as NORM normalizes a row.
#include <cstring>

#include "encode-util.h"

using namespace htp_enc;

namespace {

// A source whose elements are not adjacent (a transposed one, test-backend-ops' noncontig_rows)
// is gathered a row at a time: ne0 DMA rows of one element, nb0 apart.
bool norm_gather(const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    return a->ne[0] > 1 && a->nb[0] != 4;
}

stream_need norm_need(const htp_device_caps & caps, const ggml_tensor * op) {
    stream_need need = rows_in_out_need(caps, op, align_up((uint32_t) op->src[0]->ne[0] * 4, 128));
    need.multi_row_ok &= !norm_gather(op);
    return need;
}

bool norm_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    if (op->type != GGML_TYPE_F32 || a->type != GGML_TYPE_F32 || !ggml_are_same_shape(a, op) || op->nb[0] != 4 ||
        !fits_u32(a) || !fits_u32(op) || !dma_1d_ok((uint64_t) a->ne[0] * 4)) {
        return false;
    }
    if (norm_gather(op) && (!dma_field_ok(caps, a->nb[0]) || !dma_field_ok(caps, (uint64_t) a->ne[0]))) {
        return false;
    }
    return rows_plan_ok(caps, norm_need(caps, op));
}

void fill(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, uint32_t opcode, uint32_t kind) {
    const ggml_tensor * a = op->src[0];
    htp_norm_params &   p = desc.params.norm;
    desc.opcode           = opcode;
    plan_rows(caps, norm_need(caps, op), p.split);
    const uint32_t pitch = align_up((uint32_t) a->ne[0] * 4, 128);
    float                eps;
    std::memcpy(&eps, op->op_params, sizeof(float));
    norm_fields(p, kind, (uint32_t) a->ne[0], eps);
    rows_in_out(p, a, op, pitch);
    p.src_gather = norm_gather(op) ? 1 : 0;
    p.src_nb0    = (uint32_t) a->nb[0];
}

void norm_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    fill(caps, op, desc, HTP_OP_NORM, HTP_NORM_MEAN_VAR);
}

void l2_norm_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    fill(caps, op, desc, HTP_OP_L2_NORM, HTP_NORM_L2);
}

// GROUP_NORM (ggml_group_norm: op_params n_groups, eps): rows of a group each, n_groups * ne3
// of them, when the groups are whole (ne2 % n_groups == 0; ggml's last group is shorter
// otherwise) and both tensors are contiguous.
struct group_rows {
    uint32_t ne0, ne1, ne2;  // elements per row (a group), groups per plane, planes (ne3)
    uint64_t nb1, nb2;       // bytes between groups, between planes
};

bool group_rows_of(const ggml_tensor * op, group_rows & g) {
    const ggml_tensor * a = op->src[0];
    const int32_t       n = op->op_params[0];
    if (n <= 0 || a->ne[2] % n != 0 || !ggml_is_contiguous(a) || !ggml_is_contiguous(op)) {
        return false;
    }
    const uint64_t elems = (uint64_t) a->ne[0] * a->ne[1] * (a->ne[2] / n);
    if (elems > UINT32_MAX / 4) {
        return false;
    }
    g.ne0 = (uint32_t) elems;
    g.ne1 = (uint32_t) n;
    g.ne2 = (uint32_t) a->ne[3];
    g.nb1 = elems * 4;
    g.nb2 = a->nb[3];
    return true;
}

stream_need group_norm_need(const htp_device_caps & caps, const group_rows & g) {
    const uint32_t pitch = align_up(g.ne0 * 4, 128);
    stream_need    need  = {};
    need.total_rows      = g.ne1 * g.ne2;
    need.chunk_divides   = g.ne1;
    need.bytes_per_row   = 2 * pitch;
    need.desc_per_chunk  = 2;
    need.multi_row_ok    = dma_fields_ok(caps, { (uint64_t) g.ne0 * 4, pitch, g.nb1, g.ne1 });
    return need;
}

bool group_norm_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    group_rows          g;
    if (op->type != GGML_TYPE_F32 || a->type != GGML_TYPE_F32 || !ggml_are_same_shape(a, op) || !fits_u32(a) ||
        !fits_u32(op) || !group_rows_of(op, g) || !dma_1d_ok((uint64_t) g.ne0 * 4)) {
        return false;
    }
    htp_split_params sp;
    return plan_rows(caps, group_norm_need(caps, g), sp);
}

void group_norm_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc,
                       const htp_encode_context &) {
    htp_norm_params & p = desc.params.norm;
    group_rows        g;
    group_rows_of(op, g);
    desc.opcode = HTP_OP_NORM;
    plan_rows(caps, group_norm_need(caps, g), p.split);
    const uint32_t pitch = align_up(g.ne0 * 4, 128);
    float                eps;
    std::memcpy(&eps, op->op_params + 1, sizeof(float));
    norm_fields(p, HTP_NORM_MEAN_VAR, g.ne0, eps);
    p.shape      = rows_shape(g.ne1, g.ne2);
    p.src0       = rows_strides(g.nb1, g.nb2, g.nb2 * g.ne2);
    p.dst        = rows_strides(g.nb1, g.nb2, g.nb2 * g.ne2);
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    p.vdst       = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_group_norm_encoder = { group_norm_supports, group_norm_encode };
extern const htp_op_encoder htp_norm_encoder    = { norm_supports, norm_encode };
extern const htp_op_encoder htp_l2_norm_encoder = { norm_supports, l2_norm_encode };
