#!/bin/sh
# The books of agents, step by step and without a running daemon: what an
# agent reports (discovery through a stand-in nvidia-smi, registration),
# the `starting` and `stopping` worker states, `job report` with exit codes
# and moments (billing covers exactly started_at to ended_at), and what
# `agent check` does to a node whose agent went silent.
. tests/batch/lib.sh
INV=tests/inventories
SMI=tests/agent/fake-nvidia-smi
WORK=$TMP/work
mkdir -p "$WORK"
unset RIGDECK_NOW   # agent --once registers on the system clock

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1" -c "node add dc n2 --minion m-2 --inventory $INV/a100x4.yaml" \
   -c "node maintenance n2 off"
expect_status 0

agent_once () {
    node=$1; shift
    $WRAP "$BIN" agent --store "$STORE" --node "$node" --work-dir "$WORK/$node" --heartbeat 1s --runtime process --once "$@" \
        >"$OUT" 2>"$ERR"
    RC=$?
}

case_ "the daemons refuse bad usage with exit 2"
$WRAP "$BIN" agent --store "$STORE" --runtime process >"$OUT" 2>"$ERR"; RC=$?
expect_status 2
expect_err "one of --node NAME (the node this machine is) or --device NAME (the edge device it is) is required"
$WRAP "$BIN" serve --store "$STORE" --bogus >"$OUT" 2>"$ERR"; RC=$?
expect_status 2
expect_err "unknown option --bogus"
$WRAP "$BIN" serve --store "$STORE" --node-timeout soon >"$OUT" 2>"$ERR"; RC=$?
expect_status 2
expect_err "node-timeout"
$WRAP "$BIN" agent --store "$STORE" --node n1 --runtime lxc --once >"$OUT" 2>"$ERR"; RC=$?
expect_status 1
expect_err "runtime"

case_ "an agent for a node that does not exist stops with a clear error"
agent_once ghost --inventory $INV/a100x4.yaml
expect_status 1
expect_err "node 'ghost' does not exist"

case_ "discovery: GPUs from the stand-in nvidia-smi, the rest from /proc and /sys"
RIGDECK_NVIDIA_SMI=$SMI agent_once n1
expect_status 0
expect_err "registered for node n1"
rd --output json -c "node show n1"
expect_json gpu_type a100
expect_json gpu_count 2
expect_json inventory.gpus.0.sxm true
expect_json agent.state online
expect_json agent_managed true
expect_json inventory_problems "[]"

case_ "an unknown GPU name is a clear error in the log and in node show, not a guess"
# NVIDIA GB10 (DGX Spark) is no type of gpu list: the node is rejected, not a 1-GPU a100 node
printf '0, NVIDIA GB10, [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A]\n1, NVIDIA A100-SXM4-40GB, 40960, [N/A], [N/A], 0, 0, 33, 60.00, 0\n' >"$TMP/gb10.csv"
FAKE_NVIDIA_SMI_CSV=$TMP/gb10.csv RIGDECK_NVIDIA_SMI=$SMI agent_once n1
expect_status 0
expect_err "GPU 'NVIDIA GB10' is no type of gpu list"
rd --output json -c "node show n1"
expect_json state rejected
expect_json gpu_type null
expect_json unmet.0.requirement gpu_model_known
expect_json unmet.0.actual "NVIDIA GB10"
expect_json inventory_problems "[]"

case_ "a worker placed on an agent's node is starting until its process starts"
rd -c "agent list"
agent_once n2 --inventory $INV/a100x4.yaml
expect_status 0
cat >"$TMP/job.yaml" <<EOF
name: books
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers: {count: 1, commands: ["true"]}
environment: {python: "3.9", framework: pytorch}
EOF
rd --output json --now 2026-11-24T10:00:00Z -c "job submit $TMP/job.yaml"
J=$(jget id)
rd --output json --now 2026-11-24T10:00:00Z -c "sched run"
expect_json placed 1
rd --output json -c "job show $J"
expect_json state waiting_gpus
expect_json workers.0.state starting
expect_json workers.0.started_at null
node=$(jget workers.0.node)

case_ "job report: the rules of each transition"
rd -c "job report $J finished --worker 0"
expect_status 1
expect_err "is starting, not running"
rd --now 2026-11-24T10:00:05Z -c "job report $J running --worker 0 --exit-code 0 --signal 9 --at 2026-11-24T10:00:02Z"
expect_status 1
expect_err "not both"
rd --now 2026-11-24T10:00:05Z -c "job report $J running --worker 0 --at 2026-11-24T10:00:02Z"
expect_status 0
rd --output json -c "job show $J"
expect_json state running
expect_json workers.0.started_at 2026-11-24T10:00:02Z
expect_json workers.0.run_by_agent true
rd --now 2026-11-24T10:40:00Z -c "job report $J finished --worker 0 --exit-code 3"
expect_status 1
expect_err "nonzero exit"
rd --now 2026-11-24T10:40:00Z -c "job report $J running --worker 0"
expect_status 1
expect_err "is running, not starting"

