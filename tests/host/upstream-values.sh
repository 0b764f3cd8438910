#!/usr/bin/env bash
# Upstream's values of upstream's variables (README.md "Environment variables", facts of
# upstream's user guide) are accepted here, keep HTP0 registered, draw no complaint from the
# backend, and do what the table says wherever that can be seen from outside: MM_SELECT=1
# sends no MUL_MAT to a tiled or HMX kernel, FA_SELECT=0 leaves FLASH_ATTN_EXT on the CPU,
# OPSTAGE=1 computes nothing, MBUF refuses a larger buffer in one line, NHVX=0 is all the
# arch's threads, PROFILE's forms print per-op timings, OPTRACE bounds the trace, ...
# Then a self-check: every README row of origin "upstream" is exercised here.
# usage: upstream-values.sh SOURCE_DIR BIN_DIR
set -uo pipefail
src=$1; bin=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
tested=" "

# probe VAR=VALUE... -- test-backend-ops ARGS: runs it with a clean environment for the
# backend's variables, output in $out. HTP0 must be registered and nothing may crash.
probe() {
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); tested+="${1%%=*} "; shift; done
    shift
    out=$(env $(env | grep -oE '^GGML_HEXAGON_[A-Z0-9_]+' | sed 's/^/-u /') "${envs[@]}" \
        timeout 600 "$bin/test-backend-ops" "$@" 2>&1)
    local rc=$?
    [ $rc -ne 124 ] && [ $rc -lt 128 ] || fail "${envs[*]}: test-backend-ops exited $rc: $(tail -n 5 <<<"$out")"
    grep -qE '^Backend [0-9]+/[0-9]+: HTP0' <<<"$out" || fail "${envs[*]}: HTP0 not registered: $out"
    what="${envs[*]}"
}
# quiet: the backend said nothing but what the variables asked for (no warning or error).
quiet() {
    local lines
    lines=$(grep -E '^ggml-hexagon: ' <<<"$out" | grep -vE ': (op |profile |window: |stream: |wrote |Hexagon v)' || true)
    [ -z "$lines" ] || fail "$what: the backend complained: $lines"
}
has() { grep -qE "$1" <<<"$out" || fail "$what: no line matching '$1': $(tail -n 20 <<<"$out")"; }
hasnt() { grep -qE "$1" <<<"$out" && fail "$what: a line matches '$1': $(grep -m3 -E "$1" <<<"$out")"; true; }
passed() {  # the N/M line with N == M > 0
    local line
    line=$(grep -E '^ *[0-9]+/[0-9]+ tests passed' <<<"$out" | tail -n 1)
    [[ $line =~ ^\ *([0-9]+)/([0-9]+) ]] && [ "${BASH_REMATCH[2]}" -gt 0 ] &&
        [ "${BASH_REMATCH[1]}" -eq "${BASH_REMATCH[2]}" ] || fail "$what: cases did not pass: ${line:-no N/M line}"
}
failed() {  # the N/M line with N < M
    local line
    line=$(grep -E '^ *[0-9]+/[0-9]+ tests passed' <<<"$out" | tail -n 1)
    [[ $line =~ ^\ *([0-9]+)/([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ] ||
        fail "$what: expected results that do not match the CPU: ${line:-no N/M line}"
}
ok() { echo "ok: $what -> $*"; }

none=(test -b HTP0 -o __none__)  # loads the backend, describes HTP0, runs nothing
mm_cases='type_a=q4_0,type_b=f32,m=16,n=(1|16),k=256,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1'
mm=(test -b HTP0 -o MUL_MAT -p "$mm_cases")

# MUL_MAT paths: 3 (default) tiled HVX for up to GGML_HEXAGON_MM_HVX_ROWS rows (128), HMX above;
# 2 tiled HVX, never HMX; 1 flat only.
probe GGML_HEXAGON_MM_SELECT=3 GGML_HEXAGON_REPACK=all GGML_HEXAGON_VERBOSE=1 -- "${mm[@]}"
quiet; passed; has '\(kernel MUL_MAT_TILED\)'; hasnt '\(kernel MUL_MAT_HMX\)'; ok "tiled for 1 and 16 rows"
probe GGML_HEXAGON_MM_SELECT=3 GGML_HEXAGON_MM_HVX_ROWS=8 GGML_HEXAGON_REPACK=all GGML_HEXAGON_VERBOSE=1 -- "${mm[@]}"
quiet; passed; has '\(kernel MUL_MAT_HMX\)'; has '\(kernel MUL_MAT_TILED\)'; ok "HMX for 16 rows, tiled for 1"
probe GGML_HEXAGON_MM_SELECT=2 GGML_HEXAGON_REPACK=all GGML_HEXAGON_VERBOSE=1 -- "${mm[@]}"
quiet; passed; has '\(kernel MUL_MAT_TILED\)'; hasnt '\(kernel MUL_MAT_HMX\)'; ok "tiled, no HMX"
probe GGML_HEXAGON_MM_SELECT=1 GGML_HEXAGON_REPACK=all GGML_HEXAGON_VERBOSE=1 -- "${mm[@]}"
quiet; passed; has "op MUL_MAT 'out'"; hasnt '\(kernel MUL_MAT_(TILED|HMX)'; ok "flat only"
probe GGML_HEXAGON_USE_HMX=0 GGML_HEXAGON_REPACK=all GGML_HEXAGON_VERBOSE=1 -- "${mm[@]}"
passed; hasnt '\(kernel MUL_MAT_HMX\)'; has '^ggml-hexagon: GGML_HEXAGON_USE_HMX is deprecated, use GGML_HEXAGON_NHMX=0'
ok "no HMX (older name, one deprecation line)"
probe GGML_HEXAGON_NHMX=0 GGML_HEXAGON_REPACK=all GGML_HEXAGON_VERBOSE=1 -- "${mm[@]}"
quiet; passed; hasnt '\(kernel MUL_MAT_HMX\)'; ok "no HMX"

# OPSTAGE: the bit mask. 0x3 computes; 1 sends but computes nothing; 0 sends nothing.
probe GGML_HEXAGON_OPSTAGE=0x3 -- "${mm[@]}"
quiet; passed; ok "computed"
probe GGML_HEXAGON_OPSTAGE=1 -- "${mm[@]}"
failed; has 'GGML_HEXAGON_OPSTAGE=1: ops are queued and sent but the NPU skips the kernels'; ok "sent, not computed"
probe GGML_HEXAGON_OPSTAGE=0 GGML_HEXAGON_VERBOSE=1 -- "${mm[@]}"
failed; has 'GGML_HEXAGON_OPSTAGE=0: ops are not sent to the NPU'; ok "not sent"

# FA_SELECT / GDN_SELECT: 0 leaves the op on the CPU, 1 and 2 take it.
supported() { sed 's/\x1b\[[0-9;]*m//g' <<<"$out" | grep -cE '^  [A-Z_]+\(.*: SUPPORTED' || true; }
for op in FLASH_ATTN_EXT:FA_SELECT GATED_DELTA_NET:GDN_SELECT; do
    name=${op%%:*}; var=GGML_HEXAGON_${op##*:}
    probe "$var=0" -- support -b HTP0 -o "$name"
    quiet; n0=$(supported); [ "$n0" -eq 0 ] || fail "$what: HTP0 still takes $n0 $name cases"
    for v in 1 2; do
        probe "$var=$v" -- support -b HTP0 -o "$name"
        quiet; n=$(supported); [ "$n" -gt 0 ] || fail "$what: HTP0 takes no $name case"
    done
    ok "$name: 0 cases with 0, $n with 1 and 2"
done

# Device shape: NHVX=0 is all of the arch's threads; ARCH in any base; VMEM=0 the default
# budget; VTCM_SIZE the session's VTCM; DMA64=0 on v81.
probe GGML_HEXAGON_NHVX=0 -- "${none[@]}"
quiet; has 'Device description: Hexagon v79 virtual HTP \(6 HVX threads'; ok "6 HVX threads"
for a in 79 0x4f v79; do
    probe GGML_HEXAGON_ARCH=$a -- "${none[@]}"
    quiet; has 'Device description: Hexagon v79 '; ok "v79"
done
probe GGML_HEXAGON_ARCH=81 GGML_HEXAGON_DMA64=0 -- "${none[@]}"
quiet; has 'Device description: Hexagon v81 '; hasnt '64-bit DMA bases'; ok "v81 without 64-bit DMA bases"
probe GGML_HEXAGON_VMEM=0 GGML_HEXAGON_VERBOSE=1 -- "${none[@]}"
quiet; has 'HTP0: .*, 3276 MiB mappable'; ok "the default budget"
probe GGML_HEXAGON_VMEM=2048 GGML_HEXAGON_VERBOSE=1 -- "${none[@]}"
quiet; has 'HTP0: .*, 2048 MiB mappable'; ok "2048 MiB"
probe GGML_HEXAGON_VTCM_SIZE=0x200000 -- "${none[@]}"
quiet; has 'Device description: .*2 MiB VTCM'; ok "2 MiB of VTCM"
probe GGML_HEXAGON_DEVICES=2 -- "${none[@]}"
quiet; has '^Backend [0-9]+/[0-9]+: HTP1'; has 'Device description: .*session 0 of NPU 0 shared by 2 sessions \(.*4 MiB VTCM'; ok "two sessions of NPU 0"
probe GGML_HEXAGON_NDEV=2 -- "${none[@]}"
has '^Backend [0-9]+/[0-9]+: HTP1'; has 'GGML_HEXAGON_NDEV is deprecated'; ok "two sessions (older name)"

# MBUF: a buffer above it fails in one line (test-backend-ops then fails the case).
probe GGML_HEXAGON_MBUF=1 -- test -b HTP0 -o MUL_MAT -p 'type_a=q4_K,type_b=f32,m=4096,n=1,k=1024,'
[ "$(grep -c 'ggml-hexagon: HTP0: a buffer of 2.5 MiB is larger than GGML_HEXAGON_MBUF (1 MiB)' <<<"$out")" -eq 1 ] ||
    fail "$what: no single line refusing the 2.5 MiB buffer: $(grep ggml-hexagon <<<"$out")"
has "failed to allocate tensors \\[HTP0\\]"; ok "a 2.5 MiB buffer refused in one line"
probe GGML_HEXAGON_MBUF=16 GGML_HEXAGON_SBUF=16 -- test -b HTP0 -o MUL_MAT -p 'type_a=q4_K,type_b=f32,m=4096,n=1,k=1024,'
quiet; passed; ok "the same case passes"

# PROFILE: levels in any base and the 8 event ids all print upstream's per-op lines (level 2
# with the 8 PMU counts, docs/profiling.md); 3 writes a trace
# whose size OPTRACE bounds (events past it are dropped and counted).
for p in 1 0x2 2 0x3,0x111,0x100,0x105,0x240,0x256,0x7D,0x8C; do
    probe GGML_HEXAGON_PROFILE=$p GGML_HEXAGON_TRACE_DIR="$work" -- "${mm[@]}"
    quiet; passed; has "^ggml-hex: HTP0 profile-op MUL_MAT[|].*[|]usec [0-9]+ cycles [0-9]+ start [0-9]+ mhz [0-9]+"
    has "^ggml-hex: HTP0 profile-op OPBATCH[|]"
    case $p in 1) hasnt " pmu \[" ;; *) has "profile-op MUL_MAT.* pmu \[([0-9]+,){7}[0-9]+\]" ;; esac
    ok "per-op timings"
done
probe GGML_HEXAGON_PROFILE=3 GGML_HEXAGON_OPTRACE=8 GGML_HEXAGON_TRACE_DIR="$work" -- "${mm[@]}"
quiet; passed; has 'wrote [0-9]+ trace events to .* \([1-9][0-9]* dropped\)'; ok "trace with events dropped"
probe GGML_HEXAGON_PROFILE=3 GGML_HEXAGON_TRACE_DIR="$work" -- "${mm[@]}"
quiet; passed; has 'wrote [1-9][0-9]* trace events to .* \(0 dropped\)'; ok "trace, nothing dropped"
# OPTRACE alone: upstream's op trace, the same one file per process, without per-op lines.
rm -f "$work"/ggml-hexagon-trace-*.json
probe GGML_HEXAGON_OPTRACE=100000 GGML_HEXAGON_TRACE_DIR="$work" -- "${mm[@]}"
quiet; passed; has 'wrote [1-9][0-9]* trace events to .*/ggml-hexagon-trace-[0-9]+[.]json \(0 dropped\)'
hasnt "profile-op"; [ "$(ls "$work"/ggml-hexagon-trace-*.json | wc -l)" -eq 1 ] || fail "$what: want one trace file"
ok "OPTRACE alone traces"

# ETM: accepted; said once with VERBOSE.
probe GGML_HEXAGON_ETM=1 GGML_HEXAGON_VERBOSE=1 -- "${none[@]}"
[ "$(grep -c 'GGML_HEXAGON_ETM=1: the virtual HTP has no ETM trace' <<<"$out")" -eq 1 ] || fail "$what: no single ETM line"
ok "no ETM, said once"
probe GGML_HEXAGON_ETM=1 -- "${none[@]}"
quiet; ok "silent without VERBOSE"

# The rest parse and keep the device, with the work still right.
probe GGML_HEXAGON_OPBATCH=1024 GGML_HEXAGON_OPQUEUE=16 GGML_HEXAGON_OPPOLL=1 GGML_HEXAGON_OPFUSION=0 \
    GGML_HEXAGON_HOSTBUF=0 GGML_HEXAGON_AR_SELECT=0 GGML_HEXAGON_OPFILTER='^ADD$' GGML_HEXAGON_VERBOSE=0 -- "${mm[@]}"
quiet; passed; ok "parsed, cases pass"
probe GGML_HEXAGON_OPFILTER='mul_mat' -- "${mm[@]}"
quiet; has '0/0 tests passed|MUL_MAT.*not supported'; ok "MUL_MAT refused (case-insensitive)"

# Every upstream row of the README's table was exercised above.
section=$(awk '/^## Environment variables/ { on = 1; next } /^## / { on = 0 } on' "$src/README.md")
missing=""
for v in $(grep -E '^\| `GGML_HEXAGON_[A-Z0-9_]+` .*\| upstream( \(.*\))? \|$' <<<"$section" | grep -oE '^\| `GGML_HEXAGON_[A-Z0-9_]+' | tr -d '|` '); do
    [[ $tested == *" $v "* ]] || missing+=" $v"
done
[ -z "$missing" ] || fail "upstream variables in README.md's table that this test does not try:$missing"
echo "PASS: every upstream variable of the table tried"
