// Row planning for the NPU row-streaming ops (see encode-util.h).
#include "encode-util.h"

#include <algorithm>

namespace htp_enc {

bool fits_u32(const ggml_tensor * t) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if ((uint64_t) t->ne[i] > UINT32_MAX || (uint64_t) t->nb[i] > UINT32_MAX) {
            return false;
        }
    }
    // Offsets inside the tensor are 32-bit sums on the NPU; keep them below 2^31 so that the
    // fastdiv numerators (row indices) and byte offsets never wrap.
    return ggml_nbytes(t) < (1ull << 31) && ggml_nrows(t) < (1ll << 31);
}

htp_rows_shape rows_shape(uint32_t ne1, uint32_t ne2) {
    htp_rows_shape s;
    s.ne1     = ne1;
    s.ne2     = ne2;
    s.div_ne1 = htp_fastdiv_init(ne1);
    s.div_ne2 = htp_fastdiv_init(ne2);
    return s;
}

htp_rows_strides rows_strides(uint64_t nb1, uint64_t nb2, uint64_t nb3) {
    htp_rows_strides s;
    s.nb1 = (uint32_t) nb1;
    s.nb2 = (uint32_t) nb2;
    s.nb3 = (uint32_t) nb3;
    return s;
}

bool plan_rows(const htp_device_caps & caps, const stream_need & need, htp_split_params & sp) {
    const uint32_t kMaxThreads = 8;  // HTP_MAX_HVX_THREADS of the device API
    const uint32_t n_hvx       = std::max(1u, std::min(caps.n_hvx, kMaxThreads));
    const uint32_t budget = caps.vtcm_size / n_hvx / 128 * 128;

    // Rows per chunk: as many as VTCM (with 2 buffers) and the DMA queue allow, a divisor of
    // chunk_divides, and small enough that every thread gets at least one chunk.
    if (need.bytes_per_row == 0 || need.total_rows == 0) {
        return false;  // empty tensors never reach an encoder; refuse rather than divide by 0
    }
    uint32_t n_bufs = 2;
    auto     max_rows = [&](uint32_t nb) -> uint64_t {
        const uint64_t fixed = need.bytes_fixed + (uint64_t) nb * need.bytes_per_slot;
        if (fixed + (uint64_t) nb * need.bytes_per_row > budget) {
            return 0;
        }
        uint64_t rows = (budget - fixed) / ((uint64_t) nb * need.bytes_per_row);
        if (need.desc_per_row) {
            const uint64_t d = (HTP_DMA_INFLIGHT_MAX / nb);
            rows = d <= need.desc_per_chunk ? 0 : std::min<uint64_t>(rows, (d - need.desc_per_chunk) / need.desc_per_row);
        } else if ((uint64_t) nb * need.desc_per_chunk > HTP_DMA_INFLIGHT_MAX) {
            return 0;
        }
        return rows;
    };
    uint64_t cap = max_rows(n_bufs);
    if (cap == 0) {
        return false;
    }
    if (max_rows(4) >= 1) {  // deeper buffering when it costs nothing in chunk size that matters
        n_bufs = 4;
        cap    = max_rows(4);
    }
    if (!need.multi_row_ok) {
        cap = 1;
    }
    const uint32_t per_thread = (need.total_rows + n_hvx - 1) / n_hvx;
    cap                       = std::min<uint64_t>(cap, per_thread ? per_thread : 1);
    cap                       = std::min<uint64_t>(cap, need.chunk_divides);
    uint32_t rpc              = (uint32_t) cap;
    while (rpc > 1 && need.chunk_divides % rpc != 0) {
        rpc--;
    }
    if (rpc == 0) {
        rpc = 1;
    }
    const uint32_t n_chunks  = (need.total_rows + rpc - 1) / rpc;
    uint32_t       n_threads = std::min(n_hvx, n_chunks ? n_chunks : 1);
    const uint32_t chunks_pt = (n_chunks + n_threads - 1) / n_threads;
    const uint32_t rpt       = chunks_pt * rpc;
    n_threads                = rpt ? (need.total_rows + rpt - 1) / rpt : 1;
    if (n_threads == 0) {
        n_threads = 1;
    }

    sp.n_threads       = n_threads;
    sp.total_rows      = need.total_rows;
    sp.rows_per_thread = rpt;
    sp.rows_per_chunk  = rpc;
    sp.n_bufs          = n_bufs;
    sp.vtcm_per_thread = budget;
    return true;
}

