// ggml op -> NPU op encoder. CONT and DUP run on the CPY kernel. Encoders of op families not
// written yet are weak: they resolve to null, so supports_op refuses those ops.
#include "op-encoders.h"

extern const htp_op_encoder htp_binary_encoder;
extern const htp_op_encoder htp_rms_norm_encoder;
extern const htp_op_encoder htp_scale_encoder;
extern const htp_op_encoder htp_cpy_encoder;
extern const htp_op_encoder htp_get_rows_encoder;
extern const htp_op_encoder htp_set_rows_encoder;

#define HTP_WEAK_ENCODER(name) extern const htp_op_encoder name __attribute__((weak));
HTP_WEAK_ENCODER(htp_mul_mat_encoder)
HTP_WEAK_ENCODER(htp_mul_mat_id_encoder)
HTP_WEAK_ENCODER(htp_unary_encoder)
HTP_WEAK_ENCODER(htp_glu_encoder)
HTP_WEAK_ENCODER(htp_add_id_encoder)
HTP_WEAK_ENCODER(htp_clamp_encoder)
HTP_WEAK_ENCODER(htp_sqr_encoder)
HTP_WEAK_ENCODER(htp_sqrt_encoder)
HTP_WEAK_ENCODER(htp_log_encoder)
HTP_WEAK_ENCODER(htp_norm_encoder)
HTP_WEAK_ENCODER(htp_l2_norm_encoder)
HTP_WEAK_ENCODER(htp_rope_encoder)
HTP_WEAK_ENCODER(htp_soft_max_encoder)
HTP_WEAK_ENCODER(htp_flash_attn_ext_encoder)
HTP_WEAK_ENCODER(htp_concat_encoder)
HTP_WEAK_ENCODER(htp_repeat_encoder)
HTP_WEAK_ENCODER(htp_pad_encoder)
HTP_WEAK_ENCODER(htp_fill_encoder)
HTP_WEAK_ENCODER(htp_diag_encoder)
HTP_WEAK_ENCODER(htp_tri_encoder)
HTP_WEAK_ENCODER(htp_sum_rows_encoder)
HTP_WEAK_ENCODER(htp_mean_encoder)
HTP_WEAK_ENCODER(htp_cumsum_encoder)
HTP_WEAK_ENCODER(htp_argsort_encoder)
HTP_WEAK_ENCODER(htp_solve_tri_encoder)
HTP_WEAK_ENCODER(htp_ssm_conv_encoder)
HTP_WEAK_ENCODER(htp_gated_delta_net_encoder)
HTP_WEAK_ENCODER(htp_im2col_encoder)
#undef HTP_WEAK_ENCODER

const htp_op_encoder * htp_find_op_encoder(const ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:             return &htp_binary_encoder;
        case GGML_OP_RMS_NORM:        return &htp_rms_norm_encoder;
        case GGML_OP_SCALE:           return &htp_scale_encoder;
        case GGML_OP_CPY:
        case GGML_OP_CONT:
        case GGML_OP_DUP:             return &htp_cpy_encoder;
        case GGML_OP_GET_ROWS:        return &htp_get_rows_encoder;
        case GGML_OP_SET_ROWS:        return &htp_set_rows_encoder;
        case GGML_OP_MUL_MAT:         return &htp_mul_mat_encoder;
        case GGML_OP_MUL_MAT_ID:      return &htp_mul_mat_id_encoder;
        case GGML_OP_UNARY:           return &htp_unary_encoder;
        case GGML_OP_GLU:             return &htp_glu_encoder;
        case GGML_OP_ADD_ID:          return &htp_add_id_encoder;
        case GGML_OP_CLAMP:           return &htp_clamp_encoder;
        case GGML_OP_SQR:             return &htp_sqr_encoder;
        case GGML_OP_SQRT:            return &htp_sqrt_encoder;
        case GGML_OP_LOG:             return &htp_log_encoder;
        case GGML_OP_NORM:            return &htp_norm_encoder;
        case GGML_OP_L2_NORM:         return &htp_l2_norm_encoder;
        case GGML_OP_ROPE:            return &htp_rope_encoder;
        case GGML_OP_SOFT_MAX:        return &htp_soft_max_encoder;
        case GGML_OP_FLASH_ATTN_EXT:  return &htp_flash_attn_ext_encoder;
        case GGML_OP_CONCAT:          return &htp_concat_encoder;
        case GGML_OP_REPEAT:          return &htp_repeat_encoder;
        case GGML_OP_PAD:             return &htp_pad_encoder;
        case GGML_OP_FILL:            return &htp_fill_encoder;
        case GGML_OP_DIAG:            return &htp_diag_encoder;
        case GGML_OP_TRI:             return &htp_tri_encoder;
        case GGML_OP_SUM_ROWS:        return &htp_sum_rows_encoder;
        case GGML_OP_MEAN:            return &htp_mean_encoder;
        case GGML_OP_CUMSUM:          return &htp_cumsum_encoder;
        case GGML_OP_ARGSORT:         return &htp_argsort_encoder;
        case GGML_OP_SOLVE_TRI:       return &htp_solve_tri_encoder;
        case GGML_OP_SSM_CONV:        return &htp_ssm_conv_encoder;
        case GGML_OP_GATED_DELTA_NET: return &htp_gated_delta_net_encoder;
        case GGML_OP_IM2COL:          return &htp_im2col_encoder;
        default:                      return nullptr;
    }
}
