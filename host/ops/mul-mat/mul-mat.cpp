// Host side of MUL_MAT (flat weights, HVX path): which weight types the NPU takes, how a flat
// row splits into DMA fields, and the VTCM plan (see htp-abi/params/mul-mat.h, docs/mul-mat.md).
#include <algorithm>

#include "htp-abi/htp-tile-formats.h"
#include "mul-mat-flat.h"
#include "mul-mat-paths.h"

namespace htp_enc {

using field = mm_field;

// Weight types dequantized to F32 in VTCM by GET_ROWS' row dequantizers (npu/ops/dequant-lowbit.h,
// get-rows-iq.h; npu/ops/mul-mat/mul-mat-flat.h prep_weight) and dotted on the F32 path, as F32
// weights (their codes are no bit-field planes of 4-bit table codes), and their fields: those of
// GET_ROWS' layouts (host/ops/get-rows.cpp). False for every other type.
static bool dequant_fields(ggml_type t, uint32_t & n_fields, field f[HTP_MM_MAX_FIELDS]) {
    switch (t) {
        case GGML_TYPE_NVFP4:  // scale_quant_layout
            n_fields = 2;
            f[0]     = { 0, 4, 0, -1, 0 };   // d: 4 UE4M3 bytes
            f[1]     = { 4, 32, 0, -1, 0 };  // qs
            return true;
        case GGML_TYPE_TQ1_0:
            n_fields = 2;
            f[0]     = { 52, 2, 0, -1, 0 };  // d
            f[1]     = { 0, 52, 64, -1, 0 };  // qs, qh: 64 bytes apart (two super-blocks a vector)
            return true;
        case GGML_TYPE_TQ2_0:
            n_fields = 2;
            f[0]     = { 64, 2, 0, -1, 0 };  // d
            f[1]     = { 0, 64, 0, -1, 0 };  // qs
            return true;
        case GGML_TYPE_IQ2_XXS: case GGML_TYPE_IQ2_XS: case GGML_TYPE_IQ2_S: case GGML_TYPE_IQ3_XXS:
        case GGML_TYPE_IQ3_S: case GGML_TYPE_IQ1_S: case GGML_TYPE_IQ1_M:  // is_iq_grid
            n_fields = 1;
            f[0]     = { 0, (uint32_t) ggml_type_size(t), 128, -1, 0 };  // whole super-blocks, one a vector
            return true;
        default:
            return false;
    }
}

static bool is_dequant_weight(ggml_type t) {
    uint32_t n;
    field    f[HTP_MM_MAX_FIELDS];
    return dequant_fields(t, n, f);
}

// A dequantized weight's plan (is_dequant_weight; other types keep the plan as it is): its
// blocks are fetched as those of the quantized types, prepared into an F32 row (NVFP4
// dequantizes two blocks of 64 a step: room for one more), and dotted on the F32 path.
static void plan_dequant_row(mm_plan & pl, ggml_type t, uint32_t K) {
    if (!is_dequant_weight(t)) {
        return;
    }
    pl.path        = HTP_MM_PATH_HVX_FP;
    pl.k_vecs      = K / 32;
    pl.wprep_bytes = align_up(K, 128) * 4;
    pl.wprep_total = pl.wprep_bytes;
    pl.act_part    = pl.k_vecs * 128;
    pl.act_pitch   = pl.act_part;
    pl.stage_pitch = pl.k_vecs * 128;
}

// How one flat block of a weight type is fetched: fields in the order the kernel expects.
// Returns false for types the NPU does not take (yet).
static bool weight_fields(ggml_type t, uint32_t & n_fields, field f[HTP_MM_MAX_FIELDS]) {
    switch (t) {
        case GGML_TYPE_F32:
        case GGML_TYPE_F16:
        case GGML_TYPE_BF16:
            n_fields = 1;
            f[0]     = { 0, 0, 0, -1, 0 };  // size: the whole row (set by the caller)
            return true;
        case GGML_TYPE_Q8_0:
            n_fields = 2;
            f[0]     = { 0, 2, 0, -1, 0 };   // d
            f[1]     = { 2, 32, 0, -1, 0 };  // qs
            return true;
        case GGML_TYPE_Q4_0:
            n_fields = 2;
            f[0]     = { 0, 2, 0, -1, 0 };   // d
            f[1]     = { 2, 16, 0, -1, 0 };  // qs
            return true;
        case GGML_TYPE_Q5_0:
            n_fields = 3;
            f[0]     = { 0, 2, 0, -1, 0 };   // d
            f[1]     = { 2, 4, 0, -1, 0 };   // qh
            f[2]     = { 6, 16, 0, -1, 0 };  // qs
            return true;
        case GGML_TYPE_Q4_K:
            n_fields = 2;
            f[0]     = { 0, 16, 0, -1, 0 };    // d, dmin, scales[12]
            f[1]     = { 16, 128, 0, -1, 0 };  // qs
            return true;
        case GGML_TYPE_Q6_K:
            // qh goes twice per half, so that a 128-byte qh vector lines up with the ql vector.
            n_fields = 7;
            f[0]     = { 0, 128, 0, -1, 0 };      // ql
            f[1]     = { 128, 32, 128, -1, 0 };   // qh[0..31]   -> [0, 32) of each 128
            f[2]     = { 128, 32, 128, 1, 32 };   // qh[0..31]   -> [32, 64)
            f[3]     = { 160, 32, 128, 1, 64 };   // qh[32..63]  -> [64, 96)
            f[4]     = { 160, 32, 128, 1, 96 };   // qh[32..63]  -> [96, 128)
            f[5]     = { 192, 16, 0, -1, 0 };     // scales
            f[6]     = { 208, 2, 0, -1, 0 };      // d
            return true;
        case GGML_TYPE_Q4_1:
            n_fields = 3;
            f[0]     = { 0, 2, 0, -1, 0 };   // d
            f[1]     = { 2, 2, 0, -1, 0 };   // m
            f[2]     = { 4, 16, 0, -1, 0 };  // qs
            return true;
        case GGML_TYPE_Q5_1:
            n_fields = 4;
            f[0]     = { 0, 2, 0, -1, 0 };   // d
            f[1]     = { 2, 2, 0, -1, 0 };   // m
            f[2]     = { 4, 4, 0, -1, 0 };   // qh
            f[3]     = { 8, 16, 0, -1, 0 };  // qs
            return true;
        case GGML_TYPE_Q5_K:
            // qh goes 4 times per super-block, so that qh byte l lines up with qs bytes 32j + l.
            n_fields = 6;
            f[0]     = { 0, 16, 0, -1, 0 };     // d, dmin, scales[12]
            f[1]     = { 16, 32, 128, -1, 0 };  // qh -> [0, 32) of each 128
            f[2]     = { 16, 32, 128, 1, 32 };  // qh -> [32, 64)
            f[3]     = { 16, 32, 128, 1, 64 };  // qh -> [64, 96)
            f[4]     = { 16, 32, 128, 1, 96 };  // qh -> [96, 128)
            f[5]     = { 48, 128, 0, -1, 0 };   // qs
            return true;
        case GGML_TYPE_Q2_K:
            n_fields = 3;
            f[0]     = { 0, 16, 0, -1, 0 };   // scales
            f[1]     = { 16, 64, 0, -1, 0 };  // qs
            f[2]     = { 80, 4, 0, -1, 0 };   // d, dmin
            return true;
        case GGML_TYPE_Q3_K:
            // hmask goes twice per super-block, so that hmask byte l lines up with qs bytes 32n + l.
            n_fields = 5;
            f[0]     = { 0, 32, 64, -1, 0 };   // hmask -> [0, 32) of each 64
            f[1]     = { 0, 32, 64, 0, 32 };   // hmask -> [32, 64)
            f[2]     = { 32, 64, 0, -1, 0 };   // qs
            f[3]     = { 96, 12, 0, -1, 0 };   // scales
            f[4]     = { 108, 2, 0, -1, 0 };   // d
            return true;
        case GGML_TYPE_IQ4_NL:
        case GGML_TYPE_Q1_0:
        case GGML_TYPE_Q2_0:
            n_fields = 2;
            f[0]     = { 0, 2, 0, -1, 0 };   // d
            f[1]     = { 2, 16, 0, -1, 0 };  // qs
            return true;
        case GGML_TYPE_MXFP4:
            n_fields = 2;
            f[0]     = { 0, 1, 0, -1, 0 };   // e (E8M0)
            f[1]     = { 1, 16, 0, -1, 0 };  // qs
            return true;
        case GGML_TYPE_IQ4_XS:
            n_fields = 2;
            f[0]     = { 0, 8, 0, -1, 0 };    // d, scales_h, scales_l[4]
            f[1]     = { 8, 128, 0, -1, 0 };  // qs: 16 B per 32-element sub-block, IQ4_NL's nibble order
            return true;
        default:
            return dequant_fields(t, n_fields, f);
    }
}

// Split types: planes per packed quant vector and the activation chunk one plane covers.
static void weight_planes(ggml_type t, uint32_t & planes, uint32_t & elems) {
    planes = 2;
    switch (t) {
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q4_1:
        case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q5_1:
        case GGML_TYPE_IQ4_NL:
        case GGML_TYPE_IQ4_XS:
        case GGML_TYPE_MXFP4:
            elems = 16;
            break;
        case GGML_TYPE_Q4_K:
        case GGML_TYPE_Q5_K:
            elems = 32;
            break;
        case GGML_TYPE_Q6_K:
            elems = 64;
            break;
        case GGML_TYPE_Q2_K:
        case GGML_TYPE_Q3_K:
            planes = 4;
            elems  = 32;
            break;
        case GGML_TYPE_Q2_0:
            planes = 4;
            elems  = 1;
            break;
        case GGML_TYPE_Q1_0:
            planes = 8;
            elems  = 1;
            break;
        default:
            planes = 1;
            elems  = 0;
            break;
    }
}

bool mm_plan_flat(const htp_device_caps & caps, const ggml_tensor * w, uint32_t n_act, bool scatter, mm_plan & pl,
                  bool bias) {
    pl = mm_plan{};  // fields a type does not use (n_lo of unsplit types) go into params as 0, not stack bytes
    const uint32_t      K  = (uint32_t) w->ne[0];
    const uint32_t      M  = (uint32_t) w->ne[1];
    const uint32_t      bs = (uint32_t) ggml_blck_size(w->type);
    if (!weight_fields(w->type, pl.n_fields, pl.f)) {
        return false;
    }
    const bool fp = w->type == GGML_TYPE_F32 || w->type == GGML_TYPE_F16 || w->type == GGML_TYPE_BF16;
    pl.path       = fp ? HTP_MM_PATH_HVX_FP : HTP_MM_PATH_HVX_Q8;
    if (fp) {
        pl.n_blocks    = 1;
        pl.block_bytes = (uint32_t) ggml_row_size(w->type, K);
        pl.f[0].size   = pl.block_bytes;
        pl.k_vecs      = (K + 31) / 32;
        pl.wprep_bytes = align_up(K, 64) * 4;  // F16 rows convert 64 elements at a time
        pl.wprep_total = pl.wprep_bytes;
        pl.act_part    = pl.k_vecs * 128;
        pl.act_pitch   = pl.act_part;
        pl.stage_pitch = align_up(K, 64) * 4;  // 16-bit activations widen 64 elements at a time
    } else {
        pl.n_blocks    = K / bs;
        pl.block_bytes = (uint32_t) ggml_type_size(w->type);
        pl.k_vecs      = (K + 127) / 128;
        // Elements per activation chunk that one plane of a packed vector covers.
        weight_planes(w->type, pl.planes, pl.split_elems);
        if (pl.split_elems) {
            pl.n_lo   = (K / pl.planes + 127) / 128;
            pl.k_vecs = pl.planes * pl.n_lo;
        }
        pl.wprep_bytes = pl.k_vecs * 128;
        pl.wprep_total = 3 * pl.wprep_bytes;
        pl.act_part    = pl.k_vecs * 128;
        pl.act_pitch   = 3 * pl.act_part;
        pl.stage_pitch = pl.k_vecs * 512;
    }
    plan_dequant_row(pl, w->type, K);
    if (fp) {
        pl.split_elems = 0;
        pl.n_lo        = 0;
        pl.planes      = 1;
    }
    pl.b_offset  = pl.split_elems ? pl.n_lo * 512 : 0;
    pl.raw_pitch = 0;
    for (uint32_t i = 0; i < pl.n_fields; i++) {
        pl.field_stride[i] = pl.f[i].dst_stride ? pl.f[i].dst_stride : pl.f[i].size;
        if (pl.f[i].same_as >= 0) {
            pl.field_vtcm[i] = pl.field_vtcm[pl.f[i].same_as] + pl.f[i].dst_off;
            continue;
        }
        pl.field_vtcm[i] = pl.raw_pitch;
        pl.raw_pitch += align_up(pl.field_stride[i] * pl.n_blocks, 128);
    }
    if (pl.split_elems && (K % (pl.planes * pl.split_elems) != 0 || !dma_field_ok(caps, K / (pl.planes * pl.split_elems)) ||
                           !dma_field_ok(caps, 4 * pl.planes * pl.split_elems))) {
        return false;
    }
    if (!fp && (K % bs != 0 || !dma_field_ok(caps, pl.n_blocks) || !dma_field_ok(caps, pl.block_bytes))) {
        return false;
    }
    if (!dma_1d_ok(pl.block_bytes) || !dma_1d_ok((uint64_t) K * 4)) {
        return false;
    }

    const uint32_t n_hvx = std::max(1u, std::min(caps.n_hvx, 8u));
    pl.n_act  = std::max(1u, std::min<uint32_t>(n_act, HTP_MM_MAX_ACT_ROWS));
    pl.n_bufs = 2;
    pl.bias   = bias ? 1 : 0;
    // Descriptors in flight: n_bufs chunks of fetches (rpc rows x fields, + the bias slice) and
    // of write-backs.
    const uint32_t store_desc = (scatter ? pl.n_act : 1) + pl.bias;
    if (store_desc + pl.n_fields > HTP_DMA_INFLIGHT_MAX / pl.n_bufs) {
        return false;
    }
    pl.rpc    = std::min<uint32_t>(32, (HTP_DMA_INFLIGHT_MAX / pl.n_bufs - store_desc) / pl.n_fields);
    pl.rpc    = std::max(1u, std::min(pl.rpc, (M + n_hvx - 1) / n_hvx));
    // Shrink the activation chunk, then the weight chunk, until both fit VTCM.
    for (;;) {
        const uint64_t shared = (uint64_t) pl.n_act * pl.act_pitch;
        const uint64_t thread = (uint64_t) pl.n_bufs * (pl.rpc * pl.raw_pitch + pl.n_act * 128 + pl.bias * 128) +
                                pl.wprep_total + 2ull * pl.stage_pitch;
        if (shared + n_hvx * thread <= caps.vtcm_size) {
            pl.per_thread = (uint32_t) ((caps.vtcm_size - shared) / n_hvx / 128 * 128);
            break;
        }
        if (pl.n_act > 1) {
            pl.n_act = (pl.n_act + 1) / 2;
        } else if (pl.rpc > 1) {
            pl.rpc = (pl.rpc + 1) / 2;
        } else {
            return false;
        }
    }
    pl.n_threads  = std::min(n_hvx, (M + pl.rpc - 1) / pl.rpc);
    pl.q_threads  = std::min(n_hvx, pl.n_act);
    pl.act_offset = n_hvx * pl.per_thread;
    return true;
}

}  // namespace htp_enc

