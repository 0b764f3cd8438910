// What an encoder reads besides the node and the device caps (op-encoders.h): the MUL_MAT path
// settings and where each source's bytes lie. The caller in host/src resolves it (the settings
// from its config, the tiled layouts from the buffers' repack records: host/src/weight-repack.h,
// htp_encode_context_of), so the encoders of host/ops are functions of their arguments and link
// without host/src (tests/kernels/test_ops_alone.cpp links them alone).
#pragma once
#include <cstdint>

#include "htp-abi/htp-abi.h"

// Activation rows per plane (src1->ne[1]) up to which a tiled weight goes the tiled HVX way by
// default: the vHTP's measured crossover (docs/speed.md "Short prompts"). Its HMX is exact
// double arithmetic on host cores, so HMX pays off only from about 256 rows here; on a
// phone's HMX the crossover is lower, which GGML_HEXAGON_MM_HVX_ROWS sets.
#define HTP_MM_TILED_HVX_MAX_ROWS 128

// Where a tiled weight's bytes are. A "plane" is one (i2, i3) matrix of the weight: a grid of
// n_col_tiles x n_k_tiles tiles (tile (ct, kt) at (ct * n_k_tiles + kt) * tile_bytes from the
// plane's start, layouts in htp-abi/htp-tile-formats.h); rows padded to n_col_tiles * 32.
// When the encoders run, desc.src[0].offset already points at plane (0, 0) of the weight as
// the op sees it (views covering whole planes are resolved), and desc.src[0].flags has
// HTP_TENSOR_TILED; plane (i2, i3) of the weight starts at i2 * nb2 + i3 * nb3 from there.
// desc.src[0].ne/nb stay those of the flat ggml view (nb are meaningless for tiled data).
struct htp_tiled_weight {
    uint32_t format;       // enum htp_type (== ggml_type) of the weight
    uint32_t k_cols;       // K columns per tile (htp_tile_k_cols)
    uint32_t n_k_tiles;    // tiles along K: ne00 / k_cols
    uint32_t n_col_tiles;  // row tiles: ceil(ne01 / 32)
    uint32_t tile_bytes;   // bytes per tile (htp_tile_size)
    uint64_t plane_bytes;  // n_col_tiles * n_k_tiles * tile_bytes
    uint64_t nb2;          // bytes between planes i2 and i2 + 1 (of the weight as the op sees it)
    uint64_t nb3;          // bytes between planes i3 and i3 + 1
    int64_t  data_offset;  // bytes from w->data (the flat address) to plane (0, 0)'s first tile
    // rt-repack: the weight is FLAT (ggml's layout) and the path repacks it at run time into
    // the tile grid above; nb2 / nb3 are then the flat plane strides and flat_nb1 the row
    // stride (htp_rt_repack_weight). Only the HMX path takes such a weight.
    bool     flat     = false;
    uint64_t flat_nb1 = 0;
};

// Path choice settings (GGML_HEXAGON_MM_SELECT, GGML_HEXAGON_NHMX, GGML_HEXAGON_RTREPACK), set
// by the backend from its config (host/src/registry.cpp: htp_device::mm). MM_SELECT: AUTO (upstream's 3) HMX, then
// tiled HVX, then flat; HVX (2) tiled HVX, then flat; FLAT (1) the flat path only (the backend
// then repacks no weight); HMX (ours) forces HMX.
enum htp_mm_select { HTP_MM_SELECT_AUTO = 0, HTP_MM_SELECT_HVX = 1, HTP_MM_SELECT_HMX = 2, HTP_MM_SELECT_FLAT = 3 };
enum htp_mm_rtrepack { HTP_MM_RTREPACK_OFF = 0, HTP_MM_RTREPACK_AUTO = 1, HTP_MM_RTREPACK_ALL = 2 };
struct htp_mm_settings {
    htp_mm_select   select   = HTP_MM_SELECT_AUTO;
    bool            hmx      = true;  // GGML_HEXAGON_NHMX=0 -> false
    htp_mm_rtrepack rtrepack = HTP_MM_RTREPACK_AUTO;
    uint32_t        tiled_hvx_max_rows = HTP_MM_TILED_HVX_MAX_ROWS;  // GGML_HEXAGON_MM_HVX_ROWS
};

struct htp_encode_context {
    htp_mm_settings mm;
    // src[i]'s tiled layout when its buffer holds it tiled (only a MUL_MAT's or MUL_MAT_ID's
    // weight, src[0], can be); flat otherwise. Resolved for encode and the fusers at node i;
    // supports_op never sees buffers, so its context has every source flat.
    bool             src_tiled[HTP_MAX_SRC] = {};
    htp_tiled_weight src_layout[HTP_MAX_SRC] = {};

    // True (tw filled) when src i is tiled.
    bool tiled(int i, htp_tiled_weight & tw) const {
        if (!src_tiled[i]) {
            return false;
        }
        tw = src_layout[i];
        return true;
    }
};
