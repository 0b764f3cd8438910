#!/usr/bin/env bash
# Installs the Hexagon toolchain and emulators that the HVX conformance suite and the hexagon
# compile check use. Cached: a second run only prints where the tools are.
#   - Debian 12: clang-16, lld-16 (target hexagon), qemu-user 7.2 (qemu-hexagon: v65-v67 ELF)
#     and llvm-16 (llvm-objdump-16, llvm-symbolizer-16: tools/ggml-hexagon-inspect.py)
#   - Debian 13's qemu-user 10.0 (static binaries; its qemu-hexagon runs v68-v73 integer HVX),
#     fetched as one pinned .deb through a private apt state under $CACHE and unpacked with
#     dpkg -x. Debian 13 is never added to the machine's apt sources (that would upgrade it).
#   - PyPI's ziglang (zig cc: clang/LLD 22, Hexagon v73..v81), the pinned wheel installed with
#     pip --target under $CACHE: the Hexagon builds of the NPU libraries (tools/hexagon-build.sh)
#   scripts/deps-hexagon.sh          install/fetch what is missing, print the tool paths
#   scripts/deps-hexagon.sh --print  only print the tool paths (KEY=path lines), fail if missing
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

print_only=0
for arg in "$@"; do
    case "$arg" in
        --print) print_only=1 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) die "unknown option '$arg' (see --help)" ;;
    esac
done

