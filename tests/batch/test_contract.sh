#!/bin/sh
# test_contract.sh - the batch contract of commands.md, billing.md and
# job-spec.md, checked the way an outside acceptance test would check it:
# only through `rigdeck --batch`, its exit status, stdout and stderr, and
# only against what those three documents say.
. tests/batch/lib.sh
export RIGDECK_MASTER_KEY="$TMP/master.key"

# check DESC PYTHON: runs PYTHON (assert statements) with `docs` = every
# JSON document on stdout (one per line) and `d` = the last one.
check () {
    if python3 - "$OUT" "$2" >"$TMP/why" 2>&1 <<'EOF'
import json, re, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.strip()]
docs = [json.loads(l) for l in lines]
d = docs[-1] if docs else None
RFC = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$')
def is_time(v): return isinstance(v, str) and RFC.match(v) is not None
def is_int(v): return isinstance(v, int) and not isinstance(v, bool)
def walk(v, key=None):
    yield key, v
    if isinstance(v, dict):
        for k, x in v.items(): yield from walk(x, k)
    elif isinstance(v, list):
        for x in v: yield from walk(x, key)
def strings(v): return [x for _, x in walk(v) if isinstance(x, str)]
def conventions(doc):
    for k, v in walk(doc):
        if k is None: continue
        if k.endswith('_ucr') and v is not None: assert is_int(v), f'{k}={v!r} is not an integer'
        if k.endswith('_at') and v is not None: assert is_time(v), f'{k}={v!r} is not RFC 3339 UTC'
        if k in ('state', 'kind', 'role', 'plan', 'deployment') and v is not None and not isinstance(v, dict):
            assert isinstance(v, str) and re.match(r'^[a-z][a-z0-9_]*$', v), f'{k}={v!r} is not a lower-case word'
        if isinstance(v, str) and re.match(r'^\d{4}-\d\d-\d\dT', v): assert is_time(v), f'{k}={v!r} is not RFC 3339 UTC'
exec(sys.argv[2])
EOF
    then pass; else fail "$1: $(tail -n 2 "$TMP/why" | tr '\n' ' ')"; fi
}
# the job id of the last document on stdout
last_id () { jget id; }

INV=$TMP/inv
mkdir -p "$INV"
cat >"$INV/a100.yaml" <<'EOF'
gpus:
  - {model: a100, count: 4, memory_gb: 40, pcie_gen: 4, pcie_lanes: 16}
cpu_cores: 64
memory_gb: 512
nvme: [{size_gb: 1000}, {size_gb: 1000}]
sata: [{size_gb: 2000, kind: ssd}, {size_gb: 2000, kind: hdd}, {size_gb: 2000, kind: hdd}]
tpm: "2.0"
network_gbps: 25
EOF
cat >"$INV/rtx.json" <<'EOF'
{"gpus": [{"model": "rtx3090", "count": 2, "memory_gb": 24, "pcie_gen": 4, "pcie_lanes": 16}],
 "cpu_cores": 16, "memory_gb": 128, "nvme": [{"size_gb": 1000}, {"size_gb": 1000}],
 "sata": [{"size_gb": 2000, "kind": "ssd"}, {"size_gb": 2000, "kind": "ssd"}, {"size_gb": 2000, "kind": "ssd"}],
 "tpm": "2.0", "network_gbps": 10}
EOF
sed 's/^tpm:.*/tpm: null/' "$INV/a100.yaml" >"$INV/notpm.yaml"
cat >"$INV/storage.yaml" <<'EOF'
gpus: []
cpu_cores: 16
memory_gb: 64
nvme: [{size_gb: 4000}, {size_gb: 4000}]
sata: []
network_gbps: 100
tpm: "2.0"
EOF
printf 'gpus: []\ncpu_cores: 4\nmemory_gb: 8\nnvme: []\nsata: []\nnetwork_gbps: 1\ncolour: blue\n' >"$INV/unknown.yaml"

SPEC=$TMP/specs
mkdir -p "$SPEC"
cat >"$SPEC/nb-rtx.yaml" <<'EOF'
name: nb
type: notebook
project: vision
resources: {gpu_types: [rtx3090], gpu_count: 1, disk_size: 10}
EOF
cat >"$SPEC/a100.yaml" <<'EOF'
name: rent
type: notebook
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 20}
EOF
cat >"$SPEC/train.yaml" <<'EOF'
name: shared-train
type: training
project: other
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers: {count: 1, commands: ["python train.py"]}
EOF
cat >"$SPEC/cheap.yaml" <<'EOF'
name: cheap
type: notebook
resources: {gpu_types: [a100], max_price: 1, disk_size: 10}
EOF
sed 's/disk_size: 20/disk_size: 5/' "$SPEC/a100.yaml" >"$SPEC/bad-disk.yaml"
printf 'name: x\ntype: notebook\nresources: {gpu_types: [a100], disk_size: 10}\ncolour: blue\n' >"$SPEC/bad-key.yaml"
printf 'name: x\ntype: notebook\nresources: {gpu_types: [a100], disk_size: 10}\nenvironment: {python: "3.7"}\n' >"$SPEC/bad-python.yaml"

T0=2026-11-01T00:00:00Z

