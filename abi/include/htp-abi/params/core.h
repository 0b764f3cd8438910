// kernel_params of the core row-streaming ops: ADD, SUB, MUL, DIV, RMS_NORM (and RMS_NORM+MUL),
// SCALE, CPY / CONT / DUP, GET_ROWS and SET_ROWS (tests/ops/core.ops). Each struct starts with
// struct htp_split_params `split` and follows the row-streaming conventions of
// htp-kernel-params.h; list every struct of this family in HTP_KERNEL_PARAMS_MEMBERS_CORE so it
// joins union htp_kernel_params.
#pragma once
#include <stdint.h>

enum htp_binary_kind { HTP_BINARY_ADD = 0, HTP_BINARY_SUB, HTP_BINARY_MUL, HTP_BINARY_DIV };

// ADD / SUB / MUL / DIV, F32, F16 or BF16 (all three tensors the same type, or a BF16 src0 and
// dst with an F32 src1: src1_f32): dst = src0 (op) broadcast(src1). Rows are dst rows. F16 /
// BF16 rows arrive as such in F32-pitched slots and are converted per row into three F32
// scratch rows (a, b, y) at vconv, conv_pitch bytes apart (an F32 src1 is read in its slot).
struct htp_binary_params {
    struct htp_split_params split;
    uint32_t kind;                   // enum htp_binary_kind
    uint32_t ne0;                    // elements per dst / src0 row
    uint32_t ne10;                   // elements per src1 row; ne0 % ne10 == 0
    uint32_t nr0;                    // ne0 / ne10: src1 repeats along a row (1: no dim-0 broadcast)
    struct htp_rows_shape shape;     // dst rows (src0 has the same shape)
    struct htp_fastdiv mod_ne11;     // i11 = i1 % ne11
    struct htp_fastdiv mod_ne12;     // i12 = i2 % ne12
    struct htp_fastdiv mod_ne13;     // i13 = i3 % ne13
    struct htp_rows_strides src0, src1, dst;
    uint32_t src1_rows_per_chunk;    // rows_per_chunk, or 1 when ne11 == 1 (one row serves all)
    uint32_t src1_vtcm_row_step;     // VTCM bytes between the src1 rows that dst rows use (0 when ne11 == 1)
    struct htp_vtcm_stream vsrc0, vsrc1, vdst;
    uint32_t vbcast;                 // offset of a row_pitch(dst) + 128 scratch row for nr0 > 1
    uint32_t half;                   // HTP_TYPE_F16 / HTP_TYPE_BF16: src0, src1, dst are that type; 0: F32
    uint32_t vconv, conv_pitch;      // F16 / BF16 only: F32 scratch rows (conv_pitch = 256 * ceil(ne0 / 64))
    uint32_t src1_gather;            // 1: src1's elements lie src1_nb0 bytes apart (a permuted src1): each
    uint32_t src1_nb0;               //    src1 row is gathered element by element (2-D DMA, rows_per_chunk 1)
    uint32_t src1_f32;               // 1: src1 is F32 while src0 and dst are BF16 (`half`)
};

// SCALE F32: dst = x * scale + bias.
struct htp_scale_params {
    struct htp_split_params split;
    uint32_t ne0;
    float scale;
    float bias;
    uint32_t has_bias;               // 0: dst = x * scale exactly (keeps -0.0 as ggml does)
    uint32_t bf16;                   // 1: BF16 rows (src0 and dst), else F32
    struct htp_rows_shape shape;
    struct htp_rows_strides src0, dst;
    struct htp_vtcm_stream vsrc, vdst;
};

// One field of a block moved by a 2-D DMA between the blocks of a DDR row and a dense array of
// a VTCM row: GET_ROWS splits blocks into such arrays, SET_ROWS and CPY join them into blocks.
struct htp_block_field {
    uint32_t src_off;                // byte of the field in a block
    uint32_t bytes;                  // its width
    uint32_t vtcm_off;               // where block 0's copy goes in the VTCM row
    uint32_t vtcm_step;              // bytes between blocks there
};

