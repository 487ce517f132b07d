#!/bin/sh
# Concurrency: schedulers, submitters, stoppers and maintenance toggles run
# at once on one store, round after round; afterwards every node's GPU books
# must equal exactly what its running workers hold, and no GPU (or fraction
# of one) may be given twice.  20 rounds on SQLite (3 on etcd, which is
# slower per write).
. tests/batch/lib.sh
INV=tests/inventories
SP=tests/specs/sched
export RIGDECK_MASTER_KEY="$TMP/master.key"
ROUNDS=20
case "$STORE" in etcd*) ROUNDS=3 ;; esac

rd -c "account create bob --plan team" -c "account deposit bob 100000" \
   -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "node add dc gpu-a --agent none --minion m-a --inventory $INV/a100x4.yaml" \
   -c "node add dc gpu-b --agent none --minion m-b --inventory $INV/a100x4.yaml" \
   -c "node add dc gpu-c --agent none --minion m-c --inventory $INV/a100x4.yaml" \
   -c "node maintenance gpu-a off" -c "node maintenance gpu-b off" -c "node maintenance gpu-c off" \
   -c "node set gpu-c --gpu-sharing on" -c "price set a100 2.78"
expect_status 0

bg () { $WRAP "$BIN" --batch --store "$STORE" --keep-going "$@" >/dev/null 2>&1; }

check_books () {
    rd --output json -c "node list" -c "job list --state running"
    python3 - "$OUT" <<'PY'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
nodes, jobs = docs[0]["items"], docs[1]["items"]
held = {}
for j in jobs:
    for w in j["workers"]:
        if w["state"] == "running":
            for a in w["alloc"]:
                key = (w["node"], a["gpu"])
                held[key] = held.get(key, 0) + a["x100"]
for n in nodes:
    alloc = n.get("gpu_alloc") or [0] * n["gpu_count"]
    for g, used in enumerate(alloc):
        if used > 100:
            sys.exit(f"{n['name']} GPU {g} holds {used}/100")
        if used != held.get((n["name"], g), 0):
            sys.exit(f"{n['name']} GPU {g}: books say {used}, running workers hold {held.get((n['name'], g), 0)}")
    if abs(sum(alloc) - round(n["gpus_used"] * 100)) > 0 or n["gpus_used"] > n["gpu_count"]:
        sys.exit(f"{n['name']}: gpus_used {n['gpus_used']} vs slots {alloc}")
PY
}

case_ "parallel schedulers, submitters, stoppers and maintenance never give a GPU twice"
round=1
while [ "$round" -le "$ROUNDS" ]; do
    bg --as bob -c "job submit $SP/a100-2.yaml" -c "job submit $SP/half.yaml" -c "job submit $SP/a100-1.yaml" &
    bg --as bob -c "job submit $SP/half.yaml" -c "job submit $SP/a100-4.yaml" -c "job submit $SP/half.yaml" &
    bg -c "sched run" &
    bg -c "sched run" &
    bg -c "sched run" &
    bg -c "node maintenance gpu-a toggle" -c "node maintenance gpu-a off" &
    # Stop a few running jobs so capacity frees while others place.
    rd --output json -c "job list --state running"
    for id in $(jget items | python3 -c "import json,sys; print(' '.join(j['id'] for j in json.load(sys.stdin)[:3]))"); do
        bg --as bob -c "job stop $id" &
    done
    wait
    if check_books >"$TMP/books" 2>&1; then pass; else fail "round $round: $(cat "$TMP/books")"; fi
    round=$((round + 1))
done
rd -c "ledger verify"
expect_status 0

finish
