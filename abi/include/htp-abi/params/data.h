// kernel_params of CONCAT, REPEAT, PAD, FILL, DIAG, TRI, SUM_ROWS, MEAN, CUMSUM, ARGSORT and other data movement / reductions.
// Each struct starts with struct htp_split_params `split`; list every struct of this family
// in HTP_KERNEL_PARAMS_MEMBERS_DATA so it joins union htp_kernel_params.
#pragma once
#include <stdint.h>

// Where one source lands in the dst of CONCAT / REPEAT / PAD ("assemble"). A dst row
// (i1, i2, i3) takes this source's row when lo[d] <= i_d < hi[d] for d = 1..3; the source
// coordinate is (i_d - off[d]) % ne[d] in uint32 arithmetic (the modulo matters for REPEAT and
// for circular PAD, whose off is lp - k ne[d] wrapped, k ne[d] >= lp). Along dim 0 the
// source row (len elements) is written at element x0, rep times back to back; circular PAD
// also writes the row's last head elements just before x0 and its first tail elements just
// after the row (head, tail <= len). A source whose
// elements are not adjacent (nb0 != esize, e.g. CONCAT of ggml_transpose(x), the convolution
// state of mamba / lfm2 / qwen3next) is gathered one element per DMA row (rep is then 1).
struct htp_assemble_src {
    uint32_t lo[3], hi[3], off[3];   // dims 1, 2, 3
    struct htp_fastdiv mod[3];       // source ne1, ne2, ne3
    struct htp_rows_strides nb;      // source nb1, nb2, nb3
    uint32_t x0;                     // first dst element of the first copy
    uint32_t len;                    // elements per source row
    uint32_t rep;                    // copies along dim 0 (REPEAT: ne0 / ne00; else 1)
    uint32_t nb0;                    // bytes between the elements of a source row (esize: adjacent)
    uint32_t head, tail;             // circular PAD's wrapped pieces (else 0)
};

// CONCAT / REPEAT / PAD: dst rows are assembled in VTCM from DMA-fetched source rows (src
// slot), then copied by HVX into the dst slot (or zeroed when no source covers the row) and
// written back. Parts of a src slot row no source covers (PAD's dim-0 padding) are zeroed
// once per thread before streaming and never written by DMA afterwards.
// SET (dst = src0 with src1 written over a view of it) is src0 whole, then src1's box; ACC
// (acc = 1: added into the view, F32) fetches src0's rows into vbase and adds src1's box row
// (zero outside the box: zero_init) to the rows the box covers. Both walk the contiguous dst in a
// row shape of the host's (shape, ne0) in which the view is a box.
struct htp_assemble_params {
    struct htp_split_params split;
    uint32_t esize;                  // bytes per element (1, 2, 4 or 8)
    uint32_t ne0;                    // dst elements per row
    uint32_t n_src;                  // sources used (1 or 2)
    uint32_t zero_init;              // 1: dst has elements no source covers (PAD)
    struct htp_rows_shape shape;     // dst rows
    struct htp_rows_strides dst;
    struct htp_assemble_src src[2];
    struct htp_vtcm_stream vsrc, vdst;
    uint32_t acc;                    // 1: ACC (dst = vbase + the src slot's box rows)
    struct htp_vtcm_stream vbase;    // ACC: src0's rows (else empty)
};

enum htp_reduce_kind { HTP_REDUCE_SUM = 0, HTP_REDUCE_MEAN, HTP_REDUCE_CUMSUM, HTP_REDUCE_ARGMAX, HTP_REDUCE_SUM_ALL };