// A block-quantized row (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL: blocks of 32; others below) as SET_ROWS and
// CPY quantize it into their VTCM dst row (npu/ops/quantize-row.h): dense arrays, the quants
// at v_quants (Q8_0: 32 int8 a block; the others their 16 packed bytes), the FP16 scales at
// v_scales, Q4_1 / Q5_1 FP16 mins at v_mins, Q5_* fifth bits at v_high (4 bytes a block), the
// scales and mins first as F32 at v_dscratch / v_mscratch (2 vectors per 64 blocks); n_fields
// 2-D DMAs (field[]: src_off is the field's byte in a dst block) join them into the dst row's
// blocks. An F16 / BF16 source row is widened to F32 at v_f32 first.
// The K-quants (Q2_K .. Q6_K, IQ4_XS: super-blocks of 256, npu/ops/quantize-kquants.h) use the same
// arrays differently: v_quants the quant bytes (Q2_K / Q3_K 64 a super-block, the others 128),
// v_scales its header bytes (npu/ops/quantize-kscales.h: Q4_K / Q5_K d, dmin and 12 scale bytes
// and Q3_K 12 scale bytes and d, 16 a block; Q6_K 16 scales and d, Q2_K 16 scales, d and dmin,
// at a 32-byte pitch; IQ4_XS d, scales_h, scales_l, 8 a block), v_high the high bits (Q3_K hmask
// and Q5_K qh 32 bytes, Q6_K qh 64), each with 128 bytes of slack (unaligned stores); v_dscratch the group scratch of
// HTP_QUANT_ROW_KQ_SCRATCH vectors; no v_mins, v_mscratch.
// MXFP4 / NVFP4 (npu/ops/quantize-fp4.h): the scale bytes at v_scales (E8M0, 1 a block; UE4M3,
// 4), the code bytes at v_quants (16, 32 a block); no scratch. TQ2_0 / TQ1_0 (super-blocks of
// 256, npu/ops/quantize-ternary.h): the code bytes at v_quants (64; TQ1_0 qs[0..31]), TQ1_0's
// qs[32..47] and qh as 20 bytes of 32 at v_high, the FP16 d at v_scales from the F32 scratch at
// v_dscratch as above (host/ops/encode-util.cpp fp4_ternary_row_layout).
#define HTP_QUANT_ROW_MAX_FIELDS 4
#define HTP_QUANT_ROW_KQ_SCRATCH 106

struct htp_quant_row {
    uint32_t n_blocks;               // blocks per row
    uint32_t block_bytes;
    uint32_t n_fields;
    struct htp_block_field field[HTP_QUANT_ROW_MAX_FIELDS];
    uint32_t v_quants, v_scales, v_mins, v_high;
    uint32_t v_dscratch, v_mscratch;
    uint32_t v_f32;                  // 0 when the source is F32
};

// CPY / CONT / DUP between F32, F16 and BF16, F32 <-> I32, I32 to I32, and F32 / F16 / BF16
// into the quantized types of htp_quant_row (contiguous dst, rows of whole blocks); a copy of
// quantized rows into the same type moves their bytes as F16 units (I8 for an odd row size).
// Row r of the walk is row r of src in `shape` and row r of dst in `dst_shape`: the same shape
// unless both sides keep their own strides (rows of equal length, shapes that differ); the host
// rewrites other shapes that differ, one side contiguous, into the strided side's shape.
struct htp_cpy_params {
    struct htp_split_params split;
    uint32_t src_type, dst_type;     // htp_type values (see above)
    uint32_t ne0;                    // elements per row
    struct htp_rows_shape shape;
    uint32_t src_nb0, dst_nb0;       // element strides; != element size means gather / scatter
    struct htp_rows_strides src, dst;
    uint32_t src_gather;             // 1: src row fetched element by element (2-D DMA, rows_per_chunk 1)
    uint32_t dst_scatter;            // 1: dst row written element by element
    struct htp_vtcm_stream vsrc, vdst;
    struct htp_quant_row quant;      // a quantized dst_type: its vdst row (src rows F32 / F16 / BF16)
    struct htp_rows_shape dst_shape; // dst's rows (rows_per_chunk divides both shapes' ne1)
};

