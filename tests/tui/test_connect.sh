#!/bin/sh
# test_connect.sh - the console shows where a running endpoint serves
# (execution.md §6): with a real controller and a process-runtime agent
# (--address 127.0.0.1), an endpoint job's start_command serves; its
# details in the Jobs pane (Enter) say `connect: http://127.0.0.1:PORT/`,
# the URL `job connect` gives; a training job's details say no such line.
# Every wait polls with a deadline; every process started here is ended by
# its pid (the worker with its agent's work dir).
. tests/tui/lib.sh
unset RIGDECK_NOW   # the daemons run on the system clock
INV=tests/inventories
PIDS=""
cleanup () {
    T kill-server 2>/dev/null
    for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
    # the workers run in their own sessions, children of their shims
    for p in $(pgrep -f -- "--work-dir $TMP/"); do
        for c in $(pgrep -P "$p"); do kill -s KILL -- "-$c" 2>/dev/null; kill -9 "$c" 2>/dev/null; done
        kill -9 "$p" 2>/dev/null
    done
    rm -rf "$TMP"
}
trap cleanup EXIT
command -v curl >/dev/null 2>&1 || skip "curl is not installed"

json_wait () {
    end=$(($(date +%s) + $1))
    while [ "$(date +%s)" -le "$end" ]; do
        got=$(rd --output json -c "$2" 2>/dev/null | python3 tests/jget.py "$3" 2>/dev/null)
        [ "$got" = "$4" ] && return 0
        sleep 0.2
    done
    echo "  '$2' $3 is '$got', not '$4' after $1 s" >&2
    return 1
}

if ! rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
        -c "price set a100 2.78" -c "account deposit default 1000" \
        -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
        >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the test fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi
mkdir -p "$TMP/work-n1" "$TMP/www"
"$BIN" serve --store "$STORE" --sched-every 1s 2>"$TMP/serve.log" &
PIDS="$PIDS $!"
"$BIN" agent --store "$STORE" --node n1 --inventory $INV/a100x4.yaml --work-dir "$TMP/work-n1" \
    --heartbeat 1s --runtime process --address 127.0.0.1 2>"$TMP/agent-n1.log" &
PIDS="$PIDS $!"

case_ "an endpoint runs and serves"
cat >"$TMP/ep.yaml" <<EOS
name: ep
type: endpoint
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
endpoint:
  start_command: 'cd $TMP/www && exec python3 -m http.server "\$PORT" --bind 127.0.0.1'
environment: {python: "3.9", framework: pytorch}
EOS
JOB=$(rd --output json -c "job submit $TMP/ep.yaml" | python3 tests/jget.py id)
if [ -n "$JOB" ]; then pass; else fail "job submit gave no id"; fi
if json_wait 120 "job show $JOB" state running; then pass; else fail "job $JOB never ran"; fi
PORT=$(rd --output json -c "job connect $JOB" | python3 tests/jget.py port)
if [ -n "$PORT" ]; then pass; else fail "job connect gave no port"; fi

start_shell 120 40
start_console

case_ "its details show where to connect"
keys 6
expect_screen "$JOB" 15
keys /
type_ "$JOB"
keys Enter
expect_screen '1 of 1 · filter'
keys Enter
expect_screen "connect: http://127.0.0.1:$PORT/" 15
expect_screen 'type *endpoint'
keys Escape
expect_not_screen "connect: http"

case_ "quit"
keys q
expect_screen 'rigdeck-exit=0' 10

summary
