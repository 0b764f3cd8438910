// The one list of NPU ops. Every table that maps ops is generated from it: the opcode enum and
// names (htp-ops.h), the NPU dispatch table (npu/src/op-table.cpp) and the host's ggml op ->
// encoder table (host/ops/op-encoders.cpp). A kernel or encoder a row names that does not
// exist is a link error. How to add an op: docs/architecture.md, "Adding an op".
//
// One row per NPU opcode, in ABI order (append only; bump HTP_ABI_VERSION when a row moves):
//   X(OPCODE, ORIGIN, MDEV, params, kernel, encoder)
//   OPCODE   HTP_OP_<OPCODE>; its name in logs and traces
//   ORIGIN   GGML: ggml op GGML_OP_<OPCODE> is encoded by `encoder`;
//            PATH: a kernel path `encoder` picks for another ggml op (no ggml op of this name);
//            HOST: an op the host issues itself, not for a ggml op (ALLREDUCE: llama's tensor
//            split, host/src/comm.cpp)
//   MDEV     on a device group (npu/src/mdev.h): SPLIT, every member runs the kernel, which
//            partitions its output (npu/ops/mdev-partition.h); DEV0, member 0 runs the whole
//            op and the others skip it (the one place that says which ops cannot split)
//   params   the member of union htp_kernel_params (its family's params/*.h) the kernel reads
//   kernel   the NPU entry point, int kernel(struct htp_op_context *), in npu/ops/
//   encoder  the host's const htp_op_encoder (op-encoders.h) in host/ops/; the ops of a family that
//            share supports and encode name one (htp_elementwise_encoder, htp_reduce_encoder, ...)
#pragma once