// GET_ROWS: dst[:, i10, i11, i12] = src0[:, src1[i10, i11, i12], i11, i12] as F32.
// Rows are dst rows (ne1 = ne10, ne2 = ne11).
// A block-quantized row (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4: blocks of 32) is split
// by up to 6 2-D DMAs (`field`) into dense arrays in its VTCM row: the block scales (FP16; MXFP4:
// E8M0 bytes) at v_scales, Q4_1 / Q5_1 mins at v_mins, Q5_* fifth bits (4 bytes a block) at
// v_high, and the quants at v_quants, 32 bytes a block: Q8_0 its int8 quants; the 4-bit types
// their 16 bytes twice (low nibbles are elements 0..15, high nibbles 16..31).
// A K-quant row (Q2_K .. Q6_K, super-blocks of 256; n_blocks counts super-blocks) is split into
// the packed sub-block scales at v_scales (16 bytes a super-block), the FP16 d, dmin at v_mins
// (4 bytes), the high bits at v_high (Q3_K hmask, Q5_K qh, Q6_K qh) and the low bits at v_quants,
// each field at its own width (host/ops/get-rows.cpp kquant_layout).
#define HTP_GET_ROWS_MAX_FIELDS 6

struct htp_get_rows_params {
    struct htp_split_params split;
    uint32_t src_type;               // HTP_TYPE_F32 / F16 / BF16 / I32 / a block type above
    uint32_t ne0;                    // elements per row (a multiple of 32 for block types, 256 for K-quants)
    uint32_t src_row_bytes;          // bytes of one src0 row
    uint32_t n_blocks;               // blocks per row (block types)
    uint32_t block_bytes;            // bytes of one block
    uint32_t n_fields;               // block types: DMAs per row (field[0 .. n_fields))
    struct htp_block_field field[HTP_GET_ROWS_MAX_FIELDS];
    uint32_t v_scales, v_mins, v_high, v_quants;  // block types: offsets in a VTCM row
    struct htp_rows_shape shape;
    struct htp_rows_strides src0;    // nb01 (row index), nb02 (i11), nb03 (i12)
    struct htp_rows_strides idx;     // src1 strides nb10, nb11, nb12 (I32)
    struct htp_rows_strides dst;
    struct htp_vtcm_stream vsrc;     // F32/F16/BF16/I32: raw rows; block types: the arrays above
    struct htp_vtcm_stream vdst;
    uint32_t idx_identity;           // 1: no index tensor, dst row (i1, i2, i3) reads src0 row (i1, i2, i3)
                                     // (CPY / CONT / DUP of a block-quantized source to F32)
};

// SET_ROWS: dst[:, src1[i01, i02 % ne11, i03 % ne12], i02, i03] = src0[:, i01, i02, i03].
// Rows are src0 rows.
struct htp_set_rows_params {
    struct htp_split_params split;
    uint32_t dst_type;               // HTP_TYPE_F32 / F16 / BF16, or a quantized type of htp_quant_row
    uint32_t idx_i64;                // 1: indices are I64, 0: I32
    uint32_t ne0;
    struct htp_rows_shape shape;     // src0 rows
    struct htp_fastdiv mod_ne11;     // i11 = i02 % ne11
    struct htp_fastdiv mod_ne12;     // i12 = i03 % ne12
    struct htp_rows_strides src0;
    struct htp_rows_strides idx;     // nb10 (i01), nb11, nb12
    struct htp_rows_strides dst;     // nb1 (index), nb2 (i02), nb3 (i03)
    uint32_t dst_row_bytes;
    struct htp_vtcm_stream vsrc, vdst;
    struct htp_quant_row quant;      // a quantized dst_type: its vdst row
    uint32_t src_type;               // HTP_TYPE_F32, or HTP_TYPE_F16
};

#define HTP_KERNEL_PARAMS_MEMBERS_CORE           \
    struct htp_binary_params   binary;           \
    struct htp_scale_params    scale;            \
    struct htp_cpy_params      cpy;              \
    struct htp_get_rows_params get_rows;         \
    struct htp_set_rows_params set_rows;
