// The dispatch table, one entry per row of HTP_OP_LIST. Every kernel a row names must be
// defined in npu/ops/ (no weak symbols: a missing one fails the link).
#include "op-table.h"

htp_op_fn htp_op_lookup(uint32_t opcode) {
#define HTP_KERNEL_ENTRY(name, origin, mdev, params, kernel, encoder) kernel,
    static const htp_op_fn kernels[HTP_OP_COUNT] = { nullptr, HTP_OP_LIST(HTP_KERNEL_ENTRY) };
#undef HTP_KERNEL_ENTRY
    return opcode < HTP_OP_COUNT ? kernels[opcode] : nullptr;
}
