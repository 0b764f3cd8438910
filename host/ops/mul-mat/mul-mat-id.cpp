// Host side of MUL_MAT_ID (mixture of experts): MUL_MAT's plans with activation rows gathered
// by expert and results scattered row by row (htp-abi/params/mul-mat.h, docs/mul-mat.md).
// Flat weights take the flat HVX plan (MUL_MAT_ID); a tiled expert stack takes the tiled HVX
// plan (MUL_MAT_ID_TILED) or the HMX plan (MUL_MAT_ID_HMX), chosen as MUL_MAT chooses for a
// tiled weight (route_id_tiled), so the graph keeps it tiled (mm_id_tiled_ok, mul-mat-paths.h).
#include <algorithm>

#include "mul-mat-flat.h"
#include "mul-mat-hmx.h"
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
// expert gets up to n_tokens rows; passes of that many (the plans cap them; duplicates only
// cost extra passes).
uint32_t id_rows(const ggml_tensor * op, uint32_t cap) {
    return (uint32_t) std::min<int64_t>(op->src[2]->ne[1], cap);
}

bool plan_id_tiled_hvx(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw,
                       mmt_plan & pl) {
    const ggml_tensor * w = op->src[0];
    return w->ne[3] == 1 && mmt_plan_tiled(caps, w, tw, id_rows(op, HTP_MMT_MAX_ACT_ROWS), op->nb[1], true, false, pl);
}

bool plan_id_hmx(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw, mmh_plan & pl) {
    return op->src[0]->ne[3] == 1 && !tw.flat && mmh_plan_hmx(caps, op, tw, id_rows(op, HTP_MMH_MAX_ACT_ROWS), pl);
}

// MUL_MAT's rule for a tiled weight (htp_mm_route_tiled) with the op's token count as the
// activation row bound: tiled HVX for up to tiled_hvx_max_rows tokens, HMX above;
// GGML_HEXAGON_MM_SELECT=hvx / hmx forces one, GGML_HEXAGON_NHMX=0 removes HMX. NONE: the
// graph turns the stack flat (MUL_MAT_ID).
htp_mm_route route_id_tiled(const htp_device_caps & caps, const htp_mm_settings & s, const ggml_tensor * op,
                            const htp_tiled_weight & tw) {
    if (s.select == HTP_MM_SELECT_FLAT) {
        return HTP_MM_ROUTE_NONE;
    }
    mmt_plan                hvx;
    mmh_plan                hmx;
    const bool hvx_ok = s.select != HTP_MM_SELECT_HMX && plan_id_tiled_hvx(caps, op, tw, hvx);
    const bool hmx_ok = s.hmx && s.select != HTP_MM_SELECT_HVX && plan_id_hmx(caps, op, tw, hmx);
    const bool few    = op->src[2]->ne[1] <= (int64_t) s.tiled_hvx_max_rows;
    if (hvx_ok && (few || !hmx_ok || s.select == HTP_MM_SELECT_HVX)) {
        return HTP_MM_ROUTE_TILED_HVX;
    }
    return hmx_ok ? HTP_MM_ROUTE_HMX : HTP_MM_ROUTE_NONE;
}

bool mul_mat_id_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * w   = op->src[0];
    const ggml_tensor * a   = op->src[1];
    const ggml_tensor * ids = op->src[2];
    if (op->type != GGML_TYPE_F32 || a->type != GGML_TYPE_F32 || ids->type != GGML_TYPE_I32) {
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

void mul_mat_id_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context & ctx) {
    const ggml_tensor * w = op->src[0];
    const ggml_tensor * a = op->src[1];
    htp_tiled_weight    tw;
    if (ctx.tiled(0, tw)) {
        // The graph keeps a stack tiled only where mm_id_tiled_ok said yes.
        const htp_mm_route r = route_id_tiled(caps, ctx.mm, op, tw);
        mm_src0_to_tiles(desc, tw);
        if (r == HTP_MM_ROUTE_TILED_HVX) {
            htp_mul_mat_id_tiled_params & p = desc.params.mul_mat_id_tiled;
            mmt_plan                      pl;
            plan_id_tiled_hvx(caps, op, tw, pl);
            desc.opcode = HTP_OP_MUL_MAT_ID_TILED;
            mmt_fill_tiled(pl, w, tw, a, op, p.mm);
            fill_routing(op, p.route);
        } else if (r == HTP_MM_ROUTE_HMX) {
            htp_mul_mat_id_hmx_params & p = desc.params.mul_mat_id_hmx;
            mmh_plan                    pl;
            plan_id_hmx(caps, op, tw, pl);
            desc.opcode = HTP_OP_MUL_MAT_ID_HMX;
            mmh_fill_hmx(pl, op, tw, p.mm);
            fill_routing(op, p.route);
        } else {
            desc.opcode = HTP_OP_NONE;  // unreachable; fails loudly on the NPU
        }
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

bool mm_id_tiled_ok(const htp_device_caps & caps, const htp_mm_settings & mm, const ggml_tensor * op,
                    const htp_tiled_weight & tw) {
    return route_id_tiled(caps, mm, op, tw) != HTP_MM_ROUTE_NONE;
}

extern const htp_op_encoder htp_mul_mat_id_encoder = { mul_mat_id_supports, mul_mat_id_encode };