# ---------------------------------------------------------------- exit codes
case_ "a new store has default (plan team) and platform"
rd --output json -c "account list" -c "account show default"
expect_status 0
check "items" 'names = {a["name"] for a in docs[0]["items"]}
assert {"default", "platform"} <= names, names
assert d["name"] == "default" and d["plan"] == "team", d
for x in docs: conventions(x)'

case_ "unknown command, unknown sub-command, unknown options: exit 2"
rd -c "frobnicate"
expect_status 2
rd -c "account frobnicate"
expect_status 2
rd -c "account list --bogus"
expect_status 2
rd --bogus -c "account list"
expect_status 2
rd --output xml -c "account list"
expect_status 2
rd -c "account list" -c "frobnicate"
expect_status 2

case_ "a store that cannot be reached or opened: exit 3"
rd_store () { s=$1; shift; $WRAP "$BIN" --batch --store "$s" "$@" >"$OUT" 2>"$ERR"; RC=$?; }
rd_store "etcd://127.0.0.1:1" -c "account list"
expect_status 3
rd_store "$TMP/no/such/dir/store.db" -c "account list"
expect_status 3
rd_store "sqlite:$TMP/no/such/dir/store.db" -c "account list"
expect_status 3
echo "this is not a database, just some text that is long enough to matter" >"$TMP/garbage.db"
rd_store "$TMP/garbage.db" -c "account list"
expect_status 3
rd_store "$TMP" -c "account list"
expect_status 3

case_ "a bare path and sqlite:PATH are the same embedded store"
rd_store "$TMP/bare.db" -c "account create barepath"
expect_status 0
[ -f "$TMP/bare.db" ] && pass || fail "bare path did not create $TMP/bare.db"
rd_store "sqlite:$TMP/bare.db" --output json -c "account show barepath"
expect_status 0
expect_json name barepath

case_ "the default store is \$XDG_DATA_HOME/rigdeck/rigdeck.db"
XDG_DATA_HOME=$TMP/xdg $WRAP "$BIN" --batch -c "account create xdg" >"$OUT" 2>"$ERR"
RC=$?
expect_status 0
[ -f "$TMP/xdg/rigdeck/rigdeck.db" ] && pass || fail "no $TMP/xdg/rigdeck/rigdeck.db"

# ---------------------------------------------------------------- accounts
case_ "account create answers with the account; plans"
rd --output json -c "account create alice --plan enterprise"
expect_status 0
expect_json name alice
expect_json plan enterprise
rd --output json -c "account create bob"
expect_json name bob
rd --output json -c "account create carol --plan free" -c "account create dave --plan team" -c "account create edge" -c "account create envt"
expect_status 0
expect_json plan free 0
expect_json plan team 1

case_ "a refused line: exit 1, one stderr line naming the field, store unchanged"
snap=$(snapshot)
rd -c "account create alice"
expect_refused 1 "$snap" "alice"
rd -c "account create zed --plan gold"
expect_refused 1 "$snap" "plan"
rd -c "account deposit bob abc"
expect_refused 1 "$snap" "amount"
rd -c "account deposit nobody 5"
expect_refused 1 "$snap" "nobody"
rd -c "account deposit bob -5"
expect_refused 1 "$snap" "amount"
rd -c "account deposit bob 1.0000001"
expect_refused 1 "$snap" "amount"

case_ "a refused line quoting a line break still prints one stderr line"
rd -c "account create 'two
lines'"
expect_refused 1 "$snap" "account name"

case_ "a refused line with --output json prints an error document"
rd --output json -c "account create alice"
expect_status 1
expect_err_lines 1
check "error doc" 'assert len(docs) == 1, docs
e = d["error"]
assert isinstance(e["code"], str) and e["code"], e
assert isinstance(e["message"], str) and e["message"], e'
rd --output json -c "account show default" -c "account show nobody"
expect_status 1
check "one doc per command" 'assert len(docs) == 2, docs
assert docs[0]["name"] == "default"
assert set(d) == {"error"}, d'

case_ "deposits: AMOUNT in credits, balances in _ucr"
rd --output json -c "account deposit bob 100" -c "account deposit alice 12.5" -c "account deposit alice 37.5" -c "account deposit dave 1"
expect_status 0
check "deposit answers" 'assert len(docs) == 4
for x in docs: conventions(x)'
rd --output json -c "ledger balance bob" -c "ledger balance alice" -c "ledger balance carol"
check "ledger balance" 'for x in docs:
    assert {"account", "balance_ucr", "pending_ucr"} <= set(x), x
    conventions(x)
assert docs[0]["account"] == "bob" and docs[0]["balance_ucr"] == 100000000, docs[0]
assert docs[1]["account"] == "alice" and docs[1]["balance_ucr"] == 50000000, docs[1]
assert docs[2]["balance_ucr"] == 0, docs[2]'
rd --as bob --output json -c "ledger balance"
expect_json account bob
rd --output json -c "account create twice" -c "account deposit twice 10" -c "account deposit twice 10" -c "ledger balance twice"
expect_status 0
expect_json balance_ucr 20000000
rd -c "ledger balance alice"
expect_status 0
expect_out "50"
expect_no_out "50000000"