// SUM_ROWS / MEAN (F32, one value per row: results are packed 32 per vector in the dst slot,
// rows_per_chunk of them), ARGMAX (the same with the I32 index of each row's first largest
// element) and CUMSUM (F32, prefix sums along dim 0, a row out per row in).
// SUM (SUM_ALL: every element into dst's one F32): one thread walks every row of src0, adding
// them into one accumulator, and writes it after the last row (on a device group member 0
// runs it alone: DEV0 in the op list).
struct htp_reduce_params {
    struct htp_split_params split;
    uint32_t kind;                   // enum htp_reduce_kind
    uint32_t ne0;                    // src elements per row
    uint32_t tail_bytes;             // ne0 * 4 % 128 (0: the last vector is full)
    float scale;                     // MEAN: 1 / ne0; else 1
    struct htp_rows_shape shape;     // src rows
    struct htp_rows_strides src0, dst;
    struct htp_vtcm_stream vsrc, vdst;
    uint32_t n_seg;                  // CUMSUM: segments per row (1: rows stream whole); n_seg > 1:
                                     // a row longer than a thread's VTCM share streams as n_seg
                                     // segments of ne0 elements (the last one last_ne0), each a row
                                     // of `shape` (i1 = the segment), one thread per row in order
    uint32_t last_ne0;               // elements of a row's last segment (n_seg 1: ne0)
};

enum htp_fill_kind { HTP_FILL_CONST = 0, HTP_FILL_TRI, HTP_FILL_DIAG, HTP_FILL_ARANGE };

// FILL (dst = c), TRI (src0 kept on the columns [i1 + keep_lo, i1 + keep_hi) clamped to
// [0, ne0), zero elsewhere; keep_* may be "all": 0 / ne0 with rel_* = 0) and DIAG
// (dst[i1, i1] = src0[i1], zero elsewhere; src0 has one row per plane). F32.
// ARANGE (F32): dst element i = value + step * i; the 1-D dst is cut into rows of ne0 elements.
struct htp_fill_params {
    struct htp_split_params split;
    uint32_t kind;                   // enum htp_fill_kind
    uint32_t ne0;
    uint32_t esize;                  // dst bytes per element (FILL F16: 2)
    float value;                     // FILL: the 32 bits splat into every word (F16: the half twice)
    int32_t keep_lo, keep_hi;        // TRI: column bounds, relative to i1 when rel_lo / rel_hi
    uint32_t rel_lo, rel_hi;
    struct htp_rows_shape shape;     // dst rows
    struct htp_rows_strides src0, dst;
    struct htp_vtcm_stream vsrc, vdst;
    float step;                      // ARANGE: the step (value is the start)
};

// ARGSORT F32 -> I32 along dim 0: a bitonic network over n_sort (a power of two >= 32 and
// >= ne0) keys per row; keys are F32 bits mapped to order-preserving int32, padding sorts last.
// TOP_K is the same descending sort with the first n_out indices of each row written.
struct htp_argsort_params {
    struct htp_split_params split;
    uint32_t ne0;
    uint32_t n_out;                  // indices written per row: ne0 (ARGSORT) or k (TOP_K)
    uint32_t n_sort;                 // padded row length (row_pitch / 4 of both streams)
    uint32_t descending;             // 1: GGML_SORT_ORDER_DESC
    uint32_t tail_bytes;             // ne0 * 4 % 128
    struct htp_rows_shape shape;
    struct htp_rows_strides src0, dst;
    struct htp_vtcm_stream vsrc, vdst;  // keys (sorted in place), indices
    // TOP_K of a row longer than a thread's VTCM share (n_cand > 0): the row streams as n_seg
    // segments of ne0 = n_work elements (the last last_ne0), rows (seg, i1, i2 + ne2 i3) of
    // `shape`; vsrc holds a segment (its keys sorted in place), vdst the k indices. At VTCM
    // offset vwork: the n_cand best so far (keys, then indices), then the segment's n_work
    // indices; each sorted segment's best are merged into the candidates.
    uint32_t n_seg, last_ne0, n_cand, n_work, vwork;
    // ARGSORT of a row longer than a thread's VTCM share (n_run > 0): the row, padded to n_pad (a
    // power of two) with keys that sort last, is n_pad / n_run runs, rows (run, i1, i2 + ne2 i3)
    // of `shape` (src0's first stride n_run * 4), each sorted ascending in VTCM (vsrc its keys,
    // vdst its indices; descending rows' keys inverted) and written to area 0 of DDR scratch at
    // dst.data + scratch_off: per area n_rows rows of n_pad keys then n_pad indices. Then
    // log2(n_pad / n_run) passes merge pairs of runs, area to area, in blocks of n_blk keys at
    // VTCM offset 0 of a thread; the last writes the first ne0 indices into dst.
    uint32_t n_run, n_pad, n_blk, n_rows, scratch_off;
};

