// Opcode -> kernel entry point. Each ops/*.cpp file defines its entry points; the table in
// op-table.cpp lists them. Adding an op: an opcode in htp-abi/htp-ops.h, its params struct in
// htp-abi/htp-kernel-params.h, a file in ops/, a line in op-table.cpp, an encoder on the host.
#pragma once
#include "op-context.h"

htp_op_fn htp_op_lookup(uint32_t opcode);

int htp_op_binary(struct htp_op_context * octx);    // ADD, SUB, MUL, DIV
int htp_op_rms_norm(struct htp_op_context * octx);
int htp_op_scale(struct htp_op_context * octx);
int htp_op_cpy(struct htp_op_context * octx);       // CPY / CONT / DUP
int htp_op_get_rows(struct htp_op_context * octx);
int htp_op_set_rows(struct htp_op_context * octx);
