#!/usr/bin/env bash
# Builds ggml-hexagon (host backend, vHTP, NPU libraries v73..v81, tests) into $BUILD
# (default ./build) and stages the llama.cpp tools beside our libraries in $BUILD/bin.
#   scripts/build.sh [-DVAR=VALUE...]   env: GGML_HEXAGON_BUILD (build folder), JOBS
# -D/-U arguments go to cmake's configure step (e.g. -DGGML_HEXAGON_SANITIZE=address,undefined).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
for arg in "$@"; do
    case "$arg" in
        -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
        -D?*|-U?*) ;;
        *) die "unknown argument '$arg': only -DVAR=VALUE / -UVAR go to cmake (see --help)" ;;
    esac
done

model_arg=()
[ -f "$MODEL" ] && model_arg=(-DGGML_HEXAGON_MODEL="$MODEL")
if [ ! -f "$BUILD/build.ninja" ] || [ $# -gt 0 ]; then
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DLLAMA_SRC="$LLAMA_SRC" -DLLAMA_BUILD="$LLAMA_BUILD" -DGGML_HEXAGON_WERROR=ON "${model_arg[@]}" "$@" >/dev/null
fi
log "building ggml-hexagon in $BUILD"
cmake --build "$BUILD" -j "$JOBS"