// POOL_2D and POOL_1D (POOL_2D with k1 = s1 = 1) F32: dst row (oy, i2, i3) holds ne0 pooled
// values; output ox pools the windows of k1 source rows oy * s1 - p1 + ky, elements
// ox * s0 - p0 .. + k0. A 2-D DMA per ky lays the windows ox in [mid_lo, mid_hi) (whole inside
// the source row) out one per VTCM window row (win_pitch bytes), a 1-D DMA each the in-range part
// of the others (the padded edges); HVX reduces each window row to a value, the out-of-range
// elements masked to the op's identity, and packs 32 values per vector.
struct htp_pool_params {
    struct htp_split_params split;
    uint32_t is_max;                 // 1: max, 0: average
    uint32_t k0, k1, s0, s1;
    uint32_t ne0;                    // pooled values per dst row
    uint32_t win_pitch;              // bytes per window row (whole vectors)
    uint32_t tail_bytes;             // k0 * 4 % 128: bytes of the last window vector used (0: all)
    float ka;                        // k0 * k1 (POOL_2D's average divisor, padding included)
    float inv_ka;                    // 1 / ka (div_sf_normal's reciprocal)
    uint32_t p0, p1;                 // padding before the first column / row
    uint32_t iw, ih;                 // source row length, rows per source plane
    uint32_t mid_lo, mid_hi;         // the windows ox in [mid_lo, mid_hi) lie inside the source row
    uint32_t avg_count;              // 1: the average divides by the in-range count (POOL_1D)
    struct htp_rows_shape shape;     // dst rows
    struct htp_rows_strides src0, dst;
    struct htp_vtcm_stream vsrc, vdst;  // vsrc: k1 * ne0 window rows per dst row
};

// ROLL (F32): dst[i0, i1, i2, i3] = src0[(i0 - s0) mod ne0, (i1 - s1) mod ne1, ...] with the
// shifts in [0, ne) (the host reduces ggml's). Rows are dst rows; a chunk stays in one plane.
// A dst row is its src row rotated by s0: two DMAs put the row's two pieces in place in the
// src slot (src[ne0 - s0 ..) first, then src[0 .. ne0 - s0)), HVX copies it to the dst slot.
struct htp_roll_params {
    struct htp_split_params split;
    uint32_t ne0;
    uint32_t s0, s1, s2, s3;         // shifts, each in [0, ne) of its dim
    uint32_t ne3;                    // volumes (ne1, ne2 are in shape)
    struct htp_rows_shape shape;     // dst rows (src0 has the same shape)
    struct htp_rows_strides src0, dst;
    struct htp_vtcm_stream vsrc, vdst;
};

// PAD_REFLECT_1D (F32): dst row = src[p0], ..., src[1], src[0 .. ne0), src[ne0 - 2], ...,
// src[ne0 - 1 - p1] (p0, p1 < ne0). With rev[i] = src[ne0 - 1 - i] the left part is
// rev[ne0 - 1 - p0 .. ne0 - 1) and the right part rev[1 .. 1 + p1): the kernel writes rev and
// a copy of the row into the dst slot (rev at 0, the copy at copy_off), and three 2-D DMAs
// per chunk write the three pieces.
struct htp_pad_reflect_params {
    struct htp_split_params split;
    uint32_t ne0;                    // src elements per row
    uint32_t p0, p1;
    uint32_t n_vec;                  // src vectors per row: ceil(ne0 / 32)
    uint32_t pad_bytes;              // 4 * (32 n_vec - ne0): rev's shift after the vectors are reversed
    uint32_t copy_off;               // bytes from a dst-slot row to its copy of the src row
    struct htp_rows_shape shape;     // rows (src and dst alike)
    struct htp_rows_strides src0, dst;
    struct htp_vtcm_stream vsrc, vdst;
};

