#!/usr/bin/env bash
# llama-server keeps serving when the NPU's process dies between two requests: the second
# request's graph meets an injected crash (GGML_HEXAGON_FAULT=crash@N, N past the ops of the
# first request), the backend restarts the DSP process and replays the batch, and both
# requests get the same answers as from a server without the fault; the server is still up.
# A first, clean server run counts the ops that the start-up and the first request use.
# usage: server-crash.sh BIN_DIR MODEL
set -uo pipefail
bin=$1; model=$2
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { [ -f "${2:-}" ] && tail -n 30 "$2"; echo "FAIL: $1"; exit 1; }
unset GGML_HEXAGON_FAULT GGML_HEXAGON_INPROC

# HTTP with Python's standard library. get PATH: exit 0 on a 200.
get() { python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' "http://127.0.0.1:$port$1" 2>/dev/null; }
# start NAME ENV...: a server on a free port, ready to answer; sets pid and port.
start() {
    local name=$1; shift
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    env "$@" GGML_HEXAGON_VERBOSE=1 "$bin/llama-server" -m "$model" -dev HTP0 -c 256 -np 1 --host 127.0.0.1 \
        --port "$port" </dev/null >"$work/$name.out" 2>"$work/$name.log" &
    pid=$!
    for _ in $(seq 600); do
        get /health && return 0
        kill -0 "$pid" 2>/dev/null || fail "$name: llama-server exited while starting" "$work/$name.log"
        sleep 0.5
    done
    fail "$name: llama-server did not become ready" "$work/$name.log"
}
# ask PROMPT: the completion's text (greedy).
ask() {
    python3 - "http://127.0.0.1:$port/completion" "$1" <<'PY'
import json, sys, urllib.request
body = json.dumps({"prompt": sys.argv[2], "n_predict": 8, "temperature": 0, "cache_prompt": False}).encode()
req = urllib.request.Request(sys.argv[1], data=body, headers={"Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(req, timeout=600))["content"])
PY
}
stop() {
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    pid=
}

start clean
a1=$(ask "The capital of France is") || fail "clean: the first request failed" "$work/clean.log"
ops=$(grep -c 'ggml-hexagon: HTP0: op ' "$work/clean.log")
a2=$(ask "Water boils at") || fail "clean: the second request failed" "$work/clean.log"
stop
[ -n "$a1" ] && [ -n "$a2" ] || fail "clean: empty answers"
echo "clean server: start-up and the first request ran $ops ops; answers: '$a1' / '$a2'"

at=$((ops + 40))
start faulty GGML_HEXAGON_FAULT=crash@$at
b1=$(ask "The capital of France is") || fail "faulty: the first request failed" "$work/faulty.log"
grep -q 'GGML_HEXAGON_FAULT: injecting crash' "$work/faulty.log" && fail "the crash came before the second request"
b2=$(ask "Water boils at") || fail "faulty: the second request failed" "$work/faulty.log"
grep -q "^vhtp: GGML_HEXAGON_FAULT: injecting crash at op $at " "$work/faulty.log" ||
    fail "no crash was injected at op $at" "$work/faulty.log"
grep -q 'killed its DSP process (SIGSEGV); restarting the session and replaying the batch' "$work/faulty.log" ||
    fail "no recovery line" "$work/faulty.log"
kill -0 "$pid" 2>/dev/null || fail "the server is gone after the crash" "$work/faulty.log"
get /health || fail "the server does not answer /health after the crash"
[ "$b1" = "$a1" ] && [ "$b2" = "$a2" ] || fail "answers differ: '$b1' / '$b2' against '$a1' / '$a2'"
echo "ok: $(grep -m1 'killed its DSP process' "$work/faulty.log" | sed 's/^.*ggml-hexagon/ggml-hexagon/')"
echo "ok: both requests answered as by the clean server, and it still serves"
stop
echo "PASS"
