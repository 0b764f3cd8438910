// Host side of ARGSORT (F32 keys -> I32 indices along dim 0, ascending or descending) and TOP_K
// (the indices of the k largest: a descending sort whose first k indices are written).
#include "encode-util.h"

using namespace htp_enc;

namespace {

static uint32_t sort_len(const ggml_tensor * op) {
    uint32_t n = 32;
    while (n < (uint64_t) op->src[0]->ne[0]) {
        n <<= 1;
    }
    return n;
}

static stream_need argsort_need(const htp_device_caps & caps, const ggml_tensor * op) {
    return rows_in_out_need(caps, op, sort_len(op) * 4);
}

static bool argsort_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a     = op->src[0];
    const bool          top_k = op->op == GGML_OP_TOP_K;
    const int32_t       order = top_k ? GGML_SORT_ORDER_DESC : op->op_params[0];
    const bool shape_ok = top_k ? op->ne[0] >= 1 && op->ne[0] <= a->ne[0] && op->ne[1] == a->ne[1] &&
                                      op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3]
                                : ggml_are_same_shape(a, op);
    if (a->type != GGML_TYPE_F32 || op->type != GGML_TYPE_I32 || !shape_ok || a->nb[0] != 4 ||
        op->nb[0] != 4 || !fits_u32(a) || !fits_u32(op) || ggml_nelements(a) == 0 || a->ne[0] > (1 << 20) ||
        (order != GGML_SORT_ORDER_ASC && order != GGML_SORT_ORDER_DESC)) {
        return false;
    }
    return rows_plan_ok(caps, argsort_need(caps, op));
}

static void argsort_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor *  a = op->src[0];
    htp_argsort_params & p = desc.params.argsort;
    const bool           top_k = op->op == GGML_OP_TOP_K;
    desc.opcode            = top_k ? HTP_OP_TOP_K : HTP_OP_ARGSORT;
    plan_rows(caps, argsort_need(caps, op), p.split);
    p.ne0        = (uint32_t) a->ne[0];
    p.n_out      = (uint32_t) op->ne[0];
    p.n_sort     = sort_len(op);
    p.descending = top_k || op->op_params[0] == GGML_SORT_ORDER_DESC ? 1 : 0;
    p.tail_bytes = p.ne0 * 4 % 128;
    p.shape      = rows_shape((uint32_t) a->ne[1], (uint32_t) a->ne[2]);
    p.src0       = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.dst        = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, p.n_sort * 4, p.split.rows_per_chunk);
    p.vdst       = stream_at(off, p.split, p.n_sort * 4, p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_argsort_encoder = { argsort_supports, argsort_encode };
