# agent_job.sh - sourced by batch tests (after lib.sh): the fleet of a node
# whose agent registered (`rigdeck agent --once`, so no daemon runs), and
# alice's one-GPU job J placed on it, `starting`.  $TMP/job.yaml is the job.
INV=tests/inventories
WORK=$TMP/work
mkdir -p "$WORK"
unset RIGDECK_NOW   # agent --once registers on the system clock

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "account create alice --plan team" -c "account deposit alice 100" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0
# A long heartbeat: the registration's lease (3 heartbeats) outlives the
# scenario, so no expiry (a store write) lands between a snapshot and the
# check that a refused command changed nothing, however slow the machine.
$WRAP "$BIN" agent --store "$STORE" --node n1 --work-dir "$WORK/n1" --heartbeat 120s --once --runtime process \
    --inventory $INV/a100x4.yaml >"$OUT" 2>"$ERR"
RC=$?
expect_status 0
cat >"$TMP/job.yaml" <<EOF
name: books
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers: {count: 1, commands: ["true"]}
environment: {python: "3.9", framework: pytorch}
EOF
rd --as alice --output json -c "job submit $TMP/job.yaml"
J=$(jget id)
rd -c "sched run"
rd --output json -c "job show $J"
expect_json workers.0.state starting
expect_json workers.0.node n1
