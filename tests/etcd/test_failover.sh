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
# The workload runs until the kills and restarts are done (not a fixed
# number of commands racing them), so the test holds on a slow or busy
# machine.  FAILOVER_ROUNDS=N repeats the round N times on the same cluster.
set -u
BUILD=${BUILD:-build}
WRAP=${RIGDECK_WRAP:-}
BIN=$BUILD/rigdeck
T=$(mktemp -d "${TMPDIR:-/tmp}/rdfail.XXXXXX")
ROUNDS=${FAILOVER_ROUNDS:-1}
WRITERS=4
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

# The workload does not race the faults: every loop runs until the round's
# faults are over (the file $DONE exists), then once more on the healed
# cluster, so however slow the machine, every kill lands in the middle of
# it, and the checks count what actually ran.

# loop NAME CMD...: runs a rigdeck command until $DONE exists, then once
# more ("%i" in it becomes the iteration); one "STATUS CMD" line per run in
# $W/NAME.st, stderr in $W/NAME.err.
loop () {
    name=$1; shift
    i=1
    last=0
    while :; do
        [ -e "$DONE" ] && last=1
        cmd=$(echo "$*" | sed "s/%i/$i/g")
        rd -c "$cmd" >/dev/null 2>>"$W/$name.err"
        echo "$? $cmd" >>"$W/$name.st"
        [ "$last" = 1 ] && return
        i=$((i + 1))
    done
}

# ran: how many workload commands of the round have finished so far.
ran () { cat "$W"/*.st 2>/dev/null | wc -l; }

# wait_until SECONDS WHAT CMD...: polls CMD every 0.2 s; on timeout a
# failure naming WHAT.  Deadlines are generous: on a loaded machine an
# election or a member's restart can take many seconds.
wait_until () {
    secs=$1 what=$2; shift 2
    end=$(($(date +%s) + secs))
    while ! "$@"; do
        if [ "$(date +%s)" -ge "$end" ]; then
            fail "waited $secs s for $what"
            return 1
        fi
        sleep 0.2
    done
}

# every loop of the round has finished at least one command
all_started () { for f in $LOOPS; do [ -s "$W/$f.st" ] || return 1; done; }
# the workload finished N more commands than when ran_before was read
progressed () { [ "$(ran)" -ge $((ran_before + $1)) ]; }
# a leader other than member $1 (the killed one) is elected
new_leader () { l2=$(etcd_leader "$T/c") && [ "$l2" != "$1" ]; }
# member $1 answers a linearizable read again (it rejoined the quorum)
member_back () {
    etcdctl --endpoints "http://127.0.0.1:$(cat "$T/c/m$1.port")" --command-timeout=2s \
        get rigdeck-probe >/dev/null 2>&1
}
have_leader () { l=$(etcd_leader "$T/c"); }

# kill_leader: SIGKILLs the leader while the workload runs, waits until the
# survivors elect a new one and the workload gets on with it, then restarts
# the killed member and waits until it has rejoined (so the next kill leaves
# a quorum).
kill_leader () {
    l=""
    wait_until 60 "a leader to kill" have_leader || return
    alive=0
    for p in $WL; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
    echo "  killing leader m$l while $alive workload processes run" >&2
    [ "$alive" -gt 0 ] && pass || fail "a kill came after the workload ended"
    etcd_kill "$T/c" "$l"
    KILLS=$((KILLS + 1))
    ran_before=$(ran)
    wait_until 120 "a new leader after killing m$l" new_leader "$l" &&
        wait_until 120 "the workload to go on without m$l" progressed "$WRITERS" && pass
    etcd_start_member "$T/c" "$l"
    wait_until 120 "m$l to rejoin the cluster" member_back "$l" && pass
}

setup () {
    rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
        -c "price set a100 2.78" -c "account create bob --plan team" -c "account deposit bob 100000" \
        -c "account create shared" >/dev/null || fail "setup: fleet and accounts"
    for n in 1 2 3 4 5; do
        rd -c "node add dc gpu-$n --agent none --minion m-$n --inventory tests/inventories/a100x4.yaml" \
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
    DONE="$W/faults.done"
    WL=""
    LOOPS=""
    mkdir -p "$W"
    t0=$(date +%s)
    for w in $(seq 1 $WRITERS); do
        loop "dep$w" "account deposit shared 1" & WL="$WL $!"
        loop "own$w" "account deposit w$w 1" & WL="$WL $!"
        loop "new$w" "account create fo-$round-$w-%i" & WL="$WL $!"
        LOOPS="$LOOPS dep$w own$w new$w"
    done
    loop sched1 "sched run" & WL="$WL $!"
    loop sched2 "sched run" & WL="$WL $!"
    loop bill "bill run" & WL="$WL $!"
    LOOPS="$LOOPS sched1 sched2 bill"
    wait_until 120 "every workload loop to finish a command" all_started
    kill_leader
    kill_leader
    touch "$DONE"
    for p in $WL; do wait "$p"; done
    echo "  round $round: the workload took $(($(date +%s) - t0)) s, $(ran) commands" >&2

    # every command of the round succeeded
    bad=$(cat "$W"/*.st | grep -vc '^0 ')
    total=$(cat "$W"/*.st | wc -l)
    if [ "$bad" = 0 ]; then pass; else
        fail "round $round: $bad of $total commands failed:"
        cat "$W"/*.st | grep -v '^0 ' | head -n 5 >&2
        cat "$W"/*.err 2>/dev/null | sort | uniq -c | head -n 5 >&2
    fi
    # balances: exactly one credit per deposit that succeeded (in every
    # round so far), never more
    deposits=$(cat "$T"/r*/dep*.st | grep -c '^0 ')
    want=$((deposits * 1000000))
    got=$(balance shared)
    [ "$got" = "$want" ] && pass || fail "round $round: shared balance $got, want $want"
    for w in $(seq 1 $WRITERS); do
        got=$(balance "w$w")
        want=$(($(cat "$T"/r*/own$w.st | grep -c '^0 ') * 1000000))
        [ "$got" = "$want" ] && pass || fail "round $round: w$w balance $got, want $want"
    done
    n=$(json_of "ledger entries --account shared --kind deposit" |
        python3 -c 'import json,sys; d=json.load(sys.stdin)["items"]; print(len(d), len({e["id"] for e in d}))')
    [ "$n" = "$deposits $deposits" ] && pass ||
        fail "round $round: shared deposit entries (count, distinct ids) = $n, want $deposits distinct"
    # every account created exists
    cat "$W"/new*.st >"$T/created"
    missing=$(json_of "account list" | python3 -c '
import json, sys
have = {a["name"] for a in json.load(sys.stdin)["items"]}
made = [l.split()[-1] for l in open(sys.argv[1]) if l.startswith("0 ")]
gone = [a for a in made if a not in have]
print(len(gone), *gone[:5])' "$T/created")
    [ "$missing" = 0 ] && pass || fail "round $round: created accounts missing (count, first): $missing"
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
[ "$KILLS" = $((2 * ROUNDS)) ] && pass || fail "$KILLS leader kills happened, want $((2 * ROUNDS))"
echo "failover: $ROUNDS round(s), $KILLS leader kills"
echo "batch-summary: passed=$PASSED failed=$FAILED"
[ "$FAILED" = 0 ]
