// Host side of CONCAT, REPEAT, PAD, ACC and SET: each source's place in the dst (see
// htp_assemble_params) and the row streaming plan. ACC and SET (dst = src0 with src1 added into
// / written over a strided view of it) walk the contiguous dst in a row shape of their own in
// which the view is a box (view_plan).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "encode-util.h"

using namespace htp_enc;

namespace {

// One source covering dst dims 1..3 on [lo, hi) with coordinate (i - off) % ne.
struct src_place {
    const ggml_tensor * t;
    uint32_t            lo[3], hi[3], off[3];
    uint32_t            x0, rep;
    uint32_t            head, tail;  // circular PAD's wrapped pieces along dim 0
    uint32_t            len, ne[3];  // elements per row, rows along dims 1..3 (t's own unless reshaped)
    uint64_t            nb0, nb[3];  // bytes between elements, rows, planes, volumes
};

struct assemble_plan {
    uint32_t  n_src;
    src_place src[2];
    bool      zero_init;
    bool      acc;     // ACC: src[0] into vbase, the sum with src[1]'s box
    uint32_t  ne[4];   // the dst as walked (the op's shape unless ACC / SET reshape it)
    uint64_t  nb[3];   // its bytes between rows, planes, volumes
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
    s.len       = (uint32_t) t->ne[0];
    s.nb0       = t->nb[0];
    for (int d = 0; d < 3; d++) {
        s.lo[d]  = 0;
        s.hi[d]  = (uint32_t) dst->ne[d + 1];
        s.off[d] = 0;
        s.ne[d]  = (uint32_t) t->ne[d + 1];
        s.nb[d]  = t->nb[d + 1];
    }
    s.x0   = 0;
    s.rep  = 1;
    s.head = 0;
    s.tail = 0;
    return s;
}

// A dim of ACC's / SET's view, in elements: extent, stride in the dst, stride in src1.
struct view_dim {
    uint64_t n, v, s;
};

// The largest divisor of g that is at most 4096 (a row of the walk in VTCM).
static uint64_t row_width(uint64_t g) {
    for (uint64_t f = 2; g > 4096; f++) {
        while (g % f == 0 && g > 4096) {
            g /= f;
        }
    }
    return g;
}

// The dst of T elements walked as rows of R0 with R1 .. R3 (mixed radix u_k = R0 .. R(k-1), the
// view's strides): true when the view of dims d[0..nd) at element `off` is a box there (its
// coordinates o_k + extent within R_k), with pl's geometry and src1's place filled.
static bool view_box(const view_dim * d, int nd, uint64_t T, uint64_t off, assemble_plan & pl) {
    uint64_t u[5], R[4] = { 1, 1, 1, 1 }, o[4] = { 0, 0, 0, 0 };
    u[0]  = 1;
    u[nd] = T;
    for (int k = 1; k < nd; k++) {
        u[k] = d[k].v;
    }
    for (int k = 0; k < nd; k++) {
        if (u[k] == 0 || u[k + 1] % u[k] != 0) {
            return false;
        }
        R[k] = u[k + 1] / u[k];
        o[k] = k + 1 < nd ? off / u[k] % R[k] : off / u[k];
        if (o[k] + d[k].n > R[k] || R[k] > UINT32_MAX) {
            return false;
        }
    }
    src_place & b = pl.src[1];
    for (int k = 0; k < 4; k++) {
        pl.ne[k] = (uint32_t) R[k];
    }
    pl.nb[0] = R[0];
    pl.nb[1] = R[0] * R[1];
    pl.nb[2] = R[0] * R[1] * R[2];
    b.x0     = (uint32_t) o[0];
    b.len    = (uint32_t) d[0].n;
    for (int k = 1; k < 4; k++) {
        b.lo[k - 1]  = (uint32_t) o[k];
        b.hi[k - 1]  = (uint32_t) (o[k] + (k < nd ? d[k].n : 1));
        b.off[k - 1] = (uint32_t) o[k];
        b.ne[k - 1]  = k < nd ? (uint32_t) d[k].n : 1;
        b.nb[k - 1]  = k < nd ? d[k].s : 0;
    }
    return true;
}

// ACC / SET (ggml_acc_impl, ggml_set_impl): op params nb1, nb2, nb3, offset (bytes of the
// dst), inplace. src0 and dst are contiguous and of one shape (ggml-cpu asserts it), so any row
// shape of the dst reads src0 alike: view_box tries the view's own strides, then with src1's
// first dims merged where both the view and src1 are contiguous across them; a view that is one
// run is cut into rows of a width dividing its offset, length and the dst.
static bool view_plan(const ggml_tensor * op, assemble_plan & pl) {
    const ggml_tensor * a  = op->src[0];
    const ggml_tensor * b  = op->src[1];
    const uint64_t      es = ggml_type_size(op->type);
    const int32_t *     pp = op->op_params;
    if (!ggml_is_contiguous(a) || !ggml_is_contiguous(op) || !ggml_are_same_shape(a, op) || a->type != op->type ||
        b->type != op->type || b->nb[0] != es || ggml_nelements(b) == 0 || ggml_nelements(op) == 0) {
        return false;
    }
    const int64_t vnb[4] = { (int64_t) es, pp[0], pp[1], pp[2] };
    view_dim      d[4];
    int           nd = 0;
    for (int k = 0; k < 4; k++) {
        if (vnb[k] <= 0 || vnb[k] % (int64_t) es != 0 || b->nb[k] % es != 0) {
            return false;
        }
        if (k == 0 || b->ne[k] > 1) {
            d[nd++] = { (uint64_t) b->ne[k], (uint64_t) vnb[k] / es, b->nb[k] / es };
        }
    }
    if (pp[3] < 0 || pp[3] % (int64_t) es != 0) {
        return false;
    }
    const uint64_t T   = (uint64_t) ggml_nelements(op);
    const uint64_t off = (uint64_t) pp[3] / es;
    pl.n_src           = 2;
    pl.src[0]          = whole(a, op);
    pl.src[1]          = whole(b, op);
    pl.acc             = op->op == GGML_OP_ACC;
    for (;;) {
        const bool run = nd == 1;
        if (run) {  // one run: rows of w elements, w dividing its offset, its length and the dst
            const uint64_t w = row_width(std::gcd(std::gcd(off, d[0].n), T));
            d[1]             = { d[0].n / w, w, w };
            d[0].n           = w;
            nd               = 2;
        }
        if (view_box(d, nd, T, off, pl)) {
            break;
        }
        if (run || d[1].v != d[0].n || d[1].s != d[0].n) {
            return false;
        }
        d[0].n *= d[1].n;  // merge dim 1 into the run: both the view and src1 are contiguous across it
        std::copy(d + 2, d + nd, d + 1);
        nd--;
    }
    // src0 is walked as the dst; the kernel zeroes ACC's src1 row outside its box once
    src_place & s0 = pl.src[0];
    s0.len         = pl.ne[0];
    for (int k = 0; k < 3; k++) {
        pl.nb[k] *= es;
        s0.hi[k]       = pl.ne[k + 1];
        s0.ne[k]       = pl.ne[k + 1];
        s0.nb[k]       = pl.nb[k];
        pl.src[1].nb[k] *= es;
    }
    pl.zero_init = pl.acc && (pl.src[1].x0 > 0 || pl.src[1].x0 + pl.src[1].len < pl.ne[0]);
    return true;
}

// The plan's dst walked as the op's own shape, nothing zeroed, no sum.
static void own_shape(const ggml_tensor * op, assemble_plan & pl) {
    pl.zero_init = false;
    pl.acc       = false;
    for (int k = 0; k < 4; k++) {
        pl.ne[k] = (uint32_t) op->ne[k];
    }
    for (int k = 0; k < 3; k++) {
        pl.nb[k] = op->nb[k + 1];
    }
}

// False when the op's shape or params are outside what the kernel does.
static bool make_plan(const ggml_tensor * op, assemble_plan & pl) {
    const ggml_tensor * a = op->src[0];
    own_shape(op, pl);
    switch (op->op) {
        case GGML_OP_ACC:
        case GGML_OP_SET:
            return view_plan(op, pl);
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

static uint32_t row_pitch(const ggml_tensor * op, const assemble_plan & pl) {
    return align_up((uint32_t) (pl.ne[0] * ggml_type_size(op->type)), 128);
}

static stream_need assemble_need(const htp_device_caps & caps, const ggml_tensor * op, const assemble_plan & pl) {
    const uint32_t esize = (uint32_t) ggml_type_size(op->type);
    const uint32_t pitch = row_pitch(op, pl);
    stream_need    need  = {};
    need.total_rows      = pl.ne[1] * pl.ne[2] * pl.ne[3];
    need.chunk_divides   = pl.ne[1];
    need.bytes_per_row   = (pl.acc ? 3 : 2) * pitch;  // ACC: src0's rows beside src1's
    need.desc_per_chunk  = 1;          // the write-back
    need.desc_per_row    = 0;          // at most one fetch per row, source and dim-0 piece
    for (uint32_t k = 0; k < pl.n_src; k++) {
        need.desc_per_row += pieces(pl.src[k]);
    }
    need.multi_row_ok    = dma_field_ok(caps, pitch) && dma_field_ok(caps, pl.nb[0]) &&
                        dma_field_ok(caps, (uint64_t) pl.ne[0] * esize) && dma_field_ok(caps, (uint64_t) pl.ne[1]);
    for (uint32_t k = 0; k < pl.n_src; k++) {
        const src_place & s = pl.src[k];
        need.multi_row_ok   = need.multi_row_ok && dma_field_ok(caps, s.nb[0]) && dma_field_ok(caps, (uint64_t) s.len * esize);
    }
    return need;
}

static bool assemble_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    assemble_plan pl;
    const bool    view_op = op->op == GGML_OP_ACC || op->op == GGML_OP_SET;  // ggml-cpu: ACC F32, SET F32 / I32
    if (view_op ? !(op->type == GGML_TYPE_F32 || (op->op == GGML_OP_SET && op->type == GGML_TYPE_I32))
                : !type_ok(op->type, op->op == GGML_OP_PAD, op->op == GGML_OP_CONCAT)) {
        return false;
    }
    if (!make_plan(op, pl) || !ggml_is_contiguous_rows(op) || op->nb[0] != ggml_type_size(op->type) || !fits_u32(op) ||
        ggml_nelements(op) == 0 || !dma_1d_ok((uint64_t) pl.ne[0] * ggml_type_size(op->type))) {
        return false;
    }
    const uint32_t esize = (uint32_t) ggml_type_size(op->type);
    for (uint32_t k = 0; k < pl.n_src; k++) {
        const src_place &   s = pl.src[k];
        const ggml_tensor * t = s.t;
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
        if (s.nb0 != esize && (s.rep > 1 || !dma_field_ok(caps, s.nb0) || !dma_field_ok(caps, s.nb[0]) ||
                               !dma_field_ok(caps, (uint64_t) s.len) || !dma_field_ok(caps, row_pitch(op, pl)))) {
            return false;
        }
        // REPEAT: one 2-D descriptor with a zero source stride per row
        if (s.rep > 1 && !(dma_field_ok(caps, (uint64_t) s.len * esize) && dma_field_ok(caps, s.rep))) {
            return false;
        }
    }
    return rows_plan_ok(caps, assemble_need(caps, op, pl));
}

static uint32_t assemble_opcode(const ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_CONCAT: return HTP_OP_CONCAT;
        case GGML_OP_REPEAT: return HTP_OP_REPEAT;
        case GGML_OP_ACC:    return HTP_OP_ACC;
        case GGML_OP_SET:    return HTP_OP_SET;
        default:             return HTP_OP_PAD;
    }
}

static void assemble_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    htp_assemble_params & p = desc.params.assemble;
    assemble_plan         pl;
    make_plan(op, pl);
    desc.opcode = assemble_opcode(op);
    plan_rows(caps, assemble_need(caps, op, pl), p.split);
    const uint32_t pitch = row_pitch(op, pl);
    p.esize              = (uint32_t) ggml_type_size(op->type);
    p.ne0                = pl.ne[0];
    p.n_src              = pl.n_src;
    p.zero_init          = pl.zero_init ? 1 : 0;
    p.acc                = pl.acc ? 1 : 0;
    p.shape              = rows_shape(pl.ne[1], pl.ne[2]);
    p.dst                = rows_strides(pl.nb[0], pl.nb[1], pl.nb[2]);
    std::memset(p.src, 0, sizeof(p.src));
    for (uint32_t k = 0; k < pl.n_src; k++) {
        const src_place &  s = pl.src[k];
        htp_assemble_src & o = p.src[k];
        for (int d = 0; d < 3; d++) {
            o.lo[d]  = s.lo[d];
            o.hi[d]  = s.hi[d];
            o.off[d] = s.off[d];
            o.mod[d] = htp_fastdiv_init(std::max<uint32_t>(s.ne[d], 1));  // empty: unused
        }
        o.nb   = rows_strides(s.nb[0], s.nb[1], s.nb[2]);
        o.x0   = s.x0;
        o.len  = s.len;
        o.rep  = s.rep;
        o.nb0  = (uint32_t) s.nb0;
        o.head = s.head;
        o.tail = s.tail;
    }
    uint32_t off = 0;
    p.vsrc       = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    p.vdst       = stream_at(off, p.split, pitch, p.split.rows_per_chunk);
    p.vbase      = stream_at(off, p.split, pl.acc ? pitch : 0, p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_assemble_encoder = { assemble_supports, assemble_encode };
