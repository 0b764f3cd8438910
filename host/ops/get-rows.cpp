// Host side of GET_ROWS: F32 / F16 / BF16 rows, the blocks-of-32 quantized rows (Q8_0, Q4_0,
// Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4), the K-quant rows (Q2_K .. Q6_K, IQ4_XS), the rows of
// Q1_0, Q2_0, NVFP4, TQ1_0, TQ2_0 and of the IQ codebook types (IQ1_S .. IQ3_S) picked by I32
// indices, to F32; I32 rows to I32 (a copy, as
// ggml_get_rows keeps I32). The VTCM layout of a quantized row: htp_get_rows_params. The same
// kernel dequantizes the rows of a CPY / CONT / DUP of a block-quantized source to F32 with no
// index tensor (dequant_rows_encode: get_rows.idx_identity).
#include "encode-util.h"

using namespace htp_enc;

namespace {

// A quantized row's VTCM layout and the DMAs that make it (the field list of the params).
struct block_layout {
    uint32_t n_fields = 0;
    htp_block_field field[HTP_GET_ROWS_MAX_FIELDS] = {};
    uint32_t v_scales = 0, v_mins = 0, v_high = 0, v_quants = 0, bytes = 0;
};

bool is_kquant(ggml_type t) {
    switch (t) {
        case GGML_TYPE_Q2_K: case GGML_TYPE_Q3_K: case GGML_TYPE_Q4_K: case GGML_TYPE_Q5_K: case GGML_TYPE_Q6_K:
        case GGML_TYPE_IQ4_XS:  // super-blocks of 256 too (block_iq4_xs)
            return true;
        default:
            return false;
    }
}

// Elements per block: 32; 64 (Q2_0, NVFP4); 128 (Q1_0); 256 for a (K-quant, ternary) super-block.
uint32_t block_elems(ggml_type t) {
    return (uint32_t) ggml_blck_size(t);
}

// The types whose blocks are one scale field and one quant field: Q1_0, Q2_0 (FP16 d, 16
// quant bytes), NVFP4 (4 UE4M3 scale bytes, 32 quant bytes), TQ1_0, TQ2_0 (quants, then FP16 d).
bool is_scale_quant_type(ggml_type t) {
    switch (t) {
        case GGML_TYPE_Q1_0: case GGML_TYPE_Q2_0: case GGML_TYPE_NVFP4: case GGML_TYPE_TQ1_0: case GGML_TYPE_TQ2_0:
            return true;
        default:
            return false;
    }
}

// The IQ codebook types: a super-block of 256 whose indices into ggml's grids, signs and scales
// the kernel reads with scalar extracts (npu/ops/get-rows-iq.h), so it arrives whole, one
// super-block (50..110 bytes) a 128-byte VTCM vector.
bool is_iq_grid(ggml_type t) {
    switch (t) {
        case GGML_TYPE_IQ2_XXS: case GGML_TYPE_IQ2_XS: case GGML_TYPE_IQ2_S: case GGML_TYPE_IQ3_XXS:
        case GGML_TYPE_IQ3_S: case GGML_TYPE_IQ1_S: case GGML_TYPE_IQ1_M:
            return true;
        default:
            return false;
    }
}

bool is_block_type(ggml_type t) {
    if (is_kquant(t) || is_scale_quant_type(t) || is_iq_grid(t)) {
        return true;
    }
    switch (t) {
        case GGML_TYPE_Q8_0: case GGML_TYPE_Q4_0: case GGML_TYPE_Q4_1: case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q5_1: case GGML_TYPE_IQ4_NL: case GGML_TYPE_MXFP4:
            return true;
        default:
            return false;
    }
}

// A scale-and-quants block's two fields, each dense in its array (npu/ops/get-rows.cpp reads
// them so): the scales at v_scales (FP16 d: 2 bytes a block; NVFP4: its 4 scale bytes), the
// quants at v_quants (Q1_0, Q2_0: 16 bytes; NVFP4: 32; TQ2_0: 64; TQ1_0: qs and qh, 52 bytes,
// 64 apart: two super-blocks a vector).
block_layout scale_quant_layout(ggml_type t, uint32_t nb) {
    struct fld {
        uint32_t src, bytes, step;
    };
    fld sc{}, q{};
    switch (t) {
        case GGML_TYPE_NVFP4: sc = { 0, 4, 4 };  q = { 4, 32, 32 }; break;
        case GGML_TYPE_TQ1_0: sc = { 52, 2, 2 }; q = { 0, 52, 64 }; break;
        case GGML_TYPE_TQ2_0: sc = { 64, 2, 2 }; q = { 0, 64, 64 }; break;
        default:              sc = { 0, 2, 2 };  q = { 2, 16, 16 }; break;  // Q1_0, Q2_0
    }
    block_layout L;
    L.v_scales            = 0;
    L.v_quants            = align_up(nb * sc.step, 128);
    L.bytes               = L.v_quants + align_up(nb * q.step, 128);
    L.field[L.n_fields++] = { sc.src, sc.bytes, L.v_scales, sc.step };
    L.field[L.n_fields++] = { q.src, q.bytes, L.v_quants, q.step };
    return L;
}

// The arrays one after another, each 128-aligned and as long as the kernel reads: scales by
// 64 (FP16) or 128 (E8M0) blocks, fifth bits by 32, quants by 4 blocks.
// A K-quant super-block's fields (ggml-common.h block_q*_K), each dense in its array: the
// packed sub-block scales at v_scales (16 bytes a super-block), the FP16 d (and dmin) at v_mins
// (4 bytes), the high bits at v_high (Q3_K hmask, Q5_K qh: 32 bytes; Q6_K qh: 64), the low
// bits at v_quants (Q2_K, Q3_K: 64 bytes; the others 128).
block_layout kquant_layout(ggml_type t, uint32_t nb) {
    struct fld {
        uint32_t src, bytes;
    };
    fld sc{}, d{}, hi{}, lo{};
    switch (t) {
        case GGML_TYPE_Q2_K: sc = { 0, 16 };  d = { 80, 4 };  lo = { 16, 64 };  break;
        case GGML_TYPE_Q3_K: sc = { 96, 12 }; d = { 108, 2 }; hi = { 0, 32 };   lo = { 32, 64 }; break;
        case GGML_TYPE_Q4_K: sc = { 4, 12 };  d = { 0, 4 };   lo = { 16, 128 }; break;
        case GGML_TYPE_Q5_K: sc = { 4, 12 };  d = { 0, 4 };   hi = { 16, 32 };  lo = { 48, 128 }; break;
        case GGML_TYPE_IQ4_XS: sc = { 2, 6 }; d = { 0, 2 };   lo = { 8, 128 }; break;  // sc: scales_h, scales_l
        default:             sc = { 192, 16 }; d = { 208, 2 }; hi = { 128, 64 }; lo = { 0, 128 }; break;  // Q6_K
    }
    block_layout L;
    uint32_t     off = 0;
    auto add = [&](fld f, uint32_t step, uint32_t & at) {
        at = off;
        off += align_up(nb * step, 128);
        L.field[L.n_fields++] = { f.src, f.bytes, at, step };
    };
    add(sc, 16, L.v_scales);
    add(d, 4, L.v_mins);
    if (hi.bytes) {
        add(hi, hi.bytes, L.v_high);
    }
    add(lo, lo.bytes, L.v_quants);
    L.bytes = off;
    return L;
}

block_layout layout_of(ggml_type t, uint32_t nb) {
    if (is_iq_grid(t)) {  // whole super-blocks, one a vector (v_quants = 0)
        block_layout L;
        L.field[L.n_fields++] = { 0, (uint32_t) ggml_type_size(t), 0, 128 };
        L.bytes               = nb * 128;
        return L;
    }
    if (is_kquant(t)) {
        return kquant_layout(t, nb);
    }
    if (is_scale_quant_type(t)) {
        return scale_quant_layout(t, nb);
    }
    block_layout L;
    auto add = [&](uint32_t src_off, uint32_t bytes, uint32_t vtcm_off, uint32_t step) {
        L.field[L.n_fields++] = { src_off, bytes, vtcm_off, step };
    };
    uint32_t off = 0;
    const bool e8m0 = t == GGML_TYPE_MXFP4;
    L.v_scales      = off;
    off += align_up(e8m0 ? nb : nb * 2, 128);
    add(0, e8m0 ? 1 : 2, L.v_scales, e8m0 ? 1 : 2);
    uint32_t qs = e8m0 ? 1 : 2;  // where the quant bytes start in a block
    if (t == GGML_TYPE_Q4_1 || t == GGML_TYPE_Q5_1) {
        L.v_mins = off;
        off += align_up(nb * 2, 128);
        add(2, 2, L.v_mins, 2);
        qs = 4;
    }
    if (t == GGML_TYPE_Q5_0 || t == GGML_TYPE_Q5_1) {
        L.v_high = off;
        off += align_up(nb * 4, 128);
        add(qs, 4, L.v_high, 4);
        qs += 4;
    }
    L.v_quants = off;
    off += align_up(nb * 32, 128);
    if (t == GGML_TYPE_Q8_0) {
        add(qs, 32, L.v_quants, 32);
    } else {  // the 16 bytes twice: low nibbles first, high nibbles second
        add(qs, 16, L.v_quants, 32);
        add(qs, 16, L.v_quants + 16, 32);
    }
    L.bytes = off;
    return L;
}

// VTCM pitches of one src row and one dst row.
void get_rows_pitches(const ggml_tensor * op, uint32_t & ps, uint32_t & pd) {
    const ggml_tensor * s   = op->src[0];
    const uint32_t      ne0 = (uint32_t) s->ne[0];
    if (is_block_type(s->type)) {
        ps = layout_of(s->type, ne0 / block_elems(s->type)).bytes;
        pd = align_up(ne0 * 4, 512);  // a kernel step writes 4 vectors (8: a super-block of 256)
    } else if (s->type == GGML_TYPE_F16 || s->type == GGML_TYPE_BF16) {
        ps = align_up(ne0 * 2, 128);
        pd = align_up(ne0 * 4, 256);
    } else {
        ps = pd = align_up(ne0 * 4, 128);
    }
}

stream_need get_rows_need(const htp_device_caps & caps, const ggml_tensor * op) {
    uint32_t ps, pd;
    get_rows_pitches(op, ps, pd);
    const ggml_type t   = op->src[0]->type;
    stream_need need    = {};
    need.total_rows     = (uint32_t) ggml_nrows(op);
    need.chunk_divides  = (uint32_t) op->ne[1];
    need.bytes_per_row  = ps + pd;
    need.desc_per_chunk = 1;
    need.desc_per_row   = is_block_type(t) ? layout_of(t, (uint32_t) op->src[0]->ne[0] / block_elems(t)).n_fields : 1;
    need.multi_row_ok   = dma_field_ok(caps, (uint64_t) op->ne[0] * 4) && dma_field_ok(caps, pd) &&
                        dma_field_ok(caps, op->nb[1]) && dma_field_ok(caps, (uint64_t) op->ne[1]);
    return need;
}

// The checks GET_ROWS and the identity rows of dequant_rows_supports share: src0's rows of
// adjacent elements (whole blocks) into F32 (I32: I32) dst rows of adjacent elements.
bool rows_ok(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * s = op->src[0];
    if (s->type != GGML_TYPE_F32 && s->type != GGML_TYPE_F16 && s->type != GGML_TYPE_BF16 &&
        s->type != GGML_TYPE_I32 && !is_block_type(s->type)) {
        return false;
    }
    const ggml_type dst_type = s->type == GGML_TYPE_I32 ? GGML_TYPE_I32 : GGML_TYPE_F32;
    if (op->type != dst_type || op->ne[0] != s->ne[0] || op->nb[0] != 4) {
        return false;
    }
    if (s->nb[0] != ggml_type_size(s->type) || !fits_u32(s) || !fits_u32(op)) {
        return false;
    }
    if (!dma_1d_ok(ggml_row_size(s->type, s->ne[0])) || !dma_1d_ok((uint64_t) op->ne[0] * 4)) {
        return false;
    }
    const uint32_t be = block_elems(s->type);
    if (is_block_type(s->type) && (s->ne[0] % be != 0 || !dma_field_ok(caps, (uint64_t) s->ne[0] / be))) {
        return false;  // blocks per row is the row count of the split descriptors
    }
    return rows_plan_ok(caps, get_rows_need(caps, op));
}

bool get_rows_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * i = op->src[1];
    return i->type == GGML_TYPE_I32 && fits_u32(i) && rows_ok(caps, op);
}

