#!/usr/bin/env bash
# llama's tensor split (-sm tensor) over N HTP devices, against the CPU: test-llama-archs'
# random-weight dense llama (an architecture ggml's meta backend splits; it asserts on Gemma 3,
# README "Multi-device"), saved and quantized to Q8_0, through kld.sh. The run must log the
# sums between layers as an NPU op on every device ("op ALLREDUCE ... <- N parts"), and every
# device must run ops. Then llama-bench runs the same split (split-bench.sh).
# usage: tensor-split.sh BIN_DIR TEXT N_DEVICES THRESHOLD [SPLIT_ARGS]   (GGML_HEXAGON_DEVICES must
#   give HTP0:0 .. HTP<N-1>:0; SPLIT_ARGS e.g. "-ts 1,0": device 1's slices are empty, the meta backend
#   leaves its nodes uncomputed and ALLREDUCE counts its parts as zeros)
set -uo pipefail
bin=$1; text=$2; n=$3; threshold=$4; split_args=${5:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { [ -f "$2" ] && tail -n 30 "$2"; echo "FAIL: $1"; exit 1; }

LD_PRELOAD="$bin/libload-all-backends.so" "$bin/test-llama-archs" -a '^llama$' -s 1 -o "$work" \
    >"$work/gen.log" 2>&1 || fail "test-llama-archs -o" "$work/gen.log"
"$bin/llama-quantize" "$work/llama-dense.gguf" "$work/model.gguf" Q8_0 >"$work/quant.log" 2>&1 ||
    fail "llama-quantize Q8_0" "$work/quant.log"
# Session 0 of NPUs 0..N-1 (upstream's recipe for a tensor split: separate NPUs).
devices=HTP0:0
for ((i = 1; i < n; i++)); do devices+=",HTP$i:0"; done
HTP_KLD_DEVICES=$devices HTP_KLD_HTP_ARGS="-sm tensor $split_args" HTP_KLD_EXPECT_LOG="HTP$((n - 1)):0: op ALLREDUCE .* <- $n parts" \
    "$here/kld.sh" "$bin" "$work/model.gguf" "$text" "$threshold" || exit 1
[ -n "$split_args" ] || "$here/split-bench.sh" "$bin" "$work/model.gguf" "$devices" tensor
