// Host side of CONCAT, REPEAT and PAD: each source's place in the dst (see
// htp_assemble_params) and the row streaming plan.
#include <algorithm>
#include <cstring>

#include "encode-util.h"

using namespace htp_enc;

namespace {

// One source covering dst dims 1..3 on [lo, hi) with coordinate (i - off) % ne.
struct src_place {
    const ggml_tensor * t;
    uint32_t            lo[3], hi[3], off[3];
    uint32_t            x0, rep;
    uint32_t            head, tail;  // circular PAD's wrapped pieces along dim 0
};

struct assemble_plan {
    uint32_t  n_src;
    src_place src[2];
    bool      zero_init;
};

static bool type_ok(ggml_type t, bool pad, bool concat) {
    if (pad) {
        return t == GGML_TYPE_F32;
    }
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16 || t == GGML_TYPE_I32 || t == GGML_TYPE_I16 ||
           (concat && (t == GGML_TYPE_I8 || t == GGML_TYPE_I64));
}

static src_place whole(const ggml_tensor * t, const ggml_tensor * dst) {
    src_place s = {};
    s.t         = t;
    for (int d = 0; d < 3; d++) {
        s.lo[d]  = 0;
        s.hi[d]  = (uint32_t) dst->ne[d + 1];
        s.off[d] = 0;
    }
    s.x0   = 0;
    s.rep  = 1;
    s.head = 0;
    s.tail = 0;
    return s;
}

// False when the op's shape or params are outside what the kernel does.
static bool make_plan(const ggml_tensor * op, assemble_plan & pl) {
    const ggml_tensor * a = op->src[0];
    pl.zero_init          = false;
    switch (op->op) {
        case GGML_OP_CONCAT: {
            const ggml_tensor * b   = op->src[1];
            const int32_t       dim = op->op_params[0];
            if (dim < 0 || dim > 3 || b->type != a->type) {
                return false;
            }
            pl.n_src  = 2;
            pl.src[0] = whole(a, op);
            pl.src[1] = whole(b, op);
            if (dim == 0) {
                pl.src[1].x0 = (uint32_t) a->ne[0];
            } else {
                pl.src[0].hi[dim - 1]  = (uint32_t) a->ne[dim];
                pl.src[1].lo[dim - 1]  = (uint32_t) a->ne[dim];
                pl.src[1].off[dim - 1] = (uint32_t) a->ne[dim];
            }
            // An empty source (minicpm3 / plm with no unroped key part) covers no dst row.
            for (uint32_t k = 0; k < 2; k++) {
                if (ggml_nelements(pl.src[k].t) == 0) {
                    for (int d = 0; d < 3; d++) {
                        pl.src[k].lo[d] = pl.src[k].hi[d] = 0;
                    }
                }
            }
            return true;
        }
        case GGML_OP_REPEAT:
            if (!ggml_can_repeat(a, op)) {
                return false;
            }
            pl.n_src      = 1;
            pl.src[0]     = whole(a, op);
            pl.src[0].rep = (uint32_t) (op->ne[0] / a->ne[0]);
            return true;
        case GGML_OP_PAD: {
            // circular (op_params[8]): dst[i] = src[(i - lp) mod ne] along every dim
            // (ggml-cpu's ggml_wrap_around), nothing is zero.
            const bool circular = op->op_params[8] != 0;
            int32_t    lp[4], rp[4];
            for (int d = 0; d < 4; d++) {
                lp[d] = op->op_params[2 * d];
                rp[d] = op->op_params[2 * d + 1];
                if (lp[d] < 0 || rp[d] < 0 || op->ne[d] != a->ne[d] + lp[d] + rp[d] || (circular && a->ne[d] == 0)) {
                    return false;
                }
            }
            // Along dim 0 a circular row is three pieces (the source row's last lp0 elements, the
            // row, its first rp0 elements); wider padding would repeat the row whole.
            if (circular && (lp[0] > a->ne[0] || rp[0] > a->ne[0])) {
                return false;
            }
            pl.n_src  = 1;
            pl.src[0] = whole(a, op);
            for (int d = 1; d < 4; d++) {
                if (circular) {
                    // (i - off) mod ne with off = lp - k ne (uint32 wrap), k ne >= lp: i + k ne - lp
                    // stays >= 0 and below 2^31 (htp_fastmod's range; fits_u32 bounds ne).
                    const uint32_t ne = (uint32_t) a->ne[d];
                    const uint32_t k  = ((uint32_t) lp[d] + ne - 1) / ne;
                    pl.src[0].off[d - 1] = (uint32_t) lp[d] - k * ne;
                    continue;  // lo = 0, hi = dst ne: every dst row is covered
                }
                pl.src[0].lo[d - 1]  = (uint32_t) lp[d];
                pl.src[0].hi[d - 1]  = (uint32_t) (lp[d] + a->ne[d]);
                pl.src[0].off[d - 1] = (uint32_t) lp[d];
            }
            pl.src[0].x0 = (uint32_t) lp[0];
            if (circular) {
                pl.src[0].head = (uint32_t) lp[0];
                pl.src[0].tail = (uint32_t) rp[0];
            } else {
                pl.zero_init = lp[0] > 0 || rp[0] > 0;
            }
            return true;
        }
        default:
            return false;
    }
}

// The DMA pieces of a source row along dim 0: the row, and circular PAD's head and tail.
static uint32_t pieces(const src_place & s) {
    return 1 + (s.head > 0 ? 1 : 0) + (s.tail > 0 ? 1 : 0);
}

static uint32_t row_pitch(const ggml_tensor * op) {
    return align_up((uint32_t) (op->ne[0] * ggml_type_size(op->type)), 128);
}

static stream_need assemble_need(const htp_device_caps & caps, const ggml_tensor * op, const assemble_plan & pl) {
    const uint32_t esize = (uint32_t) ggml_type_size(op->type);
    const uint32_t pitch = row_pitch(op);
    stream_need    need  = {};
    need.total_rows      = (uint32_t) ggml_nrows(op);
    need.chunk_divides   = (uint32_t) op->ne[1];
    need.bytes_per_row   = 2 * pitch;
    need.desc_per_chunk  = 1;          // the write-back
    need.desc_per_row    = 0;          // at most one fetch per row, source and dim-0 piece
    for (uint32_t k = 0; k < pl.n_src; k++) {
        need.desc_per_row += pieces(pl.src[k]);
    }
    need.multi_row_ok    = dma_field_ok(caps, pitch) && dma_field_ok(caps, op->nb[1]) &&
                        dma_field_ok(caps, (uint64_t) op->ne[0] * esize) && dma_field_ok(caps, (uint64_t) op->ne[1]);
    for (uint32_t k = 0; k < pl.n_src; k++) {
        const ggml_tensor * t = pl.src[k].t;
        need.multi_row_ok     = need.multi_row_ok && dma_field_ok(caps, t->nb[1]) && dma_field_ok(caps, (uint64_t) t->ne[0] * esize);
    }
    return need;
}

static bool assemble_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    assemble_plan pl;
    if (!type_ok(op->type, op->op == GGML_OP_PAD, op->op == GGML_OP_CONCAT) || !make_plan(op, pl) || !ggml_is_contiguous_rows(op) ||
        op->nb[0] != ggml_type_size(op->type) || !fits_u32(op) || ggml_nelements(op) == 0 ||
        !dma_1d_ok((uint64_t) op->ne[0] * ggml_type_size(op->type))) {
        return false;
    }
    const uint32_t esize = (uint32_t) ggml_type_size(op->type);
    for (uint32_t k = 0; k < pl.n_src; k++) {
        const ggml_tensor * t = pl.src[k].t;
        if (t->type != op->type || !fits_u32(t)) {
            return false;
        }
        if (ggml_nelements(t) == 0) {  // CONCAT's empty source is never read; REPEAT / PAD need one
            if (op->op != GGML_OP_CONCAT) {
                return false;
            }
            continue;
        }
        // Elements not adjacent (CONCAT of a transposed view): gathered one element per DMA row,
        // a descriptor per dst row or per source column (npu/ops/assemble.cpp fetch), never repeated.
        if (t->nb[0] != esize && (pl.src[k].rep > 1 || !dma_field_ok(caps, t->nb[0]) || !dma_field_ok(caps, t->nb[1]) ||
                                  !dma_field_ok(caps, (uint64_t) t->ne[0]) || !dma_field_ok(caps, row_pitch(op)))) {
            return false;
        }
        // REPEAT: one 2-D descriptor with a zero source stride per row
        if (pl.src[k].rep > 1 && !(dma_field_ok(caps, (uint64_t) t->ne[0] * esize) && dma_field_ok(caps, pl.src[k].rep))) {
            return false;
        }
    }
    return rows_plan_ok(caps, assemble_need(caps, op, pl));
}

