# Sourced by the e2e scripts that check llama-completion's text.
# llama_run OUT LOG CMD...: runs CMD >OUT 2>LOG and returns its exit status. llama.cpp's logger
# (common/log.cpp, common_log_main) is a leaked singleton whose worker thread writes the text
# and the perf summary asynchronously: under load the process now and then exits before the
# worker wrote its last lines. A run that exited 0 without its perf summary ("eval time") is
# such a run; it is made again, up to three times in all, and the last one's files are kept.
llama_run() {
    local out=$1 log=$2 attempt rc
    shift 2
    for attempt in 1 2 3; do
        "$@" >"$out" 2>"$log"
        rc=$?
        [ $rc -ne 0 ] && return $rc
        grep -qE 'common_perf_print: +eval time' "$log" && return 0
        echo "note: llama's log lost its last lines (attempt $attempt): running again" >&2
    done
    return 0
}
