// ggml op -> NPU op encoder. CONT and DUP run on the CPY kernel.
#include "op-encoders.h"

extern const htp_op_encoder htp_binary_encoder;
extern const htp_op_encoder htp_rms_norm_encoder;
extern const htp_op_encoder htp_scale_encoder;
extern const htp_op_encoder htp_cpy_encoder;
extern const htp_op_encoder htp_get_rows_encoder;
extern const htp_op_encoder htp_set_rows_encoder;

const htp_op_encoder * htp_find_op_encoder(const ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
            return &htp_binary_encoder;
        case GGML_OP_RMS_NORM:
            return &htp_rms_norm_encoder;
        case GGML_OP_SCALE:
            return &htp_scale_encoder;
        case GGML_OP_CPY:
        case GGML_OP_CONT:
        case GGML_OP_DUP:
            return &htp_cpy_encoder;
        case GGML_OP_GET_ROWS:
            return &htp_get_rows_encoder;
        case GGML_OP_SET_ROWS:
            return &htp_set_rows_encoder;
        default:
            return nullptr;
    }
}
