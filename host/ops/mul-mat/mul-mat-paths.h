// The contract between MUL_MAT's host-side paths (docs/mul-mat.md, "Paths"):
//   - flat HVX path      host/ops/mul-mat/mul-mat.cpp       (weights in ggml's flat layout)
//   - tiled HVX path     host/ops/mul-mat/mul-mat-tiled.cpp (token generation: vrmpy over tiles)
//   - HMX path           host/ops/mul-mat/mul-mat-hmx.cpp   (prompts: FP16 32x32 tiles on HMX)
// A weight tensor is tiled when its device buffer repacked it at set_tensor
// (host/src/weight-repack.cpp, docs/tiled-formats.md). supports_op never looks at that state
// (docs/architecture.md, "Scheduling"): mul_mat_supports accepts a weight type only if the flat
// path and every tiled path handle it; encode then picks the path from the repack state:
//   tiled weight: tiled HVX when its hooks exist, its plan succeeds and the activation rows
//                 per plane are <= htp_mm_settings::tiled_hvx_max_rows
//                 (GGML_HEXAGON_MM_HVX_ROWS, default HTP_MM_TILED_HVX_MAX_ROWS); else HMX.
//                 GGML_HEXAGON_MM_SELECT=hvx / hmx forces one; GGML_HEXAGON_NHMX=0 removes HMX.
//   flat weight:  rt-repack + HMX (the HMX path repacks the flat rows into tiles in VTCM as
//                 they stream in, with the repacker of repack/) when the weight type has a
//                 tiled format, HMX plans it and the activation rows per plane are
//                 > HTP_MM_FLAT_HVX_MAX_ROWS (the repack cost is shared by many rows), or
//                 always with GGML_HEXAGON_MM_SELECT=hmx / GGML_HEXAGON_RTREPACK=all;
//                 else (GGML_HEXAGON_RTREPACK=0, few rows, MM_SELECT=hvx, NHMX=0) the flat
//                 HVX path. Either way the flat path's plan decides supports_op, so the
//                 choice never changes what is supported.
#pragma once
#include <cstdint>

#include "ggml.h"
#include "htp-abi/htp-abi.h"
#include "op-encoders.h"

// Activation rows per plane up to which a FLAT weight of a tiled type keeps the flat HVX path
// instead of rt-repack + HMX (GGML_HEXAGON_RTREPACK=1).
#define HTP_MM_FLAT_HVX_MAX_ROWS 8


// The activation description of every MUL_MAT path's params (htp-abi/params/mul-mat.h
// htp_mm_act), for weight w, activations a and result dst: filled here only, so the flat,
// tiled and HMX paths (and MUL_MAT_ID's) agree on it. Implemented in host/ops/mul-mat/mul-mat.cpp.
htp_mm_act mm_act_describe(const ggml_tensor * w, const ggml_tensor * a, const ggml_tensor * dst);

// The tile grid a flat weight gets when the HMX path repacks it at run time (tw.flat set):
// false when w's type has no tiled format or its K does not split into tiles.
bool htp_rt_repack_weight(const ggml_tensor * w, htp_tiled_weight & tw);

// Whether op's flat weight goes rt-repack + HMX (HTP_MM_ROUTE_HMX, tw filled) or the flat HVX
// path (HTP_MM_ROUTE_NONE). Implemented in host/ops/mul-mat/mul-mat.cpp.


// The tiled layout w would have if it were tiled (for supports_op, which must not look at
// buffers): false when w's type or row layout has none.
bool htp_tiled_weight_of_shape(const ggml_tensor * w, htp_tiled_weight & tw);

// Path hooks. plan: true when the path can run op with this tiled weight on this device;
// encode: sets desc.opcode and desc.params (called only after plan returned true).
// Tiled HVX: host/ops/mul-mat/mul-mat-tiled.cpp; HMX: host/ops/mul-mat/mul-mat-hmx.cpp.
bool mm_tiled_hvx_plan(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw);
void mm_tiled_hvx_encode(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw,
                         htp_op_desc & desc);
// MUL_MAT+ADD fusion (host/ops/mul-mat/mul-mat-fusions.cpp): plans and encodes op writing dst (the ADD)
// with room for a bias; false when that plan does not fit. The caller sets has_bias / bias.
bool mm_tiled_hvx_encode_bias(const htp_device_caps & caps, const ggml_tensor * op, const ggml_tensor * dst,
                              const htp_tiled_weight & tw, htp_op_desc & desc);
bool mm_hmx_plan(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw);
void mm_hmx_encode(const htp_device_caps & caps, const ggml_tensor * op, const htp_tiled_weight & tw,
                   htp_op_desc & desc);

// Which tiled path op's encode will take for this tiled weight (GGML_HEXAGON_MM_SELECT /
// NHMX honoured), or HTP_MM_ROUTE_NONE when none can: the graph then turns the weight flat
// (un-repacks it in place) before encoding. Implemented in host/ops/mul-mat/mul-mat.cpp.
enum htp_mm_route { HTP_MM_ROUTE_NONE = 0, HTP_MM_ROUTE_TILED_HVX = 1, HTP_MM_ROUTE_HMX = 2 };
htp_mm_route htp_mm_route_tiled(const htp_device_caps & caps, const htp_mm_settings & mm, const ggml_tensor * op,
                                const htp_tiled_weight & tw);
htp_mm_route htp_mm_route_flat(const htp_device_caps & caps, const htp_mm_settings & mm, const ggml_tensor * op,
                               htp_tiled_weight & tw);

// The weight source (src[0]) of desc reads the tiles of tw: its offset moves to their data and
// it is flagged HTP_TENSOR_TILED (MUL_MAT's and MUL_MAT_ID's encoders, before their tiled paths).
void mm_src0_to_tiles(htp_op_desc & desc, const htp_tiled_weight & tw);

// MUL_MAT_ID: true when its encoder takes this tiled expert stack;
// otherwise the graph un-repacks the weight before a MUL_MAT_ID uses it.
bool mm_id_tiled_ok(const htp_device_caps & caps, const htp_mm_settings & mm, const ggml_tensor * op,
                    const htp_tiled_weight & tw);

