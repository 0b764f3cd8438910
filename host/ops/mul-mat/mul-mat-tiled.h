// The tiled-weight HVX plan shared by MUL_MAT (the mm_tiled_hvx_* hooks of mul-mat-tiled.cpp)
// and MUL_MAT_ID over tiled expert stacks (mul-mat-id.cpp): threads, work items (column
// tiles x K chunks), buffers and the VTCM layout (htp-abi/params/mul-mat.h, docs/mul-mat.md
// "Tiled HVX path").
#pragma once
#include "encode-util.h"
#include "mul-mat-paths.h"

namespace htp_enc {

struct mmt_plan {
    // From the weight and its tiling.
    uint32_t order;        // enum htp_mmt_act_order: the activation quant order the format's dot wants
    uint32_t n_ct;         // column tiles (32 weight rows = 32 output columns each)
    uint32_t n_kt;         // tiles along K per column tile
    uint32_t pitch;        // VTCM bytes per weight tile (tile_bytes rounded up to 128)
    uint32_t act_pitch;    // bytes of one prepared activation row (K / 32 blocks of HTP_MMT_ACT_BLK_VECS vectors)
    uint32_t stage;        // bytes of one F32 activation row (K * 4), the staging slot's size
    // Activation passes.
    uint32_t n_act;        // activation rows per pass (<= HTP_MMT_MAX_ACT_ROWS)
    uint32_t priv;         // 1: every thread prepares its own copy of the rows (few rows); 0: one shared copy
    uint32_t out_per_row;  // 1: results leave one 1-D descriptor per activation row (scatter, or
                           // strides the 2-D DMA fields cannot hold)
    // Threads and work items (cpc column tiles x one K chunk each).
    uint32_t n_threads;    // HVX threads over column tiles
    uint32_t q_threads;    // HVX threads of the shared activation prep (<= n_act)
    uint32_t rpt;          // column tiles per thread (a multiple of cpc)
    uint32_t cpc;          // column tiles per work item (1 when n_kchunks > 1)
    uint32_t kpc;          // K tiles per work item's chunk (Q2_K: whole super-blocks)
    uint32_t n_kchunks;    // K chunks per column tile (> 1: partial sums kept in vacc)
    uint32_t n_bufs;       // work items in flight per thread (weight and output slots)
    // VTCM (bytes): per thread, then the shared activations.
    uint32_t per_thread;   // all of one thread's VTCM, 128-aligned
    uint32_t vw_slot;      // one weight slot: cpc * kpc tiles
    uint32_t vout_pitch;   // one activation row's results in an output slot: cpc * 128
    uint32_t vacc_bytes;   // partial sums across K chunks (0 when n_kchunks == 1)
    uint32_t act_bytes;    // shared prepared activations after the threads' VTCM (0 when priv)
    uint32_t bias;         // 1: a fused bias ADD (vbias slots, one more fetch descriptor per item)
};

// Plans the tiled weight w (layout tw; every plane of w must be addressable) against up to
// n_rows activation rows per pass, results written to rows dst_nb1 bytes apart. scatter:
// each activation row's results leave with their own descriptor (MUL_MAT_ID). bias: room for
// a fused bias ADD's slice next to each work item (MUL_MAT+ADD). False when the format or
// shape does not fit.
bool mmt_plan_tiled(const htp_device_caps & caps, const ggml_tensor * w, const htp_tiled_weight & tw, uint32_t n_rows,
                    uint64_t dst_nb1, bool scatter, bool bias, mmt_plan & pl);

// Fills p from the plan: weights w (tiled as tw), activations a, result dst (strides as
// they are; MUL_MAT's plane fields from a's and w's dims 2 and 3). With pl.bias the bias
// slots are placed; has_bias and the bias strides are the caller's.
void mmt_fill_tiled(const mmt_plan & pl, const ggml_tensor * w, const htp_tiled_weight & tw, const ggml_tensor * a,
                    const ggml_tensor * dst, htp_mul_mat_tiled_params & p);

}  // namespace htp_enc
