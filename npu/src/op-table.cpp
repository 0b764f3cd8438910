// Opcode -> kernel entry point (see op-table.h for how to add an op).
#include "op-table.h"

htp_op_fn htp_op_lookup(uint32_t opcode) {
    switch (opcode) {
        case HTP_OP_ADD:
        case HTP_OP_SUB:
        case HTP_OP_MUL:
        case HTP_OP_DIV:
            return htp_op_binary;
        case HTP_OP_RMS_NORM:
            return htp_op_rms_norm;
        case HTP_OP_SCALE:
            return htp_op_scale;
        case HTP_OP_CPY:
            return htp_op_cpy;
        case HTP_OP_GET_ROWS:
            return htp_op_get_rows;
        case HTP_OP_SET_ROWS:
            return htp_op_set_rows;
        default:
            return nullptr;
    }
}