using namespace htp_enc;

namespace {

// F16 / BF16 activations: widened to F32 as they are staged (mm_widen_staged), which the flat
// path's FP weights (F32, F16, BF16) then dot in F32 as ggml-cpu does (its F16 x F16 dot sums
// the exact products in F32; F32 weights widen a BF16 / F16 src1 first). Quantized weights
// would take them as well, but ggml-cpu quantizes only F32 activations (vec_dot_type), so no
// reference checks that: they are refused, and the tiled and HMX paths (quantized weights
// only) never see a 16-bit row.
bool mm_act_16bit_ok(const ggml_tensor * w, const ggml_tensor * a) {
    const bool fp_w = w->type == GGML_TYPE_F32 || w->type == GGML_TYPE_F16 || w->type == GGML_TYPE_BF16;
    return fp_w && (a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_BF16);
}

// Activation rows per chunk: several only when one 2-D descriptor can write their results.
bool plan_mul_mat(const htp_device_caps & caps, const ggml_tensor * op, mm_plan & pl) {
    uint32_t n_act = (uint32_t) std::min<int64_t>(op->src[1]->ne[1], HTP_MM_MAX_ACT_ROWS);
    if (!dma_field_ok(caps, op->nb[1]) || !dma_field_ok(caps, op->src[1]->ne[1])) {
        n_act = 1;
    }
    return mm_plan_flat(caps, op->src[0], n_act, false, pl);
}

bool mul_mat_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context & ctx) {
    const ggml_tensor * w = op->src[0];
    const ggml_tensor * a = op->src[1];
    if (op->type != GGML_TYPE_F32 || !(a->type == GGML_TYPE_F32 || mm_act_16bit_ok(w, a))) {
        return false;
    }
    if (w->nb[0] != ggml_type_size(w->type) || a->nb[0] != ggml_type_size(a->type) || op->nb[0] != 4 ||
        w->ne[0] != a->ne[0]) {
        return false;
    }
    if (a->ne[2] % w->ne[2] != 0 || a->ne[3] % w->ne[3] != 0) {
        return false;
    }
    if (!fits_u32(w) || !fits_u32(a) || !fits_u32(op)) {
        return false;
    }
    mm_plan pl;
    if (!plan_mul_mat(caps, op, pl)) {
        return false;
    }
    // The weight may be tiled (supports_op cannot know): then some tiled path must take the
    // shape. Checked on the tiled layout w would have, never on buffer state. With
    // MM_SELECT=1 (flat only) no weight is tiled.
    htp_tiled_weight tw;
    if (ctx.mm.select != HTP_MM_SELECT_FLAT && htp_tiled_weight_of_shape(w, tw)) {
        return htp_mm_route_tiled(caps, ctx.mm, op, tw) != HTP_MM_ROUTE_NONE;
    }
    return true;
}

