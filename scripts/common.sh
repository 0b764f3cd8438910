#!/usr/bin/env bash
# Shared paths and helpers for the project's scripts. Source it; do not run it.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../deps/pins.env
source "$ROOT/deps/pins.env"
# Downloads and the llama.cpp build are cached outside git, shared by every clone.
CACHE=${GGML_HEXAGON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ggml-hexagon}
LLAMA_SRC=$CACHE/src/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp
LLAMA_BUILD=$CACHE/build/llama-$LLAMA_CPP_COMMIT
MODEL=$CACHE/models/gemma-3-270m-q4_k_m.gguf
if [ -f "$ROOT/CMakeLists.txt" ]; then  # the source tree
    BUILD=${GGML_HEXAGON_BUILD:-$ROOT/build}
    DOCS=$ROOT/docs                       # where the benchmarks write their reports
else  # installed (cmake/install.cmake): ROOT is PREFIX/share/ggml-hexagon, programs in PREFIX/bin
    BUILD=${GGML_HEXAGON_BUILD:-$(cd "$ROOT/../.." && pwd)}
    DOCS=$PWD
fi
BIN=$BUILD/bin
JOBS=${JOBS:-$(nproc)}

log() { printf '[ggml-hexagon] %s\n' "$*" >&2; }
die() { printf '[ggml-hexagon] error: %s\n' "$*" >&2; exit 1; }

# help_or_option END "$@": -h / --help as a script's first argument prints the script's
# header lines 2..END and exits; another option (a leading -) ends it with one line.
help_or_option() {
    case "${2:-}" in
        -h|--help) sed -n "2,${1}p" "$0"; exit 0 ;;
        -*) die "unknown option '$2' (see --help)" ;;
    esac
}

# check_sha256 FILE SUM: fail loudly when a download is not what we pinned.
check_sha256() {
    local got
    got=$(sha256sum "$1" | cut -d' ' -f1)
    [ "$got" = "$2" ] || die "checksum mismatch for $1: got $got, want $2"
}

# Run rather than sourced: say what it is.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case "${1:-}" in
        -h|--help) sed -n '2p' "$0"; echo "  source scripts/common.sh   (sets ROOT, CACHE, LLAMA_SRC, LLAMA_BUILD, MODEL, BUILD, BIN, DOCS)"; exit 0 ;;
        *) die "scripts/common.sh is sourced by the other scripts, not run (see --help)" ;;
    esac
fi