static void assemble_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    htp_assemble_params & p = desc.params.assemble;
    assemble_plan         pl;
    make_plan(op, pl);
    desc.opcode = op->op == GGML_OP_CONCAT ? HTP_OP_CONCAT : op->op == GGML_OP_REPEAT ? HTP_OP_REPEAT : HTP_OP_PAD;
    plan_rows(caps, assemble_need(caps, op, pl), p.split);
    const uint32_t pitch = row_pitch(op);
    p.esize              = (uint32_t) ggml_type_size(op->type);
    p.ne0                = (uint32_t) op->ne[0];
    p.n_src              = pl.n_src;
    p.zero_init          = pl.zero_init ? 1 : 0;
    p.shape              = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.dst                = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    std::memset(p.src, 0, sizeof(p.src));
    for (uint32_t k = 0; k < pl.n_src; k++) {
        const src_place &  s = pl.src[k];
        htp_assemble_src & o = p.src[k];
        for (int d = 0; d < 3; d++) {
            o.lo[d]  = s.lo[d];
            o.hi[d]  = s.hi[d];
            o.off[d] = s.off[d];
            o.mod[d] = htp_fastdiv_init((uint32_t) std::max<int64_t>(s.t->ne[d + 1], 1));  // empty: unused
        }
        o.nb  = rows_strides(s.t->nb[1], s.t->nb[2], s.t->nb[3]);
        o.x0  = s.x0;
        o.len = (uint32_t) s.t->ne[0];
        o.rep = s.rep;
        o.nb0  = (uint32_t) s.t->nb[0];
        o.head = s.head;
        o.tail = s.tail;
    }
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    p.vdst       = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_assemble_encoder = { assemble_supports, assemble_encode };