// idx: the index tensor, or nullptr for the identity rows (dst row i1 reads src0 row i1).
void rows_encode(const htp_device_caps & caps, const ggml_tensor * op, const ggml_tensor * i, htp_op_desc & desc) {
    const ggml_tensor *   s = op->src[0];
    htp_get_rows_params & p = desc.params.get_rows;
    desc.opcode             = HTP_OP_GET_ROWS;
    plan_rows(caps, get_rows_need(caps, op), p.split);
    uint32_t ps, pd;
    get_rows_pitches(op, ps, pd);
    p.src_type      = s->type;
    p.ne0           = (uint32_t) s->ne[0];
    p.src_row_bytes = (uint32_t) ggml_row_size(s->type, s->ne[0]);
    const bool blk  = is_block_type(s->type);
    p.n_blocks      = blk ? p.ne0 / block_elems(s->type) : 0;
    p.block_bytes   = blk ? (uint32_t) ggml_type_size(s->type) : 0;
    block_layout L;
    if (blk) {
        L = layout_of(s->type, p.n_blocks);
    }
    p.n_fields = L.n_fields;
    for (uint32_t f = 0; f < HTP_GET_ROWS_MAX_FIELDS; f++) {
        p.field[f] = L.field[f];
    }
    p.v_scales     = L.v_scales;
    p.v_mins       = L.v_mins;
    p.v_high       = L.v_high;
    p.v_quants     = L.v_quants;
    p.shape        = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.src0         = rows_strides(s->nb[1], s->nb[2], s->nb[3]);
    p.idx          = i ? rows_strides(i->nb[0], i->nb[1], i->nb[2]) : htp_rows_strides{};
    p.idx_identity = i ? 0 : 1;
    p.dst          = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off   = 0;
    p.vsrc         = stream_at(off, p.split, ps, p.split.rows_per_chunk);
    p.vdst         = stream_at(off, p.split, pd, p.split.rows_per_chunk);
}

void get_rows_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    rows_encode(caps, op, op->src[1], desc);
}

}  // namespace

namespace htp_enc {

bool dequant_rows_supports(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * s = op->src[0];
    return is_block_type(s->type) && op->type == GGML_TYPE_F32 && ggml_are_same_shape(s, op) && rows_ok(caps, op);
}

void dequant_rows_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc) {
    rows_encode(caps, op, nullptr, desc);
}

}  // namespace htp_enc

extern const htp_op_encoder htp_get_rows_encoder = { get_rows_supports, get_rows_encode };
