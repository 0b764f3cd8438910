#!/usr/bin/env bash
# NPU faults never take the host down (docs/vhtp.md "Faults and recovery"): a greedy generation
# with one fault of every kind injected at chosen ops (GGML_HEXAGON_FAULT: the DSP process
# crashes, an op hangs past GGML_HEXAGON_WATCHDOG, an MMU fault, a DMA error, a garbled answer)
# writes the same text as a clean run, and the backend logs one recovery line per fault naming
# the device and the op. A fault that comes back on every op fails the graph with one error
# line after one replay: the tool ends with an error, no crash, no hang, no loop.
# usage: fault-recovery.sh BIN_DIR MODEL
set -uo pipefail
bin=$1; model=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { [ -f "${2:-}" ] && tail -n 30 "$2"; echo "FAIL: $1"; exit 1; }
args=(-m "$model" -p "The capital of France is" -n 12 --temp 0 -no-cnv -c 256 -dev HTP0)
unset GGML_HEXAGON_FAULT GGML_HEXAGON_INPROC

"$bin/llama-completion" "${args[@]}" </dev/null >"$work/clean.txt" 2>"$work/clean.log" || fail "clean run failed" "$work/clean.log"
[ -s "$work/clean.txt" ] || fail "the clean run wrote no text" "$work/clean.log"

faults=crash@150,hang@700,mmu@1300,dma@1900,corrupt@2500
GGML_HEXAGON_WATCHDOG=3 GGML_HEXAGON_FAULT=$faults "$bin/llama-completion" "${args[@]}" </dev/null \
    >"$work/faulty.txt" 2>"$work/faulty.log" || fail "the run with $faults exited $?" "$work/faulty.log"
for kind in crash hang mmu dma corrupt; do
    grep -q "^vhtp: GGML_HEXAGON_FAULT: injecting $kind at op " "$work/faulty.log" ||
        fail "no $kind was injected (the run had fewer ops?)" "$work/faulty.log"
done
n=$(grep -c 'ggml-hexagon: HTP0: .*; restarting the session and replaying the batch' "$work/faulty.log" || true)
[ "$n" -eq 5 ] || fail "expected 5 recovery lines, got $n" "$work/faulty.log"
grep -q "ggml-hexagon: HTP0: op [0-9]* ([A-Z_+]* '[^']*') killed its DSP process (SIGSEGV)" "$work/faulty.log" ||
    fail "the crash's recovery line does not name the op and the signal" "$work/faulty.log"
grep -q "ggml-hexagon: HTP0: op [0-9]* ([A-Z_+]* '[^']*') ran for [0-9]* ms, past GGML_HEXAGON_WATCHDOG" "$work/faulty.log" ||
    fail "the hang's recovery line does not name the op and the timeout" "$work/faulty.log"
grep -q "failed on the NPU: MMU fault" "$work/faulty.log" || fail "no MMU fault recovery line" "$work/faulty.log"
grep -q "failed on the NPU: DMA error" "$work/faulty.log" || fail "no DMA error recovery line" "$work/faulty.log"
grep -q "malformed response" "$work/faulty.log" || fail "no garbled-answer recovery line" "$work/faulty.log"
cmp -s "$work/clean.txt" "$work/faulty.txt" ||
    fail "the text differs: '$(cat "$work/faulty.txt")' against the clean run's '$(cat "$work/clean.txt")'"
echo "ok: five faults, five recoveries, the same text: $(tr '\n' ' ' <"$work/clean.txt")"
grep 'restarting the session' "$work/faulty.log" | sed 's/^.*ggml-hexagon/  ggml-hexagon/'

# A fault on every op: one replay, then the graph fails; the tool stops with an error.
GGML_HEXAGON_FAULT='mmu%1' timeout 300 "$bin/llama-completion" "${args[@]}" </dev/null \
    >"$work/always.txt" 2>"$work/always.log"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -lt 128 ] || fail "a fault on every op: exit $rc (want an error exit)" "$work/always.log"
# (llama's warm-up graph fails the same way first: every failing graph is replayed once.)
replays=$(grep -c 'restarting the session and replaying the batch' "$work/always.log")
again=$(grep -c 'ggml-hexagon: HTP0: op 0 (.*) failed on the NPU: MMU fault.* (again, after a restart)' "$work/always.log")
[ "$replays" -ge 1 ] && [ "$replays" -eq "$again" ] ||
    fail "a fault on every op: $replays replays, $again failures after a replay (want as many, one each)" "$work/always.log"
echo "ok: a fault on every op: each failing graph replayed once, then '$(grep -m1 'again, after a restart' "$work/always.log" | sed 's/^.*ggml-hexagon/ggml-hexagon/')', exit $rc"
echo "PASS"
