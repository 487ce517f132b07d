#!/bin/sh
# What each role sees and may do (docs/security.md, "Roles"): two tenants,
# alice and bob, each with a private region, nodes, a datastore, a
# reservation and jobs; carol's public region whose capacity both may use;
# op1, an operator; v1, a viewer alice shares a project with.  Every read
# command shows a tenant its own things and the public capacity, never the
# other tenant's, and a `show` of the other's answers exactly like a name
# never used; the operator sees and tends the whole fleet but moves no
# money and does no tenant work; the viewer sees what a member of its name
# sees and changes nothing.  Batch, JSON and the console run the same
# handlers, so table and JSON must agree.
. tests/batch/lib.sh
INV=tests/inventories
SP=tests/specs/sched
export RIGDECK_MASTER_KEY="$TMP/master.key"

# names FIELD: the FIELD of every item of the JSON list on stdout, sorted.
names () {
    python3 -c "import json, sys; print(' '.join(sorted(str(i[sys.argv[1]]) for i in json.load(sys.stdin)['items'])))" \
        "$1" <"$OUT"
}
expect_names () {   # expect_names FIELD "A B C"
    got=$(names "$1")
    if [ "$got" = "$2" ]; then pass; else fail "$1 of the items: expected '$2', got '$got'"; fi
}
# table_names: the first column of a table on stdout, header left out, sorted.
table_names () { tail -n +2 "$OUT" | awk '{print $1}' | sort | tr '\n' ' ' | sed 's/ $//'; }
# same_as_json AS LINE FIELD: LINE's table shows the same objects as its JSON.
same_as_json () {
    rd --as "$1" --output json -c "$2"
    want=$(names "$3")
    rd --as "$1" -c "$2"
    got=$(table_names)
    if [ "$got" = "$want" ]; then pass; else fail "$2 as $1: table shows '$got', JSON '$want'"; fi
}
# like_missing AS LINE HIDDEN GHOST: LINE (naming HIDDEN, which exists but AS
# may not see) answers exactly as the same line naming GHOST (never used),
# in table and JSON form: exit status, stderr and stdout.
like_missing () {
    who=$1 line=$2 hidden=$3 ghost=$4
    other=$(printf '%s' "$line" | sed "s|$hidden|$ghost|g")
    for form in table json; do
        rd --as "$who" --output "$form" -c "$line"
        r1=$RC e1=$(sed "s|$hidden|NAME|g" "$ERR") o1=$(sed "s|$hidden|NAME|g" "$OUT")
        rd --as "$who" --output "$form" -c "$other"
        r2=$RC e2=$(sed "s|$ghost|NAME|g" "$ERR") o2=$(sed "s|$ghost|NAME|g" "$OUT")
        if [ "$r1" = 1 ] && [ "$r1" = "$r2" ] && [ "$e1" = "$e2" ] && [ "$o1" = "$o2" ]; then
            pass
        else
            fail "$line as $who ($form): exit $r1, '$e1' '$o1'; for a missing name exit $r2, '$e2' '$o2'"
        fi
    done
}
submit () {   # submit AS SPEC [FLAGS]: leaves the job id in $JOB
    who=$1 spec=$2; shift 2
    rd --as "$who" --output json -c "job submit $SP/$spec.yaml $*"
    JOB=$(jget id)
}

# ---- the fleet ----------------------------------------------------------------

rd -c "account create alice --plan team" -c "account create bob --plan team" -c "account create carol --plan team" \
   -c "account create op1" -c "account create v1" \
   -c "account deposit alice 100" -c "account deposit bob 100" -c "price set a100 2.78"
expect_status 0
rd -c "account set op1 --role operator" -c "account set v1 --role member"
expect_status 0
rd --as carol -c "provider enable physical" -c "region create pub --provider physical --storage local --public" \
   -c "node add pub p-1 --agent none --minion m-p1 --inventory $INV/a100x4.yaml" -c "node maintenance p-1 off"