void mul_mat_encode_flat(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc) {
    desc.opcode = HTP_OP_MUL_MAT;
    mm_plan pl;
    plan_mul_mat(caps, op, pl);
    mm_fill_flat(pl, op->src[0], op->src[1], op, desc.params.mul_mat);
}

}  // namespace

htp_mm_act mm_act_describe(const ggml_tensor * w, const ggml_tensor * a, const ggml_tensor * dst) {
    htp_mm_act act = {};
    act.ne11      = (uint32_t) a->ne[1];
    act.ne12      = (uint32_t) a->ne[2];
    act.n_planes  = (uint32_t) (a->ne[2] * a->ne[3]);
    act.div_ne12  = htp_fastdiv_init(act.ne12);
    // (MUL_MAT_ID: w's planes are experts, not broadcast; the ratios are unused there.)
    act.div_r2    = htp_fastdiv_init((uint32_t) std::max<int64_t>(1, a->ne[2] / w->ne[2]));
    act.div_r3    = htp_fastdiv_init((uint32_t) std::max<int64_t>(1, a->ne[3] / w->ne[3]));
    act.src1      = htp_enc::rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    act.dst       = htp_enc::rows_strides(dst->nb[1], dst->nb[2], dst->nb[3]);
    act.elem_bytes = (uint32_t) ggml_type_size(a->type);
    act.row_bytes  = (uint32_t) a->ne[0] * act.elem_bytes;
    act.type       = (uint32_t) a->type;
    return act;
}