case_ "projects: owner defaults to --as; share"
rd --output json -c "project create vision --owner alice"
expect_status 0
expect_json name vision
expect_json owner alice
rd --as bob --output json -c "project create other"
expect_status 0
expect_json owner bob
rd --as bob --output json -c "project share other carol"
expect_status 0
rd --as alice --output json -c "project share vision bob"
expect_status 0
rd -c "project create nope --owner nobody"
expect_status 1
expect_err_lines 1

case_ "the administering account shares another account's project by its bare name"
rd --output json -c "project create shared-by-admin --owner alice" -c "project share shared-by-admin carol"
expect_status 0
expect_json owner alice
check "members" 'assert "carol" in d["members"], d'
rd --output json -c "project create twin --owner alice" -c "project create twin --owner bob"
expect_status 0
snap=$(snapshot)
rd -c "project share twin carol"
expect_refused 1 "$snap" "ambiguous"
rd --output json -c "project share alice/twin carol"
expect_status 0
expect_json owner alice
rd --as carol -c "project share twin dave"
expect_status 1

# ---------------------------------------------------------------- lines
case_ "-c lines run first, then -f FILE, in order; comments and blanks skipped"
printf '# a comment\n\naccount show platform\n   \n#account show nobody\naccount show bob\n' >"$TMP/lines.txt"
rd --output json -c "account show default" -c "account show alice" -f "$TMP/lines.txt"
expect_status 0
check "order" 'assert [x["name"] for x in docs] == ["default", "alice", "platform", "bob"], [x.get("name") for x in docs]'

case_ "stdin is read when there is no -f"
printf 'account show alice\n# c\n\naccount show bob\n' | $WRAP "$BIN" --batch --store "$STORE" --output json >"$OUT" 2>"$ERR"
RC=$?
expect_status 0
check "stdin" 'assert [x["name"] for x in docs] == ["alice", "bob"], docs'

case_ "-f - is stdin; CRLF line ends and a last line without a newline still run"
printf 'account show alice\r\n# c\r\n\r\naccount show bob' | $WRAP "$BIN" --batch --store "$STORE" --output json -c "account show default" -f - >"$OUT" 2>"$ERR"
RC=$?
expect_status 0
check "stdin via -f -" 'assert [x["name"] for x in docs] == ["default", "alice", "bob"], docs'

case_ "words split like a POSIX shell"
rd --output json -c "account create 'q1'" -c 'account create "q2"' -c 'account create q\3' -c "account show \"q\"'1'"
expect_status 0
check "quotes" 'assert [x["name"] for x in docs] == ["q1", "q2", "q3", "q1"], docs'

case_ "without --keep-going a batch stops at the first refused line"
rd -c "account create k1" -c "account create k1" -c "account create k2"
expect_status 1
rd -c "account show k2"
expect_status 1
rd --keep-going -c "account create k1" -c "account create k3"
expect_status 1
rd -c "account show k3"
expect_status 0

case_ "environment: RIGDECK_STORE, RIGDECK_ACCOUNT, RIGDECK_NOW"
RIGDECK_STORE=$STORE $WRAP "$BIN" --batch --output json -c "account show alice" >"$OUT" 2>"$ERR"
RC=$?
expect_status 0
expect_json name alice
RIGDECK_STORE=$STORE RIGDECK_ACCOUNT=alice $WRAP "$BIN" --batch --output json -c "project create envp" >"$OUT" 2>"$ERR"
RC=$?
expect_status 0
expect_json owner alice
RIGDECK_STORE=$STORE RIGDECK_ACCOUNT=alice $WRAP "$BIN" --batch --as bob --output json -c "project create envq" >"$OUT" 2>"$ERR"
RC=$?
expect_json owner bob
RIGDECK_NOW=2026-11-01T00:00:07Z rd --output json -c "account deposit envt 0.5" -c "ledger entries --account envt --kind deposit"
expect_status 0
check "deposit time from RIGDECK_NOW" 'items = d["items"]
assert len(items) == 1, items
assert "2026-11-01T00:00:07Z" in strings(items[0]), items[0]
assert "id" in items[0], items[0]
conventions(d)'
RIGDECK_NOW=2026-11-01T00:00:07Z rd --now 2026-11-01T00:00:08Z --output json -c "account deposit envt 0.5" -c "ledger entries --account envt --kind deposit --since 2026-11-01T00:00:08Z"
check "--now wins over RIGDECK_NOW" 'items = d["items"]
assert len(items) == 1 and "2026-11-01T00:00:08Z" in strings(items[0]), items'
rd --output json -c "ledger entries --account envt --until 2026-11-01T00:00:07Z"
check "--until" 'assert len(d["items"]) == 1, d'

# ---------------------------------------------------------------- catalog
case_ "gpu list: the catalog ids exactly"
rd --output json -c "gpu list"
expect_status 0
check "catalog" 'want = ["gtx1060","rtx2060s","rtx2070s","rtx2080ti","rtx3090","rtx-a4000","rtx-a6000","t4","p100","v100","a100","a100-80gb","cpu"]
items = d["items"]
for it in items: assert "name" in it or "id" in it, it
ids = set()
for it in items: ids |= {it.get("id"), it.get("name")}
missing = [w for w in want if w not in ids]
assert not missing, missing
conventions(d)'
# reals print as written (0.9), not as 17-digit binary approximations
expect_no_out '[0-9]\.[0-9]\{12,\}'

