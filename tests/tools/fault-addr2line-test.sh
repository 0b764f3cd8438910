#!/usr/bin/env bash
# A vHTP fault's program counter, as the vHTP prints it (NAME+0xOFFSET in the NPU library),
# resolves to the faulting source line with ggml-hexagon-inspect.py --addr2line.
#   fault-addr2line-test.sh BIN_DIR      (BIN_DIR holds test_session and libfixture_npu.so)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=$1
log=$("$BIN/test_session" --gtest_filter=Session.FaultsAreAnsweredAndTheSessionGoesOn 2>&1)
if echo "$log" | grep -q '\[  SKIPPED \]'; then echo "SKIP: the fault test is skipped in this build"; exit 77; fi
echo "$log" | grep 'vhtp: MMU fault' || { echo "FAIL: the vHTP printed no fault line"; exit 1; }
pc=$(echo "$log" | sed -n 's/.*vhtp: MMU fault .*, pc \(libfixture_npu\.so+0x[0-9a-f]*\)$/\1/p' | head -n1)
[ -n "$pc" ] || { echo "FAIL: no 'pc libfixture_npu.so+0x...' in the fault line"; exit 1; }
out=$(python3 "$ROOT/tools/ggml-hexagon-inspect.py" --lib "$BIN/libfixture_npu.so" --addr2line "$pc")
echo "$out"
echo "$out" | grep -qE ' at tests/vhtp-hvx-emu/fixtures/fixture_npu\.cpp:[0-9]+' ||
    { echo "FAIL: $pc did not resolve to a line of fixture_npu.cpp"; exit 1; }
