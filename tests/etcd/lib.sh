# lib.sh - start and stop throwaway etcd members on loopback, for tests and benchmarks.
#
# Sourced (POSIX sh).  Every member listens on free 127.0.0.1 ports and keeps
# its data in a directory under the caller's temp dir; etcd_stop_all stops
# every member started here (call it from an EXIT trap).
#
#   etcd_single DIR            one member; sets ETCD_URL (etcd://127.0.0.1:PORT)
#   etcd_cluster DIR N         N members; sets ETCD_URL (etcd://h:p,h:p,...),
#                              ETCD_NAMES, and per member i (1..N) the files
#                              DIR/mI.pid, DIR/mI.port
#   etcd_start_member DIR I    (re)starts member I of a cluster made above
#   etcd_kill DIR I            kill -9 of member I
#   etcd_leader DIR            prints the index of the current leader (or nothing)
#   etcd_wipe                  deletes every key of the member(s) in ETCD_URL
#   ETCD_TLS_ARGS              extra etcd flags (set before etcd_single for TLS)
#   ETCD_SCHEME                http (default) or https
ETCD_PIDS=""
ETCD_TLS_ARGS=${ETCD_TLS_ARGS:-}
ETCD_SCHEME=${ETCD_SCHEME:-http}
ETCDCTL_TLS_ARGS=${ETCDCTL_TLS_ARGS:-}
export ETCDCTL_API=3

etcd_free_port () {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# etcd_wait ENDPOINT: waits up to 20 s until the member answers a linearizable read.
etcd_wait () {
    i=0
    while [ $i -lt 200 ]; do
        # shellcheck disable=SC2086
        if etcdctl --endpoints "$1" $ETCDCTL_TLS_ARGS --command-timeout=2s get rigdeck-probe >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# etcd_launch DIR NAME CPORT PPORT CLUSTER STATE: starts one member in the background.
etcd_launch () {
    # shellcheck disable=SC2086
    etcd --name "$2" --data-dir "$1/$2.data" \
        --listen-client-urls "$ETCD_SCHEME://127.0.0.1:$3" --advertise-client-urls "$ETCD_SCHEME://127.0.0.1:$3" \
        --listen-peer-urls "http://127.0.0.1:$4" --initial-advertise-peer-urls "http://127.0.0.1:$4" \
        --initial-cluster "$5" --initial-cluster-state "$6" --initial-cluster-token "rdtest-$$" \
        --heartbeat-interval 50 --election-timeout 500 \
        $ETCD_TLS_ARGS >"$1/$2.log" 2>&1 &
    echo $! >"$1/$2.pid"
    ETCD_PIDS="$ETCD_PIDS $!"
}

etcd_single () {
    mkdir -p "$1"
    for try in 1 2 3; do
        c=$(etcd_free_port); p=$(etcd_free_port)
        etcd_launch "$1" m1 "$c" "$p" "m1=http://127.0.0.1:$p" new
        if etcd_wait "$ETCD_SCHEME://127.0.0.1:$c"; then
            echo "$c" >"$1/m1.port"
            ETCD_URL="etcd://127.0.0.1:$c"
            ETCD_ENDPOINTS="$ETCD_SCHEME://127.0.0.1:$c"
            return 0
        fi
        kill -9 "$(cat "$1/m1.pid")" 2>/dev/null
        wait "$(cat "$1/m1.pid")" 2>/dev/null
        rm -rf "$1/m1.data"
    done
    echo "etcd did not start; its log:" >&2
    tail -n 20 "$1/m1.log" >&2
    return 1
}

etcd_cluster () {
    mkdir -p "$1"
    n=$2
    cluster=""
    ETCD_URL=""
    ETCD_ENDPOINTS=""
    i=1
    while [ $i -le "$n" ]; do
        c=$(etcd_free_port); p=$(etcd_free_port)
        echo "$c" >"$1/m$i.port"
        echo "$p" >"$1/m$i.pport"
        cluster="$cluster${cluster:+,}m$i=http://127.0.0.1:$p"
        ETCD_URL="$ETCD_URL${ETCD_URL:+,}127.0.0.1:$c"
        ETCD_ENDPOINTS="$ETCD_ENDPOINTS${ETCD_ENDPOINTS:+,}$ETCD_SCHEME://127.0.0.1:$c"
        i=$((i + 1))
    done
    echo "$cluster" >"$1/cluster"
    ETCD_URL="etcd://$ETCD_URL"
    i=1
    while [ $i -le "$n" ]; do
        etcd_launch "$1" "m$i" "$(cat "$1/m$i.port")" "$(cat "$1/m$i.pport")" "$cluster" new
        i=$((i + 1))
    done
    etcd_wait "$ETCD_ENDPOINTS"
}

etcd_start_member () {
    etcd_launch "$1" "m$2" "$(cat "$1/m$2.port")" "$(cat "$1/m$2.pport")" "$(cat "$1/cluster")" existing
}

etcd_kill () {
    pid=$(cat "$1/m$2.pid")
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

etcd_leader () {
    for f in "$1"/m*.port; do
        i=$(basename "$f" .port); i=${i#m}
        # shellcheck disable=SC2086
        if etcdctl --endpoints "$ETCD_SCHEME://127.0.0.1:$(cat "$f")" $ETCDCTL_TLS_ARGS --command-timeout=1s \
            endpoint status -w json 2>/dev/null |
            python3 -c 'import json,sys; s=json.load(sys.stdin)[0]["Status"]; sys.exit(0 if s["header"]["member_id"] == s["leader"] else 1)' 2>/dev/null; then
            echo "$i"
            return 0
        fi
    done
    return 1
}

etcd_wipe () {
    # shellcheck disable=SC2086
    etcdctl --endpoints "$ETCD_ENDPOINTS" $ETCDCTL_TLS_ARGS del "" --from-key >/dev/null
}

etcd_stop_all () {
    for pid in $ETCD_PIDS; do
        kill "$pid" 2>/dev/null
    done
    for pid in $ETCD_PIDS; do
        wait "$pid" 2>/dev/null
    done
    ETCD_PIDS=""
}
