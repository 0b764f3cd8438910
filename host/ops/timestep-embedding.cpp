// Host side of TIMESTEP_EMBEDDING (F32; npu/ops/timestep-embedding.cpp).
#include <cmath>

#include "encode-util.h"

using namespace htp_enc;

namespace {

// op_params: dim, max_period (ggml_timestep_embedding); dst is [dim, n timesteps].
stream_need timestep_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const uint32_t half = (uint32_t) op->op_params[0] / 2;
    stream_need    need = {};
    need.total_rows     = (uint32_t) op->ne[1];
    need.chunk_divides  = (uint32_t) op->ne[1];
    need.bytes_per_row  = align_up(half * 4, 128) + align_up((half + 1) * 4, 128) + 4;
    need.bytes_per_slot = 128;  // the timesteps, 32 a vector, rounded up
    need.desc_per_chunk = 3;
    need.multi_row_ok   = dma_fields_ok(caps, { (uint64_t) (half + 1) * 4, op->nb[1], op->src[0]->nb[0], (uint64_t) op->ne[1],
                                                align_up((half + 1) * 4, 128) });
    return need;
}

bool timestep_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * t   = op->src[0];
    const int32_t       dim = op->op_params[0];
    if (t->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || t->nb[0] != 4 || op->nb[0] != 4 || dim < 2 ||
        op->op_params[1] <= 0 || op->ne[0] != dim || op->ne[1] != t->ne[0] || ggml_nrows(t) != 1 || op->ne[2] != 1 ||
        op->ne[3] != 1 || !fits_u32(t) || !fits_u32(op) || (uint64_t) dim * 4 > (16u << 20)) {
        return false;
    }
    htp_split_params sp;
    return plan_rows(caps, timestep_need(caps, op), sp);
}

void timestep_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    htp_timestep_params & p = desc.params.timestep;
    desc.opcode             = HTP_OP_TIMESTEP_EMBEDDING;
    plan_rows(caps, timestep_need(caps, op), p.split);
    const int32_t dim = op->op_params[0];
    p.half            = (uint32_t) dim / 2;
    p.sin_elems       = p.half + (uint32_t) (dim % 2);
    p.c               = -logf((float) op->op_params[1]) / (float) p.half;
    p.src_nb0         = (uint32_t) op->src[0]->nb[0];
    p.dst_nb1         = (uint32_t) op->nb[1];
    uint32_t off      = 0;
    p.vsrc            = stream_at(off, p.split, 128, (p.split.rows_per_chunk + 31) / 32);
    p.vcos            = stream_at(off, p.split, align_up(p.half * 4, 128), p.split.rows_per_chunk);
    p.vsin            = stream_at(off, p.split, align_up((p.half + 1) * 4, 128), p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_timestep_embedding_encoder = { timestep_supports, timestep_encode };
