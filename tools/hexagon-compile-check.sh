#!/usr/bin/env bash
# Hexagon compile check: every NPU source (npu/src, npu/ops, and the freestanding repacker the
# NPU libraries link: the htp-repack-core sources) compiles as real Hexagon code,
# with clang-16 --target=hexagon -mv73 -mhvx -mhvx-length=128b, freestanding, against the device
# API headers and the libc declarations of device-api/hexagon-sysroot (what the SDK supplies).
# Each source is compiled once per HTP_ARCH value (73 75 79 81: clang-16 knows no newer CPU than
# v73, so -mv73 is the ISA; HTP_ARCH still selects each version's code paths).
#   tools/hexagon-compile-check.sh                 check all sources
#   tools/hexagon-compile-check.sh FILE...         check only these
# Env: HEXAGON_CLANG (default clang-16), HEXAGON_ARCHS ("73 75 79 81"), HEXAGON_WERROR=1,
#      JOBS (default 2). Exit 77 when clang-16 is absent (ctest counts it as skipped).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLANG=${HEXAGON_CLANG:-$(command -v clang-16 || true)}
ARCHS=${HEXAGON_ARCHS:-73 75 79 81}
JOBS=${JOBS:-2}
if [ -z "$CLANG" ]; then
    echo "SKIP: clang-16 not found; run scripts/deps-hexagon.sh"
    exit 77
fi
[ -x "$CLANG" ] || { echo "HEXAGON_CLANG=$CLANG is not an executable"; exit 1; }

if [ $# -gt 0 ]; then
    sources=("$@")
else
    mapfile -t sources < <(find "$ROOT/npu/src" "$ROOT/npu/ops" -maxdepth 1 \( -name '*.cpp' -o -name '*.c' \) 2>/dev/null | sort)
    # Keep in step with HTP_REPACK_CORE_SOURCES in repack/CMakeLists.txt.
    for f in repack-ops repack-block32 repack-lowbit repack-kquants repack-scales; do
        sources+=("$ROOT/repack/$f.cpp")
    done
fi
if [ ${#sources[@]} -eq 0 ]; then
    echo "no NPU sources found under $ROOT/npu"
    exit 1
fi

flags=(--target=hexagon -mv73 -mhvx -mhvx-length=128b -O2 -ffreestanding -nostdlibinc
       -isystem "$ROOT/device-api/hexagon-sysroot/include"
       -I"$ROOT/npu/src" -I"$ROOT/npu/ops" -I"$ROOT/repack" -I"$ROOT/abi/include" -I"$ROOT/device-api/include"
       -Wall -Wextra -c)
[ "${HEXAGON_WERROR:-0}" = 1 ] && flags+=(-Werror)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# One job per (source, arch); each writes its diagnostics to its own file.
jobs_list=()
for src in "${sources[@]}"; do
    for arch in $ARCHS; do
        jobs_list+=("$src" "$arch")
    done
done
export CLANG out
printf '%s\0%s\0' "${jobs_list[@]}" |
    xargs -0 -n2 -P "$JOBS" bash -c '
        src=${*: -2:1} arch=${*: -1}
        set -- "${@:1:$#-2}"  # what is left: the compiler flags
        lang=(); case "$src" in *.cpp) lang=(-x c++ -std=c++17 -fno-exceptions -fno-rtti) ;; *) lang=(-x c -std=c11) ;; esac
        log="$out/$(echo "$src" | tr / _).$arch.log"
        if "$CLANG" "$@" "${lang[@]}" -DHTP_ARCH="$arch" "$src" -o "$log.o" >"$log" 2>&1; then
            [ -s "$log" ] && mv "$log" "$log.warn" || rm -f "$log"
        else
            mv "$log" "$log.fail"
        fi
    ' _ "${flags[@]}"

n_fail=0
n_warn=0
for src in "${sources[@]}"; do
    for arch in $ARCHS; do
        log="$out/$(echo "$src" | tr / _).$arch.log"
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
echo "hexagon compile check: ${#sources[@]} sources x HTP_ARCH {$ARCHS}: $((total - n_fail)) of $total compiled, $n_fail failed, $n_warn with warnings"
[ "$n_fail" -eq 0 ]
