#!/bin/sh
# Fleet roll-ups (seed 004, "both collectively and individually"):
# `metrics fleet --by region|account` sums CPU, GPU, memory and disk use per
# region and per tenant, exactly (integer hundredths), over what the viewer
# may see.  By account a node's use goes to the accounts whose workers hold
# its GPUs, by the GPUs each holds; what nobody holds to a private region's
# owner, or to (unallocated) in a public one (docs/operations.md, "Fleet
# roll-ups").  Readings come from `metrics import`; workers are placed by
# `sched run` on agentless nodes.  Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
INV=tests/inventories
SP=tests/specs/sched

rd -c "account create alice --plan team" -c "account create bob --plan team" -c "account create carol --plan team" \
   -c "account create op1" -c "account set op1 --role operator" \
   -c "account deposit alice 100" -c "account deposit bob 100" -c "price set a100 2.78"
expect_status 0
# carol's public region (4 GPUs), alice's and bob's private ones (2 GPUs each)
rd --as carol -c "provider enable physical" -c "region create pub --provider physical --storage local --public" \
   -c "node add pub p-1 --agent none --minion m-p1 --inventory $INV/a100x4.yaml"
expect_status 0
for who in alice bob; do
    t=$(printf '%s' "$who" | cut -c1)
    rd --as "$who" -c "provider enable physical" -c "region create ${t}lab --provider physical --storage local" \
       -c "node add ${t}lab $t-1 --agent none --minion m-${t}1 --inventory $INV/a100x2.yaml"
    expect_status 0
done
# alice's 2-GPU job fills a-1 (the only active node); then on p-1 alice
# holds GPU 0 and bob GPUs 1 and 2; GPU 3 and bob's b-1 are idle.
rd -c "node maintenance a-1 off"
rd --as alice -c "job submit $SP/a100-2.yaml"
rd -c "sched run"
rd -c "node maintenance p-1 off"
rd --as alice -c "job submit $SP/a100-1.yaml"
rd -c "sched run"
rd --as bob -c "job submit $SP/a100-2.yaml"
rd -c "sched run" -c "node maintenance b-1 off"
rd --output json -c "node show p-1"
expect_json gpu_alloc "[100, 100, 100, 0]"
rd --output json -c "node show a-1"
expect_json gpu_alloc "[100, 100]"

sample () {   # sample NODE CPU MEM DISK GPU_UTIL...: one reading a minute before now
    node=$1 cpu=$2 mem=$3 disk=$4; shift 4
    gpus="" i=0
    for u in "$@"; do
        gpus="$gpus${gpus:+, }{\"index\": $i, \"gpu_util\": $u}"
        i=$((i + 1))
    done
    printf '{"t": "2026-10-31T23:59:00Z", "cpu_util": %s, "mem_used_gb": %s, "disk_used_gb": %s, "gpus": [%s]}\n' \
        "$cpu" "$mem" "$disk" "$gpus" >"$TMP/$node.jsonl"
    rd -c "metrics import $node $TMP/$node.jsonl"
    expect_status 0
}
sample a-1 50 100.5 10.25 80 60
sample p-1 30 200 40.01 90 40 20 10
sample b-1 5 8 1 0 0

# expect_row KEY FIELD=VALUE...: the row whose first field is KEY has these
# fields (values as JSON writes them)
cat >"$TMP/row.py" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["items"]
key = sys.argv[2]
item = next((i for i in items if list(i.values())[0] == key), None)
if item is None:
    print("  no row %s in %s" % (key, [list(i.values())[0] for i in items]), file=sys.stderr)
    sys.exit(1)
bad = []
for kv in sys.argv[3:]:
    f, v = kv.split("=", 1)
    got = json.dumps(item.get(f, "<missing>"))
    if got != v:
        bad.append("%s: expected %s, got %s" % (f, v, got))
if bad:
    print("  row %s: %s" % (key, "; ".join(bad)), file=sys.stderr)
    sys.exit(1)
PY
expect_row () {
    if python3 "$TMP/row.py" "$OUT" "$@"; then pass; else fail "row $1"; fi
}
expect_rows () {   # expect_rows "A B (total)": the groups, in order
    got=$(python3 -c 'import json, sys; print(" ".join(str(list(i.values())[0]) for i in json.load(sys.stdin)["items"]))' <"$OUT")
    if [ "$got" = "$1" ]; then pass; else fail "rows: expected '$1', got '$got'"; fi
}

