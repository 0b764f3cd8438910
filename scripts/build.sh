#!/usr/bin/env bash
# Builds ggml-hexagon (host backend, vHTP, NPU libraries v73..v81, tests) into $BUILD
# (default ./build) and stages the llama.cpp tools beside our libraries in $BUILD/bin.
# Extra arguments go to cmake's configure step (e.g. -DGGML_HEXAGON_SANITIZE=address,undefined).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

model_arg=()
[ -f "$MODEL" ] && model_arg=(-DGGML_HEXAGON_MODEL="$MODEL")
if [ ! -f "$BUILD/build.ninja" ] || [ $# -gt 0 ]; then
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DLLAMA_SRC="$LLAMA_SRC" -DLLAMA_BUILD="$LLAMA_BUILD" -DGGML_HEXAGON_WERROR=ON "${model_arg[@]}" "$@" >/dev/null
fi
log "building ggml-hexagon in $BUILD"
cmake --build "$BUILD" -j "$JOBS"
