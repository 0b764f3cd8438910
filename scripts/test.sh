#!/usr/bin/env bash
# Sets everything up and runs the test suite (ctest): unit tests, test-backend-ops on HTP0 for
# every NPU op, and the end-to-end model checks. Tests labelled "full" (the hour-long complete
# case lists of FLASH_ATTN_EXT and MUL_MAT_ID, whose quick variants always run) are left out
# unless a label is chosen.
#   scripts/test.sh [ctest args]    e.g. scripts/test.sh -L unit, scripts/test.sh -L full
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$ROOT/scripts/deps.sh"
"$ROOT/scripts/build.sh"
cd "$BUILD"
label_args=(-LE full)
for a in "$@"; do
    case $a in -L|-LE|--label-regex|--label-exclude|-L*|-LE*) label_args=() ;; esac
done
ctest --output-on-failure -j "$JOBS" "${label_args[@]}" "$@"
