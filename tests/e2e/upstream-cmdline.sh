#!/usr/bin/env bash
# Command lines written for upstream's Hexagon backend run here unchanged (README.md
# "Environment variables"): first upstream's names GGML_HEXAGON_OPFUSION and GGML_HEXAGON_OPPOLL
# with llama-completion's own flags and no -ngl; then an upstream run script's set of values
# (a session count, NHVX=0 for all threads, OPSTAGE and PROFILE in upstream's forms,
# MM_SELECT/FA_SELECT numbers, OPBATCH/OPQUEUE at upstream's defaults, VMEM and MBUF in MiB).
# Each must produce text, run its ops on HTP0 (GGML_HEXAGON_VERBOSE=1, added only to see them,
# logs 'ggml-hexagon: HTP0: op ...'), and draw no error, refusal or deprecation warning from
# the backend; the second prints upstream-style per-op profile lines.
# usage: upstream-cmdline.sh BIN_DIR MODEL
set -uo pipefail
bin=$1; model=$2
source "$(dirname "${BASH_SOURCE[0]}")/llama-run.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# run NAME VAR=VALUE...: llama-completion with those variables; checks text, ops and no complaint.
run() {
    local name=$1; shift
    llama_run "$work/$name.txt" "$work/$name.log" env "$@" GGML_HEXAGON_VERBOSE=1 "$bin/llama-completion" \
        -m "$model" -p hi -n 4 --device HTP0 -no-cnv </dev/null
    local rc=$?
    ops=$(grep -c 'ggml-hexagon: HTP0: op ' "$work/$name.log" || true)
    echo "$name: text: $(tr '\n' ' ' <"$work/$name.txt")"
    echo "$name: ops run on HTP0: $ops"
    grep -E '  eval time' "$work/$name.log" | sed 's/^.*common_perf_print: */  /' || true
    if [ $rc -ne 0 ]; then
        tail -n 20 "$work/$name.log"
        echo "FAIL: $name: llama-completion exited $rc"
        exit 1
    fi
    # The text is the prompt followed by what was generated: more than the prompt alone.
    local text
    text=$(tr -d '[:space:]' <"$work/$name.txt")
    [ -n "$text" ] && [ "$text" != "hi" ] || { echo "FAIL: $name: no text generated"; exit 1; }
    [ "$ops" -gt 0 ] || { tail -n 20 "$work/$name.log"; echo "FAIL: $name: no op ran on HTP0"; exit 1; }
    if grep -E 'ggml-hexagon: .*(deprecated|no HTP device|failed|error|expected|ignored)' "$work/$name.log"; then
        echo "FAIL: $name: the backend complained about an upstream-style command line"
        exit 1
    fi
}
run names GGML_HEXAGON_OPFUSION=1 GGML_HEXAGON_OPPOLL=1
run script GGML_HEXAGON_DEVICES=1 GGML_HEXAGON_NHVX=0 GGML_HEXAGON_OPSTAGE=0x3 GGML_HEXAGON_OPBATCH=1024 \
    GGML_HEXAGON_OPQUEUE=16 GGML_HEXAGON_MM_SELECT=3 GGML_HEXAGON_FA_SELECT=2 GGML_HEXAGON_NHMX=1 \
    GGML_HEXAGON_ARCH=79 GGML_HEXAGON_VMEM=3200 GGML_HEXAGON_MBUF=1024 GGML_HEXAGON_HOSTBUF=1 GGML_HEXAGON_ETM=0 \
    GGML_HEXAGON_PROFILE=0x3,0x111,0x100,0x105,0x240,0x256,0x7D,0x8C
grep -qE '^ggml-hex: HTP0 profile-op MUL_MAT[|].* pmu \[' "$work/script.log" || { echo "FAIL: script: no per-op profile line"; exit 1; }
echo "PASS"
