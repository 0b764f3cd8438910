// MUL_MAT_ID's expert routing, shared by its flat (MUL_MAT_ID) and tiled (MUL_MAT_ID_TILED)
// kernels: the ids are read once (scalar loads, as GET_ROWS does) to check them and mark the
// used experts; then per used expert its (slot, token) pairs are gathered into chunks of
// activation rows that the path runs against that expert's weights only.
#pragma once
#include "mul-mat-rows.h"
#include "op-table.h"

namespace htp_ops {

// Calls run(e, c) for chunks c of up to max_rows (slot i, token t) pairs routed to expert e,
// experts in increasing order: c.n rows, row j's activation row (i % ne11, t) at src1 +
// c.src1_off[j] and its dst row (i, t) at dst + c.dst_off[j] (the caller's arrays of max_rows;
// strides and ne11 from act). Stops at the first status run returns other than HTP_STATUS_OK.
template <class Run>
static int mm_id_route(const htp_op_context * octx, const htp_mm_id_routing & r, const htp_mm_act & act,
                       uint32_t max_rows, uint32_t * src1_off, uint32_t * dst_off, Run && run) {
    if (octx->n_src < 3 || r.n_as > HTP_MM_ID_MAX_EXPERTS || max_rows == 0) {
        return HTP_STATUS_BAD_PARAMS;
    }
    const auto id_at = [&](uint32_t i, uint32_t t) {
        return *(const int32_t *) htp_va(octx->src[2].data + t * r.ids_nb1 + i * 4);
    };

    // Pass 1: validate and mark the used experts.
    uint32_t used[HTP_MM_ID_MAX_EXPERTS / 32];
    for (uint32_t w = 0; w < (r.n_as + 31) / 32; w++) {
        used[w] = 0;
    }
    for (uint32_t t = 0; t < r.n_tokens; t++) {
        for (uint32_t i = 0; i < r.n_ids; i++) {
            const int32_t e = id_at(i, t);
            if (e < 0 || (uint32_t) e >= r.n_as) {
                return HTP_STATUS_BAD_PARAMS;
            }
            used[e / 32] |= 1u << (e % 32);
        }
    }

    // Pass 2: per used expert, chunks of its routed rows.
    mm_act_rows c = { 0, 0, 0, 0, src1_off, dst_off };
    for (uint32_t e = 0; e < r.n_as; e++) {
        if (!(used[e / 32] & (1u << (e % 32)))) {
            continue;
        }
        uint32_t n = 0;
        for (uint32_t t = 0; t < r.n_tokens; t++) {
            for (uint32_t i = 0; i < r.n_ids; i++) {
                if ((uint32_t) id_at(i, t) != e) {
                    continue;
                }
                const uint32_t i11 = i - htp_fastdiv(i, &r.div_ne11) * act.ne11;
                src1_off[n]        = i11 * act.src1.nb1 + t * act.src1.nb2;
                dst_off[n]         = i * act.dst.nb1 + t * act.dst.nb2;
                if (++n == max_rows) {
                    c.n          = n;
                    const int st = run(e, (const mm_act_rows &) c);
                    if (st != HTP_STATUS_OK) {
                        return st;
                    }
                    n = 0;
                }
            }
        }
        if (n) {
            c.n          = n;
            const int st = run(e, (const mm_act_rows &) c);
            if (st != HTP_STATUS_OK) {
                return st;
            }
        }
    }
    return HTP_STATUS_OK;
}

}  // namespace htp_ops
