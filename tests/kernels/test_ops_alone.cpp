// The host encoders (host/ops) linked ALONE: against the ABI, the repacker and ggml, without
// host/src and without any test double (tests/kernels/CMakeLists.txt: this executable links
// nothing else, so an encoder that reached up into host/src would fail its link). And the
// encoders as functions of their arguments: the MUL_MAT path follows the context the caller
// gives (host/ops/encode-context.h), nothing else.
#include <gtest/gtest.h>

#include <cstring>

#include "ggml.h"
#include "mul-mat/mul-mat-paths.h"
#include "op-encoders.h"

namespace {

const htp_device_caps kV79 = { 79, 4, 8u << 20, 24 };

struct graph_ctx {
    ggml_context * ctx = nullptr;
    graph_ctx() {
        ggml_init_params ip = { 16u << 20, nullptr, true };
        ctx                 = ggml_init(ip);
    }
    ~graph_ctx() { ggml_free(ctx); }
};

// MUL_MAT of a Q4_0 weight [256, 64] with `rows` activation rows, encoded under ctx.
uint32_t mul_mat_opcode(const htp_encode_context & ectx, int64_t rows, bool * supported = nullptr) {
    graph_ctx     g;
    ggml_tensor * w  = ggml_new_tensor_2d(g.ctx, GGML_TYPE_Q4_0, 256, 64);
    ggml_tensor * a  = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, 256, rows);
    ggml_tensor * mm = ggml_mul_mat(g.ctx, w, a);
    const htp_op_encoder * enc = htp_find_op_encoder(mm);
    EXPECT_NE(enc, nullptr);
    if (supported) {
        *supported = enc->supports(kV79, mm, ectx);
    }
    htp_op_desc desc;
    std::memset(&desc, 0, sizeof(desc));
    enc->encode(kV79, mm, desc, ectx);
    return desc.opcode;
}

// A context whose src[0] is the tiled layout the weight would have.
htp_encode_context tiled_weight_context() {
    graph_ctx          g;
    ggml_tensor *      w = ggml_new_tensor_2d(g.ctx, GGML_TYPE_Q4_0, 256, 64);
    htp_encode_context ectx;
    ectx.src_tiled[0] = htp_tiled_weight_of_shape(w, ectx.src_layout[0]);
    EXPECT_TRUE(ectx.src_tiled[0]);
    return ectx;
}

TEST(OpsAlone, FlatWeightTakesTheFlatPath) {
    bool supported = false;
    EXPECT_EQ(mul_mat_opcode(htp_encode_context(), 4, &supported), (uint32_t) HTP_OP_MUL_MAT);
    EXPECT_TRUE(supported);
}

TEST(OpsAlone, TiledWeightFollowsTheContext) {
    htp_encode_context ectx = tiled_weight_context();
    // Few rows: tiled HVX; many rows: HMX (the default bound, HTP_MM_TILED_HVX_MAX_ROWS).
    EXPECT_EQ(mul_mat_opcode(ectx, 4), (uint32_t) HTP_OP_MUL_MAT_TILED);
    EXPECT_EQ(mul_mat_opcode(ectx, 2 * HTP_MM_TILED_HVX_MAX_ROWS), (uint32_t) HTP_OP_MUL_MAT_HMX);
    // The settings are the context's: a lower bound sends the same few rows to HMX ...
    ectx.mm.tiled_hvx_max_rows = 2;
    EXPECT_EQ(mul_mat_opcode(ectx, 4), (uint32_t) HTP_OP_MUL_MAT_HMX);
    // ... and without HMX (GGML_HEXAGON_NHMX=0) many rows stay on tiled HVX.
    ectx.mm.hmx = false;
    EXPECT_EQ(mul_mat_opcode(ectx, 2 * HTP_MM_TILED_HVX_MAX_ROWS), (uint32_t) HTP_OP_MUL_MAT_TILED);
}

TEST(OpsAlone, FlatOnlySettingsRefuseNoShape) {
    // MM_SELECT=1 (flat only): supports_op checks no tiled layout, and a flat weight with
    // many rows keeps the flat path (no rt-repack on HMX).
    htp_encode_context ectx;
    ectx.mm.select = HTP_MM_SELECT_FLAT;
    bool supported = false;
    EXPECT_EQ(mul_mat_opcode(ectx, 2 * HTP_MM_TILED_HVX_MAX_ROWS, &supported), (uint32_t) HTP_OP_MUL_MAT);
    EXPECT_TRUE(supported);
    // With the default settings the same node goes rt-repack + HMX.
    EXPECT_EQ(mul_mat_opcode(htp_encode_context(), 2 * HTP_MM_TILED_HVX_MAX_ROWS), (uint32_t) HTP_OP_MUL_MAT_HMX);
}

}  // namespace
