#!/bin/sh
# bench_fleet.sh - the fleet on one machine: submit-to-running latency.
#
# A store with one region, BENCH_FLEET_AGENTS nodes (default 50, a100x4
# inventories: 4 GPUs each), one real `rigdeck serve` and one real
# `rigdeck agent` per node (own --node and --work-dir, --heartbeat 1s).
# BENCH_FLEET_JOBS jobs (default 1,000) whose one worker runs `sleep 1` on
# one GPU are submitted back to back by BENCH_FLEET_SUBMITTERS (default 4)
# batch processes at once; with 200 GPUs they queue.  tests/bench/fleet_watch.py follows every job write from the
# outside with a millisecond clock (the store's stamps are whole seconds)
# and reports:
#   submit_to_running  the first AGENTS x 4 jobs, which never wait for
#                      capacity: job written -> the agent's `running` written
#   placed_to_running  every job: the controller's placement -> `running`
#                      (the agent's reaction)
#   queued_submit_to_running  every job, queueing included
#   JOBS_jobs_wall_s   first submission to the last job's end
#   submits_per_s      how fast the submitters got their jobs in meanwhile
# On SQLite, then on etcd when RIGDECK_BENCH_ETCD names one (its /rigdeck/
# and ~rigdeck/ keys are deleted first).  `ledger verify` runs after each.
# BENCH_FLEET_ONLY=sqlite|etcd runs one backend.
# Every process started here is killed by pid at the end.  Measures only:
# exits 0.
set -u
BUILD=${BUILD:-build-bench}
BIN=$BUILD/rigdeck
JOBS=${BENCH_FLEET_JOBS:-1000}
AGENTS=${BENCH_FLEET_AGENTS:-50}
SUBMITTERS=${BENCH_FLEET_SUBMITTERS:-4}
TIMEOUT=${BENCH_FLEET_TIMEOUT:-600}
INV=tests/inventories/a100x4.yaml
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rdfleet.XXXXXX")
FIGS=$TMP/figures
PIDS=""
unset RIGDECK_NOW RIGDECK_ACCOUNT RIGDECK_STORE
export RIGDECK_MASTER_KEY="$TMP/master.key"
: >"$FIGS"

cleanup () {
    for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    PIDS=""
    kill_workers
}
# Workers run in their own sessions: end any left over by the pids their
# runners recorded (WORK/<job>/<worker>/.rigdeck/pid).
kill_workers () {
    for f in "$TMP"/run-*/work-*/*/*/.rigdeck/pid; do
        [ -f "$f" ] || continue
        w=$(sed -n 's/^worker \([0-9]*\) .*/\1/p' "$f")
        s=$(sed -n 's/^shim \([0-9]*\) .*/\1/p' "$f")
        [ -n "$w" ] && kill -s KILL -- "-$w" 2>/dev/null
        [ -n "$s" ] && kill -9 "$s" 2>/dev/null
    done
}
trap 'cleanup; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

if [ ! -x "$BIN" ]; then
    echo "bench_fleet: $BIN is not built; skipped"
    exit 0
fi

rdb () { "$BIN" --batch --store "$STORE" "$@"; }

# online_agents: how many agents the store calls online.
online_agents () {
    rdb --output json -c "agent list" 2>/dev/null |
        python3 -c 'import json,sys; print(sum(1 for a in json.load(sys.stdin)["items"] if a["state"] == "online"))' 2>/dev/null ||
        echo 0
}