# ---------------------------------------------------------------- regions, nodes
case_ "providers and physical regions"
rd --output json -c "provider enable physical"
expect_status 0
rd --as alice --output json -c "provider enable physical --payment credits"
expect_status 0
rd --output json -c "provider list" -c "provider show physical"
expect_status 0
check "provider" 'assert "items" in docs[0]
assert d["name"] == "physical", d'
rd --output json -c "region create dc --provider physical --storage local --public"
expect_status 0
expect_json name dc
rd --output json -c "region create lab --provider physical --storage central"
expect_json name lab
rd --as alice --output json -c "region create home --provider physical --storage local"
expect_json name home
rd --as edge --output json -c "provider enable physical" -c "region create edge-lab --provider physical --storage central"
expect_status 0
rd --output json -c "region create tmp --provider physical --storage local" -c "region remove tmp"
expect_status 0
rd --output json -c "region list"
check "region list" 'names = {r["name"] for r in d["items"]}
assert {"dc", "lab", "home", "edge-lab"} <= names, names'
snap=$(snapshot)
rd -c "region create bad --provider physical --storage nowhere"
expect_refused 1 "$snap" "storage"

case_ "node add: fields, states, rejection with unmet requirements"
rd --output json -c "node add dc gpu-01 --agent none --minion m-0001 --inventory $INV/a100.yaml"
expect_status 0
check "node add answer" 'assert d["name"] == "gpu-01" and d["region"] == "dc" and d["role"] == "compute", d
assert d["gpu_type"] == "a100" and d["gpu_count"] == 4 and d["gpus_used"] == 0, d
assert d["state"] in ("maintenance", "active"), d
conventions(d)'
rd --output json -c "node maintenance gpu-01 off"
expect_status 0
expect_json state active
rd --output json -c "node add dc new-01 --agent none --minion m-0002"
expect_json state provisioning
rd --output json -c "node add dc odd-01 --agent none --minion m-0003 --inventory $INV/notpm.yaml"
expect_status 0
expect_json state rejected
check "unmet" 'u = d["unmet"]
assert isinstance(u, list) and u, u
for x in u: assert {"requirement", "required", "actual"} <= set(x), x'
rd --output json -c "node show odd-01"
expect_json state rejected
check "node show unmet" 'assert any("tpm" in json.dumps(x).lower() for x in d["unmet"]), d["unmet"]'
rd --output json -c "node report new-01 --inventory $INV/a100.yaml"
expect_status 0
check "reported" 'assert d["state"] in ("maintenance", "active") and d["gpu_count"] == 4, d'
rd --output json -c "node maintenance new-01 off" -c "node maintenance new-01 toggle" -c "node maintenance new-01 toggle"
expect_status 0
check "toggle" 'assert [x["state"] for x in docs] == ["active", "maintenance", "active"], [x["state"] for x in docs]'
rd --as alice --output json -c "node add home ws-01 --agent none --minion m-0100 --inventory $INV/rtx.json" -c "node maintenance ws-01 off"
expect_status 0
expect_json state active
expect_json gpu_type rtx3090
snap=$(snapshot)
rd -c "node add dc bad-01 --agent none --minion m-0999 --inventory $INV/unknown.yaml"
expect_refused 1 "$snap" "colour"
rd -c "node add dc bad-02 --agent none --minion m-0998 --role gpu"
expect_refused 1 "$snap" "role"
rd -c "node add nowhere bad-03 --agent none --minion m-0997"
expect_refused 1 "$snap" "nowhere"
rd --output json -c "node add lab st-01 --agent none --minion m-0200 --role storage --inventory $INV/storage.yaml"
expect_status 0
expect_json role storage
rd --output json -c "node replace st-01 --with st-02 --minion m-0201"
expect_status 0
check "replace" 'assert "st-02" in strings(d) or "st-01" in strings(d), d'
rd --output json -c "node remove odd-01"
expect_status 0
expect_json state removed
rd --output json -c "node list --region dc --state active"
check "node list filter" 'names = sorted(n["name"] for n in d["items"])
assert names == ["gpu-01", "new-01"], names
for n in d["items"]: assert n["region"] == "dc" and n["state"] == "active"'
rd --output json -c "node list --state provisioning"
check "filter provisioning" 'assert [n["name"] for n in d["items"]] == ["st-02"], d'

# ---------------------------------------------------------------- resources
case_ "devices need the region's storage node; regional resources a node or device"
rd --output json -c "device add lab cam-01 --minion j-0001 --model jetson-orin-nano"
expect_status 0
expect_json name cam-01
rd --as edge --output json -c "node add edge-lab est-01 --agent none --minion m-0300 --role storage --inventory $INV/storage.yaml"
expect_status 0