uint32_t segment_elems(const htp_device_caps & caps, uint32_t bytes_fixed, uint32_t bytes_per_elem, uint32_t align) {
    const uint32_t n_hvx  = std::max(1u, std::min(caps.n_hvx, 8u));  // as plan_rows
    const uint32_t budget = caps.vtcm_size / n_hvx / 128 * 128;
    return budget <= bytes_fixed ? 0 : (budget - bytes_fixed) / (4 * bytes_per_elem) / align * align;
}

void split_whole_rows(htp_split_params & sp, uint32_t rows, uint32_t units) {
    const uint32_t nt     = std::max(1u, std::min(sp.n_threads, rows));
    const uint32_t per_th = (rows + nt - 1) / nt;
    sp.n_threads          = (rows + per_th - 1) / per_th;
    sp.rows_per_thread    = per_th * units;
}

stream_need rows_in_out_need(const htp_device_caps & caps, const ggml_tensor * op, uint32_t pitch) {
    const ggml_tensor * a    = op->src[0];
    stream_need         need = {};
    need.total_rows          = (uint32_t) ggml_nrows(a);
    need.chunk_divides       = (uint32_t) a->ne[1];
    need.bytes_per_row       = 2 * pitch;
    need.desc_per_chunk      = 2;
    need.multi_row_ok = dma_field_ok(caps, (uint64_t) a->ne[0] * 4) && dma_field_ok(caps, pitch) &&
                        dma_field_ok(caps, a->nb[1]) && dma_field_ok(caps, op->nb[1]) && dma_field_ok(caps, (uint64_t) a->ne[1]);
    return need;
}

htp_vtcm_stream stream_at(uint32_t & offset, const htp_split_params & sp, uint32_t row_pitch, uint32_t rows) {
    htp_vtcm_stream st;
    st.offset    = offset;
    st.row_pitch = row_pitch;
    st.slot_size = row_pitch * rows;
    offset += st.slot_size * sp.n_bufs;
    return st;
}

bool quant_row_type(ggml_type t) {
    switch (t) {
        case GGML_TYPE_Q8_0: case GGML_TYPE_Q4_0: case GGML_TYPE_Q4_1: case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q5_1: case GGML_TYPE_IQ4_NL:
            return true;
        default:
            return false;
    }
}

bool kquant_row_type(ggml_type t) {
    return t == GGML_TYPE_Q2_K || t == GGML_TYPE_Q3_K || t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q5_K ||
           t == GGML_TYPE_Q6_K || t == GGML_TYPE_IQ4_XS;
}

bool fp4_ternary_row_type(ggml_type t) {
    return t == GGML_TYPE_MXFP4 || t == GGML_TYPE_NVFP4 || t == GGML_TYPE_TQ2_0 || t == GGML_TYPE_TQ1_0;
}

bool quant_row_dst_type(ggml_type t) {
    return quant_row_type(t) || kquant_row_type(t) || fp4_ternary_row_type(t) || t == GGML_TYPE_Q1_0 ||
           t == GGML_TYPE_Q2_0;
}

// Q8_0 (34-byte blocks, 32 quant bytes) / Q4_0, IQ4_NL, Q4_1, Q5_0, Q5_1 (18 / 18 / 20 / 22 /
// 24, 16): the dequantizer steps over one vector of quants, 4 / 8 blocks, and writes that many
// F32 vectors; Q1_0, Q2_0 (18, 16: blocks of 128, 64) read a vector of quants per 8 blocks
// too. Scales and mins go 64 blocks to a vector, qh words 32.
htp_fa_kv_layout kv_blocks_plan(ggml_type t, uint32_t d, uint32_t rows) {
    htp_fa_kv_layout l = {};
    const bool     q8   = t == GGML_TYPE_Q8_0;
    const uint32_t qb   = q8 ? 32 : 16;
    const uint32_t step = q8 ? 4 : 8;
    const uint32_t B    = rows * (d / (uint32_t) ggml_blck_size(t));  // blocks per slot
    l.pitch             = (uint32_t) ggml_row_size(t, d);
    uint32_t off        = align_up(rows * l.pitch, 128);
    l.scales            = off;
    off += align_up(B, 64) * 2;
    if (t == GGML_TYPE_Q4_1 || t == GGML_TYPE_Q5_1) {
        l.mins = off;
        off += align_up(B, 64) * 2;
    }
    if (t == GGML_TYPE_Q5_0 || t == GGML_TYPE_Q5_1) {
        l.qh = off;
        off += align_up(B, 32) * 4;
    }
    l.quants = off;
    l.slot   = l.quants + align_up(B, step) * qb;
    return l;
}

