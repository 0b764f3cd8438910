#!/usr/bin/env bash
# Sets everything up and runs the test suite (ctest): unit tests, test-backend-ops on HTP0 for
# every NPU op, and the end-to-end model checks. Tests labelled "full" (the hour-long complete
# case lists of FLASH_ATTN_EXT and MUL_MAT_ID, whose quick variants always run) are left out
# unless a label is chosen.
#   scripts/test.sh [ctest args]    e.g. scripts/test.sh -L unit, scripts/test.sh -L full
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
case "${1:-}" in -h|--help) sed -n '2,6p' "$0"; exit 0 ;; esac
# An option ctest does not list in its --help fails here, before the set-up steps (ctest itself
# ignores unknown options). -j2 / -LEfoo: the short option is the first two characters.
if [ $# -gt 0 ] && command -v ctest >/dev/null; then
    known=" $(ctest --help | grep -oE '(^|[ ,])-{1,2}[A-Za-z][-A-Za-z0-9_]*' | tr -d ' ,' | tr '\n' ' ') "
    for a in "$@"; do
        case $a in
            --*) [[ $known == *" ${a%%=*} "* ]] || die "unknown ctest option '$a' (see --help, ctest --help)" ;;
            -*) [[ $known == *" $a "* || $known == *" ${a:0:2} "* || $known == *" ${a:0:3} "* ]] ||
                    die "unknown ctest option '$a' (see --help, ctest --help)" ;;
        esac
    done
fi

"$ROOT/scripts/deps.sh"
"$ROOT/scripts/build.sh"
cd "$BUILD"
label_args=(-LE full)
for a in "$@"; do
    case $a in -L|-LE|--label-regex|--label-exclude|-L*|-LE*) label_args=() ;; esac
done
ctest --output-on-failure -j "$JOBS" "${label_args[@]}" "$@"
