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
BUILD=${GGML_HEXAGON_BUILD:-$ROOT/build}
BIN=$BUILD/bin
JOBS=${JOBS:-$(nproc)}

log() { printf '[ggml-hexagon] %s\n' "$*" >&2; }
die() { printf '[ggml-hexagon] error: %s\n' "$*" >&2; exit 1; }

# check_sha256 FILE SUM: fail loudly when a download is not what we pinned.
check_sha256() {
    local got
    got=$(sha256sum "$1" | cut -d' ' -f1)
    [ "$got" = "$2" ] || die "checksum mismatch for $1: got $got, want $2"
}