expect_status 0
for who in alice bob; do
    t=$(printf '%s' "$who" | cut -c1)
    rd --as "$who" -c "provider enable physical" -c "region create ${t}lab --provider physical --storage local" \
       -c "node add ${t}lab $t-1 --agent none --minion m-${t}1 --inventory $INV/a100x4.yaml" -c "node maintenance $t-1 off" \
       -c "datastore add ${t}lab $t-nas --type nfs --address nas.$t.local --root /data" \
       -c "reservation add ${t}lab $t-web --hostname web.$t.local --port 8080"
    expect_status 0
done
# bob's edge site: a central region with its storage node, a device and its configuration
rd --as bob -c "region create bedge --provider physical --storage central" \
   -c "node add bedge b-st --agent none --minion m-bst --role storage --inventory $INV/storage.yaml" \
   -c "device add bedge b-cam --minion d-b1 --model jetson-orin-nano" \
   -c "device-config create bedge b-detect --image img:1 --model yolo --command run"
expect_status 0
submit alice a100-1; A=$JOB
submit bob a100-1; B=$JOB
rd --as alice -c "project create vision" -c "project share vision v1"
expect_status 0
submit alice a100-1 --project vision; V=$JOB
rd -c "sched run"
expect_status 0
rd --output json -c "job show $A"
expect_json workers.0.node a-1
rd --output json -c "job show $B"
expect_json workers.0.node b-1

# ---- a member -------------------------------------------------------------------

case_ "a member's node list: its own nodes and the public capacity, never another tenant's"
rd --as alice --output json -c "node list"
expect_names name "a-1 p-1"
rd --as bob --output json -c "node list"
expect_names name "b-1 b-st p-1"
rd --as alice --output json -c "node list --region blab"
expect_json items.len 0
same_as_json alice "node list" name

case_ "a member's region list: its own regions and the public ones"
rd --as alice --output json -c "region list"
expect_names name "alab pub"
same_as_json alice "region list" name
rd --as alice --output json -c "region show pub"
expect_json owner carol
expect_json compute_nodes 1

case_ "a show of another tenant's private object answers like a missing one"
like_missing alice "node show b-1" b-1 zz-9
expect_err "^rigdeck: node 'zz-9' does not exist$"
like_missing alice "region show blab" blab zzlab
like_missing alice "datastore show b-nas" b-nas zz-nas
like_missing alice "datastore resolve b-nas /x" b-nas zz-nas
like_missing alice "reservation show b-web" b-web zz-web
like_missing alice "device show b-cam" b-cam zz-cam
like_missing alice "metrics show b-1" b-1 zz-9
like_missing alice "metrics fleet --region blab" blab zzlab
like_missing alice "job show $B" "$B" job-00000000
like_missing alice "job why $B" "$B" job-00000000
like_missing alice "job logs $B" "$B" job-00000000
like_missing bob "project show alice/vision" alice/vision alice/zz
like_missing alice "provider show physical --owner bob" bob zz
expect_err "provider physical is not enabled for account 'zz'"

case_ "a member's datastores, reservations, devices and device configs are its own"
rd --as alice --output json -c "datastore list"
expect_names name "a-nas"
same_as_json alice "datastore list" name
rd --as alice --output json -c "reservation list"
expect_names name "a-web"
rd --as alice --output json -c "device list"
expect_json items.len 0
rd --as alice --output json -c "device-config list"
expect_json items.len 0
rd --as bob --output json -c "device list"
expect_names name "b-cam"
rd --as bob --output json -c "device-config list"
expect_names name "b-detect"
rd --as alice --output json -c "provider list"
expect_names owner "alice"
rd --as alice --output json -c "datastore show a-nas"
expect_json owner alice

case_ "a member's jobs: its own and those of projects shared with it"
rd --as alice --output json -c "job list"
expect_names id "$(printf '%s\n%s\n' "$A" "$V" | sort | tr '\n' ' ' | sed 's/ $//')"
same_as_json alice "job list" id
rd --as bob --output json -c "job list"
expect_names id "$B"
rd --as alice --output json -c "job show $A"
expect_json creator alice