void htp_enc::mm_fill_flat(const mm_plan & pl, const ggml_tensor * w, const ggml_tensor * a, const ggml_tensor * op,
                           htp_mul_mat_params & p) {
    const uint32_t M          = (uint32_t) w->ne[1];
    p.split.n_threads         = pl.n_threads;
    p.split.total_rows        = M;
    p.split.rows_per_thread   = (M + pl.n_threads - 1) / pl.n_threads;
    p.split.rows_per_chunk    = pl.rpc;
    p.split.n_bufs            = pl.n_bufs;
    p.split.vtcm_per_thread   = pl.per_thread;
    p.qsplit = act_row_split(pl.n_act, pl.q_threads, pl.per_thread);

    p.path     = pl.path;
    p.wtype    = w->type;
    p.ne00     = (uint32_t) w->ne[0];
    p.k_vecs   = pl.k_vecs;
    p.act      = mm_act_describe(w, a, op);
    p.src0     = rows_strides(w->nb[1], w->nb[2], w->nb[3]);

    p.act_rows_per_chunk = pl.n_act;
    p.n_blocks           = pl.n_blocks;
    p.block_bytes        = pl.block_bytes;
    p.n_fields           = pl.n_fields;
    for (uint32_t i = 0; i < HTP_MM_MAX_FIELDS; i++) {
        p.field_src[i]  = i < pl.n_fields ? pl.f[i].src : 0;
        p.field_size[i] = i < pl.n_fields ? pl.f[i].size : 0;
        p.field_vtcm[i] = i < pl.n_fields ? pl.field_vtcm[i] : 0;
        p.field_dst_stride[i] = i < pl.n_fields ? pl.field_stride[i] : 0;
    }
    p.act_split_elems = pl.split_elems;
    p.act_b_offset    = pl.b_offset;
    p.n_lo            = pl.n_lo;
    p.act_planes      = pl.planes;
    p.act_plane_bytes  = 4 * p.ne00 / pl.planes;
    p.act_split_chunks = pl.split_elems ? p.ne00 / (pl.planes * pl.split_elems) : 0;
    uint32_t off   = 0;
    p.vw           = stream_at(off, p.split, pl.raw_pitch, pl.rpc);
    p.vout         = stream_at(off, p.split, 128, pl.n_act);
    p.vstage       = stream_at(off, p.qsplit, pl.stage_pitch, 1);
    p.wprep_offset = off;
    p.wprep_bytes  = pl.wprep_bytes;
    off += pl.wprep_total;
    // No fusion: the MUL_MAT+ADD fuser sets has_bias and the strides, htp_mm_act_reuse act_ready.
    p.has_bias  = 0;
    p.bias      = {};
    p.vbias     = {};
    p.act_ready = 0;
    if (pl.bias) {
        p.vbias = stream_at(off, p.split, 128, 1);
    }
    p.act_offset     = pl.act_offset;
    p.act_part_bytes = pl.act_part;
    p.act_row_pitch  = pl.act_pitch;
}