case_ "by region: capacity and use per region, exact, and the total"
rd --output json -c "metrics fleet --by region"
expect_status 0
expect_rows "alab blab pub (total)"
expect_row alab nodes=1 nodes_reporting=1 gpus=2 gpus_allocated=2.0 gpu_util_mean=70.0 cpu_cores=64 \
    cpu_util_mean=50.0 cpu_used_cores=32.0 mem_used_gb=100.5 mem_total_gb=512 disk_used_gb=10.25 disk_total_gb=2000
expect_row pub nodes=1 gpus=4 gpus_allocated=3.0 gpu_util_mean=40.0 cpu_used_cores=19.2 mem_used_gb=200.0 \
    disk_used_gb=40.01
expect_row blab gpus_allocated=0.0 gpu_util_mean=0.0 cpu_used_cores=3.2
expect_row "(total)" nodes=3 nodes_reporting=3 gpus=8 gpus_allocated=5.0 gpu_util_mean=37.5 cpu_cores=192 \
    cpu_util_mean=28.3 cpu_used_cores=54.4 mem_used_gb=308.5 mem_total_gb=1536 disk_used_gb=51.26 disk_total_gb=6000
rd -c "metrics fleet --by region"
expect_out "^REGION  *NODES  *NODES_REPORTING  *GPUS  *GPUS_ALLOCATED"
expect_out "^pub  *1  *1  *4  *3  *40"

case_ "by account: each holder its share, idle GPUs to the region's owner or (unallocated); the sums are exact"
rd --as op1 --output json -c "metrics fleet --by account"
expect_status 0
expect_rows "(unallocated) alice bob (total)"
# alice: a-1 whole, a third of p-1 (1 of the 3 GPUs held); the hundredth
# left when p-1's 40.01 GB splits 1:2 goes to her (name order)
expect_row alice nodes=2 nodes_reporting=2 gpus=null gpus_allocated=3.0 gpu_util_mean=76.7 cpu_cores=null \
    cpu_util_mean=null cpu_used_cores=38.4 mem_used_gb=167.17 mem_total_gb=null disk_used_gb=23.59
# bob: two thirds of p-1, and his idle private b-1
expect_row bob nodes=2 gpus_allocated=2.0 gpu_util_mean=15.0 cpu_used_cores=16.0 mem_used_gb=141.33 \
    disk_used_gb=27.67
expect_row "(unallocated)" nodes=1 gpus_allocated=0.0 gpu_util_mean=10.0 cpu_used_cores=0.0 mem_used_gb=0.0
expect_row "(total)" nodes=3 nodes_reporting=3 gpus_allocated=5.0 gpu_util_mean=37.5 cpu_used_cores=54.4 \
    mem_used_gb=308.5 disk_used_gb=51.26
rd --output json -c "metrics fleet --by account --region pub"
expect_rows "(unallocated) alice bob (total)"
expect_row alice nodes=1 gpus_allocated=1.0 gpu_util_mean=90.0 cpu_used_cores=6.4 mem_used_gb=66.67 disk_used_gb=13.34

case_ "a member sees its own regions and the public one, and its own account alone"
rd --as alice --output json -c "metrics fleet --by region"
expect_rows "alab pub (total)"
expect_row "(total)" nodes=2 gpus=6
rd --as alice --output json -c "metrics fleet --by account"
expect_rows "alice (total)"
expect_row "(total)" nodes=2 gpus_allocated=3.0 cpu_used_cores=38.4 mem_used_gb=167.17 disk_used_gb=23.59
rd --as bob --output json -c "metrics fleet --by account"
expect_rows "bob (total)"
rd --as carol --output json -c "metrics fleet --by account"
expect_rows "(total)"
expect_row "(total)" nodes=0 gpus_allocated=0.0 gpu_util_mean=null
rd --as alice --output json -c "metrics fleet --by region --region blab"
expect_status 1
expect_err "region 'blab' does not exist"

case_ "--by with another value, or an unknown region: one line, exit 1, nothing changed"
S=$(snapshot)
rd -c "metrics fleet --by node"
expect_refused 1 "$S" "--by must be one of region, account, got 'node'"
rd -c "metrics fleet --by account --region nowhere"
expect_refused 1 "$S" "region 'nowhere' does not exist"

case_ "without --by, metrics fleet is as before; help and shell completion offer the two groupings"
rd --output json -c "metrics fleet"
expect_json gpus 8
expect_json gpus_allocated 5.0
rd -c "help metrics fleet"
expect_out "region|account"
"$BIN" --complete rigdeck --batch -c "metrics fleet --by " >"$OUT" 2>"$ERR"
expect_out "^metrics fleet --by account$"
expect_out "^metrics fleet --by region$"

finish