case_ "datastores: resolve and refuse escaping paths"
echo "s3cret" >"$TMP/pw"
rd --output json -c "datastore add lab nas --type nfs --address nas.lab.local --root /exports/ml"
expect_status 0
expect_json name nas
rd --output json -c "datastore add lab share --type smb --address smb.lab.local --root /share --username ml --password-file $TMP/pw"
expect_status 0
expect_no_out "s3cret"
rd --output json -c "datastore add lab guest --type smb --address smb.lab.local --root /public"
expect_status 0
expect_json type smb
rd --output json -c "datastore resolve nas /cams/front"
expect_status 0
check "resolve" 'assert d == {"path": "/exports/ml/cams/front"} or d["path"] == "/exports/ml/cams/front", d'
rd --output json -c "datastore resolve nas cams/front"
check "resolve relative" 'assert d.get("path") == "/exports/ml/cams/front" or "error" in d, d'
snap=$(snapshot)
for p in ../etc/passwd /cams/../../etc /.. "/a/../../b"; do
    rd --output json -c "datastore resolve nas $p"
    expect_status 1
    expect_err_lines 1
    expect_no_out '"path"'
done
rd --output json -c "datastore list" -c "reservation add lab inf --hostname inference.local --port 8080" -c "reservation list"
expect_status 0
check "lists" 'assert "items" in docs[0] and "items" in docs[2]
assert docs[1]["name"] == "inf", docs[1]'
rd -c "reservation add lab inf2 --hostname h --port 99999"
expect_status 1
expect_err "port"

case_ "devices and device configurations"
rd --output json -c "device-config create lab detect --image nvcr.io/acme/detect:1.4 --model yolo --command \"python serve.py --tag \\\"x y\\\" 'z w'\" --checkpoint c1 --checkpoint c2 --datastore nas --datastore-path /cams --env 'MSG=hello world' --env K=V --key aws"
expect_status 0
expect_json name detect
check "quoting reached the config" 'ss = strings(d)
assert "python serve.py --tag \"x y\" '"'"'z w'"'"'" in ss, ss
assert d["env"] == {"MSG": "***", "K": "***"}, d["env"]   # sealed in the store, names only in answers
assert not any("hello world" in s for s in ss), ss'
rd --output json -c "device report cam-01 --status ready" -c "device set-config cam-01 detect" -c "device deploy cam-01" -c "device report cam-01 --status running" -c "device list"
expect_status 0
check "device answers" 'for x in docs[:4]: assert x["name"] == "cam-01", x
assert "items" in d'
n=0
for m in jetson-agx-xavier jetson-xavier-nx jetson-agx-orin jetson-orin-nx jetson-orin-nano; do
    n=$((n + 1))
    rd --as edge --output json -c "device add edge-lab e-$n --minion e-$n --model $m"
    expect_status 0
done
rd --as edge --output json -c "device remove e-1"
expect_status 0
rd -c "device add lab cam-x --minion j-9 --model jetson-nano"
expect_status 1
expect_err "model"

# ---------------------------------------------------------------- cloud quota
case_ "gcp: quota set/show with runnable jobs per GPU type"
openssl genrsa -out "$TMP/key.pem" 2048 2>/dev/null
python3 -c '
import json, sys
print(json.dumps({"type": "service_account", "project_id": "acme", "private_key_id": "1",
  "private_key": open(sys.argv[1]).read(), "client_email": "rd@acme.iam.gserviceaccount.com",
  "token_uri": "http://127.0.0.1:1/token"}))' "$TMP/key.pem" >"$TMP/sa.json"
rd --output json -c "provider enable gcp --key-file $TMP/sa.json"
expect_status 0
expect_no_out "PRIVATE KEY"
rd --output json -c "region create g1 --provider gcp --gcp-region us-central1 --storage-class small --public --idle-release 1h"
expect_status 0
expect_json name g1
rd --output json -c "region create g2 --provider gcp --gcp-region us-east1 --storage-class micro --idle-release 2h30m"
expect_status 0
check "compound duration" 'assert 9000 in [v for _, v in walk(d)], d'
rd --output json -c "quota set g1 NVIDIA_A100_GPUS 8" -c "quota set g1 CPUS 48" -c "quota set g1 LOCAL_SSD_TOTAL_GB 3000 --usage 0" -c "quota show g1"
expect_status 0
check "runnable" 'r = d["runnable"]
assert isinstance(r, dict), r
assert r.get("a100") == 4, r
for k, v in r.items(): assert is_int(v), (k, v)'

# ---------------------------------------------------------------- jobs
case_ "job spec rules: refused with the field named, store unchanged"
snap=$(snapshot)
rd --as bob -c "job submit $SPEC/bad-disk.yaml"
expect_refused 1 "$snap" "disk_size"
rd --as bob -c "job submit $SPEC/bad-key.yaml"
expect_refused 1 "$snap" "colour"
rd --as bob -c "job submit $SPEC/bad-python.yaml"
expect_refused 1 "$snap" "python"
rd --as bob --output json -c "job submit $SPEC/bad-disk.yaml"
check "json error" 'assert set(d) == {"error"} and d["error"]["code"] and d["error"]["message"], d'
rd --as carol -c "job submit $SPEC/nb-rtx.yaml"
expect_refused 1 "$snap" "vision"

