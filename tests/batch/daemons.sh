# daemons.sh - start and stop real `rigdeck serve` and `rigdeck agent`
# processes in a batch scenario (source after lib.sh).
#
#   start_serve NAME [OPTIONS...]     a controller; its pid in $PID_<NAME>
#   start_agent NODE [OPTIONS...]     an agent for NODE with its own work dir
#                                     ($TMP/work-NODE) and inventory (a100x4)
#   wait_until SECONDS CMD...         runs CMD until it succeeds (else fails the
#                                     check); never a fixed sleep as the test
#   wait_json SECONDS LINE PATH VALUE a field of `LINE`'s JSON reaches VALUE
#   kill_daemon NAME SIG              signals one, waits for it to exit
#   http_serve DIR                    python3's http.server for DIR on
#                                     127.0.0.1 at a free port: $HTTP_PORT
#
# Every process started here is killed when the scenario ends; with
# KEEP_LOGS=DIR set, their logs are copied there first (to read after a
# failure that shows only under load).  The daemons
# run on the system clock, so scenarios that use them unset RIGDECK_NOW.
unset RIGDECK_NOW
# job_spec's jobs set a variable, so submitting seals it: the batch lines
# and the agents share this scenario's master key (never the user's own).
export RIGDECK_MASTER_KEY="$TMP/master.key"
DAEMONS=""
INV=${INV:-tests/inventories}

kill_group () { kill -s KILL -- "-$1" 2>/dev/null; kill -s KILL "$1" 2>/dev/null; }

daemons_cleanup () {
    [ -n "${KEEP_LOGS:-}" ] && mkdir -p "$KEEP_LOGS" && cp "$TMP"/*.log "$KEEP_LOGS"/ 2>/dev/null
    for p in $DAEMONS; do kill -9 "$p" 2>/dev/null; done
    # Workers the agents started run in their own sessions: end them too.
    # A shim is a fork of its agent (same command line, our work dir in
    # it) and outlives a killed agent; its worker's group goes with it.
    # (dash's kill takes a group only as `kill -s SIG -- -PGID`; the
    # `kill -9 -- -PGID PID` written here before killed nothing at all.)
    for p in $(pgrep -f "rdtest-worker-$$") $(pgrep -f -- "--work-dir $TMP/"); do
        for c in $(pgrep -P "$p"); do kill_group "$c"; done
        kill_group "$p"
    done
    rm -rf "$TMP"
}
trap daemons_cleanup EXIT

start_serve () {
    name=$1; shift
    $WRAP "$BIN" serve --store "$STORE" "$@" 2>>"$TMP/$name.log" &
    eval "PID_$name=$!"
    DAEMONS="$DAEMONS $!"
}

start_agent () {
    node=$1; shift
    mkdir -p "$TMP/work-$node"
    $WRAP "$BIN" agent --store "$STORE" --node "$node" --work-dir "$TMP/work-$node" --heartbeat 1s --runtime process "$@" \
        2>>"$TMP/agent-$node.log" &
    eval "PID_agent_$(echo "$node" | tr -c 'a-zA-Z0-9\n' _)=$!"
    DAEMONS="$DAEMONS $!"
}

http_serve () {
    python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$1" >"$TMP/http.log" 2>&1 &
    HTTP_PID=$!
    DAEMONS="$DAEMONS $HTTP_PID"
    HTTP_PORT=""
    _end=$(($(date +%s) + 60))
    while [ -z "$HTTP_PORT" ] && [ "$(date +%s)" -le "$_end" ]; do
        HTTP_PORT=$(sed -n 's/^Serving HTTP on 127\.0\.0\.1 port \([0-9]*\).*/\1/p' "$TMP/http.log")
        [ -n "$HTTP_PORT" ] || sleep 0.2
    done
    [ -n "$HTTP_PORT" ] || { echo "the HTTP server for $1 did not start: $(cat "$TMP/http.log")" >&2; exit 1; }
}

agent_pid () { eval "echo \$PID_agent_$(echo "$1" | tr -c 'a-zA-Z0-9\n' _)"; }

wait_until () {
    limit=$1; shift
    end=$(($(date +%s) + limit))
    while [ "$(date +%s)" -le "$end" ]; do
        if "$@" >/dev/null 2>&1; then pass; return 0; fi
        sleep 0.2
    done
    fail "not within ${limit}s: $*"
    return 1
}

# json_is LINE PATH VALUE: the field of `rigdeck --batch -c LINE` equals VALUE.
json_is () {
    got=$($WRAP "$BIN" --batch --store "$STORE" --output json -c "$1" 2>/dev/null | python3 tests/jget.py "$2")
    [ "$got" = "$3" ]
}
wait_json () { wait_until "$1" json_is "$2" "$3" "$4"; }

# kill_daemon PID SIGNAL: signals it and waits until it has exited; $DSTATUS
# is its exit status (only for children of this shell).
kill_daemon () {
    kill "-$2" "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    DSTATUS=$?
}

# A job spec running CMD (one worker, one a100) in $TMP/NAME.yaml.
job_spec () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: training
resources:
  gpu_types: [a100]
  gpu_count: ${3:-1}
  max_price: 3
  disk_size: 50
workers:
  count: 1
  commands: [": rdtest-worker-$$; $2"]
environment:
  python: "3.9"
  framework: pytorch
  env: {RDTEST_TAG: tagged}
EOF
}

submit () {
    rd --output json -c "job submit $TMP/$1.yaml"
    jget id
}
