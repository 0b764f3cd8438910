// ggml op -> host encoder, generated from HTP_OP_LIST (abi/include/htp-abi/htp-op-list.h):
// each GGML row's ggml op, and the ggml ops of HTP_GGML_OP_ALIASES. Every encoder a row names
// must be defined in host/ops/ (no weak symbols: a missing one fails the link).
#include "op-encoders.h"

#define HTP_DECLARE_ENCODER(name, origin, mdev, params, kernel, encoder) extern const htp_op_encoder encoder;
HTP_OP_LIST(HTP_DECLARE_ENCODER)
#undef HTP_DECLARE_ENCODER
#define HTP_DECLARE_ALIAS_ENCODER(name, encoder) extern const htp_op_encoder encoder;
HTP_GGML_OP_ALIASES(HTP_DECLARE_ALIAS_ENCODER)
#undef HTP_DECLARE_ALIAS_ENCODER

const htp_op_encoder * htp_find_op_encoder(const ggml_tensor * op) {
// PATH rows are kernels an encoder chooses for another ggml op, HOST rows ops the host issues
// itself: no case of their own.
#define HTP_ENCODER_CASE_GGML(name, encoder) case GGML_OP_##name: return &encoder;
#define HTP_ENCODER_CASE_PATH(name, encoder)
#define HTP_ENCODER_CASE_HOST(name, encoder)
#define HTP_ENCODER_CASE(name, origin, mdev, params, kernel, encoder) HTP_ENCODER_CASE_##origin(name, encoder)
    switch (op->op) {
        HTP_OP_LIST(HTP_ENCODER_CASE)
        HTP_GGML_OP_ALIASES(HTP_ENCODER_CASE_GGML)
        default: return nullptr;
    }
#undef HTP_ENCODER_CASE
#undef HTP_ENCODER_CASE_PATH
#undef HTP_ENCODER_CASE_HOST
#undef HTP_ENCODER_CASE_GGML
}