case_ "job stop asks an agent's worker to stop; the agent reports how it ended"
rd --output json --now 2026-11-24T10:30:00Z -c "job stop $J"
expect_json state stopping
expect_json workers.0.state stopping
rd --output json -c "node show $node"
expect_json gpus_used 1
rd --output json --now 2026-11-24T10:30:20Z -c "job report $J stopped --worker 0 --signal 15 --at 2026-11-24T10:30:12Z"
expect_json state stopped
expect_json workers.0.signal 15
expect_json workers.0.ended_at 2026-11-24T10:30:12Z
rd --output json -c "node show $node"
expect_json gpus_used 0

case_ "billing covers exactly started_at to ended_at"
# 10:00:02 .. 10:30:12 is 1810 s of one a100 on own capacity at 0.25/h.
rd --output json -c "ledger entries --account default --kind usage_fee"
billed=$(jget items | python3 -c "import json,sys; print(sum(t['amount_ucr'] for t in json.load(sys.stdin) if '$J' in t['id']))")
[ "$billed" = 125694 ] && pass || fail "billed $billed ucr, want 125694 (250000 x 1810 / 3600)"
rd -c "ledger verify"
expect_status 0

case_ "agent check: a silent agent's node goes offline; running workers fail node_lost, starting ones requeue"
rd --output json --now 2026-11-24T11:00:00Z -c "job submit $TMP/job.yaml" 
J2=$(jget id)
rd --output json --now 2026-11-24T11:00:00Z -c "job submit $TMP/job.yaml"
J3=$(jget id)
rd --now 2026-11-24T11:00:00Z -c "sched run"
rd -c "job report $J2 running --worker 0"
expect_status 0
n2=$(rd --output json -c "job show $J2"; jget workers.0.node)
n3=$(rd --output json -c "job show $J3"; jget workers.0.node)
# the agents ran --once: their leases (3 s) run out by themselves
end=$(($(date +%s) + 60))
until rd --output json -c "node show $n2" && [ "$(jget agent.state)" = lost ]; do
    [ "$(date +%s)" -gt "$end" ] && break
    sleep 0.3
done
expect_json agent.state lost
rd --output json -c "agent check --node-timeout 1s"
expect_status 0
rd --output json -c "node show $n2"
expect_json state offline
rd --output json -c "job show $J2"
expect_json workers.0.state failed
expect_json workers.0.reason node_lost
if [ "$n3" = "$n2" ]; then
    rd --output json -c "job show $J3"
    expect_json workers.0.state waiting_gpus
    expect_json workers.0.node null
fi
rd --output json -c "node show $n2"
expect_json gpus_used 0
rd -c "ledger verify"
expect_status 0

case_ "agent check again changes nothing"
before=$(revision)
rd --output json -c "agent check --node-timeout 1s"
expect_status 0
[ "$(revision)" = "$before" ] && pass || fail "a second agent check wrote to the store"

case_ "the agent registers again: the node returns to the state it had"
agent_once "$n2" --inventory $INV/a100x4.yaml
expect_status 0
rd --output json -c "node show $n2"
expect_json state active

case_ "agent remove: refused while the agent is online; then the node waits for an agent, or runs without one once manual"
# a running agent keeps its lease alive however slow the machine is
$WRAP "$BIN" agent --store "$STORE" --node "$n2" --work-dir "$WORK/$n2" --heartbeat 1s --runtime process \
    --sample 1h --inventory $INV/a100x4.yaml 2>"$TMP/agent.log" &
APID=$!
trap 'kill -9 $APID 2>/dev/null; rm -rf "$TMP"' EXIT
end=$(($(date +%s) + 60))
until rd --output json -c "agent list" && grep -q "\"pid\": *$APID" "$OUT"; do
    [ "$(date +%s)" -gt "$end" ] && break
    sleep 0.3
done
before=$(snapshot)
rd -c "agent remove $n2"
expect_refused 1 "$before" "is online"
kill -TERM $APID
wait $APID
end=$(($(date +%s) + 60))
until rd --output json -c "node show $n2" && [ "$(jget agent.state)" = lost ]; do
    [ "$(date +%s)" -gt "$end" ] && break
    sleep 0.3
done
rd -c "agent remove ghost"
expect_status 1
expect_err "node 'ghost' does not exist"
rd --output json -c "agent remove $n2"
expect_status 0
rd --output json -c "node show $n2"
expect_json agent.state none
expect_json agent_mode required
expect_json agent_online false   # agent-managed: no work until a new agent registers
rd --output json -c "agent remove $n2"
expect_status 1
expect_err "has no agent"
rd --output json -c "node set $n2 --agent none"
expect_status 0
expect_json agent_mode none
rd --output json --now 2026-11-24T12:00:00Z -c "job submit $TMP/job.yaml"
J4=$(jget id)
rd --output json --now 2026-11-24T12:00:00Z -c "sched run"
rd --output json -c "job show $J4"
if [ "$(jget workers.0.node)" = "$n2" ]; then
    expect_json workers.0.state running
else
    pass
fi
finish