case_ "a member's audit trail: only its own commands"
rd --as alice --output json -c "audit list"
python3 -c "
import json, sys
items = json.load(open(sys.argv[1]))['items']
sys.exit(0 if items and all(r['actor'] == 'alice' for r in items) else 1)" "$OUT" && pass ||
    fail "alice's audit list holds others' records or none"
rd --as alice --output json -c "audit list --actor bob"
expect_json items.len 0
rd --output json -c "audit list --actor bob"
[ "$(jget items.len)" -gt 0 ] && pass || fail "the admin sees no record of bob's"

case_ "a member's ledger: only its own wallet"
before=$(snapshot)
rd --as alice -c "ledger balance bob"
expect_refused 1 "$before" "may see only its own ledger accounts"
rd --as alice -c "ledger entries --account bob"
expect_refused 1 "$before" "may see only its own ledger accounts"
rd --as alice --output json -c "ledger entries"
python3 -c "
import json, sys
items = json.load(open(sys.argv[1]))['items']
mine = ('wallet:alice', 'earnings:alice')
sys.exit(0 if items and all(e['debit'] in mine or e['credit'] in mine for e in items) else 1)" "$OUT" && pass ||
    fail "alice's ledger entries touch others' accounts"

case_ "a member's reports: its own workers"
rd --as alice --output json --now 2026-11-01T03:00:00Z \
   -c "report usage --since 2026-11-01T00:00:00Z --until 2026-11-01T03:00:00Z"
expect_names node "(total) a-1"
rd --as alice --output json --now 2026-11-01T03:00:00Z \
   -c "report usage --since 2026-11-01T00:00:00Z --until 2026-11-01T03:00:00Z --by account"
expect_names account "(total) alice"
rd --output json --now 2026-11-01T03:00:00Z \
   -c "report usage --since 2026-11-01T00:00:00Z --until 2026-11-01T03:00:00Z --by account"
expect_names account "(total) alice bob"

case_ "a member may not tend another tenant's machines or report on its workers"
before=$(snapshot)
rd --as alice -c "node maintenance b-1 on"
expect_refused 1 "$before" "^rigdeck: node 'b-1' does not exist$"   # word for word a missing node's
rd --as alice -c "node report b-1 --inventory $INV/a100x2.yaml"
expect_refused 1 "$before" "^rigdeck: node 'b-1' does not exist$"
rd --as alice -c "job report $B --worker 0 finished"
expect_refused 1 "$before" "job report: account 'alice' may report only on its own jobs"
rd --as alice -c "job stop $B"
expect_refused 1 "$before" "^rigdeck: job '$B' does not exist$"   # word for word job show's

# ---- the operator -----------------------------------------------------------------

case_ "an operator sees every tenant's fleet, jobs and audit records"
rd --as op1 --output json -c "node list"
expect_names name "a-1 b-1 b-st p-1"
same_as_json op1 "node list" name
rd --as op1 --output json -c "region list"
expect_names name "alab bedge blab pub"
rd --as op1 --output json -c "node show b-1"
expect_json owner bob
rd --as op1 --output json -c "datastore list"
expect_names name "a-nas b-nas"
rd --as op1 --output json -c "device list"
expect_names name "b-cam"
rd --as op1 --output json -c "job list"
expect_json items.len 3
rd --as op1 --output json -c "metrics fleet"
expect_json nodes 3
rd --as alice --output json -c "metrics fleet"
expect_json nodes 2
rd --as op1 --output json -c "audit list --actor bob"
[ "$(jget items.len)" -gt 0 ] && pass || fail "the operator sees no record of bob's"

case_ "an operator tends any tenant's nodes: maintenance, metrics, alerts"
rd --as op1 --output json -c "node maintenance b-1 on"
expect_status 0
expect_json state draining
rd --as op1 --output json -c "node maintenance b-1 off"
expect_json state active
printf '{"t": "2026-10-31T23:58:00Z", "cpu_util": 97}\n{"t": "2026-10-31T23:59:00Z", "cpu_util": 98}\n' >"$TMP/hot.jsonl"
rd --as op1 -c "metrics import a-1 $TMP/hot.jsonl" -c "metrics import b-1 $TMP/hot.jsonl" \
   -c "alert rule add hot-cpu --metric cpu_util --above 90" -c "alert eval"
