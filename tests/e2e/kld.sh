#!/usr/bin/env bash
# End-to-end check: the model's token distributions on HTP0 against ggml's CPU backend, with
# llama-perplexity --kl-divergence on a fixed text. Passes when the mean KLD is below the
# threshold AND ops really ran on HTP0 (counted from GGML_HEXAGON_VERBOSE's per-op log).
# usage: kld.sh BIN_DIR MODEL TEXT THRESHOLD
#   HTP_KLD_DEVICES: the devices to run on (default HTP0; e.g. HTP0,HTP1 for llama's layer split,
#   every one of them must run ops)
#   HTP_KLD_EXPECT_LOG: an extended regex the HTP run's log must match (e.g. the device
#   description's "64-bit DMA bases", so a run meant for them cannot pass without them)
#   HTP_KLD_ARGS: more llama-perplexity arguments for both runs (e.g. "-ub 32": a batch of four
#   micro-batches, which llama's layer split pipelines over its devices; "-lv 4" to see llama's
#   "pipeline parallelism enabled")
#   HTP_KLD_HTP_ARGS: more arguments for the HTP run only (e.g. "-sm tensor")
#   HTP_KLD_MIN_OVERLAP: percent; each device's NPU time must have overlapped another device's
#   at least this much (its "stream:" line at exit): the evidence that a layer split pipelines
set -euo pipefail
bin=$1; model=$2; text=$3; threshold=$4
devices=${HTP_KLD_DEVICES:-HTP0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
read -r -a extra <<<"${HTP_KLD_ARGS:-}"
read -r -a htp_extra <<<"${HTP_KLD_HTP_ARGS:-}"
common=(-m "$model" -f "$text" -c 128 -b 128 --chunks 3 -t 2 --seed 1 "${extra[@]}")

# Noise floor: this Q4_K_M model quantizes activations to 8 bits before every matmul, so a
# change of one float ulp anywhere flips some of those roundings. CPU against CPU with and
# without weight repacking already gives a mean KLD of ~0.006; HTP0 (whose RMS_NORM sums in
# float where the CPU sums in double, 3 ulp apart at most) lands at the same level.
"$bin/llama-perplexity" "${common[@]}" -dev none -ngl 0 --kl-divergence-base "$work/base.kld" \
    >"$work/cpu.log" 2>&1 || { tail -n 30 "$work/cpu.log"; echo "FAIL: CPU reference run failed"; exit 1; }

htp_run() {
    GGML_HEXAGON_VERBOSE=1 "$bin/llama-perplexity" "${common[@]}" "${htp_extra[@]}" -dev "$devices" -ngl 99 \
        --kl-divergence-base "$work/base.kld" --kl-divergence >"$work/htp.log" 2>&1 ||
        { tail -n 30 "$work/htp.log"; echo "FAIL: $devices run failed"; exit 1; }
}
htp_run
# llama.cpp's asynchronous logger (common/log.cpp) now and then loses the last lines at exit
# (CPU-only runs too): a clean exit without the result lines is run once more.
if ! grep -qE '^Mean +KLD:' "$work/htp.log"; then
    echo "no 'Mean KLD' line after a clean exit (llama's log lost its last lines): running again"
    htp_run
fi

if [ -n "${HTP_KLD_EXPECT_LOG:-}" ] && ! grep -qE "$HTP_KLD_EXPECT_LOG" "$work/htp.log"; then
    grep -E "ggml-hexagon: [^ ]+: Hexagon" "$work/htp.log" | head -n 5 || true
    echo "FAIL: the $devices run's log does not match '$HTP_KLD_EXPECT_LOG'"
    exit 1
fi
n_ops=0
for dev in ${devices//,/ }; do
    n=$(grep -c "ggml-hexagon: $dev: op " "$work/htp.log" || true)
    echo "$dev ran $n ops"
    [ "$n" -gt 0 ] || { echo "FAIL: no op ran on $dev"; exit 1; }
    n_ops=$((n_ops + n))
done
if [ -n "${HTP_KLD_MIN_OVERLAP:-}" ]; then
    for dev in ${devices//,/ }; do
        line=$(grep -m1 "ggml-hexagon: $dev: stream: " "$work/htp.log" || true)
        [ -n "$line" ] || { echo "FAIL: no 'stream:' line for $dev"; exit 1; }
        echo "$line"
        awk -v m="$HTP_KLD_MIN_OVERLAP" '{ for (i = 1; i <= NF; i++) if ($i == "busy,") { busy = $(i - 2); ovl = $(i + 1) } }
             END { exit !(busy > 0 && 100 * ovl / busy >= m) }' <<<"$line" ||
            { echo "FAIL: $dev overlapped less than $HTP_KLD_MIN_OVERLAP% of its NPU time with another device"; exit 1; }
    done
fi
kld=$(grep -E '^Mean +KLD:' "$work/htp.log" | awk '{print $3}')
if [ -z "$kld" ]; then
    tail -n 30 "$work/htp.log"
    echo "FAIL: no 'Mean KLD' line in the HTP0 run"
    exit 1
fi
echo "$devices ran $n_ops ops; mean KLD vs CPU = $kld (threshold $threshold)"
grep -E '^(Mean +KLD|Maximum KLD|Same top p|RMS Δp)' "$work/htp.log" || true
awk -v k="$kld" -v t="$threshold" 'BEGIN { exit !(k < t) }' || { echo "FAIL: mean KLD $kld >= $threshold"; exit 1; }
echo "PASS"
