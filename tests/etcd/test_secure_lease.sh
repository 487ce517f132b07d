#!/bin/sh
# test_secure_lease.sh - what etcd lets any user do, and why rigdeck does not
# rest on it (docs/security.md, "What etcd's permissions cannot prevent").
#
# One etcd member, secured with `store secure`; a tenant (alice), another
# (bob) whose node n2 runs a real agent, a leading controller and a standby.
# alice, with nothing but her own etcd password and etcdctl:
#   - lists every lease and keeps each one alive (`lease keep-alive`): the
#     leader is killed, and the standby still takes over within the node
#     timeout; bob's agent is killed, and its node still turns offline, its
#     worker failed node_lost;
#   - compacts the store's history to its head (`etcdctl compaction`): the
#     controller and the agents go on placing and running work, and
#     `store dump --revision` of a compacted revision says so in one line.
# Prints "batch-summary: passed=N failed=M" like the batch scenarios.
set -u
command -v etcd >/dev/null 2>&1 && command -v etcdctl >/dev/null 2>&1 || {
    echo "batch-skip: etcd/etcdctl not installed"; echo "batch-summary: passed=0 failed=0"; exit 0; }
. tests/etcd/lib.sh
SEC=$(mktemp -d "${TMPDIR:-/tmp}/rdseclease.XXXXXX")
# a cluster of one, so that the member can be restarted (etcd_start_member)
etcd_cluster "$SEC/etcd" 1 >/dev/null || { echo "batch-skip: etcd did not start"; exit 0; }
export RIGDECK_TEST_STORE_URL="$ETCD_URL"
. tests/batch/lib.sh
. tests/batch/daemons.sh
KEEPERS=""
trap 'stop_keeping; daemons_cleanup; etcd_stop_all; rm -rf "$SEC"' EXIT
export RIGDECK_MASTER_KEY="$SEC/master.key"
E=$ETCD_ENDPOINTS