uint32_t kv_blocks_descs(ggml_type t) {
    return t == GGML_TYPE_Q5_1 ? 5 : (t == GGML_TYPE_Q4_1 || t == GGML_TYPE_Q5_0) ? 4 : 3;
}

// A quant row's plan started for nb blocks of t, and its VTCM arrays placed one after another
// from 0, each 128-aligned; an array the type does not use is at 0 and takes no room.
struct quant_row_arrays {
    uint32_t off = 0;

    quant_row_arrays(ggml_type t, uint32_t nb, htp_quant_row & q) {
        q             = {};
        q.n_blocks    = nb;
        q.block_bytes = (uint32_t) ggml_type_size(t);
    }

    uint32_t next(bool used, uint32_t bytes) {
        const uint32_t at = used ? off : 0;
        off += used ? align_up(bytes, 128) : 0;
        return at;
    }
};

// Arrays in the order of htp_quant_row, each 128-aligned and as long as the kernel writes it:
// quants by 4 (Q8_0) or 8 blocks, FP16 scales / mins by 64, fifth bits by 32, F32 scratch by
// pairs of vectors (64 blocks), the widened source by pairs (64 values).
// The K-quants' arrays (htp_quant_row's second reading): quants, header, high bits, group
// scratch, the widened source; fields in the block's order.
static uint32_t kquant_row_layout(ggml_type t, ggml_type src_type, uint32_t ne0, htp_quant_row & q) {
    const uint32_t nb    = ne0 / 256;
    const bool     small = t == GGML_TYPE_Q2_K || t == GGML_TYPE_Q3_K;  // 2-bit quants: 64 bytes a block
    const bool     wide  = t == GGML_TYPE_Q2_K || t == GGML_TYPE_Q6_K;  // header at a 32-byte pitch (IQ4_XS 8)
    const uint32_t hp    = wide ? 32 : t == GGML_TYPE_IQ4_XS ? 8 : 16;
    const uint32_t hb    = t == GGML_TYPE_Q6_K ? 64 : t == GGML_TYPE_Q3_K || t == GGML_TYPE_Q5_K ? 32 : 0;
    quant_row_arrays a(t, nb, q);
    q.v_quants   = a.next(true, nb * (small ? 64 : 128) + 128);
    q.v_scales   = a.next(true, nb * hp + 128);
    q.v_high     = a.next(hb != 0, nb * hb + 128);
    q.v_dscratch = a.next(true, HTP_QUANT_ROW_KQ_SCRATCH * 128);
    q.v_f32      = a.next(src_type != GGML_TYPE_F32, (ne0 + 63) / 64 * 256);
    auto field   = [&](uint32_t src_off, uint32_t bytes, uint32_t vtcm_off, uint32_t step) {
        q.field[q.n_fields++] = { src_off, bytes, vtcm_off, step };
    };
    switch (t) {  // the blocks of ggml-common.h
        case GGML_TYPE_Q2_K:  // scales[16], qs[64], d, dmin
            field(0, 16, q.v_scales, 32);
            field(16, 64, q.v_quants, 64);
            field(80, 4, q.v_scales + 16, 32);
            break;
        case GGML_TYPE_Q3_K:  // hmask[32], qs[64], scales[12], d
            field(0, 32, q.v_high, 32);
            field(32, 64, q.v_quants, 64);
            field(96, 14, q.v_scales, 16);
            break;
        case GGML_TYPE_Q6_K:  // ql[128], qh[64], scales[16], d
            field(0, 128, q.v_quants, 128);
            field(128, 64, q.v_high, 64);
            field(192, 18, q.v_scales, 32);
            break;
        case GGML_TYPE_IQ4_XS:  // d, scales_h, scales_l[4], qs[128]
            field(0, 8, q.v_scales, 8);
            field(8, 128, q.v_quants, 128);
            break;
        default:  // Q4_K, Q5_K: d, dmin, scales[12], (qh[32]), qs[128]
            field(0, 16, q.v_scales, 16);
            if (hb) {
                field(16, 32, q.v_high, 32);
            }
            field(16 + hb, 128, q.v_quants, 128);
            break;
    }
    return a.off;
}

