// Opcode -> kernel entry point (see op-table.h for how to add an op). Entry points of op
// families that are not written yet are weak: they resolve to null and the op is reported
// as unsupported (the host never sends them: its encoders refuse them first).
#include "op-table.h"

#define HTP_WEAK_OP(fn) int fn(struct htp_op_context * octx) __attribute__((weak));
HTP_WEAK_OP(htp_op_mul_mat)
HTP_WEAK_OP(htp_op_mul_mat_id)
HTP_WEAK_OP(htp_op_unary)
HTP_WEAK_OP(htp_op_glu)
HTP_WEAK_OP(htp_op_add_id)
HTP_WEAK_OP(htp_op_clamp)
HTP_WEAK_OP(htp_op_sqr)
HTP_WEAK_OP(htp_op_sqrt)
HTP_WEAK_OP(htp_op_log)
HTP_WEAK_OP(htp_op_norm)
HTP_WEAK_OP(htp_op_l2_norm)
HTP_WEAK_OP(htp_op_rms_norm_mul)
HTP_WEAK_OP(htp_op_rope)
HTP_WEAK_OP(htp_op_soft_max)
HTP_WEAK_OP(htp_op_flash_attn_ext)
HTP_WEAK_OP(htp_op_concat)
HTP_WEAK_OP(htp_op_repeat)
HTP_WEAK_OP(htp_op_pad)
HTP_WEAK_OP(htp_op_fill)
HTP_WEAK_OP(htp_op_diag)
HTP_WEAK_OP(htp_op_tri)
HTP_WEAK_OP(htp_op_sum_rows)
HTP_WEAK_OP(htp_op_mean)
HTP_WEAK_OP(htp_op_cumsum)
HTP_WEAK_OP(htp_op_argsort)
HTP_WEAK_OP(htp_op_solve_tri)
HTP_WEAK_OP(htp_op_ssm_conv)
HTP_WEAK_OP(htp_op_gated_delta_net)
HTP_WEAK_OP(htp_op_im2col)
HTP_WEAK_OP(htp_op_mul_mat_tiled)
HTP_WEAK_OP(htp_op_mul_mat_hmx)
HTP_WEAK_OP(htp_op_mul_mat_id_tiled)
HTP_WEAK_OP(htp_op_mul_mat_id_hmx)
#undef HTP_WEAK_OP

htp_op_fn htp_op_lookup(uint32_t opcode) {
    switch (opcode) {
        case HTP_OP_ADD:
        case HTP_OP_SUB:
        case HTP_OP_MUL:
        case HTP_OP_DIV:             return htp_op_binary;
        case HTP_OP_RMS_NORM:        return htp_op_rms_norm;
        case HTP_OP_SCALE:           return htp_op_scale;
        case HTP_OP_CPY:             return htp_op_cpy;
        case HTP_OP_GET_ROWS:        return htp_op_get_rows;
        case HTP_OP_SET_ROWS:        return htp_op_set_rows;
        case HTP_OP_MUL_MAT:         return htp_op_mul_mat;
        case HTP_OP_MUL_MAT_ID:      return htp_op_mul_mat_id;
        case HTP_OP_MUL_MAT_HMX:     return htp_op_mul_mat_hmx;
        case HTP_OP_UNARY:           return htp_op_unary;
        case HTP_OP_GLU:             return htp_op_glu;
        case HTP_OP_ADD_ID:          return htp_op_add_id;
        case HTP_OP_CLAMP:           return htp_op_clamp;
        case HTP_OP_SQR:             return htp_op_sqr;
        case HTP_OP_SQRT:            return htp_op_sqrt;
        case HTP_OP_LOG:             return htp_op_log;
        case HTP_OP_NORM:            return htp_op_norm;
        case HTP_OP_L2_NORM:         return htp_op_l2_norm;
        case HTP_OP_RMS_NORM_MUL:    return htp_op_rms_norm_mul;
        case HTP_OP_ROPE:            return htp_op_rope;
        case HTP_OP_SOFT_MAX:        return htp_op_soft_max;
        case HTP_OP_FLASH_ATTN_EXT:  return htp_op_flash_attn_ext;
        case HTP_OP_CONCAT:          return htp_op_concat;
        case HTP_OP_REPEAT:          return htp_op_repeat;
        case HTP_OP_PAD:             return htp_op_pad;
        case HTP_OP_FILL:            return htp_op_fill;
        case HTP_OP_DIAG:            return htp_op_diag;
        case HTP_OP_TRI:             return htp_op_tri;
        case HTP_OP_SUM_ROWS:        return htp_op_sum_rows;
        case HTP_OP_MEAN:            return htp_op_mean;
        case HTP_OP_CUMSUM:          return htp_op_cumsum;
        case HTP_OP_ARGSORT:         return htp_op_argsort;
        case HTP_OP_SOLVE_TRI:       return htp_op_solve_tri;
        case HTP_OP_SSM_CONV:        return htp_op_ssm_conv;
        case HTP_OP_GATED_DELTA_NET: return htp_op_gated_delta_net;
        case HTP_OP_IM2COL:          return htp_op_im2col;
        case HTP_OP_MUL_MAT_TILED:   return htp_op_mul_mat_tiled;
        case HTP_OP_MUL_MAT_ID_TILED: return htp_op_mul_mat_id_tiled;
        case HTP_OP_MUL_MAT_ID_HMX: return htp_op_mul_mat_id_hmx;
        default:                     return nullptr;
    }
}
