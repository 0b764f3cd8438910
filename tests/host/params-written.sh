#!/usr/bin/env bash
# Every encoder writes every field of its op's kernel_params: with GGML_HEXAGON_PARAMS_CHECK=1
# the host encodes each op a second time into params full of a pattern and logs an encoder
# that leaves bytes unset (host/src/graph.cpp, check_params_written). test-backend-ops walks
# the cases with GGML_HEXAGON_OPSTAGE=1 (the NPU runs no kernel, so its FAIL lines are
# expected and ignored); weights flat and repacked (GGML_HEXAGON_REPACK=all: the tiled HVX and
# HMX paths). Passes when no "leaves params bytes unset" line appears and HTP0 ran cases.
# usage: params-written.sh BIN_DIR [all]   (all: every op and case, ~15 min; else a quick set)
set -uo pipefail
bin=$1; scope=${2:-quick}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0; runs=0
check() {  # REPACK OP [FILTER]
    local rp=$1 op=$2 filter=${3:-} args=(test -b HTP0)
    [ "$op" = all ] || args+=(-o "$op")
    [ -n "$filter" ] && args+=(-p "$filter")
    GGML_HEXAGON_REPACK=$rp GGML_HEXAGON_PARAMS_CHECK=1 GGML_HEXAGON_OPSTAGE=1 \
        "$bin/test-backend-ops" "${args[@]}" >"$work/out" 2>&1
    local cases unset
    # "  0/36 tests passed": the kernels were staged off, the 36 cases were encoded
    cases=$(grep -oE '[0-9]+/[0-9]+ tests passed' "$work/out" | awk -F'[/ ]' '{ n += $2 } END { print n + 0 }')
    unset=$(grep -E 'leaves params bytes unset' "$work/out" || true)
    echo "REPACK=$rp $op${filter:+ ($filter)}: $cases cases encoded"
    [ "$cases" -gt 0 ] || { tail -n 5 "$work/out"; echo "FAIL: no case ran for $op"; bad=1; }
    [ -z "$unset" ] || { echo "$unset"; bad=1; }
    runs=$((runs + 1))
}
if [ "$scope" = all ]; then
    check 1 all
    check all MUL_MAT
    check all MUL_MAT_ID
else
    for op in ADD MUL RMS_NORM SCALE SOFT_MAX ROPE SWIGLU GELU CPY GET_ROWS SET_ROWS SUM_ROWS CONCAT RMS_NORM_MUL_ADD \
        MUL_MAT_VEC_FUSION RWKV_WKV6 RWKV_WKV7 GATED_LINEAR_ATTN LIGHTNING_INDEXER; do
        check 1 "$op"
    done
    for rp in 1 all; do
        check "$rp" MUL_MAT
        check "$rp" MUL_MAT_ID '^(?!.*(n_mats=(128|512|1024)|,m=(4096|2880),))'
    done
    check 1 FLASH_ATTN_EXT 'kv=113,nb=3,'
fi
[ "$bad" = 0 ] || { echo "FAIL"; exit 1; }
echo "PASS ($runs runs)"
