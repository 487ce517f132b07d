#!/bin/sh
# test_failover.sh - kill -9 the etcd leader in the middle of a workload.
#
# A 3-member etcd cluster on loopback.  Several rigdeck processes at once:
# deposits into one shared wallet and into one wallet each (compare-and-swap
# on the same documents, non-idempotent: a deposit applied twice or lost
# shows in the balance), account creations with unique names, scheduling
# passes over more jobs than there are GPUs, and billing runs.  Meanwhile
# the leader is killed with SIGKILL, restarted, and the new leader killed
# again.  Afterwards: every command succeeded, every balance is exact, every
# account exists, no GPU is given twice, no job is lost, `ledger verify`
# passes.  Prints "batch-summary: passed=N failed=M".
#
# FAILOVER_ROUNDS=N repeats the workload N times on the same cluster.
set -u
BUILD=${BUILD:-build}
WRAP=${RIGDECK_WRAP:-}
BIN=$BUILD/rigdeck
T=$(mktemp -d "${TMPDIR:-/tmp}/rdfail.XXXXXX")
ROUNDS=${FAILOVER_ROUNDS:-1}
WRITERS=4
DEPOSITS=30
CREATES=15
JOBS=30
PASSED=0
FAILED=0
export RIGDECK_NOW=2026-11-01T00:00:00Z RIGDECK_MASTER_KEY="$T/master.key"
unset RIGDECK_ACCOUNT RIGDECK_STORE
pass () { PASSED=$((PASSED + 1)); }
fail () { FAILED=$((FAILED + 1)); echo "  FAIL $1" >&2; }

. tests/etcd/lib.sh
trap 'etcd_stop_all; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

if ! etcd_cluster "$T/c" 3; then
    echo "the cluster did not start" >&2
    tail -n 5 "$T"/c/m*.log >&2
    echo "batch-summary: passed=0 failed=1"
    exit 1
fi
STORE=$ETCD_URL

rd () {
    # shellcheck disable=SC2086
    $WRAP "$BIN" --batch --store "$STORE" "$@"
}

# loop LOG N CMD...: runs a rigdeck command N times ("%i" in it becomes the
# iteration), one exit status per line in LOG.
loop () {
    log=$1 n=$2; shift 2
    i=1
    while [ "$i" -le "$n" ]; do
        cmd=$(echo "$*" | sed "s/%i/$i/g")
        rd -c "$cmd" >/dev/null 2>>"$log.err"
        echo "$? $cmd" >>"$log"
        i=$((i + 1))
    done
}

# kill_leader: SIGKILLs the leader, waits, restarts it as a member again.
kill_leader () {
    l=""
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        l=$(etcd_leader "$T/c") && break
        sleep 0.2
    done
    if [ -z "$l" ]; then
        echo "  (no leader found to kill)" >&2
        return
    fi
    alive=0
    for p in $WL; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
    echo "  killing leader m$l while $alive workload processes run" >&2
    [ "$alive" -gt 0 ] && pass || fail "a kill came after the workload ended"
    etcd_kill "$T/c" "$l"
    KILLS=$((KILLS + 1))
    sleep 1.5
    etcd_start_member "$T/c" "$l"
}

setup () {
    rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
        -c "price set a100 2.78" -c "account create bob --plan team" -c "account deposit bob 100000" \
        -c "account create shared" >/dev/null || fail "setup: fleet and accounts"
    for n in 1 2 3 4 5; do
        rd -c "node add dc gpu-$n --minion m-$n --inventory tests/inventories/a100x4.yaml" \
            -c "node maintenance gpu-$n off" >/dev/null || fail "setup: node gpu-$n"
    done
    for w in $(seq 1 $WRITERS); do
        rd -c "account create w$w" >/dev/null || fail "setup: account w$w"
    done
    for j in $(seq 1 $JOBS); do
        rd --as bob -c "job submit tests/specs/sched/a100-1.yaml" >/dev/null || fail "setup: job $j"
    done
}

