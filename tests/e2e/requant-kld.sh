#!/usr/bin/env bash
# The default model requantized by llama-quantize --allow-requantize to another weight type,
# then the same HTP0-vs-CPU KLD check as kld.sh. The requantized file is kept in OUT_DIR
# (the build tree) so a re-run does not quantize again.
# usage: requant-kld.sh BIN_DIR MODEL TYPE OUT_DIR TEXT THRESHOLD     (TYPE: Q4_0, Q8_0, Q4_K_S...)
set -euo pipefail
bin=$1; model=$2; type=$3; out_dir=$4; text=$5; threshold=$6
mkdir -p "$out_dir"
out="$out_dir/$(basename "${model%.gguf}")-requant-$type.gguf"
if [ ! -s "$out" ]; then
    "$bin/llama-quantize" --allow-requantize "$model" "$out.tmp" "$type" 2 >"$out.log" 2>&1 ||
        { tail -n 20 "$out.log"; echo "FAIL: llama-quantize to $type failed"; exit 1; }
    mv "$out.tmp" "$out"
fi
echo "model requantized to $type: $out"
exec "$(dirname "$0")/kld.sh" "$bin" "$out" "$text" "$threshold"