as () {   # as USER ARGS...: rigdeck --batch as etcd user USER
    u=$1; shift
    $WRAP "$BIN" --batch --store "$STORE" --etcd-user "$u" --etcd-password-file "$SEC/$u.pw" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
ectl () {   # ectl USER ARGS...: etcdctl with USER's own password
    u=$1; shift
    etcdctl --endpoints "$E" --user "$u" --password "$(cat "$SEC/$u.pw")" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
field () {   # field USER LINE PATH: one field of a command's JSON
    $BIN --batch --store "$STORE" --etcd-user "$1" --etcd-password-file "$SEC/$1.pw" --output json -c "$2" 2>/dev/null |
        python3 tests/jget.py "$3" 2>/dev/null
}
is () { [ "$(field "$1" "$2" "$3")" = "$4" ]; }
# keep_all_leases: alice keeps every lease etcd lists alive, one etcdctl
# each, started again should it stop (its output in $SEC/keep-ID); kept
# ID: it has renewed ID at least once; stop_keeping ends them all
keep_one () {
    while [ ! -e "$SEC/stop-keeping" ]; do
        etcdctl --endpoints "$E" --user alice --password "$(cat "$SEC/alice.pw")" lease keep-alive "$1" \
            >>"$SEC/keep-$1" 2>&1 &
        echo $! >"$SEC/keeper-$1.pid"
        wait $!
        sleep 0.5
    done
}
keep_all_leases () {
    for id in $(etcdctl --endpoints "$E" --user alice --password "$(cat "$SEC/alice.pw")" lease list 2>/dev/null |
                sed -n 's/^\([0-9a-f]\{6,\}\)$/\1/p'); do
        case " $KEPT " in *" $id "*) continue ;; esac
        keep_one "$id" &
        KEEPERS="$KEEPERS $!"
        KEPT="$KEPT $id"
    done
}
stop_keeping () {   # ends every keeper and the etcdctl it runs
    touch "$SEC/stop-keeping"
    i=0
    while [ $i -lt 100 ]; do
        alive=0
        for p in $KEEPERS; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        for f in "$SEC"/keeper-*.pid; do [ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
        sleep 0.2
        i=$((i + 1))
    done
    KEEPERS=""
}
kept () { grep -q "keepalived" "$SEC/keep-$1" 2>/dev/null; }
keep_said () { echo "alice's keep-alive of $1 said: $(head -c 300 "$SEC/keep-$1")" >&2; }
KEPT=""
lease_alive () {   # lease_alive HEXID: etcd still has the lease, with time left
    etcdctl --endpoints "$E" --user "root:$(cat "$SEC/root.pw")" lease timetolive "$1" 2>/dev/null |
        grep -q "remaining([1-9]"
}

case_ "a secured store: alice and bob, each with a node"
rd -c "account create alice" -c "account create bob" -c "price set a100 2.78" \
   -c "account deposit alice 100" -c "account deposit bob 100"
expect_status 0
rd --as alice -c "provider enable physical" -c "region create alab --provider physical --storage local" \
   -c "node add alab n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0
rd --as bob -c "provider enable physical" -c "region create blab --provider physical --storage local" \
   -c "node add blab n2 --minion m-2 --inventory $INV/a100x4.yaml" -c "node maintenance n2 off"
expect_status 0
rd -c "store secure --root-password-file $SEC/root.pw"
expect_status 0
for u in alice bob node:n1 node:n2; do
    as root -c "store credentials $u --password-file $SEC/$u.pw"
    expect_status 0
done

case_ "a leading controller, a standby, and both agents online"
serve_env () { RIGDECK_ETCD_USER=root RIGDECK_ETCD_PASSWORD_FILE="$SEC/root.pw" "$@"; }
serve_env start_serve s1 --node-timeout 6s --sched-every 1s
s1_leads () { grep -q "leading the controllers" "$TMP/s1.log"; }
wait_until 60 s1_leads
serve_env start_serve s2 --node-timeout 6s --sched-every 1s
wait_until 60 is root "serve status" standby 1
for n in n1 n2; do
    RIGDECK_ETCD_USER=node:$n RIGDECK_ETCD_PASSWORD_FILE="$SEC/node:$n.pw" \
        start_agent "$n" --inventory "$INV/a100x4.yaml" --sample 1s
done
wait_until 60 is root "node show n1" agent.state online
wait_until 60 is root "node show n2" agent.state online
job_spec bjob 'sleep 300'
as bob --output json -c "job submit $TMP/bjob.yaml"
expect_status 0
BJ=$(jget id)
wait_until 90 is bob "job show $BJ" state running

case_ "etcd lets alice list every lease and keep each alive"
ectl alice lease list
expect_status 0
LEADER_LEASE=$(etcdctl --endpoints "$E" --user "root:$(cat "$SEC/root.pw")" get /rigdeck/serve/leader -w json |
    python3 -c 'import json,sys; print("%016x" % json.load(sys.stdin)["kvs"][0]["lease"])')
AGENT_LEASE=$(etcdctl --endpoints "$E" --user "root:$(cat "$SEC/root.pw")" get /rigdeck/agent-alive/n2 -w json |
    python3 -c 'import json,sys; print("%016x" % json.load(sys.stdin)["kvs"][0]["lease"])')
expect_out "^$LEADER_LEASE$"
expect_out "^$AGENT_LEASE$"
keep_all_leases
wait_until 60 kept "$LEADER_LEASE" || keep_said "$LEADER_LEASE"
wait_until 60 kept "$AGENT_LEASE" || keep_said "$AGENT_LEASE"

case_ "the leader dies; its lease kept alive by alice does not stop the standby taking over"
kill_daemon "$PID_s1" KILL
s2_leads () { grep -q "leading the controllers" "$TMP/s2.log"; }
# the normal deadline is the node timeout (6 s); a busy machine gets more
wait_until 45 s2_leads
lease_alive "$LEADER_LEASE" && pass || fail "the dead leader's lease was not kept alive: the test proves nothing"
wait_until 30 is root "serve status" leader.pid "$PID_s2"

case_ "bob's agent dies; its lease kept alive by alice does not keep n2 online"
kill_daemon "$(agent_pid n2)" KILL
wait_until 60 is root "node show n2" agent.state lost
wait_until 60 is root "node show n2" state offline
wait_until 30 is bob "job show $BJ" workers.0.reason node_lost
lease_alive "$AGENT_LEASE" && pass || fail "n2's agent lease was not kept alive: the test proves nothing"
node_agents () {   # node list's agent column: "n1=online n2=lost"
    $BIN --batch --store "$STORE" --etcd-user root --etcd-password-file "$SEC/root.pw" --output json \
        -c "node list --fields name,agent" 2>/dev/null |
        python3 -c 'import json,sys; print(" ".join("%s=%s" % (n["name"], n["agent"]) for n in json.load(sys.stdin)["items"]))'
}
[ "$(node_agents)" = "n1=online n2=lost" ] && pass || fail "node list's agents: $(node_agents)"
is root "node show n1" agent.state online && pass || fail "n1's live agent is no longer online"
stop_keeping

case_ "etcd lets alice compact the whole history, and tells her how far it goes"
head_rev () {   # the store's revision, as alice may read it
    etcdctl --endpoints "$E" --user alice --password "$(cat "$SEC/alice.pw")" endpoint status -w json 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Status"]["header"]["revision"])'
}
OLD=$(head_rev)
job_spec a1 'echo before-compaction'
as alice --output json -c "job submit $TMP/a1.yaml"
expect_status 0
A1=$(jget id)
wait_until 90 is alice "job show $A1" state finished
HEAD=$(head_rev)
[ "$HEAD" -gt "$OLD" ] && pass || fail "the store did not move: $OLD, $HEAD"
ectl alice compaction "$HEAD"
expect_status 0
expect_out "compacted revision $HEAD"

case_ "rigdeck's own compaction goes on past it (watchers registered below it)"
as root --output json -c "store compact --keep 1 --keep-for 0 --every 0"
expect_status 0
expect_json compacted_by_others true

case_ "store dump of a compacted revision says so in one line"
as root -c "store dump --revision $OLD"
expect_status 1
expect_err_lines 1
expect_err "store dump: revision $OLD has been compacted"

case_ "the member restarts after the compaction: watches resume or resync, work goes on"
etcd_kill "$SEC/etcd" 1
etcd_start_member "$SEC/etcd" 1
member_up () {   # etcd_wait cannot log in: authentication is on
    etcdctl --endpoints "$E" --user "root:$(cat "$SEC/root.pw")" --command-timeout=2s get rigdeck-probe >/dev/null 2>&1
}
wait_until 60 member_up
# the agent's stream (its view, quiet since the first job) resumes from a
# revision the compaction removed: it is told so, and reopens from now
# rather than retrying forever; the controller's may resume where it was
resynced () { grep -q "watch ended: watch: revision [0-9]* has been compacted.*reopening" "$1"; }
wait_until 60 resynced "$TMP/agent-n1.log"
job_spec a2 'echo after-compaction'
as alice --output json -c "job submit $TMP/a2.yaml"
expect_status 0
A2=$(jget id)
wait_until 90 is alice "job show $A2" state finished
as alice -c "job logs $A2"
expect_out "after-compaction"
is root "node show n1" agent.state online && pass || fail "n1's agent is no longer online"
ectl alice compaction "$(head_rev)"
expect_status 0
job_spec a3 'sleep 300'
as alice --output json -c "job submit $TMP/a3.yaml"
expect_status 0
A3=$(jget id)
wait_until 90 is alice "job show $A3" state running
as alice -c "job stop $A3"
expect_status 0
wait_until 90 is alice "job show $A3" state stopped
as root -c "ledger verify"
expect_status 0

if [ "$FAILED" != 0 ]; then   # what the daemons said, for whoever reads the failure
    for f in "$TMP"/s1.log "$TMP"/s2.log "$TMP"/agent-n1.log "$TMP"/agent-n2.log; do
        echo "--- $f" >&2; tail -n 15 "$f" >&2
    done
fi
finish