# json_of CMD: a command's JSON output.
json_of () { rd --output json -c "$1" 2>/dev/null; }
balance () { json_of "ledger balance $1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["balance_ucr"])'; }

KILLS=0
WL=""
setup
for round in $(seq 1 "$ROUNDS"); do
    W="$T/r$round"
    WL=""
    mkdir -p "$W"
    t0=$(date +%s)
    for w in $(seq 1 $WRITERS); do
        loop "$W/dep$w" $DEPOSITS "account deposit shared 1" & WL="$WL $!"
        loop "$W/own$w" $DEPOSITS "account deposit w$w 1" & WL="$WL $!"
        loop "$W/new$w" $CREATES "account create fo-$round-$w-%i" & WL="$WL $!"
    done
    loop "$W/sched1" 20 "sched run" & WL="$WL $!"
    loop "$W/sched2" 20 "sched run" & WL="$WL $!"
    loop "$W/bill" 12 "bill run" & WL="$WL $!"
    sleep 1
    kill_leader
    kill_leader
    for p in $WL; do wait "$p"; done
    echo "  round $round: the workload took $(($(date +%s) - t0)) s" >&2

    # every command of the round succeeded
    bad=$(cat "$W"/dep* "$W"/own* "$W"/new* "$W"/sched* "$W"/bill | grep -vc '^0 ')
    total=$(cat "$W"/dep* "$W"/own* "$W"/new* "$W"/sched* "$W"/bill | wc -l)
    if [ "$bad" = 0 ]; then pass; else
        fail "round $round: $bad of $total commands failed:"
        cat "$W"/dep* "$W"/own* "$W"/new* "$W"/sched* "$W"/bill | grep -v '^0 ' | head -n 5 >&2
        cat "$W"/*.err 2>/dev/null | sort | uniq -c | head -n 5 >&2
    fi
    # balances: exactly one credit per deposit that succeeded, never more
    want=$((round * WRITERS * DEPOSITS * 1000000))
    got=$(balance shared)
    [ "$got" = "$want" ] && pass || fail "round $round: shared balance $got, want $want"
    for w in $(seq 1 $WRITERS); do
        got=$(balance "w$w")
        want=$((round * DEPOSITS * 1000000))
        [ "$got" = "$want" ] && pass || fail "round $round: w$w balance $got, want $want"
    done
    n=$(json_of "ledger entries --account shared --kind deposit" |
        python3 -c 'import json,sys; d=json.load(sys.stdin)["items"]; print(len(d), len({e["id"] for e in d}))')
    [ "$n" = "$((round * WRITERS * DEPOSITS)) $((round * WRITERS * DEPOSITS))" ] && pass ||
        fail "round $round: shared deposit entries (count, distinct ids) = $n"
    # every account created exists
    missing=0
    for w in $(seq 1 $WRITERS); do
        for i in $(seq 1 $CREATES); do
            rd -c "account show fo-$round-$w-$i" >/dev/null 2>&1 || missing=$((missing + 1))
        done
    done
    [ "$missing" = 0 ] && pass || fail "round $round: $missing created accounts are missing"
    # no GPU given twice, no job lost
    json_of "node list" | python3 -c '
import json, sys
for n in json.load(sys.stdin)["items"]:
    alloc = n.get("gpu_alloc") or []
    if any(a > 100 for a in alloc) or sum(alloc) != round(n["gpus_used"] * 100) or n["gpus_used"] > n["gpu_count"]:
        sys.exit("over-allocated: %s %s %s" % (n["name"], alloc, n["gpus_used"]))
' && pass || fail "round $round: a GPU was given twice"
    running=$(json_of "job list --state running" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))')
    waiting=$(json_of "job list --state waiting_gpus" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))')
    [ "$running" = 20 ] && [ $((running + waiting)) = "$JOBS" ] && pass ||
        fail "round $round: $running running + $waiting waiting jobs, want 20 + $((JOBS - 20))"
    rd -c "ledger verify" >"$T/verify" 2>&1 && pass || fail "round $round: ledger verify: $(cat "$T/verify")"
done
[ "$KILLS" -ge 2 ] && pass || fail "only $KILLS leader kills happened"
echo "failover: $ROUNDS round(s), $KILLS leader kills"
echo "batch-summary: passed=$PASSED failed=$FAILED"
[ "$FAILED" = 0 ]