void mm_src0_to_tiles(htp_op_desc & desc, const htp_tiled_weight & tw) {
    desc.src[0].offset = (uint64_t) ((int64_t) desc.src[0].offset + tw.data_offset);
    desc.src[0].flags |= HTP_TENSOR_TILED;
}

namespace {

// Tiled weights go to a tiled path (mul-mat-paths.h); the graph has already turned weights
// no tiled path takes flat again (htp_mm_route_tiled), so a tiled weight always has a route.
void mul_mat_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context & ctx) {
    htp_tiled_weight tw;
    if (ctx.tiled(0, tw)) {
        const htp_mm_route r = htp_mm_route_tiled(caps, ctx.mm, op, tw);
        mm_src0_to_tiles(desc, tw);
        if (r == HTP_MM_ROUTE_TILED_HVX) {
            mm_tiled_hvx_encode(caps, op, tw, desc);
            return;
        }
        if (r == HTP_MM_ROUTE_HMX) {
            mm_hmx_encode(caps, op, tw, desc);
            return;
        }
        desc.opcode = HTP_OP_NONE;  // unreachable when the graph checked the route; fails loudly on the NPU
        return;
    }
    if (htp_mm_route_flat(caps, ctx.mm, op, tw) == HTP_MM_ROUTE_HMX) {
        mm_hmx_encode(caps, op, tw, desc);  // rt-repack: flat rows repacked in VTCM
        return;
    }
    mul_mat_encode_flat(caps, op, desc);
}

}  // namespace

