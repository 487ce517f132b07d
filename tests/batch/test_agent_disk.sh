#!/bin/sh
# A node whose work directory's disk is full (issue 28, item 9).  The agent
# of n1 runs with its work dir on a small tmpfs of its own (a private mount
# namespace: unshare -m as root, unshare -rm otherwise).  A worker that
# fills the disk and exits 0 is reported finished with exit 0 (its exit
# record was reserved when it started); a worker that cannot start because
# the disk is full is given back to the queue, never billed, and runs on
# another node, while n1 leaves service with maintenance_reason disk_full.
# Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

if unshare -m true 2>/dev/null; then NS="unshare -m"
elif unshare -rm true 2>/dev/null; then NS="unshare -rm"
else skip "no private mount namespace here (unshare -m / -rm) for a small tmpfs"
fi
sh -c "$NS sh -c 'mount -t tmpfs -o size=64k tmpfs $TMP'" 2>/dev/null ||
    skip "cannot mount a tmpfs in a private mount namespace"

# start_small_agent NODE OPTIONS...: start_agent with a 2 MiB work dir.
start_small_agent () {
    node=$1; shift
    mkdir -p "$TMP/work-$node"
    $NS sh -c 'mount -t tmpfs -o size=2m tmpfs "$1" && shift && exec "$@"' sh "$TMP/work-$node" \
        $WRAP "$BIN" agent --store "$STORE" --node "$node" --work-dir "$TMP/work-$node" --heartbeat 1s --runtime process "$@" \
        2>>"$TMP/agent-$node.log" &
    eval "PID_agent_$node=$!"
    DAEMONS="$DAEMONS $!"
}

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
   -c "node add dc n2 --minion m-2 --inventory $INV/a100x4.yaml"
expect_status 0

case_ "the controller and two agents start; n1's work dir is a 2 MiB disk"
start_serve s1 --node-timeout 4s --sched-every 1s
start_small_agent n1 --inventory $INV/a100x4.yaml
start_agent n2 --inventory $INV/a100x4.yaml
wait_json 60 "node show n1" agent.state online
wait_json 60 "node show n2" agent.state online

case_ "a worker that fills the disk and exits 0 is finished with exit 0, not lost"
# it fills the work dir's disk outside its own directory, so the disk stays
# full after its directory is removed
job_spec filler 'dd if=/dev/zero of=../../fill bs=64k 2>/dev/null; exit 0'
J1=$(submit filler)
wait_json 60 "job show $J1" state finished
rd --output json -c "job show $J1"
expect_json workers.0.node n1
expect_json workers.0.exit_code 0
expect_json workers.0.reason ""

case_ "a worker that cannot start on the full disk is requeued and n1 leaves service"
# the filler's directory is gone (its records freed a few pages): fill them
# too, through the agent's own view of its mounts
dd if=/dev/zero of="/proc/$(agent_pid n1)/root$TMP/work-n1/top-up" bs=4k 2>/dev/null
job_spec after 'echo ran; exit 0'
J2=$(submit after)
wait_json 60 "node show n1" maintenance_reason disk_full
rd --output json -c "node show n1"
expect_json state maintenance
detail=$(jget maintenance_detail)
case "$detail" in *"No space left on device"*) pass ;; *) fail "maintenance_detail: $detail" ;; esac
rd --output json -c "job show $J2"
expect_json workers.0.state waiting_gpus
expect_json workers.0.node null
expect_json workers.0.started_at null
grep -q "giving it back to the queue" "$TMP/agent-n1.log" && pass || fail "the agent's log does not say so"

case_ "the requeued worker runs elsewhere, billed only for that run"
rd -c "node maintenance n2 off"
wait_json 60 "job show $J2" state finished
rd --output json -c "job show $J2"
expect_json workers.0.node n2
expect_json workers.0.exit_code 0
rd -c "ledger verify"
expect_status 0

case_ "node maintenance off takes n1 back and forgets the fault"
rd --output json -c "node maintenance n1 off"
expect_status 0
expect_json state active
expect_json maintenance_reason ""
expect_json maintenance_detail ""

finish