case_ "job submit answers with the waiting job"
rd --now $T0 --as alice --output json -c "job submit $SPEC/nb-rtx.yaml"
expect_status 0
J1=$(last_id)
check "job" 'assert d["id"] and d["state"] == "waiting_gpus" and d["type"] == "notebook", d
assert d["project"] in ("vision", "alice/vision") and d["creator"] == "alice", d
w = d["workers"]
assert len(w) == 1, w
assert {"index", "state", "node", "gpu_type", "gpus", "price_ucr", "started_at", "ended_at"} <= set(w[0]), w[0]
assert w[0]["index"] == 0 and w[0]["state"] == "waiting_gpus" and w[0]["node"] is None, w[0]
conventions(d)'
rd --now $T0 --as bob --output json -c "job submit $SPEC/a100.yaml"
J2=$(last_id)
expect_json creator bob
rd --now $T0 --as bob --output json -c "job submit $SPEC/train.yaml --project vision"
expect_status 0
J3=$(last_id)
check "--project wins" 'assert d["project"] in ("vision", "alice/vision") and d["type"] == "training", d'
rd --now $T0 --as bob --output json -c "job submit $SPEC/cheap.yaml"
J4=$(last_id)
rd --now $T0 --as carol --output json -c "job submit $SPEC/a100.yaml"
J5=$(last_id)
expect_status 0
rd --output json -c "job list --state waiting_gpus"
check "job list" 'ids = {j["id"] for j in d["items"]}
assert len(ids) == 5, ids'

case_ "sched run --dry-run changes nothing; sched run places"
rd --now $T0 -c "price set a100 2.78"
expect_status 0
rd --output json -c "price list"
check "price list" 'assert any(2780000 in [v for k, v in walk(x) if k and k.endswith("_ucr")] for x in d["items"]), d'
snap=$(snapshot)
rd --now $T0 -c "sched run --dry-run"
expect_status 0
expect_out "3"
[ "$(snapshot)" = "$snap" ] && pass || fail "sched run --dry-run changed the store"
rd --now $T0 --output json -c "sched run"
expect_status 0
rd --output json -c "job show $J1" -c "job show $J2" -c "job show $J3" -c "job show $J4" -c "job show $J5"
check "placed" 'j1, j2, j3, j4, j5 = docs
for j in (j1, j2, j3): assert j["state"] == "running", j
w = j1["workers"][0]
assert w["state"] == "running" and w["node"] == "ws-01" and w["gpu_type"] == "rtx3090", w
assert w["price_ucr"] == 50000, w
assert w["started_at"] == "2026-11-01T00:00:00Z" and w["ended_at"] is None, w
for j in (j2, j3):
    w = j["workers"][0]
    assert w["node"] in ("gpu-01", "new-01") and w["gpu_type"] == "a100" and w["gpus"] == 1, w
    assert w["price_ucr"] == 2780000, w
assert j4["state"] == "waiting_gpus" and j4["workers"][0]["node"] is None, j4
assert j5["state"] == "waiting_gpus", j5
for x in docs: conventions(x)'
rd --output json -c "node show ws-01"
expect_json gpus_used 1
rd -c "job show $J2"
check_table () { if grep -Eq "$1" "$OUT"; then pass; else fail "table lacks /$1/"; fi; }
check_table "^  max_price +3\$"
check_table "^  0 +running +(gpu|new)-01 +a100 +1 +2\.78 "
expect_no_out "3000000"
expect_no_out "2780000"
rd --output json -c "job why $J4"
expect_status 0
expect_out "max_price"
rd --output json -c "quota show g1"
expect_status 0

case_ "billing: the first hour, at the price locked at placement"
rd --now 2026-11-01T00:30:00Z --output json -c "price set a100 5" -c "job show $J2"
expect_status 0
expect_json workers.0.price_ucr 2780000
rd --now 2026-11-01T01:00:00Z --output json -c "bill run" -c "price set a100 2.78"
expect_status 0
rd --output json -c "ledger balance bob" -c "ledger balance alice"
check "balances" 'assert docs[0]["balance_ucr"] == 100000000 - 2780000 - 2650000, docs[0]
assert docs[1]["balance_ucr"] == 50000000 - 2780000 - 50000, docs[1]'
rd --output json -c "ledger entries --account bob --kind federated_fee" -c "ledger entries --kind gpu_rental --until 2026-11-01T01:00:00Z" -c "ledger entries --kind usage_fee"
check "kinds" 'assert len(docs[0]["items"]) == 1, docs[0]
assert len(docs[1]["items"]) >= 2, docs[1]
assert len(docs[2]["items"]) >= 1, docs[2]
for x in docs:
    conventions(x)
    for it in x["items"]: assert "id" in it, it'
n1=$(jget items.len 1)
rd --now 2026-11-01T01:00:00Z -c "bill run" -c "bill run --until 2026-11-01T01:00:00Z"
expect_status 0
rd --output json -c "ledger entries --kind gpu_rental"
expect_json items.len "$n1"
rd -c "ledger verify"
expect_status 0