// The tile grid of w's matrix (format, K per tile, tile counts and sizes); the callers set
// where the planes are.
static void fill_tile_grid(const ggml_tensor * w, htp_tiled_weight & tw) {
    const htp_type ty = (htp_type) w->type;
    tw.format      = w->type;
    tw.k_cols      = htp_tile_k_cols(ty);
    tw.n_k_tiles   = (uint32_t) htp_tile_n_k_tiles(ty, w->ne[0]);
    tw.n_col_tiles = (uint32_t) htp_tile_n_col_tiles(w->ne[1]);
    tw.tile_bytes  = htp_tile_size(ty);
    tw.plane_bytes = htp_tiled_matrix_size(ty, w->ne[0], w->ne[1]);
}

bool htp_tiled_weight_of_shape(const ggml_tensor * w, htp_tiled_weight & tw) {
    const htp_type ty = (htp_type) w->type;
    const uint32_t kc = htp_tile_k_cols(ty);
    if (kc == 0 || w->ne[0] % kc != 0 || w->nb[1] != ggml_row_size(w->type, w->ne[0])) {
        return false;
    }
    const uint64_t pflat = (uint64_t) w->nb[1] * (uint64_t) w->ne[1];
    if ((w->ne[2] > 1 && w->nb[2] % pflat != 0) || (w->ne[3] > 1 && w->nb[3] % pflat != 0)) {
        return false;
    }
    fill_tile_grid(w, tw);
    tw.nb2         = w->ne[2] > 1 ? w->nb[2] / pflat * tw.plane_bytes : tw.plane_bytes;
    tw.nb3         = w->ne[3] > 1 ? w->nb[3] / pflat * tw.plane_bytes : tw.plane_bytes * (uint64_t) w->ne[2];
    tw.data_offset = 0;
    return true;
}

