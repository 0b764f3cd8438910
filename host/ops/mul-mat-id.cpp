// Host side of MUL_MAT_ID (mixture of experts) on the flat HVX path: MUL_MAT's plan with
// activation rows gathered by expert and results scattered row by row
// (htp-abi/params/mul-mat.h, docs/mul-mat.md).
#include <algorithm>

#include "mul-mat-flat.h"
#include "mul-mat-paths.h"

using namespace htp_enc;

namespace {

// Activation rows per chunk: every (slot, token) pair may route to one expert, but each row's
// results need their own write-back descriptor, so at most 16 (the rest of the DMA budget
// goes to weight rows).
constexpr uint32_t MM_ID_MAX_ACT = 16;

bool plan_mul_mat_id(const htp_device_caps & caps, const ggml_tensor * op, mm_plan & pl) {
    const ggml_tensor * ids   = op->src[2];
    const uint64_t      pairs = (uint64_t) ids->ne[0] * (uint64_t) ids->ne[1];
    return mm_plan_flat(caps, op->src[0], (uint32_t) std::min<uint64_t>(pairs, MM_ID_MAX_ACT), true, pl);
}

bool mul_mat_id_supports(const htp_device_caps & caps, const ggml_tensor * op) {
    const ggml_tensor * w   = op->src[0];
    const ggml_tensor * a   = op->src[1];
    const ggml_tensor * ids = op->src[2];
    if (!w || !a || !ids || op->type != GGML_TYPE_F32 || a->type != GGML_TYPE_F32 || ids->type != GGML_TYPE_I32) {
        return false;
    }
    if (w->nb[0] != ggml_type_size(w->type) || a->nb[0] != 4 || op->nb[0] != 4 || ids->nb[0] != 4 ||
        w->ne[0] != a->ne[0]) {
        return false;
    }
    // ggml_mul_mat_id's shapes: W [K, M, n_as], A [K, ne11, T], ids [n_ids, T], dst [M, n_ids, T].
    if (w->ne[3] != 1 || a->ne[3] != 1 || ids->ne[2] != 1 || ids->ne[3] != 1 || ids->ne[1] != a->ne[2] ||
        a->ne[1] == 0 || ids->ne[0] % a->ne[1] != 0 || op->ne[0] != w->ne[1] || op->ne[1] != ids->ne[0] ||
        op->ne[2] != ids->ne[1]) {
        return false;
    }
    if (w->ne[2] > HTP_MM_ID_MAX_EXPERTS || ids->ne[0] == 0 || ids->ne[1] == 0) {
        return false;
    }
    if (!fits_u32(w) || !fits_u32(a) || !fits_u32(ids) || !fits_u32(op)) {
        return false;
    }
    mm_plan pl;
    return plan_mul_mat_id(caps, op, pl);
}

void mul_mat_id_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc) {
    const ggml_tensor *     w   = op->src[0];
    const ggml_tensor *     a   = op->src[1];
    const ggml_tensor *     ids = op->src[2];
    htp_mul_mat_id_params & p   = desc.params.mul_mat_id;
    desc.opcode                 = HTP_OP_MUL_MAT_ID;
    // Tiled expert stacks: this encoder defines no mm_id_tiled_ok (mul-mat-paths.h), so the
    // graph turns them flat before a MUL_MAT_ID reads them; a tiled one here is a bug.
    htp_tiled_weight tw;
    if (htp_weight_tiled && htp_weight_tiled(w, tw)) {
        desc.opcode = HTP_OP_NONE;  // fails loudly on the NPU
        return;
    }
    mm_plan pl;
    plan_mul_mat_id(caps, op, pl);
    mm_fill_flat(pl, w, a, op, p.mm);
    p.n_as     = (uint32_t) w->ne[2];
    p.n_ids    = (uint32_t) ids->ne[0];
    p.n_tokens = (uint32_t) ids->ne[1];
    p.ids_nb1  = (uint32_t) ids->nb[1];
    p.div_ne11 = htp_fastdiv_init((uint32_t) a->ne[1]);
}

}  // namespace

extern const htp_op_encoder htp_mul_mat_id_encoder = { mul_mat_id_supports, mul_mat_id_encode };