case_ "workers end: finished, failed, stopped, canceled"
rd --now 2026-11-01T01:30:00Z --as alice --output json -c "job report $J1 --worker 0 finished"
expect_status 0
expect_json state finished
check "ended" 'assert d["workers"][0]["ended_at"] == "2026-11-01T01:30:00Z", d["workers"]
assert d["workers"][0]["state"] == "finished"'
rd --now 2026-11-01T01:30:00Z --output json -c "job report $J3 --worker 0 failed"
expect_json state failed
rd --now 2026-11-01T01:30:00Z --as bob --output json -c "job stop $J2"
expect_status 0
check "stop" 'assert d["id"] and d["state"] in ("stopping", "stopped"), d'
rd --now 2026-11-01T01:30:00Z --as bob --output json -c "job stop $J4"
expect_json state canceled
rd --output json -c "job show $J2"
expect_json state stopped
snap=$(snapshot)
rd --now 2026-11-01T01:30:00Z -c "job report $J1 --worker 0 exploded"
expect_refused 1 "$snap" "exploded"
rd -c "job show no-such-job"
expect_status 1
rd --output json -c "job list --state finished" -c "job list --state failed" -c "job list --state stopped" -c "job list --state canceled"
check "states" 'assert [len(x["items"]) for x in docs] == [1, 1, 1, 1], docs'

case_ "billing: partial hours, payouts and the device fee at midnight"
rd --now 2026-11-02T00:00:00Z -c "bill run"
expect_status 0
rd --output json -c "ledger balance bob" -c "ledger balance alice" -c "ledger balance default"
check "balances" 'bob, alice, dflt = (x["balance_ucr"] for x in docs)
assert bob == 100000000 - 2780000 - 2650000 - 1390000 - 1325000, bob
assert alice == 50000000 - 2780000 - 50000 - 25000 - 1390000, alice
# host earnings 2 x (1.265 + 0.6325), paid out at midnight, less one device day (15 x 1 / 30)
assert dflt == 2 * (1265000 + 632500) - 500000, dflt'
rd --output json -c "ledger entries --kind payout" -c "ledger entries --kind device_fee --account edge" -c "ledger entries --kind deposit"
check "payout/device fee" 'assert len(docs[0]["items"]) >= 1, docs[0]
assert len(docs[1]["items"]) == 1, docs[1]
assert 2500000 in [v for k, v in walk(docs[1]) if k and k.endswith("_ucr")] or -2500000 in [v for k, v in walk(docs[1]) if k and k.endswith("_ucr")], docs[1]'
rd -c "ledger verify"
expect_status 0
rd -c "ledger balance bob"
expect_out "91.855"
expect_no_out "91855000"

case_ "draining, and out_of_credits at the next pass"
rd --now 2026-11-02T00:00:00Z --as dave --output json -c "job submit $SPEC/a100.yaml"
J6=$(last_id)
rd --now 2026-11-02T00:00:00Z -c "sched run"
rd --output json -c "job show $J6"
expect_json state running
node=$(jget workers.0.node)
rd --now 2026-11-02T00:10:00Z --output json -c "node maintenance $node on"
expect_json state draining
rd --now 2026-11-02T01:00:00Z -c "bill run" -c "sched run"
expect_status 0
rd --output json -c "job show $J6" -c "ledger balance dave"
check "out of credits" 'j = docs[0]
assert j["state"] in ("stopping", "stopped"), j
assert "out_of_credits" in strings(j), j
assert docs[1]["balance_ucr"] == 1000000 - 2780000, docs[1]'
rd --output json -c "node show $node"
expect_json state maintenance
rd --now 2026-11-02T02:00:00Z --as carol -c "sched run"
rd --output json -c "job show $J5"
expect_json state waiting_gpus

case_ "the example of job-spec.md, less the endpoint section it marks 'endpoint jobs only', runs in its regional resources' region"
cat >"$SPEC/example.yaml" <<'EOF'
name: resnet50-sweep            # required; exposed to workers as RIGDECK_JOB_NAME
type: training                  # notebook | training | inference | endpoint
project: vision                 # optional; --project wins; default: the account's "default" project
resources:
  gpu_types: [rtx3090, a100]    # any of these satisfies; "cpu" for CPU-only
  gpu_count: 1                  # per worker; fractional (e.g. 0.5) only on nodes that allow sharing
  cpu_count: 8                  # CPU-only jobs: multiple of 4
  max_price: 2.5                # credits per GPU-hour
  disk_size: 50                 # GB, 10..1000, per worker
data:
  datasets: ["PASCAL VOC"]      # mounted under /opt/ml/input (own dir each when several)
  input:  {type: aws, path: "s3://bucket/data/"}
  output: {type: gcp, path: "gs://bucket/results"}
model:
  source: git                   # aws|azure|gcp|git|local|wasabi|web|rigdeck
  location: "https://github.com/org/repo.git"
  checkpoints: ["My Checkpoint"]
workers:
  count: 2                      # training jobs only
  commands: ["python train.py --lr 0.1", "python train.py --lr 0.01"]   # one, or one per worker
endpoint:                       # endpoint jobs only
  routes:
    - {verb: POST, path: /predict, file: serve.py, function: predict, positional: false,
       params: [{name: image, type: string}, {name: top_k, type: integer, optional: true, default: "5"}]}
environment:
  python: "3.9"                 # 3.8 | 3.9
  framework: pytorch            # deep_learning | pytorch | tensorflow | mxnet
  framework_version: "1.13"
  image: null                   # a customer image instead of a built-in environment
  packages: {apt: [], conda: [], pip: ["wandb==0.15.0"]}
  env: {WANDB_PROJECT: sweep}
  keys: [aws, wandb]
regional:                       # pins the job to the resource's region
  datastore: lab-nfs
  reservation: inference-port
