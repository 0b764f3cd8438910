// kernel_params of NORM, L2_NORM, RMS_NORM (and the fused RMS_NORM+MUL), ROPE and SOFT_MAX.
// (FLASH_ATTN_EXT: attention.h.)
// Each struct starts with struct htp_split_params `split`; list every struct of this family
// in HTP_KERNEL_PARAMS_MEMBERS_NORM_ROPE_SOFTMAX so it joins union htp_kernel_params.
// Rows follow the row-streaming conventions of htp-kernel-params.h.
#pragma once
#include <stdint.h>

enum htp_norm_kind {
    HTP_NORM_MEAN_VAR = 0,  // NORM:    (x - mean) / sqrt(var + eps)
    HTP_NORM_L2       = 1,  // L2_NORM: x / max(sqrt(sum(x^2)), eps)
    HTP_NORM_RMS      = 2,  // RMS_NORM: x / sqrt(mean(x^2) + eps)
};

// NORM / L2_NORM / RMS_NORM F32, one row in, one row out. Fused RMS_NORM+MUL (has_mul): dst =
// the RMS norm times w = src[1], one F32 row of ne0 (the norm weight), DMA'd once per thread
// with the first chunk into the thread's VTCM at vmul (row padded to 128 bytes).
struct htp_norm_params {
    struct htp_split_params split;
    uint32_t kind;                   // enum htp_norm_kind
    uint32_t ne0;
    float eps;
    float inv_ne0;                   // 1.0f / ne0
    uint32_t tail_bytes;             // ne0 * 4 % 128: bytes used in the last vector (0: all full)
    struct htp_rows_shape shape;
    struct htp_rows_strides src0, dst;
    struct htp_vtcm_stream vsrc, vdst;
    uint32_t has_mul;                // RMS_NORM only
    uint32_t vmul;
    uint32_t src_gather;             // NORM / L2_NORM: 1: src0's elements lie src_nb0 bytes apart (a
    uint32_t src_nb0;                //    transposed source): each row gathered element by element
                                     //    (2-D DMA, rows_per_chunk 1)
};

enum htp_rope_mode { HTP_ROPE_NORMAL = 0, HTP_ROPE_NEOX = 1 };  // rotation pattern

// How a multi-section rope's pairs pick their position (ggml-cpu's ggml_mrope_cache_init).
enum htp_rope_sections {
    HTP_ROPE_SECT_MROPE  = 0,  // contiguous sections t, h, w, e
    HTP_ROPE_SECT_IMROPE = 1,  // interleaved: pair k takes section k % 3 while that section lasts
    HTP_ROPE_SECT_VISION = 2,  // contiguous, and each section's angle restarts at its first pair
};

// ROPE F32 / F16 (src0 and dst the same type), forward. Pair k (k < n_dims / 2) of a row of
// plane i2 turns by theta_k = pos[i2] * theta_scale^k (an iterated float product, as ggml's
// CPU does), divided by freq_factors[k] when src[2] is present, then through rope_yarn.
// Lanes from n_dims to ne0 are copied. n_dims is the count of rotated lanes: the op's n_dims,
// but ne0 (twice the op's) for VISION, whose pairs are (i, i + the op's n_dims) over the row. Per chunk (one plane) the kernel builds per-lane
// tables C (cos, 1 past n_dims) and S (-sin / +sin for the pair's first / second lane, 0
// past n_dims) in VTCM; then y = x * C + partner(x) * S in HVX.
struct htp_rope_params {
    struct htp_split_params split;
    uint32_t type;                   // HTP_TYPE_F32 / HTP_TYPE_F16
    uint32_t mode;                   // enum htp_rope_mode
    uint32_t ne0, n_dims;
    uint32_t n_vec;                  // vectors of 32 f32 lanes covering ne0
    uint32_t half_vec, half_shift;   // neox: (n_dims / 2) * 4 = 128 * half_vec + half_shift
    float theta_scale;               // freq_base^(-2 / the op's n_dims)
    float freq_scale;
    float ext_factor;
    float mscale;                    // attn_factor, times 1 + 0.1 ln(1 / freq_scale) when ext_factor != 0
    float corr_low;                  // yarn ramp: y = (k - corr_low) * inv_corr_span
    float inv_corr_span;             // 1 / max(0.001, corr_high - corr_low)
    uint32_t pos_nb;                 // bytes between positions (I32)
    uint32_t mrope;                  // 1: multi-section (MROPE / IMROPE / VISION): 4 positions per plane, neox rotation
    uint32_t sect_layout;            // mrope: enum htp_rope_sections
    uint32_t pos_sec_nb;             // mrope: bytes between a plane's t, h, w, e positions (ne2 * pos_nb)
    int32_t sections[4];             // mrope: pairs per section (t, h, w, e)
    int32_t sect_dims;               // sum of sections
    struct htp_rows_shape shape;
    struct htp_rows_strides src0, dst;
    struct htp_vtcm_stream vsrc, vdst;
    uint32_t vcos, vsin;             // offsets of the C and S tables (n_vec vectors each)
    uint32_t vx, vy;                 // F16: offsets of one f32 row each (n_vec vectors + 1 guard)
    uint32_t n_offs;                 // first rotated lane (ggml_rope_set_offset; even); lanes outside
                                     // [n_offs, n_offs + n_dims) are copied
    float sin_sign;                  // 1: ROPE; -1: ROPE_BACK (the inverse rotation)
};

// SOFT_MAX F32: y = softmax(x * scale + slope * mask) per row, with an optional sink per
// head (src[2][i02]) that joins the max and the sum. slope = m0^(h + 1) for h < n_head_log2,
// else m1^(2 (h - n_head_log2) + 1) (ALiBi, max_bias > 0), else 1.
struct htp_soft_max_params {
    struct htp_split_params split;
    uint32_t ne0;                    // elements per row, or per segment with n_seg > 1
    uint32_t n_seg;                  // 1: rows stream whole; else a row longer than a thread's VTCM
                                     // share streams 3 times in n_seg segments (the last one
                                     // last_ne0): shape's i1 is pass * n_seg + segment, i2 the row's
                                     // i1, i3 its i2 (ne03 1); one thread per row, in order
    uint32_t last_ne0;               // elements of a row's last segment (n_seg 1: ne0)
    float scale;
    float max_bias;
    float m0, m1;
    uint32_t n_head_log2;
    uint32_t has_mask;               // src[1] present
    uint32_t mask_type;              // HTP_TYPE_F32 / HTP_TYPE_F16
    struct htp_rows_shape shape;
    struct htp_rows_strides src0, dst;
    struct htp_rows_strides mask;    // nb11, nb12, nb13
    uint32_t ne12, ne13;             // mask planes, volumes (broadcast over heads / sequences)
    struct htp_fastdiv mod_ne12;     // i12 = i02 % ne12
    struct htp_fastdiv mod_ne13;     // i13 = i03 % ne13
    uint32_t mask_row_bytes;         // ne0 * mask element size
    struct htp_vtcm_stream vsrc, vmask, vdst;
    uint32_t vmask_f32;              // F16 mask: offset of one f32 row (2 * ceil(ne0 / 64) vectors)
    uint32_t vsinks;                 // sinks: offset of the heads' sinks (sinks_bytes, rounded up to vectors)
    uint32_t sinks_bytes;            // ne02 * 4 (0: no sinks); a sink is a model weight, fetched by DMA
};

#define HTP_KERNEL_PARAMS_MEMBERS_NORM_ROPE_SOFTMAX \
    struct htp_norm_params     norm;                \
    struct htp_rope_params     rope;                \
    struct htp_soft_max_params soft_max;
