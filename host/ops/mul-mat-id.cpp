// Host side of MUL_MAT_ID (mixture of experts): MUL_MAT's plans with activation rows gathered
// by expert and results scattered row by row (htp-abi/params/mul-mat.h, docs/mul-mat.md).
// Flat weights take the flat HVX plan (MUL_MAT_ID); a tiled expert stack takes the tiled HVX
// plan (MUL_MAT_ID_TILED), so the graph keeps it tiled (mm_id_tiled_ok, mul-mat-paths.h).
#include <algorithm>

#include "mul-mat-flat.h"
#include "mul-mat-paths.h"
#include "mul-mat-tiled.h"

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

// Tiled expert stacks: a token routes to an expert at most once in practice (top-k), so an
// expert gets up to n_tokens rows; passes of that many (the plan caps them; duplicates only
// cost extra passes). GGML_HEXAGON_MM_SELECT=hmx refuses (no HMX MUL_MAT_ID yet).
bool plan_mul_mat_id_tiled(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw,
                           mmt_plan & pl) {
    if (htp_mm_config().select == HTP_MM_SELECT_HMX) {
        return false;
    }
    const ggml_tensor * w      = op->src[0];
    const uint32_t      n_rows = (uint32_t) std::min<int64_t>(op->src[2]->ne[1], HTP_MMT_MAX_ACT_ROWS);
    return w->ne[3] == 1 && mmt_plan_tiled(caps, w, tw, n_rows, op->nb[1], true, false, pl);
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
    // The flat plan must hold whatever the repack state: a tiled stack no tiled plan takes
    // is turned flat by the graph (mm_id_tiled_ok).
    mm_plan pl;
    return plan_mul_mat_id(caps, op, pl);
}

void fill_routing(const ggml_tensor * op, htp_mm_id_routing & r) {
    const ggml_tensor * ids = op->src[2];
    r.n_as     = (uint32_t) op->src[0]->ne[2];
    r.n_ids    = (uint32_t) ids->ne[0];
    r.n_tokens = (uint32_t) ids->ne[1];
    r.ids_nb1  = (uint32_t) ids->nb[1];
    r.div_ne11 = htp_fastdiv_init((uint32_t) op->src[1]->ne[1]);
}

void mul_mat_id_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc) {
    const ggml_tensor * w = op->src[0];
    const ggml_tensor * a = op->src[1];
    htp_tiled_weight    tw;
    if (htp_weight_tiled && htp_weight_tiled(w, tw)) {
        // The graph keeps a stack tiled only where mm_id_tiled_ok said yes.
        htp_mul_mat_id_tiled_params & p = desc.params.mul_mat_id_tiled;
        mmt_plan                      pl;
        if (!plan_mul_mat_id_tiled(caps, op, tw, pl)) {
            desc.opcode = HTP_OP_NONE;  // unreachable; fails loudly on the NPU
            return;
        }
        desc.opcode        = HTP_OP_MUL_MAT_ID_TILED;
        desc.src[0].offset = (uint64_t) ((int64_t) desc.src[0].offset + tw.data_offset);
        desc.src[0].flags |= HTP_TENSOR_TILED;
        mmt_fill_tiled(pl, w, tw, a, op, p.mm);
        fill_routing(op, p.route);
        return;
    }
    htp_mul_mat_id_params & p = desc.params.mul_mat_id;
    desc.opcode               = HTP_OP_MUL_MAT_ID;
    mm_plan pl;
    plan_mul_mat_id(caps, op, pl);
    mm_fill_flat(pl, w, a, op, p.mm);
    fill_routing(op, p.route);
}

}  // namespace

bool mm_id_tiled_ok(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw) {
    mmt_plan pl;
    return plan_mul_mat_id_tiled(caps, op, tw, pl);
}

extern const htp_op_encoder htp_mul_mat_id_encoder = { mul_mat_id_supports, mul_mat_id_encode };