EOF
# As written it is a training job with an endpoint section: refused for that.
before=$(snapshot)
rd --as alice -c "job submit $SPEC/example.yaml"
expect_refused 1 "$before" "endpoint is only for endpoint jobs, not training jobs"
sed -i -e '/^endpoint:/,/^environment:/{/^environment:/!d}' "$SPEC/example.yaml"
sed -e 's/^name: resnet50-sweep .*/name: pinned-t4/' -e 's/gpu_types: \[rtx3090, a100\]/gpu_types: [t4]/' \
    -e '/reservation:/d' "$SPEC/example.yaml" >"$SPEC/pinned-t4.yaml"
rd --as alice --output json -c "datastore add home lab-nfs --type nfs --address nfs.home.local --root /srv" -c "reservation add home inference-port --hostname inference.home.local --port 8080"
expect_status 0
# the names it lists are alice's data objects (execution.md §5): job submit checks every one
before=$(snapshot)
rd --now 2026-11-02T03:00:00Z --as alice -c "job submit $SPEC/example.yaml"
expect_refused 1 "$before" "data.datasets\[0\]: dataset 'PASCAL VOC' does not exist"
printf 'AWS_ACCESS_KEY_ID=AKIDEXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrEXAMPLEKEY\n' >"$SPEC/aws.env"
printf 'wandb-token-0123456789\n' >"$SPEC/wandb.token"
rd --as alice -c "key add aws --type aws --file $SPEC/aws.env" -c "key add wandb --type wandb --file $SPEC/wandb.token" \
   -c "dataset add 'PASCAL VOC' --source s3://voc-bucket/voc2012/ --key aws" \
   -c "checkpoint add 'My Checkpoint' --source https://example.com/ckpt.tar.gz"
expect_status 0
rd --now 2026-11-02T03:00:00Z --as alice --output json -c "job submit $SPEC/example.yaml" -c "job submit $SPEC/pinned-t4.yaml"
expect_status 0
JX=$(jget id 0)
JT=$(jget id 1)
check "submitted" 'assert docs[0]["type"] == "training" and docs[0]["project"] in ("vision", "alice/vision"), docs[0]
assert [w["index"] for w in docs[0]["workers"]] == [0, 1], docs[0]["workers"]'
rd --now 2026-11-02T03:00:00Z -c "sched run"
expect_status 0
rd --output json -c "job show $JX" -c "job show $JT" -c "node show ws-01"
check "placed in home" 'jx, jt, node = docs
assert jx["state"] == "running", jx
for w in jx["workers"]:
    assert w["node"] == "ws-01" and w["gpu_type"] == "rtx3090" and w["price_ucr"] == 50000, w
assert jt["state"] == "waiting_gpus", jt
assert node["gpus_used"] == 2, node'
rd -c "job why $JT"
expect_status 0
expect_out "region"

case_ "federated fee: inference 1.85 per worker-hour, notebooks none"
printf 'name: nb-shared\ntype: notebook\nproject: vision\nresources: {gpu_types: [a100], max_price: 3, disk_size: 10}\n' >"$SPEC/nb-shared.yaml"
printf 'name: score\ntype: inference\nproject: vision\nresources: {gpu_types: [a100], max_price: 3, disk_size: 10}\nworkers: {commands: ["python score.py"]}\n' >"$SPEC/inf-shared.yaml"
rd --now 2026-11-02T03:00:00Z --as bob --output json -c "job submit $SPEC/nb-shared.yaml" -c "job submit $SPEC/inf-shared.yaml"
expect_status 0
JN=$(jget id 0)
JI=$(jget id 1)
export JI
rd --now 2026-11-02T03:00:00Z -c "sched run"
rd --output json -c "job show $JN" -c "job show $JI"
check "running" 'assert [x["state"] for x in docs] == ["running", "running"], [x["state"] for x in docs]'
rd --now 2026-11-02T04:00:00Z -c "bill run"
expect_status 0
rd --output json -c "ledger entries --kind federated_fee --account bob --since 2026-11-02T00:00:01Z"
check "one inference fee" 'items = d["items"]
assert len(items) == 1, items
assert __import__("os").environ["JI"] in json.dumps(items[0]) and 1850000 in [v for k, v in walk(items[0]) if k and k.endswith("_ucr")], items' 
rd -c "ledger verify"
expect_status 0

case_ "cloud sync with a region whose API cannot be reached"
RIGDECK_GCP_ENDPOINT=http://127.0.0.1:1 rd --now 2026-11-02T02:00:00Z -c "cloud sync g1"
[ "$RC" = 0 ] || [ "$RC" = 1 ] || [ "$RC" = 3 ] && pass || fail "cloud sync exit $RC"

case_ "every list is {items}, every object has name or id"
rd --output json -c "account list" -c "provider list" -c "region list" -c "node list" -c "device list" -c "device-config list" -c "datastore list" -c "reservation list" -c "job list" -c "price list" -c "gpu list" -c "ledger entries"
expect_status 0
check "lists" 'assert len(docs) == 12, len(docs)
for x in docs:
    assert set(x) == {"items"} or "items" in x, x
    conventions(x)
    for it in x["items"]:
        assert "name" in it or "id" in it, it'

finish
