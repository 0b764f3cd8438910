// Host side of SOFT_MAX F32: scale, F32 / F16 mask broadcast over heads and sequences, ALiBi
// (m0, m1, n_head_log2 as ggml's CPU computes them), sinks.
#include <cmath>
#include <cstring>

#include "encode-util.h"
#include "htp-abi/htp-types.h"

using namespace htp_enc;

namespace {

uint32_t f32_mask_bytes(uint32_t ne0) {
    return 2 * ((ne0 + 63) / 64) * 128;
}

uint32_t mask_es(const ggml_tensor * op) {
    return op->src[1] ? (uint32_t) ggml_type_size(op->src[1]->type) : 0;
}

uint32_t sinks_bytes(const ggml_tensor * op) {
    return op->src[2] ? align_up((uint32_t) op->src[0]->ne[2] * 4, 128) : 0;
}

stream_need soft_max_need(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * a     = op->src[0];
    const ggml_tensor * m     = op->src[1];
    const uint32_t      pitch = align_up((uint32_t) a->ne[0] * 4, 128);
    stream_need         need  = rows_in_out_need(caps, op, pitch);
    if (m) {
        const uint32_t es = (uint32_t) ggml_type_size(m->type);
        need.bytes_per_row += align_up((uint32_t) a->ne[0] * es, 128);
        need.desc_per_chunk += 1;
        need.multi_row_ok = need.multi_row_ok && dma_field_ok(caps, m->nb[1]) &&
                            dma_field_ok(caps, align_up((uint32_t) a->ne[0] * es, 128));
        if (m->type == GGML_TYPE_F16) {
            need.bytes_fixed = f32_mask_bytes((uint32_t) a->ne[0]);
        }
    }
    need.bytes_fixed += sinks_bytes(op);  // the sinks (npu/ops/softmax.cpp)
    return need;
}

// A row longer than a thread's VTCM share (plan_rows finds no split for one whole row):
// n_seg segments of seg elements (a multiple of 64: whole vectors, whole F16 mask pairs),
// each streamed 3 times (npu/ops/softmax.cpp), as rows of a shape (3 n_seg, ne01, ne02):
// ne03 must be 1.
struct soft_max_segs {
    uint32_t seg, n_seg, rows;
};

bool soft_max_seg_need(const htp_device_caps & caps, const ggml_tensor * op, stream_need & need, soft_max_segs & ss) {
    const ggml_tensor * a   = op->src[0];
    const uint32_t      mes = mask_es(op);
    const bool          f16 = op->src[1] && op->src[1]->type == GGML_TYPE_F16;
    ss.seg                  = segment_elems(caps, sinks_bytes(op), 8 + mes + (f16 ? 1 : 0), 64);  // f32 mask row: 4 / 4 buffers
    if (ss.seg == 0 || a->ne[3] != 1) {
        return false;
    }
    ss.n_seg            = (uint32_t) ((a->ne[0] + ss.seg - 1) / ss.seg);
    ss.rows             = (uint32_t) (a->ne[1] * a->ne[2]);
    need                = {};
    need.total_rows     = ss.rows * 3 * ss.n_seg;
    need.chunk_divides  = 1;
    need.bytes_per_row  = ss.seg * (8 + mes);
    need.bytes_fixed    = sinks_bytes(op) + (f16 ? f32_mask_bytes(ss.seg) : 0);
    need.desc_per_chunk = op->src[1] ? 3 : 2;
    return (uint64_t) ss.rows * 3 * ss.n_seg <= UINT32_MAX;
}

bool soft_max_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a  = op->src[0];
    const ggml_tensor * m  = op->src[1];
    const ggml_tensor * sk = op->src[2];
    if (a->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || !ggml_are_same_shape(a, op) || a->nb[0] != 4 ||
        op->nb[0] != 4 || !fits_u32(a) || !fits_u32(op) || !dma_1d_ok((uint64_t) a->ne[0] * 4)) {
        return false;
    }
    if (m) {
        if ((m->type != GGML_TYPE_F32 && m->type != GGML_TYPE_F16) || m->nb[0] != ggml_type_size(m->type) ||
            m->ne[0] != a->ne[0] || m->ne[1] < a->ne[1] || m->ne[2] == 0 || m->ne[3] == 0 || a->ne[2] % m->ne[2] != 0 ||
            a->ne[3] % m->ne[3] != 0 || !fits_u32(m)) {
            return false;
        }
    }
    if (sk && (sk->type != GGML_TYPE_F32 || sk->ne[0] < a->ne[2] || !ggml_is_contiguous(sk))) {
        return false;
    }
    stream_need   seg_need;
    soft_max_segs ss;
    return rows_plan_ok(caps, soft_max_need(caps, op)) ||
           (soft_max_seg_need(caps, op, seg_need, ss) && rows_plan_ok(caps, seg_need));
}

