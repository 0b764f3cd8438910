// Host side of ALLREDUCE (params/comm.h): llama's tensor split sums the devices' partial
// results of a contiguous F32 tensor (host/src/comm.cpp sends it). `op` is this device's part;
// the caller has put every part into desc.src[0 .. n_src-1], in the communicator's order.
#include "encode-util.h"

using namespace htp_enc;

static stream_need allreduce_need(const htp_device_caps & caps, const ggml_tensor * t, uint32_t n_parts) {
    const uint32_t row_bytes = (uint32_t) t->ne[0] * 4;
    const uint32_t pitch     = align_up(row_bytes, 128);
    stream_need    need      = {};
    need.total_rows          = (uint32_t) ggml_nrows(t);
    need.chunk_divides       = need.total_rows;  // the rows are one flat run: any chunk is one 2-D descriptor
    need.bytes_per_row       = (n_parts + 1) * pitch;
    need.desc_per_chunk      = 2 * n_parts;
    need.multi_row_ok        = dma_field_ok(caps, row_bytes) && dma_field_ok(caps, pitch);
    return need;
}

// Whether one part can be reduced on the NPU (with up to HTP_MAX_SRC parts).
static bool allreduce_supports(const htp_device_caps & caps, const ggml_tensor * t, const htp_encode_context &) {
    htp_split_params sp;
    return t->type == GGML_TYPE_F32 && ggml_is_contiguous(t) && ggml_nelements(t) > 0 && fits_u32(t) &&
           dma_1d_ok((uint64_t) t->ne[0] * 4) && plan_rows(caps, allreduce_need(caps, t, HTP_MAX_SRC), sp);
}

static void allreduce_encode(const htp_device_caps & caps, const ggml_tensor * t, htp_op_desc & desc, const htp_encode_context &) {
    htp_allreduce_params & p = desc.params.allreduce;
    desc.opcode              = HTP_OP_ALLREDUCE;
    p.n_parts                = desc.n_src;
    plan_rows(caps, allreduce_need(caps, t, p.n_parts), p.split);
    p.ne0            = (uint32_t) t->ne[0];
    p.row_bytes      = p.ne0 * 4;
    const uint32_t pitch = align_up(p.row_bytes, 128);
    uint32_t       off   = 0;
    p.vparts             = stream_at(off, p.split, pitch, p.split.rows_per_chunk * p.n_parts);
    p.part_size          = p.split.rows_per_chunk * pitch;
    p.vsum               = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
}

extern const htp_op_encoder htp_allreduce_encoder = { allreduce_supports, allreduce_encode };