QEMU13_DIR=$CACHE/qemu-user-${HEXAGON_QEMU13_VERSION#*:}
QEMU13_BIN=$QEMU13_DIR/usr/bin/qemu-hexagon
ZIG_DIR=$CACHE/ziglang-$HEXAGON_ZIGLANG_VERSION
ZIG_BIN=$ZIG_DIR/ziglang/zig
LLVM_VER=${HEXAGON_LLVM_PKG#llvm-}

print_tools() {
    local missing=0 tool
    for tool in /usr/bin/clang-16 /usr/bin/ld.lld-16 /usr/bin/qemu-hexagon "$QEMU13_BIN" "$ZIG_BIN" \
                /usr/bin/llvm-objdump-"$LLVM_VER" /usr/bin/llvm-symbolizer-"$LLVM_VER"; do
        [ -x "$tool" ] || { log "missing: $tool"; missing=1; }
    done
    echo "HEXAGON_CLANG=/usr/bin/clang-16"
    echo "HEXAGON_LLD=/usr/bin/ld.lld-16"
    echo "QEMU_HEXAGON=/usr/bin/qemu-hexagon"
    echo "QEMU_HEXAGON_V73=$QEMU13_BIN"
    echo "HEXAGON_ZIG=$ZIG_BIN"
    echo "HEXAGON_OBJDUMP=/usr/bin/llvm-objdump-$LLVM_VER"
    echo "HEXAGON_SYMBOLIZER=/usr/bin/llvm-symbolizer-$LLVM_VER"
    return $missing
}

if [ "$print_only" = 1 ]; then
    print_tools
    exit $?
fi

# 1. Debian 12 packages, only when missing.
need_pkgs=()
command -v clang-16 >/dev/null || need_pkgs+=(clang-16)
command -v ld.lld-16 >/dev/null || need_pkgs+=(lld-16)
command -v qemu-hexagon >/dev/null || need_pkgs+=(qemu-user)
command -v llvm-objdump-"$LLVM_VER" >/dev/null || need_pkgs+=("$HEXAGON_LLVM_PKG")
if [ ${#need_pkgs[@]} -gt 0 ]; then
    log "installing Debian packages: ${need_pkgs[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

# 2. Debian 13's static qemu-user, through a private apt state (lists, cache, sources) only.
if [ ! -x "$QEMU13_BIN" ]; then
    apt_dir=$CACHE/apt-$HEXAGON_QEMU13_SUITE
    deb=$CACHE/dl/${HEXAGON_QEMU13_PKG}_${HEXAGON_QEMU13_VERSION#*:}_amd64.deb
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sources" \
             "$apt_dir/preferences.d" "$CACHE/dl"
    # The same mirror the machine's own sources use (deb.debian.org unless configured otherwise).
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
             grep -v '^[[:space:]]*#' | grep -oE 'https?://[^ ]+/debian/?( |$)' | head -n1 | tr -d ' ' || true)
    mirror=${mirror%/}
    mirror=${mirror:-http://deb.debian.org/debian}
    cat > "$apt_dir/sources/$HEXAGON_QEMU13_SUITE.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $HEXAGON_QEMU13_SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    : > "$apt_dir/status"
    apt_private=(-o "Dir::State=$apt_dir" -o "Dir::State::Lists=$apt_dir/lists"
                 -o "Dir::State::status=$apt_dir/status" -o "Dir::Cache=$apt_dir/cache"
                 -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_dir/sources"
                 -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$apt_dir/preferences.d"
                 -o "APT::Architecture=amd64" -o "APT::Sandbox::User=root")
    if [ ! -f "$deb" ]; then
        log "fetching $HEXAGON_QEMU13_PKG=$HEXAGON_QEMU13_VERSION from $mirror $HEXAGON_QEMU13_SUITE (private apt state in $apt_dir)"
        apt-get "${apt_private[@]}" update -qq || die "apt update of the private $HEXAGON_QEMU13_SUITE list failed"
        tmp=$(mktemp -d)
        if ! (cd "$tmp" && apt-get "${apt_private[@]}" download -qq "$HEXAGON_QEMU13_PKG=$HEXAGON_QEMU13_VERSION"); then
            now=$(apt-cache "${apt_private[@]}" policy "$HEXAGON_QEMU13_PKG" | sed -n 's/ *Candidate: //p')
            rm -rf "$tmp"
            die "$HEXAGON_QEMU13_PKG=$HEXAGON_QEMU13_VERSION is gone from $HEXAGON_QEMU13_SUITE (it now has $now); update HEXAGON_QEMU13_VERSION/SHA256 in deps/pins.env"
        fi
        mv "$tmp"/*.deb "$deb"
        rm -rf "$tmp"
    fi
    check_sha256 "$deb" "$HEXAGON_QEMU13_SHA256"
    rm -rf "$QEMU13_DIR.tmp"
    dpkg -x "$deb" "$QEMU13_DIR.tmp"
    [ -x "$QEMU13_DIR.tmp/usr/bin/qemu-hexagon" ] || die "$deb holds no usr/bin/qemu-hexagon"
    rm -rf "$QEMU13_DIR" && mv "$QEMU13_DIR.tmp" "$QEMU13_DIR"
    # Only qemu-hexagon is used; keep the cache small.
    find "$QEMU13_DIR/usr/bin" -type f ! -name qemu-hexagon -delete
fi

# 3. zig cc from PyPI's ziglang: the pinned wheel, checked, then pip install --target the cache.
if [ ! -x "$ZIG_BIN" ]; then
    whl=$CACHE/dl/$HEXAGON_ZIGLANG_WHEEL
    mkdir -p "$CACHE/dl"
    if [ ! -f "$whl" ]; then
        log "downloading ziglang==$HEXAGON_ZIGLANG_VERSION (~100 MB)"
        tmp=$(mktemp -d)
        python3 -m pip download --quiet --no-deps --only-binary :all: "ziglang==$HEXAGON_ZIGLANG_VERSION" -d "$tmp"
        [ -f "$tmp/$HEXAGON_ZIGLANG_WHEEL" ] ||
            die "pip fetched $(ls "$tmp"), not $HEXAGON_ZIGLANG_WHEEL (another platform? pin its wheel in deps/pins.env)"
        mv "$tmp/$HEXAGON_ZIGLANG_WHEEL" "$whl"
        rm -rf "$tmp"
    fi
    check_sha256 "$whl" "$HEXAGON_ZIGLANG_SHA256"
    rm -rf "$ZIG_DIR.tmp"
    python3 -m pip install --quiet --root-user-action=ignore --no-deps --no-index --no-compile --target "$ZIG_DIR.tmp" "$whl"
    [ -x "$ZIG_DIR.tmp/ziglang/zig" ] || die "$whl installed no ziglang/zig"
    rm -rf "$ZIG_DIR" && mv "$ZIG_DIR.tmp" "$ZIG_DIR"
fi

log "Hexagon tools: clang-16 $(clang-16 --version | sed -n 's/.*version \([0-9.]*\).*/\1/p;q'), $(qemu-hexagon --version | head -n1), $("$QEMU13_BIN" --version | head -n1), zig $("$ZIG_BIN" version), $(llvm-objdump-"$LLVM_VER" --version | sed -n 's/.*LLVM version \([0-9.]*\).*/llvm-objdump \1/p')"
print_tools