void soft_max_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor *   a = op->src[0];
    const ggml_tensor *   m = op->src[1];
    htp_soft_max_params & p = desc.params.soft_max;
    desc.opcode             = HTP_OP_SOFT_MAX;
    soft_max_segs ss = { (uint32_t) a->ne[0], 1, 0 };
    if (rows_plan_ok(caps, soft_max_need(caps, op))) {
        plan_rows(caps, soft_max_need(caps, op), p.split);
    } else {
        stream_need need;
        soft_max_seg_need(caps, op, need, ss);
        plan_rows(caps, need, p.split);
        split_whole_rows(p.split, ss.rows, 3 * ss.n_seg);
    }

    float sb[2];
    std::memcpy(sb, op->op_params, sizeof(sb));
    const uint32_t n_head      = (uint32_t) a->ne[2];
    const uint32_t n_head_log2 = 1u << (uint32_t) floor(log2(n_head));
    p.ne0                      = ss.seg;
    p.n_seg                    = ss.n_seg;
    p.last_ne0                 = (uint32_t) a->ne[0] - (ss.n_seg - 1) * ss.seg;
    p.scale                    = sb[0];
    p.max_bias                 = sb[1];
    p.m0                       = powf(2.0f, -(sb[1]) / n_head_log2);
    p.m1                       = powf(2.0f, -(sb[1] / 2.0f) / n_head_log2);
    p.n_head_log2              = n_head_log2;
    p.has_mask                 = m != nullptr;
    p.mask_type                = m && m->type == GGML_TYPE_F16 ? HTP_TYPE_F16 : HTP_TYPE_F32;
    p.shape = ss.n_seg > 1 ? rows_shape(3 * ss.n_seg, (uint32_t) op->ne[1]) :
                             rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.src0                     = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.dst                      = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    p.mask                     = m ? rows_strides(m->nb[1], m->nb[2], m->nb[3]) : rows_strides(0, 0, 0);
    p.ne12                     = m ? (uint32_t) m->ne[2] : 1;
    p.ne13                     = m ? (uint32_t) m->ne[3] : 1;
    p.mod_ne12                 = htp_fastdiv_init(p.ne12);
    p.mod_ne13                 = htp_fastdiv_init(p.ne13);
    const uint32_t mes         = m ? (uint32_t) ggml_type_size(m->type) : 4;
    p.mask_row_bytes           = p.ne0 * mes;

    const uint32_t pitch = align_up(p.ne0 * 4, 128);
    uint32_t       off   = 0;
    p.vsrc               = stream_at(off, p.split, pitch, p.split.rows_per_chunk);  // rows_per_chunk 1 in segments
    p.vdst               = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    if (m) {
        p.vmask = stream_at(off, p.split, align_up(p.ne0 * mes, 128), p.split.rows_per_chunk);
    } else {
        p.vmask = htp_vtcm_stream{ 0, 0, 0 };
    }
    p.vmask_f32   = off;
    // Sinks (a model weight, above 4 GiB on a v81 with 64-bit DMA bases): DMA'd once per
    // thread into the scratch after the f32 mask row.
    p.vsinks      = off + (m && m->type == GGML_TYPE_F16 ? f32_mask_bytes(p.ne0) : 0);
    p.sinks_bytes = op->src[2] ? (uint32_t) a->ne[2] * 4 : 0;
}

}  // namespace

extern const htp_op_encoder htp_soft_max_encoder = { soft_max_supports, soft_max_encode };
