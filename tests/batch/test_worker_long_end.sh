#!/bin/sh
# A worker no bill run reached for 64 hours (a controller down over a
# weekend) ends by `job report`, `job stop` or `agent check` like any
# other: its whole hours are posted first in bounded steps (etcd takes at
# most 128 ops in one txn), then its end in one commit; every hour is
# posted exactly once, also when the stop is killed between its steps.
. tests/batch/lib.sh
INV=tests/inventories
WORK=$TMP/work
mkdir -p "$WORK"
unset RIGDECK_NOW   # agent --once registers on the system clock; every other moment is given

# iso EPOCH: the RFC 3339 moment.
iso () { python3 -c "import datetime,sys; print(datetime.datetime.fromtimestamp(int(sys.argv[1]), datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'))" "$1"; }

# books JOB: every rental transfer of JOB is exactly one per part and span
# of its workers' started_at..ended_at (whole hours from the start, then
# the partial one), each amount as billing.md rounds it.  Prints what
# differs, or "ok SPANS".
books () {
    rd --output json -c "job show $1"
    cp "$OUT" "$TMP/job.json"
    rd --output json -c "ledger entries --account bob --kind gpu_rental"
    python3 - "$1" "$TMP/job.json" "$OUT" <<'PY'
import datetime, json, sys
job_id, job, entries = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))["items"]
def t(s): return int(datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp())
def rnd(num, den): q, r = divmod(num, den); return q + (1 if 2 * r >= den else 0)
want, spans = {}, 0
for i, w in enumerate(job["workers"]):
    if not w.get("started_at"):
        continue
    s, e = t(w["started_at"]), t(w["ended_at"])
    while s < e:
        n = min(3600, e - s)
        paid = rnd(2780000 * n, 3600)
        host = rnd((2780000 - 250000) * n, 7200)
        want["rental/%s/%d/%d/host" % (job_id, i, s)] = host
        want["rental/%s/%d/%d/platform" % (job_id, i, s)] = paid - host
        s += n
        spans += 1
got, twice = {}, []
for x in entries:
    if x["id"].startswith("rental/%s/" % job_id):
        if x["id"] in got:
            twice.append(x["id"])
        got[x["id"]] = x["amount_ucr"]
bad = twice + sorted(set(want) ^ set(got)) + sorted(k for k in want if k in got and want[k] != got[k])
print("ok %d" % spans if not bad and spans else "differs: %s (spans %d)" % (bad[:6], spans))
PY
}
expect_books () {
    res=$(books "$1")
    case "$res" in "ok $2") pass ;; *) fail "books of $1: $res, want ok $2" ;; esac
}

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

# Placed 65 hours ago on a node an agent runs, so that agent check, which
# ends on the real clock, finds 64 unbilled hours.
R=$(date -u +%s)
T0=$((R - 65 * 3600))
for j in B C; do
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
rd --output json -c "job show $JC"
expect_json workers.0.state starting

rd --now "$(iso $((T0 + 5)))" -c "job report $JB running --worker 0"
expect_status 0
rd --now "$(iso $((T0 + 60)))" -c "job report $JC running --worker 0 --at $(iso $((T0 + 60)))"
expect_status 0

end=$(($(date +%s) + 60))
until rd --output json -c "node show n1" && [ "$(jget agent.state)" = lost ]; do
    [ "$(date +%s)" -gt "$end" ] && break
    sleep 0.3
done
expect_json agent.state lost

case_ "agent check 64 hours on: the lost agent's workers fail, every hour posted once"
rd --output json -c "agent check --node-timeout 1s"
expect_status 0
rd --output json -c "job show $JC"
expect_json workers.0.state failed
expect_json workers.0.reason node_lost
spans=$(python3 -c "import json; w = json.load(open('$OUT'))['workers'][0]; print(w['ended_at'] > w['started_at'])")
[ "$spans" = True ] && pass || fail "agent check ended $JC at its start"
res=$(books "$JC"); case "$res" in "ok 6"[4-9]) pass ;; *) fail "books of $JC: $res" ;; esac
res=$(books "$JB"); case "$res" in "ok 6"[4-9]) pass ;; *) fail "books of $JB: $res" ;; esac
rd -c "ledger verify"
expect_status 0

# On a manual node (--agent none): placement is the start.
rd -c "node add dc b1 --agent none --minion m-b1 --inventory $INV/a100x4.yaml" -c "node maintenance b1 off"
expect_status 0
T1=$(python3 -c "import datetime; print(int(datetime.datetime(2026, 11, 20, 8, tzinfo=datetime.timezone.utc).timestamp()))")
T64=$((T1 + 64 * 3600 + 1800))
for j in R S K; do
    rd --as bob --output json --now "$(iso $T1)" -c "job submit $TMP/job.yaml"
    eval "J$j=\$(jget id)"
done
rd --output json --now "$(iso $T1)" -c "sched run"
expect_json placed 3

case_ "job report 64.5 hours after the start: every hour posted once"
rd --output json --now "$(iso $T64)" -c "job report $JR finished --worker 0 --exit-code 0"
expect_status 0
expect_json workers.0.state finished
expect_books "$JR" 65

case_ "job stop 64.5 hours after the start: every hour posted once"
t=$(date +%s%N)
rd --as bob --output json --now "$(iso $T64)" -c "job stop $JS"
expect_status 0
expect_json workers.0.state stopped
took=$((($(date +%s%N) - t) / 1000))
expect_books "$JS" 65
rd -c "ledger verify"
expect_status 0

case_ "job stop killed between its steps, again and again: the next one posts what is left, once"
# kills from early to late (1/256 of a whole stop, doubling): some land
# before the first commit, some between two steps (the worker still
# running, billed part of the way)
i=1 partial=0 T64S=$(iso $T64)
while [ $i -le 8 ]; do
    d=$(python3 -c "print($took * 2 ** ($i - 9) / 1e6)")
    "$BIN" --batch --store "$STORE" --as bob --now "$T64S" -c "job stop $JK" >/dev/null 2>&1 &
    pid=$!
    sleep "$d"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    rd --output json -c "job show $JK"
    [ "$(jget workers.0.state)" = running ] || break
    [ "$(jget workers.0.billed_until)" != "$(iso $T1)" ] && partial=$((partial + 1))
    i=$((i + 1))
done
echo "  ($partial of $i killed job stops left the worker running and billed part of the way; kills within ${took} us)" >&2
rd --output json -c "job show $JK"
if [ "$(jget workers.0.state)" = running ]; then
    rd --as bob --output json --now "$(iso $T64)" -c "job stop $JK"
    expect_status 0
fi
rd --output json -c "job show $JK"
expect_json workers.0.state stopped
expect_books "$JK" 65
rd --output json --now "$(iso $((R + 3600)))" -c "bill run"
expect_json gpu_rentals 0
rd -c "ledger verify"
expect_status 0

finish