// The FP4 and ternary rows' arrays, fields in the block's order (ggml-common.h). FP4: the
// scale bytes at v_scales (MXFP4 its E8M0 byte a block, NVFP4 its 4 UE4M3 ones), the code
// bytes at v_quants (16, 32 a block); block_mxfp4 e, qs[16], block_nvfp4 d[4], qs[32].
// Ternary (super-blocks of 256): the code bytes at v_quants (TQ2_0 64, TQ1_0 its first 32),
// TQ1_0's next 16 and its 4 qh bytes as a 32-byte piece at v_high, the FP16 d at v_scales from
// the F32 scratch at v_dscratch (pairs of vectors per 64 blocks, as Q2_0's); block_tq2_0 qs[64],
// d, block_tq1_0 qs[48], qh[4], d. Then the widened source.
static uint32_t fp4_ternary_row_layout(ggml_type t, ggml_type src_type, uint32_t ne0, htp_quant_row & q) {
    const uint32_t nb   = ne0 / (uint32_t) ggml_blck_size(t);
    const bool     fp4  = t == GGML_TYPE_MXFP4 || t == GGML_TYPE_NVFP4;
    const bool     tq1  = t == GGML_TYPE_TQ1_0;
    const uint32_t sb   = t == GGML_TYPE_NVFP4 ? 4 : fp4 ? 1 : 2;  // scale bytes a block
    const uint32_t qb   = t == GGML_TYPE_MXFP4 ? 16 : t == GGML_TYPE_TQ2_0 ? 64 : 32;
    quant_row_arrays a(t, nb, q);
    q.v_quants   = a.next(true, nb * qb);
    q.v_scales   = a.next(true, nb * sb);
    q.v_high     = a.next(tq1, nb * 32);
    q.v_dscratch = a.next(!fp4, (nb + 63) / 64 * 256);
    q.v_f32      = a.next(src_type != GGML_TYPE_F32, (ne0 + 63) / 64 * 256);
    auto field   = [&](uint32_t src_off, uint32_t bytes, uint32_t vtcm_off, uint32_t step) {
        q.field[q.n_fields++] = { src_off, bytes, vtcm_off, step };
    };
    if (fp4) {
        field(0, sb, q.v_scales, sb);
        field(sb, qb, q.v_quants, qb);
    } else {
        field(0, qb, q.v_quants, qb);
        if (tq1) {
            field(32, 20, q.v_high, 32);
        }
        field(tq1 ? 52 : 64, 2, q.v_scales, 2);
    }
    return a.off;
}

uint32_t quant_row_layout(ggml_type t, ggml_type src_type, uint32_t ne0, htp_quant_row & q) {
    if (kquant_row_type(t)) {
        return kquant_row_layout(t, src_type, ne0, q);
    }
    if (fp4_ternary_row_type(t)) {
        return fp4_ternary_row_layout(t, src_type, ne0, q);
    }
    const uint32_t nb     = ne0 / (uint32_t) ggml_blck_size(t);  // Q1_0 / Q2_0: blocks of 128 / 64
    const bool     q8     = t == GGML_TYPE_Q8_0;
    const bool     has_m  = t == GGML_TYPE_Q4_1 || t == GGML_TYPE_Q5_1;
    const bool     has_qh = t == GGML_TYPE_Q5_0 || t == GGML_TYPE_Q5_1;
    const uint32_t qb     = q8 ? 32 : 16;  // quant bytes a block
    const uint32_t n_out  = (nb + 63) / 64;
    quant_row_arrays a(t, nb, q);
    q.v_quants   = a.next(true, nb * qb);
    q.v_scales   = a.next(true, nb * 2);
    q.v_mins     = a.next(has_m, nb * 2);
    q.v_high     = a.next(has_qh, nb * 4);
    q.v_dscratch = a.next(true, n_out * 256);
    q.v_mscratch = a.next(has_m, n_out * 256);
    q.v_f32      = a.next(src_type != GGML_TYPE_F32, (ne0 + 63) / 64 * 256);
    // The dst block: FP16 d, then FP16 m (Q4_1, Q5_1), then qh (Q5_*), then the quants.
    uint32_t in_block = 0;
    auto     field    = [&](uint32_t bytes, uint32_t vtcm_off) {
        q.field[q.n_fields++] = { in_block, bytes, vtcm_off, bytes };
        in_block += bytes;
    };
    field(2, q.v_scales);
    if (has_m) {
        field(2, q.v_mins);
    }
    if (has_qh) {
        field(4, q.v_high);
    }
    field(qb, q.v_quants);
    return a.off;
}

}  // namespace htp_enc