expect_status 0
rd --as op1 --output json -c "alert list"
expect_names node "a-1 b-1"
rd --as alice --output json -c "alert list"
expect_names node "a-1"
same_as_json alice "alert list" id
rd --as bob --output json -c "alert list"
expect_names node "b-1"
rd --as alice --output json -c "metrics show a-1"
expect_json node a-1

case_ "an operator moves no money, does no tenant work and reads no tenant's books"
before=$(snapshot)
rd --as op1 -c "account deposit alice 1"
expect_refused 1 "$before" "only an administering account may deposit credits"
rd --as op1 -c "price set a100 3"
expect_refused 1 "$before" "only an administering account may set market prices"
rd --as op1 -c "bill run"
expect_refused 1 "$before" "bill run"
rd --as op1 -c "job submit $SP/a100-1.yaml"
expect_refused 1 "$before" "only members (tenants) and admins"
rd --as op1 -c "region create oplab --provider physical --storage local"
expect_refused 1 "$before" "only members (tenants) and admins"
rd --as op1 -c "job stop $B"
expect_refused 1 "$before" "job stop"
rd --as op1 -c "ledger balance alice"
expect_refused 1 "$before" "may see only its own ledger accounts"

# ---- the viewer ---------------------------------------------------------------------

case_ "a viewer sees exactly what a member of its name sees"
views="node list|region list|job list|project list|datastore list|device list|alert list|audit list|metrics fleet"
record () {   # record FILE: every view of v1, as JSON, into FILE
    : >"$1"
    printf '%s\n' "$views" | tr '|' '\n' | while read -r line; do
        rd --as v1 --output json -c "$line"
        { echo "$line: $RC"; cat "$OUT"; } >>"$1"
    done
}
record "$TMP/as-member"
rd -c "account set v1 --role viewer"
expect_status 0
record "$TMP/as-viewer"
if cmp -s "$TMP/as-member" "$TMP/as-viewer"; then pass; else fail "v1 sees other things as a viewer than as a member"; fi
rd --as v1 --output json -c "job list"
expect_names id "$V"
rd --as v1 --output json -c "node list"
expect_names name "p-1"
rd --as v1 --output json -c "job show $V"
expect_json project vision
like_missing v1 "job show $A" "$A" job-00000000
like_missing v1 "node show a-1" a-1 zz-9

case_ "a viewer changes nothing"
before=$(snapshot)
rev=$(revision)
for line in "job submit $SP/a100-1.yaml --project alice/vision" "job stop $V" "project create vp" \
            "provider enable physical" "region create vlab --provider physical --storage local" \
            "node maintenance p-1 on" "account set v1 --clear-mining-wallets" "sched run" "cloud sync" \
            "region set pub --public off" \
            "alert ack alert-00000000" "datastore add alab v-nas --type nfs --address n --root /"; do
    rd --as v1 -c "$line"
    expect_refused 1 "$before" "account 'v1' is a viewer and may only read"
done
[ "$(revision)" = "$rev" ] && pass || fail "the store revision moved after the viewer's refused commands"

