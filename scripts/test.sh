#!/usr/bin/env bash
# Sets everything up and runs the whole test suite (ctest): unit tests, test-backend-ops on
# HTP0 for every NPU op, and the end-to-end KL-divergence check of the default model.
#   scripts/test.sh [ctest args]    e.g. scripts/test.sh -L unit
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$ROOT/scripts/deps.sh"
"$ROOT/scripts/build.sh"
cd "$BUILD"
ctest --output-on-failure -j "$JOBS" "$@"
