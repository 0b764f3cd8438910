#!/usr/bin/env bash
# Hexagon compile check and Hexagon builds of the NPU libraries. Every NPU source (npu/src,
# npu/ops, and the freestanding repacker the NPU libraries link: HTP_REPACK_CORE_SOURCES of
# repack/CMakeLists.txt) compiles as real Hexagon code, freestanding, against the device API
# headers and the libc declarations of device-api/hexagon-sysroot (what the SDK supplies).
#
#   tools/hexagon-compile-check.sh                 check all sources with clang-16 -mv73, once per
#                                                  HTP_ARCH (73 75 79 81; clang-16 knows no newer
#                                                  CPU, HTP_ARCH still selects each version's code)
#   tools/hexagon-compile-check.sh FILE...         check only these
#   tools/hexagon-compile-check.sh --build DIR     build DIR/libggml-htp-vNN.so for the Hexagon
#                                                  target with zig cc (clang/LLD 22), each arch with
#                                                  its own -mcpu=hexagonvNN; the device API, libc and
#                                                  compiler helpers (__hexagon_*) stay undefined
#                                                  symbols, and any other undefined symbol fails.
#                                                  Incremental: objects in DIR/obj-vNN are rebuilt
#                                                  only when a source or header they use changed.
# Env: HEXAGON_CLANG (default clang-16), HEXAGON_ZIG (default the pinned zig of
#      scripts/deps-hexagon.sh), HEXAGON_ARCHS ("73 75 79 81"), HEXAGON_WERROR=1, JOBS (default 2),
#      HEXAGON_CCACHE=0 (both modes compile through ccache when scripts/deps.sh installed it: an
#      unchanged source with unchanged headers and flags gives back its cached object and
#      diagnostics).
# Exit 77 when the compiler is absent (ctest counts it as skipped).
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
ARCHS=${HEXAGON_ARCHS:-73 75 79 81}
JOBS=${HEXAGON_JOBS:-${JOBS:-2}}
LLVM_VER=${HEXAGON_LLVM_PKG#llvm-}

build_dir=""
files=()
while [ $# -gt 0 ]; do
    case "$1" in
        --build) [ $# -ge 2 ] || die "--build needs a directory"; build_dir=$2; shift 2 ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        -*) die "unknown option '$1' (see --help)" ;;
        *) files+=("$1"); shift ;;
    esac
done

[ -d "$ROOT/npu/src" ] || die "needs the source tree (npu/, repack/, device-api/); $ROOT is an installed copy"

if [ -n "$build_dir" ]; then
    CC=${HEXAGON_ZIG:-$CACHE/ziglang-$HEXAGON_ZIGLANG_VERSION/ziglang/zig}
    if [ ! -x "$CC" ]; then
        echo "SKIP: zig not found at $CC; run scripts/deps-hexagon.sh"
        exit 77
    fi
    mkdir -p "$build_dir"
    build_dir=$(cd "$build_dir" && pwd)
    # zig keeps its own cache; keep it beside the build, out of $HOME and the tree.
    export ZIG_GLOBAL_CACHE_DIR=$build_dir/.zig-cache ZIG_LOCAL_CACHE_DIR=$build_dir/.zig-cache
else
    CC=${HEXAGON_CLANG:-$(command -v clang-16 || true)}
    if [ -z "$CC" ]; then
        echo "SKIP: clang-16 not found; run scripts/deps-hexagon.sh"
        exit 77
    fi
    [ -x "$CC" ] || die "HEXAGON_CLANG=$CC is not an executable"
fi
# Both modes compile through ccache: it hashes the preprocessed source, the flags and the
# compiler, so a cached object is as good as a fresh one. Paths are taken relative to the
# checkout's parent, as scripts/build.sh does, so other checkouts share the entries; the
# libraries' debug info holds only repository-relative paths (compiles run in $ROOT with
# -fdebug-compilation-dir=.), so an object one clone compiled is right for every other.
LAUNCH=""
if [ "${HEXAGON_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
    LAUNCH=ccache
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$ROOT")} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
fi

if [ ${#files[@]} -gt 0 ]; then
    sources=("${files[@]}")
else
    mapfile -t sources < <(find "$ROOT/npu/src" "$ROOT/npu/ops" "$ROOT/npu/ops/mul-mat" -maxdepth 1 \( -name '*.cpp' -o -name '*.c' \) 2>/dev/null | sort)
    # The repacker core, as repack/CMakeLists.txt lists it in HTP_REPACK_CORE_SOURCES.
    mapfile -t repack_core < <(sed -n '/^set(HTP_REPACK_CORE_SOURCES/,/)/p' "$ROOT/repack/CMakeLists.txt" |
                               grep -oE '[A-Za-z0-9_.-]+\.cpp')
    [ ${#repack_core[@]} -gt 0 ] || die "no HTP_REPACK_CORE_SOURCES found in repack/CMakeLists.txt"
    for f in "${repack_core[@]}"; do
        sources+=("$ROOT/repack/$f")
    done
fi
if [ ${#sources[@]} -eq 0 ]; then
    echo "no NPU sources found under $ROOT/npu"
    exit 1
fi

common=(-O2 -ffreestanding -nostdlibinc
        -isystem "$ROOT/device-api/hexagon-sysroot/include"
        -I"$ROOT/npu/src" -I"$ROOT/npu/ops" -I"$ROOT/repack/include" -I"$ROOT/abi/include" -I"$ROOT/device-api/include"
        -Wall -Wextra -c)
[ "${HEXAGON_WERROR:-0}" = 1 ] && common+=(-Werror)
# Per-arch target flags (for zig, after its `cc` subcommand): the ISA of -mcpu (build) or v73 for every HTP_ARCH (clang-16 check).
# v73+ HTPs have IEEE and qfloat HVX; the kernels use the IEEE sf/hf instructions.
target_flags() {
    if [ -n "$build_dir" ]; then
        echo "cc --target=hexagon-freestanding -mcpu=hexagonv$1+hvxv$1+hvx_length128b+hvx_ieee_fp+hvx_qfloat"
    else
        echo "--target=hexagon -mv73 -mhvx -mhvx-length=128b"
    fi
}
# The library build adds debug info (inspect --addr2line), PIC and the host build's hidden default.
[ -n "$build_dir" ] && common+=(-g -fdebug-compilation-dir=. -fPIC -fvisibility=hidden)

if [ -n "$build_dir" ]; then
    out=$build_dir
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
for arch in $ARCHS; do
    mkdir -p "$out/obj-v$arch"
    # Objects built with other flags are stale (the depfiles only know about headers).
    stamp="$out/obj-v$arch/flags"
    want="$CC $(target_flags "$arch") ${common[*]}"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        rm -f "$out/obj-v$arch"/*
        echo "$want" > "$stamp"
    fi
done

# One job per (source, arch); each writes its diagnostics to its own file.
jobs_list=()
for src in "${sources[@]}"; do
    for arch in $ARCHS; do
        jobs_list+=("$src" "$arch" "$(target_flags "$arch")")
    done
done
export CC LAUNCH out ROOT
printf '%s\0%s\0%s\0' "${jobs_list[@]}" |
    xargs -0 -n3 -P "$JOBS" bash -c '
        src=${*: -3:1} arch=${*: -2:1} tflags=${*: -1}
        set -- "${@:1:$#-3}"  # what is left: the compiler flags
        lang=(); case "$src" in *.cpp) lang=(-x c++ -std=c++17 -fno-exceptions -fno-rtti) ;; *) lang=(-x c -std=c11) ;; esac
        base="$out/obj-v$arch/$(basename "$src")"
        log="$base.log"
        # From the checkout, by relative path: the names the debug info and diagnostics carry
        # (and the depfile lists, so the check below must run there too: from ctest, whose
        # working directory is the build tree, no relative dependency resolved and every
        # object counted as up to date).
        cd "$ROOT" || exit 1
        # Up to date: the object is newer than the source and every header of its depfile.
        if [ -f "$base.o" ] && [ -f "$base.d" ]; then
            stale=0
            for dep in $(sed -e "s/^[^:]*://" -e "s/\\\\$//" "$base.d"); do
                [ "$dep" -nt "$base.o" ] && { stale=1; break; }
            done
            [ "$stale" = 0 ] && exit 0
        fi
        rm -f "$base.o" "$log.warn" "$log.fail"
        # shellcheck disable=SC2086
        if $LAUNCH "$CC" $tflags "$@" "${lang[@]}" -DHTP_ARCH="$arch" -MMD -MF "$base.d" "${src#"$ROOT"/}" -o "$base.o" >"$log" 2>&1; then
            [ -s "$log" ] && mv "$log" "$log.warn" || rm -f "$log"
        else
            rm -f "$base.o"
            mv "$log" "$log.fail"
        fi
    ' _ "${common[@]}"

n_fail=0
n_warn=0
for src in "${sources[@]}"; do
    for arch in $ARCHS; do
        log="$out/obj-v$arch/$(basename "$src").log"
        rel=${src#"$ROOT"/}
        if [ -f "$log.fail" ]; then
            n_fail=$((n_fail + 1))
            echo "FAIL $rel (HTP_ARCH=$arch)"
            sed 's/^/    /' "$log.fail" | head -n 40
        elif [ -f "$log.warn" ]; then
            n_warn=$((n_warn + 1))
            echo "warn $rel (HTP_ARCH=$arch)"
            sed 's/^/    /' "$log.warn" | head -n 20
        fi
    done
done
total=$((${#sources[@]} * $(echo "$ARCHS" | wc -w)))
echo "hexagon compile check ($(basename "$CC")${LAUNCH:+ through $LAUNCH}): ${#sources[@]} sources x HTP_ARCH {$ARCHS}: $((total - n_fail)) of $total compiled, $n_fail failed, $n_warn with warnings"
[ "$n_fail" -eq 0 ] || exit 1
[ -n "$build_dir" ] || exit 0

# Link one shared object per arch. What may stay undefined: functions the device API headers
# or the hexagon-sysroot libc headers declare, the compiler's __hexagon_* helpers (the SDK's
# runtime supplies them), and weak references (ops another library may provide).
NM=${HEXAGON_NM:-$(command -v llvm-nm-"$LLVM_VER" || true)}
n_bad=0
for arch in $ARCHS; do
    lib=$out/libggml-htp-v$arch.so
    objs=()
    for src in "${sources[@]}"; do
        objs+=("$out/obj-v$arch/$(basename "$src").o")
    done
    "$CC" ld.lld -shared --soname "libggml-htp-v$arch.so" -o "$lib.tmp" "${objs[@]}" || die "linking $lib failed"
    mv "$lib.tmp" "$lib"
    if [ -z "$NM" ]; then
        log "llvm-nm-$LLVM_VER not found: undefined symbols of $lib not checked"
        continue
    fi
    bad=()
    while read -r kind sym; do
        [ "$kind" = U ] || continue
        case "$sym" in __hexagon_*) continue ;; esac
        grep -rqE "(^|[^A-Za-z0-9_])$sym[[:space:]]*\(" "$ROOT/device-api/include/htp" "$ROOT/device-api/hexagon-sysroot/include" ||
            bad+=("$sym")
    done < <("$NM" -D --undefined-only "$lib" | awk '{print $1, $2}')
    if [ ${#bad[@]} -gt 0 ]; then
        n_bad=$((n_bad + 1))
        echo "FAIL $lib: undefined symbols that neither the device API nor the SDK's libc provides: ${bad[*]}"
    fi
done
[ "$n_bad" -eq 0 ] || exit 1
for arch in $ARCHS; do
    echo "built $out/libggml-htp-v$arch.so ($(stat -c %s "$out/libggml-htp-v$arch.so") bytes, -mcpu=hexagonv$arch)"
done