# run_fleet LABEL STORE_URL
run_fleet () {
    label=$1
    STORE=$2
    dir=$TMP/run-$label
    mkdir -p "$dir"
    slots=$((AGENTS * 4))
    echo "$label: $JOBS one-second jobs over $AGENTS agents ($slots GPUs) on $STORE"

    # the store: one region, AGENTS nodes in service
    {
        echo "provider enable physical"
        echo "region create dc --provider physical --storage local --public"
        echo "price set a100 2.78"
        echo "account deposit default 100000"
        i=1
        while [ $i -le "$AGENTS" ]; do
            echo "node add dc n$i --minion m-$i --inventory $INV"
            echo "node maintenance n$i off"
            i=$((i + 1))
        done
    } >"$dir/setup.txt"
    if ! rdb -f "$dir/setup.txt" >"$dir/setup.out" 2>&1; then
        echo "$label: setup failed: $(tail -n 3 "$dir/setup.out")"
        return 0
    fi
    cat >"$dir/job.yaml" <<EOF
name: bench
type: training
resources:
  gpu_types: [a100]
  gpu_count: 1
  max_price: 3
  disk_size: 50
workers:
  count: 1
  commands: ["sleep 1"]
environment:
  python: "3.9"
  framework: pytorch
EOF
    k=1
    while [ $k -le "$SUBMITTERS" ]; do
        i=$k
        while [ $i -le "$JOBS" ]; do echo "job submit $dir/job.yaml"; i=$((i + SUBMITTERS)); done >"$dir/submit-$k.txt"
        k=$((k + 1))
    done

    # the daemons: the agents first, the serve once they have registered.
    # (A serve already running may call an agent that registers during its
    # `agent check` lost - it reads the alive keys before the agent
    # documents - and the agent, its lease alive, never registers again;
    # see the final report of issue 15's benchmark.  The benchmark measures
    # jobs, so it keeps clear of that.)
    i=1
    while [ $i -le "$AGENTS" ]; do
        mkdir -p "$dir/work-n$i"
        "$BIN" agent --store "$STORE" --node "n$i" --work-dir "$dir/work-n$i" --heartbeat 1s --runtime process --inventory "$INV" \
            2>"$dir/agent-n$i.log" &
        PIDS="$PIDS $!"
        i=$((i + 1))
    done
    t0=$(date +%s)
    while [ "$(online_agents)" -lt "$AGENTS" ]; do
        if [ $(($(date +%s) - t0)) -gt 120 ]; then
            echo "$label: only $(online_agents) of $AGENTS agents came online in 120 s; skipped"
            rdb --output json -c "agent list" 2>/dev/null | python3 -c 'import json,sys
for a in json.load(sys.stdin)["items"]:
    if a["state"] == "online": print(a["name"])' >"$dir/online"
            i=1
            while [ $i -le "$AGENTS" ]; do
                grep -qx "n$i" "$dir/online" || echo "  agent n$i is not online; its log ends: $(tail -n 3 "$dir/agent-n$i.log")"
                i=$((i + 1))
            done | head -n 20
            grep -i 'lost' "$dir/serve.log" | head -n 5 | sed 's/^/  serve: /'
            cleanup
            return 0
        fi
        sleep 0.5
    done
    echo "$label: $AGENTS agents online after $(($(date +%s) - t0)) s"
    "$BIN" serve --store "$STORE" 2>"$dir/serve.log" &
    spid=$!
    PIDS="$PIDS $spid"
    t0=$(date +%s)
    until rdb --output json -c "serve status" 2>/dev/null | grep -q "\"pid\": *$spid[,}]"; do
        if [ $(($(date +%s) - t0)) -gt 60 ]; then
            echo "$label: the serve did not lead within 60 s: $(tail -n 3 "$dir/serve.log")"
            cleanup
            return 0
        fi
        sleep 0.2
    done
    sleep 2   # its first agent checks
    echo "$label: serve leads; $(online_agents) of $AGENTS agents online"

    # the observer, then the submissions
    python3 tests/bench/fleet_watch.py "$STORE" "$JOBS" "$TIMEOUT" "fleet_$label" "$slots" \
        >"$dir/report" 2>"$dir/watch.err" &
    wpid=$!
    PIDS="$PIDS $wpid"
    # wait for its "ready" line (the report file's first line)
    t0=$(date +%s)
    until grep -q '^ready$' "$dir/report" 2>/dev/null; do
        if [ $(($(date +%s) - t0)) -gt 30 ] || ! kill -0 "$wpid" 2>/dev/null; then
            echo "$label: the observer did not start: $(cat "$dir/watch.err")"
            cleanup
            return 0
        fi
        sleep 0.1
    done
    ts=$(date +%s.%N)
    subs=""
    k=1
    while [ $k -le "$SUBMITTERS" ]; do
        rdb -f "$dir/submit-$k.txt" >"$dir/submit-$k.out" 2>&1 &
        subs="$subs $!"
        k=$((k + 1))
    done
    for p in $subs; do
        wait "$p" || echo "$label: some submissions failed: $(tail -q -n 1 "$dir"/submit-*.out | head -n 2)"
    done
    te=$(date +%s.%N)
    rate=$(python3 -c "print(f'{$JOBS / ($te - $ts):.0f}')")
    echo "$label: $JOBS submissions by $SUBMITTERS batch processes at once took $(python3 -c "print(f'{$te - $ts:.2f}')") s ($rate/s)"
    echo "bench: fleet_${label}_submits_per_s $rate 1/s" >>"$FIGS"
    wait "$wpid"
    grep -v '^ready$' "$dir/report" | grep -v '^bench: ' | sed 's/^fleet_//'
    grep '^bench: ' "$dir/report" >>"$FIGS"
    [ -s "$dir/watch.err" ] && echo "$label: observer: $(tail -n 3 "$dir/watch.err")"

    # the books must still balance; the serve's own view of its work
    printf '%s: ledger verify: ' "$label"
    rdb --output json -c "ledger verify" 2>&1 | python3 -c 'import json,sys
try:
    d = json.load(sys.stdin)
    print("ok" if d.get("ok") else "NOT OK", "- transfers", d.get("transfers"), "violations", d.get("violation_count"))
except ValueError:
    print("could not run")'
    printf '%s: serve cpu: ' "$label"
    awk '{printf "%.1f s user+sys\n", ($14 + $15) / 100}' "/proc/$spid/stat" 2>/dev/null || echo "?"
    errs=$(cat "$dir"/agent-*.log "$dir/serve.log" | grep -ci 'error\|fail' || true)
    echo "$label: daemon log lines mentioning error/fail: $errs"
    cleanup
}

echo "bench_fleet: $JOBS jobs (sleep 1, 1 GPU each), $AGENTS agents with --heartbeat 1s, $(nproc) CPUs"
ONLY=${BENCH_FLEET_ONLY:-}
[ "$ONLY" = etcd ] || run_fleet sqlite "sqlite:$TMP/store.db"
etcd=${RIGDECK_BENCH_ETCD:-}
[ "$ONLY" = sqlite ] && etcd=""
case $etcd in
etcd://*)
    ep=http://${etcd#etcd://}
    ep=${ep%%,*}
    if etcdctl --endpoints "$ep" del /rigdeck/ --prefix >/dev/null 2>&1 &&
        etcdctl --endpoints "$ep" del '~rigdeck/' --prefix >/dev/null 2>&1; then
        run_fleet etcd "$etcd"
    else
        echo "etcd: could not clear $ep; skipped"
    fi
    ;;
*) echo "etcd: skipped (set RIGDECK_BENCH_ETCD=etcd://HOST:PORT; tests/bench/run.sh does)" ;;
esac
cat "$FIGS"
exit 0
