#!/usr/bin/env bash
# llama-bench of the default model on HTP0 and on ggml's CPU backend in one run: prompt
# processing (pp8 .. pp512) and token generation (tg128), tokens per second, and the HTP0/CPU ratio.
# Writes the table, with the date, the commit measured and the host's load, to
# docs/bench-llama.md (or OUT), and without OUT also into README.md (between its bench-llama
# marks). Not a test: numbers depend on the machine and its load (the vHTP runs on the same
# host cores as the CPU backend).
#   bench/llama-bench.sh [OUT]     env: REPS (default 1), PP (8,16,32,64,128,512: chat-sized prompts
#                                  and a long one), TG (128)
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
help_or_option 10 "$@"
[ $# -le 1 ] || die "at most one argument (OUT), got $# (see --help)"
out=${1:-$DOCS/bench-llama.md}
readme=""
[ $# -eq 0 ] && [ -f "$ROOT/CMakeLists.txt" ] && readme=$ROOT/README.md
# The commit measured; "+changes" when tracked files differ from it (the figures are of those).
commit=unknown
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    commit=$(git -C "$ROOT" rev-parse --short=12 HEAD)
    [ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] || commit="$commit+changes"
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
[ -x "$BIN/llama-bench" ] || die "no $BIN/llama-bench: run scripts/build.sh first"
[ -f "$MODEL" ] || die "no model at $MODEL: run scripts/deps.sh first"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pp=${PP:-8,16,32,64,128,512}; tg=${TG:-128}; reps=${REPS:-1}
run() {  # name, llama-bench device args...
    local name=$1; shift
    log "llama-bench on $name: pp$pp, tg$tg, $reps repetition(s)"
    "$BIN/llama-bench" -m "$MODEL" -p "$pp" -n "$tg" -r "$reps" -o json "$@" >"$work/$name.json" 2>"$work/$name.err" ||
        { tail -n 20 "$work/$name.err" >&2; die "llama-bench on $name failed"; }
}
run HTP0 -dev HTP0 -ngl 99
run CPU -dev none -ngl 0
python3 - "$work/HTP0.json" "$work/CPU.json" "$out" "$(basename "$MODEL")" "$commit" \
    "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" "$readme" <<'PY'
import json, sys, datetime, platform, os, re, textwrap
out, model, commit, load_before, load_after, readme = sys.argv[3:9]
def rates(path):
    res = {}
    for r in json.load(open(path)):
        test = f"pp{r['n_prompt']}" if r['n_gen'] == 0 else f"tg{r['n_gen']}"
        res[test] = (r['avg_ts'], r['stddev_ts'])
    return res
htp, cpu = rates(sys.argv[1]), rates(sys.argv[2])
lines = ["| test | HTP0 t/s | CPU t/s | HTP0 / CPU |", "|---|---:|---:|---:|"]
for t in htp:
    h, c = htp[t][0], cpu.get(t, (float('nan'), 0))[0]
    lines.append(f"| {t} | {h:.2f} | {c:.2f} | {h / c:.3f} |")
when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
measured = (f"measured {when} at commit `{commit}` by `bench/llama-bench.sh`, {os.cpu_count()} host cores, "
            f"load average {load_before} before and {load_after} after")
with open(out, 'w') as f:
    f.write("# llama-bench: HTP0 versus CPU\n\n")
    f.write(f"Model `{model}`, {measured}; one llama-bench run per device in the same script. HTP0 is "
            "the virtual NPU: its HVX/HMX/DMA are emulated on the same host cores the CPU backend uses, "
            "so the ratio measures the emulated kernels, not a phone.\n\n")
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
if readme:
    text = open(readme, encoding="utf-8").read()
    begin, end = "<!-- bench-llama:begin -->", "<!-- bench-llama:end -->"
    if begin not in text or end not in text:
        sys.exit(f"{readme}: no {begin} ... {end} marks to write the table between")
    head = textwrap.fill(f"`{model}`, {measured} (`docs/bench-llama.md`):", width=96)
    block = f"{begin}\n{head}\n\n" + "\n".join(lines) + f"\n{end}"
    text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda m: block, text, count=1, flags=re.S)
    open(readme, "w", encoding="utf-8").write(text)
    print(f"updated {readme}")
PY
log "wrote $out"