case_ "--fields and pages show each role what the whole list shows"
# The console's tables read `job list --fields ... --limit/--after` and
# `node list --fields ...`: the same rule must decide what is listed.
JF=id,name,state,workers_running,workers_total,node,project,project_owner,reason,workers.state,workers.price_ucr
NF=name,region,state,gpu_count,agent,gpu_alloc
for who in default alice bob op1 v1; do
    rd --as "$who" --output json -c "job list"
    cp "$OUT" "$TMP/full.json"
    rd --as "$who" --output json -c "job list --fields $JF"
    expect_status 0
    python3 tests/batch/fields_cmp.py "$TMP/full.json" "$OUT" "$JF" >"$TMP/cmp" && pass || fail "job list --fields as $who: $(cat "$TMP/cmp")"
    # one job a page, each page after the last: the same ids in order
    ids="" after=""
    while :; do
        rd --as "$who" --output json -c "job list --fields id --limit 1${after:+ --after $after}"
        page=$(python3 -c "import json,sys; print(' '.join(i['id'] for i in json.load(sys.stdin)['items']))" <"$OUT")
        ids="$ids${page:+ $page}"
        after=$(python3 -c "import json,sys; print(json.load(sys.stdin).get('next') or '')" <"$OUT")
        [ -n "$after" ] || break
    done
    want=$(python3 -c "import json,sys; print(' '.join(i['id'] for i in json.load(sys.stdin)['items']))" <"$TMP/full.json")
    [ "$ids" = " $want" ] || [ "$ids" = "$want" ] && pass || fail "job list pages as $who: '$ids', whole '$want'"
    rd --as "$who" --output json -c "node list"
    cp "$OUT" "$TMP/full.json"
    rd --as "$who" --output json -c "node list --fields $NF"
    python3 tests/batch/fields_cmp.py "$TMP/full.json" "$OUT" "$NF" >"$TMP/cmp" && pass || fail "node list --fields as $who: $(cat "$TMP/cmp")"
done
rd -c "job list --fields 'id,Bad'"
expect_status 1
expect_err "--fields takes field names"
rd -c "job list --limit 0"
expect_status 1

case_ "--fields in a table and in CSV: exactly the fields asked, in the order asked"
rd -c "node list --fields state,name,gpu_count"
expect_status 0
expect_out "^STATE  *NAME  *GPU_COUNT$"
expect_no_out "REGION"
expect_no_out "  -  "
rd --output csv -c "node list --fields state,name,gpu_count"
[ "$(head -1 "$OUT")" = "state,name,gpu_count" ] && pass || fail "CSV header of node list --fields"
grep -q ',,' "$OUT" && fail "empty CSV cells" || pass
rd -c "job list --fields state,id,workers.state"
expect_out "^STATE  *ID  *WORKERS.STATE$"
expect_no_out "PROJECT"
rd --output csv -c "job list --fields project,id,workers.price_ucr"
[ "$(head -1 "$OUT")" = "project,id,workers.price" ] && pass || fail "CSV header of job list --fields: $(head -1 "$OUT")"
# a page (items and next) keeps the asked order too
rd -c "job list --fields state,id --limit 1"
expect_out "^  STATE  *ID$"

case_ "--fields: an unknown field is refused naming it and the known ones; nothing changes"
rev=$(revision)
rd -c "node list --fields name,colour"
expect_status 1
expect_err "^rigdeck: --fields: unknown field 'colour' (known: name.*gpu_count.*agent.*)$"
expect_err_lines 1
rd --output csv -c "job list --fields id,nme"
expect_status 1
expect_err "^rigdeck: --fields: unknown field 'nme' (known: id, name, .*workers_running.*)$"
rd -c "job list --fields id,bogus.state --limit 1"
expect_status 1
expect_err "unknown field 'bogus'"
[ "$(revision)" = "$rev" ] && pass || fail "a refused --fields changed the store"
# the console's own lists (NODE_LIST and JOB_LIST of tui/panes/pane_nodes.c and pane_jobs.c) ask only for known fields
python3 - tui/panes/pane_nodes.c tui/panes/pane_jobs.c >"$TMP/lists" <<'PY'
import re, sys
text = "".join(open(f).read() for f in sys.argv[1:])
for name in ("NODE_LIST", "JOB_LIST"):
    body = re.search(r"#define " + name + r" ((?:\s*\"[^\"]*\"\s*\\?\n?)+)", text).group(1)
    print("".join(re.findall(r'"([^"]*)"', body)))
PY
[ "$(wc -l <"$TMP/lists")" = 2 ] && pass || fail "tui/panes/pane_nodes.c's NODE_LIST and pane_jobs.c's JOB_LIST not found"
while read -r line; do
    rd -c "$line"
    [ "$RC" = 0 ] && pass || fail "the console's '$line' is refused"
done <"$TMP/lists"

finish
