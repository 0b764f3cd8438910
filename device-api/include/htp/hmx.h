// Device API: the session's HMX unit (matrix engine), 32x32 FP16 tiles with FP32 accumulation.
// One unit per session (htp_session_info.hmx). It is a shared resource: a thread acquires it,
// streams tile pairs through it, stores results, and releases it; other threads block in
// acquire meanwhile. Every operand lives in the session's VTCM and is named by its device
// address, as the hardware reads only VTCM; nothing here takes a host pointer.
//
// Tile formats in VTCM (each tile HTP_HMX_TILE_BYTES, aligned to HTP_HMX_TILE_ALIGN):
//   activation tile  32 rows (M) x 32 (K) fp16, row-major: element (m, k) at half index m*32 + k
//   weight tile      32 output columns (N) x 32 (K) fp16: element (n, k) at n*32 + k, i.e. the
//                    K values of one output column are contiguous (ggml's src0 row layout)
//   output tile      32 (M) x 32 (N), row-major, fp16 or (HTP_HMX_OUT_F32) fp32 (4096 bytes)
//   column params    HTP_HMX_COLPARAM_BYTES: float scale[32] then float bias[32]
// A K-deep product is a run of tile pairs: n_k activation tiles at act, act + 2048, ... and
// n_k weight tiles at w, w + 2048, ... (tile k of each covers K indices [32k, 32k + 32)).
//
// Arithmetic (what the vHTP models; docs/hvx-conformance.md "HMX"): each fp16 x fp16 product is
// exact; the 32 products of one tile pair are summed in fp32 from +0 in k order, rounding to
// nearest-even after each addition (the default model, `fp32`), or summed exactly and rounded
// once to fp32 (GGML_HEXAGON_HMX_MODEL=exact); the tile pair's sum is then added to the fp32
// accumulator (one rounding), tile pairs in k order. The two models differ by at most
// 32 * 2^-24 * sum |products| per tile pair. No public document gives the real unit's internal
// rounding: a kernel must not depend on either model's low bits. Store computes
// fp32(acc * scale[n] + bias[n]) with one rounding (fused), then rounds to fp16 (nearest-even,
// overflow to infinity) unless HTP_HMX_OUT_F32. Subnormals are kept.
#pragma once
#include <stdint.h>

#include "htp/api.h"
#include "htp/memory.h"

#define HTP_HMX_TILE_DIM       32
#define HTP_HMX_TILE_BYTES     2048  // 32 x 32 fp16
#define HTP_HMX_TILE_ALIGN     2048
#define HTP_HMX_COLPARAM_BYTES 256   // float scale[32], float bias[32]
#define HTP_HMX_OUT_F16        0u    // store flags
#define HTP_HMX_OUT_F32        1u

struct htp_hmx;

HTP_DEVICE_API_BEGIN

// Blocks until the calling thread owns the unit; clears the accumulator. Returns an htp_status
// (HTP_STATUS_INTERNAL if the caller already owns it).
int htp_hmx_acquire(struct htp_hmx * hmx);
// Gives the unit up (the accumulator's content is lost). Returns an htp_status.
int htp_hmx_release(struct htp_hmx * hmx);
// Sets the 32x32 fp32 accumulator to zero.
int htp_hmx_clear(struct htp_hmx * hmx);
// The entry points behind htp_hmx_mma / htp_hmx_store below take their 32-bit argument first:
// on Hexagon (six 32-bit argument registers, a 64-bit dma_addr_t in an aligned pair) the order
// (hmx, addr, addr, n) would pass n on the stack, a store in the kernels' loops.
int htp_hmx_mma_entry(struct htp_hmx * hmx, uint32_t n_k, dma_addr_t act_tiles, dma_addr_t weight_tiles);
int htp_hmx_store_entry(struct htp_hmx * hmx, uint32_t flags, dma_addr_t out_tile, dma_addr_t col_params);

HTP_DEVICE_API_END

// acc[m][n] += sum over k < 32 * n_k of act[m][k] * w[n][k] (n_k tile pairs, see above).
static inline int htp_hmx_mma(struct htp_hmx * hmx, dma_addr_t act_tiles, dma_addr_t weight_tiles, uint32_t n_k) {
    return htp_hmx_mma_entry(hmx, n_k, act_tiles, weight_tiles);
}
// out[m][n] = round(acc[m][n] * scale[n] + bias[n]); flags: HTP_HMX_OUT_F16 or HTP_HMX_OUT_F32.
static inline int htp_hmx_store(struct htp_hmx * hmx, dma_addr_t out_tile, dma_addr_t col_params, uint32_t flags) {
    return htp_hmx_store_entry(hmx, flags, out_tile, col_params);
}
// All of these return HTP_STATUS_INTERNAL when the caller does not own the unit and
// HTP_STATUS_BAD_PARAMS when an operand is misaligned or not inside the session's VTCM.