#define HTP_OP_LIST(X)                                                                                            \
    X(ADD,              GGML, SPLIT, binary,           htp_op_binary,           htp_binary_encoder)               \
    X(SUB,              GGML, SPLIT, binary,           htp_op_binary,           htp_binary_encoder)               \
    X(MUL,              GGML, SPLIT, binary,           htp_op_binary,           htp_binary_encoder)               \
    X(DIV,              GGML, SPLIT, binary,           htp_op_binary,           htp_binary_encoder)               \
    X(RMS_NORM,         GGML, SPLIT, norm,             htp_op_rms_norm,         htp_rms_norm_encoder)             \
    X(SCALE,            GGML, SPLIT, scale,            htp_op_scale,            htp_scale_encoder)                \
    X(CPY,              GGML, SPLIT, cpy,              htp_op_cpy,              htp_cpy_encoder)                  \
    X(GET_ROWS,         GGML, SPLIT, get_rows,         htp_op_get_rows,         htp_get_rows_encoder)             \
    X(SET_ROWS,         GGML, SPLIT, set_rows,         htp_op_set_rows,         htp_set_rows_encoder)             \
    X(MUL_MAT,          GGML, SPLIT, mul_mat,          htp_op_mul_mat,          htp_mul_mat_encoder)              \
    X(MUL_MAT_ID,       GGML, SPLIT, mul_mat_id,       htp_op_mul_mat_id,       htp_mul_mat_id_encoder)           \
    X(UNARY,            GGML, SPLIT, elementwise,      htp_op_elementwise,      htp_elementwise_encoder)          \
    X(GLU,              GGML, SPLIT, elementwise,      htp_op_elementwise,      htp_elementwise_encoder)          \
    X(ADD_ID,           GGML, SPLIT, elementwise,      htp_op_elementwise,      htp_elementwise_encoder)          \
    X(CLAMP,            GGML, SPLIT, elementwise,      htp_op_elementwise,      htp_elementwise_encoder)          \
    X(SQR,              GGML, SPLIT, elementwise,      htp_op_elementwise,      htp_elementwise_encoder)          \
    X(SQRT,             GGML, SPLIT, elementwise,      htp_op_elementwise,      htp_elementwise_encoder)          \
    X(LOG,              GGML, SPLIT, elementwise,      htp_op_elementwise,      htp_elementwise_encoder)          \
    X(NORM,             GGML, SPLIT, norm,             htp_op_norm,             htp_norm_encoder)                 \
    X(L2_NORM,          GGML, SPLIT, norm,             htp_op_norm,             htp_l2_norm_encoder)              \
    X(ROPE,             GGML, SPLIT, rope,             htp_op_rope,             htp_rope_encoder)                 \
    X(SOFT_MAX,         GGML, SPLIT, soft_max,         htp_op_soft_max,         htp_soft_max_encoder)             \
    X(FLASH_ATTN_EXT,   GGML, SPLIT, flash_attn,       htp_op_flash_attn_ext,   htp_flash_attn_ext_encoder)       \
    X(CONCAT,           GGML, SPLIT, assemble,         htp_op_assemble,         htp_assemble_encoder)             \
    X(REPEAT,           GGML, SPLIT, assemble,         htp_op_assemble,         htp_assemble_encoder)             \
    X(PAD,              GGML, SPLIT, assemble,         htp_op_assemble,         htp_assemble_encoder)             \
    X(FILL,             GGML, SPLIT, fill,             htp_op_fill,             htp_fill_encoder)                 \
    X(DIAG,             GGML, SPLIT, fill,             htp_op_fill,             htp_fill_encoder)                 \
    X(TRI,              GGML, SPLIT, fill,             htp_op_fill,             htp_fill_encoder)                 \
    X(SUM_ROWS,         GGML, SPLIT, reduce,           htp_op_reduce,           htp_reduce_encoder)               \
    X(MEAN,             GGML, SPLIT, reduce,           htp_op_reduce,           htp_reduce_encoder)               \
    X(CUMSUM,           GGML, SPLIT, reduce,           htp_op_reduce,           htp_reduce_encoder)               \
    X(ARGSORT,          GGML, SPLIT, argsort,          htp_op_argsort,          htp_argsort_encoder)              \
    X(SOLVE_TRI,        GGML, SPLIT, solve_tri,        htp_op_solve_tri,        htp_solve_tri_encoder)            \
    X(SSM_CONV,         GGML, SPLIT, ssm_conv,         htp_op_ssm_conv,         htp_ssm_conv_encoder)             \
    X(GATED_DELTA_NET,  GGML, SPLIT, gdn,              htp_op_gated_delta_net,  htp_gated_delta_net_encoder)      \
    X(IM2COL,           GGML, SPLIT, im2col,           htp_op_im2col,           htp_im2col_encoder)               \
    X(MUL_MAT_TILED,    PATH, SPLIT, mul_mat_tiled,    htp_op_mul_mat_tiled,    htp_mul_mat_encoder)              \
    X(MUL_MAT_HMX,      PATH, SPLIT, mul_mat_hmx,      htp_op_mul_mat_hmx,      htp_mul_mat_encoder)              \
    X(MUL_MAT_ID_TILED, PATH, SPLIT, mul_mat_id_tiled, htp_op_mul_mat_id_tiled, htp_mul_mat_id_encoder)           \
    X(MUL_MAT_ID_HMX,   PATH, SPLIT, mul_mat_id_hmx,   htp_op_mul_mat_id_hmx,   htp_mul_mat_id_encoder)           \
    X(ALLREDUCE,        HOST, SPLIT, allreduce,        htp_op_allreduce,        htp_allreduce_encoder)            \
    X(SSM_SCAN,         GGML, SPLIT, ssm_scan,         htp_op_ssm_scan,         htp_ssm_scan_encoder)             \
    X(TOP_K,            GGML, SPLIT, argsort,          htp_op_argsort,          htp_argsort_encoder)              \
    X(RWKV_WKV6,        GGML, SPLIT, wkv,              htp_op_rwkv_wkv6,        htp_rwkv_wkv6_encoder)            \
    X(RWKV_WKV7,        GGML, SPLIT, wkv,              htp_op_rwkv_wkv7,        htp_rwkv_wkv7_encoder)            \
    X(GATED_LINEAR_ATTN, GGML, SPLIT, wkv,             htp_op_gated_linear_attn, htp_gated_linear_attn_encoder)   \
    X(LIGHTNING_INDEXER, GGML, SPLIT, lightning,       htp_op_lightning_indexer, htp_lightning_indexer_encoder)   \
    X(DSV4_HC_PRE,      GGML, SPLIT, hc,               htp_op_dsv4_hc,          htp_hc_encoder)                   \
    X(DSV4_HC_POST,     GGML, SPLIT, hc,               htp_op_dsv4_hc,          htp_hc_encoder)                   \
    X(DSV4_HC_COMB,     GGML, SPLIT, hc_comb,          htp_op_dsv4_hc_comb,     htp_dsv4_hc_comb_encoder)         \
    X(ARANGE,           GGML, SPLIT, fill,             htp_op_fill,             htp_fill_encoder)                 \
    X(POOL_2D,          GGML, SPLIT, pool,             htp_op_pool_2d,          htp_pool_2d_encoder)              \
    X(SIN,              GGML, SPLIT, elementwise,      htp_op_elementwise,      htp_elementwise_encoder)          \
    X(COS,              GGML, SPLIT, elementwise,      htp_op_elementwise,      htp_elementwise_encoder)          \
    X(LEAKY_RELU,       GGML, SPLIT, elementwise,      htp_op_elementwise,      htp_elementwise_encoder)          \
    X(ARGMAX,           GGML, SPLIT, reduce,           htp_op_reduce,           htp_reduce_encoder)               \
    X(SUM,              GGML, DEV0,  reduce,           htp_op_reduce,           htp_reduce_encoder)               \
    X(ROLL,             GGML, SPLIT, roll,             htp_op_roll,             htp_roll_encoder)                 \
    X(PAD_REFLECT_1D,   GGML, SPLIT, pad_reflect,      htp_op_pad_reflect_1d,   htp_pad_reflect_1d_encoder)       \
    X(TIMESTEP_EMBEDDING, GGML, SPLIT, timestep,       htp_op_timestep_embedding, htp_timestep_embedding_encoder) \
    X(UPSCALE,          GGML, SPLIT, upscale,          htp_op_upscale,          htp_upscale_encoder)              \
    X(CONV_2D_DW,       GGML, SPLIT, conv_2d_dw,       htp_op_conv_2d_dw,       htp_conv_2d_dw_encoder)           \
    X(CONV_TRANSPOSE_1D, GGML, SPLIT, conv_transpose_1d, htp_op_conv_transpose_1d, htp_conv_transpose_1d_encoder) \
    X(IM2COL_3D,        GGML, SPLIT, im2col,           htp_op_im2col,           htp_im2col_3d_encoder)            \
    X(COL2IM_1D,        GGML, SPLIT, conv_transpose_1d, htp_op_conv_transpose_1d, htp_col2im_1d_encoder)          \
    X(CONV_2D,          GGML, SPLIT, conv_2d_dw,       htp_op_conv_2d_dw,       htp_conv_2d_encoder)              \
    X(CONV_3D,          GGML, SPLIT, conv_2d_dw,       htp_op_conv_2d_dw,       htp_conv_3d_encoder)              \
    X(CONV_TRANSPOSE_2D, GGML, SPLIT, conv_transpose_1d, htp_op_conv_transpose_1d, htp_conv_transpose_2d_encoder) \
    X(ACC,              GGML, SPLIT, assemble,         htp_op_assemble,         htp_assemble_encoder)             \
    X(SET,              GGML, SPLIT, assemble,         htp_op_assemble,         htp_assemble_encoder)

// ggml ops that run as another ggml op's NPU op: X(GGML op, encoder). CONT and DUP are copies;
// ROPE_BACK is ROPE with the sines negated (deepseek4 de-rotates its attention output with it);
// GROUP_NORM is NORM over rows of a group each (host/ops/norm.cpp); POOL_1D is POOL_2D with
// k1 = s1 = 1 (host/ops/pool.cpp).
#define HTP_GGML_OP_ALIASES(X)              \
    X(CONT,       htp_cpy_encoder)          \
    X(DUP,        htp_cpy_encoder)          \
    X(ROPE_BACK,  htp_rope_encoder)         \
    X(GROUP_NORM, htp_group_norm_encoder)   \
    X(POOL_1D,    htp_pool_1d_encoder)
