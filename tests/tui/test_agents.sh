#!/bin/sh
# test_agents.sh - the console with real controllers and node agents (issue
# 15): the Nodes pane's AGENT column (none, online, lost), the header's
# controller indicator (none, then a `rigdeck serve` leading, then none
# again when it stops), and a job's output through the logs view of the
# Jobs pane.  Every wait polls with a deadline; every process started here
# is ended by its pid.
. tests/tui/lib.sh
unset RIGDECK_NOW   # the daemons run on the system clock
INV=tests/inventories
PIDS=""
cleanup () {
    T kill-server 2>/dev/null
    for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT

# stop PID: SIGTERM, then SIGKILL if it has not exited within 20 s.
stop () {
    kill -TERM "$1" 2>/dev/null
    n=200
    while kill -0 "$1" 2>/dev/null && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
    kill -9 "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}

# json_wait SECONDS LINE PATH VALUE: polls `LINE`'s JSON until PATH is VALUE.
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
        -c "node add dc n2 --minion m-2 --inventory $INV/a100x4.yaml" -c "node maintenance n2 off" \
        -c "node add dc n3 --minion m-3 --inventory $INV/a100x4.yaml" \
        >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the test fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi
mkdir -p "$TMP/work-n1" "$TMP/work-n2"

start_shell 120 40

case_ "no agent anywhere, no controller"
start_console
expect_screen 'n1 ' 15
expect_screen 'AGENT'
expect_screen '^ *n1 .* none *$'
expect_screen '^ *n3 .* none *$'
expect_screen 'ctl: none'

case_ "an agent that registers once and stops is online, then lost when its lease runs out"
"$BIN" agent --store "$STORE" --once --node n2 --inventory $INV/a100x4.yaml --work-dir "$TMP/work-n2" \
    --heartbeat 1s --runtime process 2>"$TMP/agent-once.log"
if [ $? = 0 ]; then pass; else fail "agent --once failed: $(cat "$TMP/agent-once.log")"; fi
expect_screen '^ *n2 .* lost *$' 60
expect_screen '^ *n3 .* none *$'

case_ "a controller starts: the header says it leads"
"$BIN" serve --store "$STORE" --sched-every 1s 2>"$TMP/serve.log" &
SERVE=$!
PIDS="$PIDS $SERVE"
expect_screen "ctl: leading [^ ]*:$SERVE" 60
expect_not_screen 'ctl: none'

case_ "at 80 columns the indicator keeps only whether it leads"
T resize-window -t rd -x 80 -y 24
expect_screen 'ctl: leading '
expect_not_screen "ctl: leading [^ ]*:$SERVE"
T resize-window -t rd -x 120 -y 40
expect_screen "ctl: leading [^ ]*:$SERVE"

case_ "a running agent shows online"
"$BIN" agent --store "$STORE" --node n1 --inventory $INV/a100x4.yaml --work-dir "$TMP/work-n1" \
    --heartbeat 1s --runtime process 2>"$TMP/agent-n1.log" &
AGENT=$!
PIDS="$PIDS $AGENT"
expect_screen '^ *n1 .* online *$' 60

case_ "a job's output in the logs view of the Jobs pane"
cat >"$TMP/hello.yaml" <<EOS
name: hello
type: training
resources:
  gpu_types: [a100]
  gpu_count: 1
  max_price: 3
  disk_size: 50
workers:
  count: 1
  commands: ["echo hello-from-worker; echo second-line"]
environment:
  python: "3.9"
  framework: pytorch
EOS
JOB=$(rd --output json -c "job submit $TMP/hello.yaml" | python3 tests/jget.py id)
if [ -n "$JOB" ]; then pass; else fail "job submit gave no id"; fi
if json_wait 60 "job show $JOB" state finished; then pass; else fail "job $JOB never finished"; fi
keys 6
expect_screen "$JOB"
expect_screen 'o logs'
keys o
expect_screen 'hello-from-worker' 15
expect_screen 'second-line'
expect_screen "job $JOB  worker 0 of 1  finished"
expect_screen '\[ \] worker'

case_ "the logs view closes with q"
keys q
expect_not_screen 'hello-from-worker'
expect_screen 'o logs'

case_ "a running worker's output grows in the view while it is open"
cat >"$TMP/tick.yaml" <<EOS
name: tick
type: training
resources:
  gpu_types: [a100]
  gpu_count: 1
  max_price: 3
  disk_size: 50
workers:
  count: 1
  commands: ["for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo tick-\$i; sleep 0.5; done"]
environment:
  python: "3.9"
  framework: pytorch
EOS
JOB3=$(rd --output json -c "job submit $TMP/tick.yaml" | python3 tests/jget.py id)
if json_wait 60 "job show $JOB3" workers.0.state running; then pass; else fail "job $JOB3 never ran"; fi
keys /
type_ "$JOB3"
keys Enter
expect_screen 'Environments · 1 of 2'
keys o
expect_screen "job $JOB3  worker 0 of 1  running" 15
expect_screen 'following'
expect_screen '^ *tick-2 *$' 15
expect_screen '^ *tick-8 *$' 30
expect_screen '^ *tick-12 *$' 30
expect_screen "job $JOB3  worker 0 of 1  finished" 30
keys Escape
expect_not_screen 'tick-12'

case_ "a job without output says so; ] and digits pick workers"
keys /
keys C-u
JOB2=$(rd --output json -c "job submit tests/specs/never-fits.yaml" | python3 tests/jget.py id)
expect_screen 'Environments · 3 of 3'
type_ "$JOB2"
keys Enter
expect_screen 'Environments · 1 of 3'
keys o
expect_screen '(no output yet)'
expect_screen "job $JOB2  worker 0 of 2  waiting_gpus"
keys ']'
expect_screen "job $JOB2  worker 1 of 2"
keys 5
expect_screen 'has 2 workers'
keys Escape
expect_not_screen '(no output yet)'

case_ "the controller stops: the header says none leads"
stop "$SERVE"
expect_screen 'ctl: none' 60

case_ "quit"
keys 3
keys q
expect_screen 'rigdeck-exit=0' 10
stop "$AGENT"

summary
[ "$FAILED" = 0 ]
