// The op list (abi/include/htp-abi/htp-op-list.h) and the tables generated from it: the opcode
// names, the NPU dispatch table (npu/src/op-table.cpp) and the host's ggml op -> encoder table
// (host/ops/op-encoders.cpp) agree row by row.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ggml.h"
#include "htp-abi/htp-types.h"
#include "op-encoders.h"
#include "op-table.h"

#define DECLARE_ENCODER(name, origin, mdev, params, kernel, encoder) extern const htp_op_encoder encoder;
HTP_OP_LIST(DECLARE_ENCODER)
#undef DECLARE_ENCODER
#define DECLARE_ALIAS_ENCODER(name, encoder) extern const htp_op_encoder encoder;
HTP_GGML_OP_ALIASES(DECLARE_ALIAS_ENCODER)
#undef DECLARE_ALIAS_ENCODER

static const htp_op_encoder * encoder_of(ggml_op op) {
    ggml_tensor t = {};
    t.op          = op;
    return htp_find_op_encoder(&t);
}

TEST(OpList, EveryOpcodeHasAUniqueNameAKernelAndParamsThatFit) {
    std::set<std::string> names;
    for (uint32_t op = 1; op < HTP_OP_COUNT; op++) {
        const std::string name = htp_opcode_name(op);
        EXPECT_NE(name, "?") << "opcode " << op;
        EXPECT_TRUE(names.insert(name).second) << name << " named twice";
        EXPECT_NE(htp_op_lookup(op), nullptr) << name;
        EXPECT_GE(htp_opcode_params_size(op), sizeof(htp_split_params)) << name;
        EXPECT_LE(htp_opcode_params_size(op), (uint32_t) HTP_KERNEL_PARAMS_SIZE) << name;
    }
}

TEST(OpList, NoneAndOpcodesPastTheListHaveNoKernel) {
    EXPECT_EQ(htp_op_lookup(HTP_OP_NONE), nullptr);
    EXPECT_EQ(htp_op_lookup(HTP_OP_COUNT), nullptr);
    EXPECT_EQ(htp_op_lookup(0xffffffffu), nullptr);
    EXPECT_STREQ(htp_opcode_name(HTP_OP_COUNT), "?");
    EXPECT_EQ(htp_opcode_params_size(HTP_OP_COUNT), 0u);
}

TEST(OpList, EachOpcodeDispatchesToTheKernelItsRowNames) {
#define CHECK_KERNEL(name, origin, mdev, params, kernel, encoder) EXPECT_EQ(htp_op_lookup(HTP_OP_##name), &kernel) << #name;
    HTP_OP_LIST(CHECK_KERNEL)
#undef CHECK_KERNEL
}

// Every ggml op a GGML row or an alias names finds that row's encoder; every other ggml op
// finds none (supports_op refuses it).
TEST(OpList, GgmlOpsFindExactlyTheEncodersTheListNames) {
    std::set<int> listed;
#define CHECK_GGML(name, encoder)                                        \
    EXPECT_EQ(encoder_of(GGML_OP_##name), &encoder) << "GGML_OP_" #name; \
    listed.insert(GGML_OP_##name);
#define CHECK_PATH(name, encoder)
#define CHECK_HOST(name, encoder)
#define CHECK_ROW(name, origin, mdev, params, kernel, encoder) CHECK_##origin(name, encoder)
    HTP_OP_LIST(CHECK_ROW)
    HTP_GGML_OP_ALIASES(CHECK_GGML)
#undef CHECK_ROW
#undef CHECK_PATH
#undef CHECK_HOST
#undef CHECK_GGML
    for (int op = 0; op < GGML_OP_COUNT; op++) {
        if (!listed.count(op)) {
            EXPECT_EQ(encoder_of((ggml_op) op), nullptr) << ggml_op_name((ggml_op) op) << " has an encoder but no row";
        }
    }
}

// The storage units the dispatcher bounds tensor descriptors with (htp_type_unit,
// abi/include/htp-abi/htp-types.h) are ggml's: block size and bytes of every listed type.
TEST(OpList, TypeUnitsAreGgmlsBlocks) {
    int listed = 0;
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        uint32_t       elems = 0;
        const uint32_t bytes = htp_type_unit((uint32_t) t, &elems);
        if (bytes == 0) {
            continue;
        }
        listed++;
        EXPECT_EQ(bytes, ggml_type_size((ggml_type) t)) << ggml_type_name((ggml_type) t);
        EXPECT_EQ(elems, (uint32_t) ggml_blck_size((ggml_type) t)) << ggml_type_name((ggml_type) t);
    }
    EXPECT_GE(listed, 20);  // every type enum htp_type names
}
