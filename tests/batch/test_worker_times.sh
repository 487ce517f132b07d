#!/bin/sh
# The moments a worker's books rest on.  A reported start lies between the
# worker's placement and the report's arrival (the command's clock): a
# report that arrives late keeps its moment, one up to 60 s outside (two
# machines' clocks) is taken as the nearest moment allowed, and one farther
# out is refused with the store unchanged, so an agent cannot backdate a
# worker into hours before it was placed.  An end is never before the
# start.
. tests/batch/lib.sh
INV=tests/inventories
WORK=$TMP/work
mkdir -p "$WORK"
unset RIGDECK_NOW   # agent --once registers on the system clock; every other moment is given

# iso EPOCH: the RFC 3339 moment.
iso () { python3 -c "import datetime,sys; print(datetime.datetime.fromtimestamp(int(sys.argv[1]), datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'))" "$1"; }

rd -c "account create bob --plan team" -c "provider enable physical" \
   -c "region create dc --provider physical --storage local --public" -c "price set a100 2.78" \
   -c "account deposit bob 1000" -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" \
   -c "node maintenance n1 off"
expect_status 0
cat >"$TMP/job.yaml" <<EOF
name: times
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers: {count: 1, commands: ["true"]}
environment: {python: "3.9", framework: pytorch}
EOF

# Placed on a node an agent runs: the worker is starting until reported.
T0=$(python3 -c "import datetime; print(int(datetime.datetime(2026, 11, 24, 10, tzinfo=datetime.timezone.utc).timestamp()))")
for j in A B; do
    rd --as bob --output json --now "$(iso $T0)" -c "job submit $TMP/job.yaml"
    eval "J$j=\$(jget id)"
done
# the agent's lease (3 x its heartbeat) outlasts the placement however slow the machine
$WRAP "$BIN" agent --store "$STORE" --node n1 --work-dir "$WORK" --heartbeat 2s --runtime process --once \
    --inventory $INV/a100x4.yaml >"$OUT" 2>"$ERR"
RC=$?
expect_status 0
rd --output json --now "$(iso $T0)" -c "sched run"
expect_json placed 2
rd --output json -c "job show $JA"
expect_json workers.0.state starting
expect_json workers.0.placed_at "$(iso $T0)"

# its lease runs out by itself (a store write): before any snapshot
end=$(($(date +%s) + 60))
until rd --output json -c "node show n1" && [ "$(jget agent.state)" = lost ]; do
    [ "$(date +%s)" -gt "$end" ] && break
    sleep 0.3
done
expect_json agent.state lost

case_ "job report running: --at before the placement is refused, store unchanged"
before=$(snapshot)
rd --now "$(iso $((T0 + 3600)))" -c "job report $JA running --worker 0 --at $(iso $((T0 - 7900 * 3600)))"
expect_refused 1 "$before" "--at $(iso $((T0 - 7900 * 3600))) is before worker 0's placement $(iso $T0)"

case_ "job report running: --at after the report's arrival is refused, store unchanged"
rd --now "$(iso $((T0 + 3600)))" -c "job report $JA running --worker 0 --at $(iso $((T0 + 3 * 3600)))"
expect_refused 1 "$before" "--at $(iso $((T0 + 3 * 3600))) is after the clock $(iso $((T0 + 3600)))"
before=$(snapshot)
rd --now "$(iso $((T0 - 7200)))" -c "job report $JA running --worker 0"
expect_refused 1 "$before" "before worker 0's placement"

case_ "a report that arrives late keeps its moment; within a clock's disagreement it is the placement"
rd --now "$(iso $((T0 + 2 * 3600)))" -c "job report $JA running --worker 0 --at $(iso $((T0 + 600)))"
expect_status 0
rd --output json -c "job show $JA"
expect_json workers.0.started_at "$(iso $((T0 + 600)))"
rd --now "$(iso $((T0 + 5)))" -c "job report $JB running --worker 0 --at $(iso $((T0 - 30)))"
expect_status 0
rd --output json -c "job show $JB"
expect_json workers.0.started_at "$(iso $T0)"

case_ "an end before the start is refused, store unchanged"
before=$(snapshot)
rd --now "$(iso $((T0 + 3 * 3600)))" -c "job report $JA finished --worker 0 --exit-code 0 --at $(iso $((T0 + 60)))"
expect_refused 1 "$before" "--at $(iso $((T0 + 60))) is before worker 0's start $(iso $((T0 + 600)))"
rd --now "$(iso $((T0 + 3 * 3600)))" -c "job report $JA failed --worker 0 --exit-code 2 --at $(iso $((T0 + 4 * 3600)))"
expect_refused 1 "$before" "is after the clock"
rd --now "$(iso $((T0 + 3 * 3600)))" -c "job report $JA finished --worker 0 --exit-code 0 --at $(iso $((T0 + 2 * 3600)))"
expect_status 0
rd --output json -c "job show $JA"
expect_json workers.0.ended_at "$(iso $((T0 + 2 * 3600)))"
rd --output json -c "ledger entries --account bob --kind gpu_rental"
billed=$(jget items | python3 -c "import json,sys; print(sum(t['amount_ucr'] for t in json.load(sys.stdin) if '$JA' in t['id']))")
[ "$billed" = 5096667 ] && pass || fail "billed $billed ucr, want 5096667 (6600 s at 2.78)"
rd -c "ledger verify"
expect_status 0

finish
