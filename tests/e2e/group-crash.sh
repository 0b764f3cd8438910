#!/usr/bin/env bash
# A device group's members run in different DSP processes, one per session (docs/vhtp.md "The DSP
# processes"): a crash injected into one member's process (GGML_HEXAGON_FAULT=crash@N) restarts
# that member's process only; its peer, waiting at a barrier in the other process, is released by
# the host (its fence slot failed) and the batch is replayed on the group. The greedy text is
# the clean run's, with one recovery line.
# usage: group-crash.sh BIN_DIR MODEL
set -uo pipefail
bin=$1; model=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { [ -f "${2:-}" ] && tail -n 30 "$2"; echo "FAIL: $1"; exit 1; }
args=(-m "$model" -p "The capital of France is" -n 12 --temp 0 -no-cnv -c 256 -dev HTP0)
unset GGML_HEXAGON_FAULT GGML_HEXAGON_INPROC
export GGML_HEXAGON_DEVICES='HTP0[0-1]'

"$bin/llama-completion" "${args[@]}" </dev/null >"$work/clean.txt" 2>"$work/clean.log" || fail "clean run failed" "$work/clean.log"
[ -s "$work/clean.txt" ] || fail "the clean run wrote no text" "$work/clean.log"
GGML_HEXAGON_FAULT=crash@300 "$bin/llama-completion" "${args[@]}" </dev/null >"$work/crash.txt" 2>"$work/crash.log" ||
    fail "the run with crash@300 exited $?" "$work/crash.log"
grep -q "^vhtp: GGML_HEXAGON_FAULT: injecting crash at op 300 (NPU [01] session 0" "$work/crash.log" ||
    fail "no crash was injected into a member" "$work/crash.log"
n=$(grep -c "ggml-hexagon: HTP0: op [0-9]* ([A-Z_+]* '[^']*') killed its DSP process (SIGSEGV)" "$work/crash.log" || true)
[ "$n" -eq 1 ] || fail "expected 1 recovery line, got $n" "$work/crash.log"
cmp -s "$work/clean.txt" "$work/crash.txt" ||
    fail "the text differs: '$(cat "$work/crash.txt")' against the clean run's '$(cat "$work/clean.txt")'"
echo "ok: $(grep -m1 'injecting crash' "$work/crash.log"), one recovery, the same text: $(tr '\n' ' ' <"$work/clean.txt")"
echo "PASS"
