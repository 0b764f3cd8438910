#!/usr/bin/env bash
# What the level-2 counters cost when profiling is off (docs/profiling.md "Counters"): token
# generation and prompt processing of the default model on HTP0 (v79) with GGML_HEXAGON_PROFILE=0,
# with this build's NPU library and with one built with -DGGML_HEXAGON_COUNTERS=OFF, the two
# runs alternated REPS times; also GGML_HEXAGON_PROFILE=2 with this build (what counting costs
# when on). Prints a markdown table (median tokens per second, ratio to counters compiled out).
# Not a test: figures depend on the machine and its load.
#   bench/profile-overhead.sh OFF_LIB   OFF_LIB: a libggml-htp-v79.so configured with
#                                       -DGGML_HEXAGON_COUNTERS=OFF (e.g. build-off/bin/...)
#                                       env: REPS (default 3), PP (64), TG (32)
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
help_or_option 10 "$@"
[ $# -eq 1 ] || die "one argument (OFF_LIB), got $# (see --help)"
off_lib=$1
[ -f "$off_lib" ] || die "no library at $off_lib"
[ -x "$BIN/llama-bench" ] || die "no $BIN/llama-bench: run scripts/build.sh first"
[ -f "$MODEL" ] || die "no model at $MODEL: run scripts/deps.sh first"
reps=${REPS:-3}; pp=${PP:-64}; tg=${TG:-32}
# A copy of bin/ (hard links) with the NPU library swapped: the backend loads the library
# beside itself.
off_bin=$BUILD/bin-counters-off
work=$(mktemp -d)
trap 'rm -rf "$work" "$off_bin"' EXIT
rm -rf "$off_bin"
cp -al "$BIN" "$off_bin"
rm -f "$off_bin/libggml-htp-v79.so"
cp "$off_lib" "$off_bin/libggml-htp-v79.so"
run() {  # name, bin dir, PROFILE level, rep
    local name=$1 bin=$2 level=$3 rep=$4
    log "$name (rep $rep): pp$pp, tg$tg"
    GGML_HEXAGON_ARCH=v79 GGML_HEXAGON_PROFILE=$level "$bin/llama-bench" -m "$MODEL" -p "$pp" -n "$tg" -r 1 \
        -o json -dev HTP0 -ngl 99 >"$work/$name.$rep.json" 2>"$work/$name.$rep.err" ||
        { tail -n 20 "$work/$name.$rep.err" >&2; die "llama-bench ($name) failed"; }
}
for rep in $(seq 1 "$reps"); do
    run off "$off_bin" 0 "$rep"
    run on "$BIN" 0 "$rep"
    run level2 "$BIN" 2 "$rep"
done
python3 - "$work" "$reps" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, statistics, sys
work, reps, load = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def tps(name):
    out = {}
    for r in range(1, reps + 1):
        for t in json.load(open(f"{work}/{name}.{r}.json")):
            key = f"pp{t['n_prompt']}" if t["n_prompt"] else f"tg{t['n_gen']}"
            out.setdefault(key, []).append(t["avg_ts"])
    return {k: statistics.median(v) for k, v in out.items()}
off, on, l2 = tps("off"), tps("on"), tps("level2")
print(f"| test | counters compiled out, t/s | PROFILE=0, t/s | ratio | PROFILE=2, t/s | ratio |")
print("|---|---:|---:|---:|---:|---:|")
for k in off:
    print(f"| {k} | {off[k]:.2f} | {on[k]:.2f} | {on[k] / off[k]:.3f} | {l2[k]:.2f} | {l2[k] / off[k]:.3f} |")
print(f"\nmedian of {reps} alternated runs; load average after: {load}")
PY
