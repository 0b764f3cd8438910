// Opcode -> kernel entry point, generated from HTP_OP_LIST (abi/include/htp-abi/htp-op-list.h).
// How to add an op: docs/architecture.md, "Adding an op".
#pragma once
#include "op-context.h"

// Every kernel HTP_OP_LIST names (several opcodes may share one).
#define HTP_DECLARE_KERNEL(name, origin, mdev, params, kernel, encoder) int kernel(struct htp_op_context * octx);
HTP_OP_LIST(HTP_DECLARE_KERNEL)
#undef HTP_DECLARE_KERNEL

// The kernel of `opcode`, or nullptr for HTP_OP_NONE and opcodes past the list.
htp_op_fn htp_op_lookup(uint32_t opcode);