htp_mm_route htp_mm_route_tiled(const htp_device_caps & caps, const htp_mm_settings & s, const ggml_tensor * op,
                                const htp_tiled_weight & tw) {
    if (s.select == HTP_MM_SELECT_FLAT) {
        return HTP_MM_ROUTE_NONE;
    }
    const bool hvx_ok = s.select != HTP_MM_SELECT_HMX && mm_tiled_hvx_plan(caps, op, tw);
    const bool hmx_ok = s.hmx && s.select != HTP_MM_SELECT_HVX && mm_hmx_plan(caps, op, tw);
    const bool few    = op->src[1]->ne[1] <= (int64_t) s.tiled_hvx_max_rows;
    if (hvx_ok && (few || !hmx_ok || s.select == HTP_MM_SELECT_HVX)) {
        return HTP_MM_ROUTE_TILED_HVX;
    }
    return hmx_ok ? HTP_MM_ROUTE_HMX : HTP_MM_ROUTE_NONE;
}

bool htp_rt_repack_weight(const ggml_tensor * w, htp_tiled_weight & tw) {
    const htp_type ty = (htp_type) w->type;
    const uint32_t kc = htp_tile_k_cols(ty);
    if (kc == 0 || w->ne[0] % kc != 0 || w->ne[0] % ggml_blck_size(w->type) != 0 ||
        w->nb[0] != ggml_type_size(w->type)) {
        return false;
    }
    fill_tile_grid(w, tw);
    tw.nb2         = w->nb[2];
    tw.nb3         = w->nb[3];
    tw.data_offset = 0;
    tw.flat        = true;
    tw.flat_nb1    = w->nb[1];
    return true;
}

htp_mm_route htp_mm_route_flat(const htp_device_caps & caps, const htp_mm_settings & s, const ggml_tensor * op,
                               htp_tiled_weight & tw) {
    if (s.rtrepack == HTP_MM_RTREPACK_OFF || !s.hmx || s.select == HTP_MM_SELECT_HVX || s.select == HTP_MM_SELECT_FLAT) {
        return HTP_MM_ROUTE_NONE;
    }
    // Few activation rows would not pay back the repack: only when forced.
    const bool many = op->src[1]->ne[1] > HTP_MM_FLAT_HVX_MAX_ROWS;
    if (!many && s.rtrepack != HTP_MM_RTREPACK_ALL && s.select != HTP_MM_SELECT_HMX) {
        return HTP_MM_ROUTE_NONE;
    }
    if (!htp_rt_repack_weight(op->src[0], tw) || !mm_hmx_plan(caps, op, tw)) {
        return HTP_MM_ROUTE_NONE;
    }
    return HTP_MM_ROUTE_HMX;
}

extern const htp_op_encoder htp_mul_mat_encoder = { mul_mat_supports, mul_mat_encode };