// TIMESTEP_EMBEDDING (F32): dst row i (one per timestep t_i = src0[i]) holds cos(t_i f_j) at
// j < half and sin(t_i f_j) at half + j, f_j = exp(c j), c = -log(max_period) / half; and a 0
// at 2 half when dim is odd. A chunk's timesteps come by one DMA (32 a vector); the cosines
// and sines are rows of their own (vcos, vsin), each written by one 2-D DMA.
struct htp_timestep_params {
    struct htp_split_params split;
    uint32_t half;                   // dim / 2
    uint32_t sin_elems;              // elements written from a sin row: half, + 1 when dim is odd (the 0)
    float c;                         // -logf(max_period) / half
    uint32_t src_nb0;                // bytes between timesteps
    uint32_t dst_nb1;                // bytes between dst rows
    struct htp_vtcm_stream vsrc, vcos, vsin;
};

// UPSCALE (F32, ggml_interpolate): a separable filter. Along dims 0 and 1 each output i reads
// `taps` source elements (nearest 1, bilinear 2, bicubic 4, bilinear with antialias the widest
// window) with weights; along dims 2 and 3 it is nearest. Positions are exact rationals
// (a i + b) / d: the host checked that every index they give equals ggml-cpu's float formula
// for this shape (host/ops/upscale.cpp), and htp_upscale_tap (htp-upscale.h) computes them
// the same on both sides.
enum htp_upscale_mode { HTP_UPSCALE_NEAREST = 0, HTP_UPSCALE_BILINEAR, HTP_UPSCALE_BICUBIC, HTP_UPSCALE_BILINEAR_AA };

#define HTP_UPSCALE_MAX_TAPS 8u

struct htp_upscale_axis {
    uint32_t a;                      // numerators a i + b (b signed)
    int32_t  b_pos;                  // the position x(i) = (a i + b_pos) / d weights are taken from
    int32_t  b_lo, b_hi;             // first tap floor((a i + b_lo) / d); antialias: end floor((a i + b_hi) / d)
    uint32_t k;                      // k d keeps a i + b_lo / b_hi + k d >= 0 (and < 2^31)
    struct htp_fastdiv d;
    float    inv_d;                  // 1 / d
    float    invscale;               // antialias: 1 / support (ggml-cpu's float)
    int32_t  c;                      // antialias: d * pixel_offset
    uint32_t n_src;                  // source elements along the axis (taps clamp to [0, n_src))
    uint32_t taps;
};

// Rows are dst rows (a chunk stays in one plane). Per dst row the src slot holds y.taps source
// rows (src_pitch bytes each: whole vectors and one more, zeroed once, that a window may read
// past the row) and then y.taps splatted row weights. The table (vtab, per thread, built once)
// holds per dst vector k and tap: a vlut32 byte permutation, a lane mask (0: from window vector
// base, ~0: from base + 1; base = htp_upscale_first / 32, no scalar table) and the weights
// (antialias: normalised over the taps).
struct htp_upscale_params {
    struct htp_split_params split;
    uint32_t mode;                   // enum htp_upscale_mode
    uint32_t ne0;                    // dst elements per row
    uint32_t n_dvec;                 // ceil(ne0 / 32)
    uint32_t src_nb0;                // bytes between source elements (4: one DMA per row; else gathered)
    uint32_t src_pitch;              // bytes per source row in the src slot
    struct htp_upscale_axis x, y, z2, z3;  // dims 0, 1 (mode), 2, 3 (nearest)
    struct htp_rows_shape shape;     // dst rows
    struct htp_rows_strides src0, dst;
    uint32_t vtab;                   // table offset in the thread's VTCM
    struct htp_vtcm_stream vsrc, vdst;
};

#define HTP_KERNEL_PARAMS_MEMBERS_DATA         \
    struct htp_assemble_params assemble;       \
    struct htp_reduce_params   reduce;         \
    struct htp_fill_params     fill;           \
    struct htp_argsort_params  argsort;        \
    struct htp_pool_params     pool;           \
    struct htp_roll_params     roll;           \
    struct htp_pad_reflect_params pad_reflect; \
    struct htp_timestep_params timestep;       \
    struct htp_upscale_params  upscale;
