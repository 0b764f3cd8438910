// What a device runs: ggml asks supports_op of every node; the answer comes from the op's encoder
// (host/ops) and the configuration (OPFILTER, FA_SELECT, GDN_SELECT), never from buffers.
#include "support.h"

#include <regex>

#include "log.h"

// Ops that only reinterpret their input: nothing runs for them, on any device.
bool htp_op_is_view(const ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_NONE:
        case GGML_OP_VIEW:
        case GGML_OP_RESHAPE:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
            return true;
        default:
            return false;
    }
}

bool htp_op_writes_nothing(const ggml_tensor * op) {
    return ggml_is_empty(op) || (op->op == GGML_OP_SET_ROWS && ggml_is_empty(op->src[0]));
}

// Decided from static tensor properties only, never buffers or repack state (docs/architecture.md).
bool htp_device_supports_op(const htp_registry & reg, const htp_device & d, const ggml_tensor * op) {
    if (htp_op_is_view(op) || htp_op_writes_nothing(op)) {
        return true;  // nothing runs for them (graph.cpp skips them)
    }
    if (reg.cfg.has_opfilter && op->op != GGML_OP_SET_ROWS && std::regex_search(ggml_op_desc(op), reg.cfg.opfilter)) {
        return false;
    }
    // GGML_HEXAGON_FA_SELECT=0 / GDN_SELECT=0: those ops stay on the CPU.
    const bool cpu_selected = (op->op == GGML_OP_FLASH_ATTN_EXT && reg.cfg.fa_select == HTP_SELECT_CPU) ||
                              (op->op == GGML_OP_GATED_DELTA_NET && reg.cfg.gdn_select == HTP_SELECT_CPU);
    const htp_op_encoder * enc = htp_find_op_encoder(op);
    htp_encode_context     ctx;  // supports_op never sees buffers: every source flat
    ctx.mm                     = d.mm;
    const bool             ok  = !cpu_selected && enc && enc->supports(d.caps, op, ctx);
    if (!ok && reg.cfg.verbose >= 2) {
        // Why a graph splits: every refusal, with what the scheduler asked about.
        HTP_LOG_REQUESTED("%s: refused %s (%s) %s [%lld,%lld,%lld,%lld] src0 %s src1 %s", d.spec.name.c_str(),
                          ggml_op_desc(op), op->name, ggml_type_name(op->type), (long long) op->ne[0],
                          (long long) op->ne[1], (long long) op->ne[2], (long long) op->ne[3],
                          op->src[0] ? ggml_type_name(op->src[0]->type) : "-",
                          op->src[1] ? ggml_type_name(op->src[1]->type) : "-");
    }
    return ok;
}
