#!/bin/sh
# test_secure.sh - tenants and roles enforced by the store itself.
#
# One etcd member, secured with `store secure`: two tenants (alice, bob), an
# operator, a viewer and two node agents each get an etcd user from `store
# credentials`.  A real controller and real agents run the tenants' jobs.
# Every boundary of docs/security.md is checked twice: through rigdeck (the
# relayed commands and their refusals) and through etcdctl with each
# user's own password (reads of other tenants' jobs and ledger, writes to
# balances, prices, nodes, jobs, other users' requests).  Agents read only
# their own node's work view, which the controller keeps and heals.
# Prints "batch-summary: passed=N failed=M" like the batch scenarios.
set -u
. tests/etcd/lib.sh
SEC=$(mktemp -d "${TMPDIR:-/tmp}/rdsecure.XXXXXX")
etcd_single "$SEC/etcd" >/dev/null || { echo "batch-skip: etcd did not start"; exit 0; }
export RIGDECK_TEST_STORE_URL="$ETCD_URL"
. tests/batch/lib.sh
. tests/batch/daemons.sh
trap 'daemons_cleanup; etcd_stop_all; rm -rf "$SEC"' EXIT
export RIGDECK_MASTER_KEY="$SEC/master.key"
E=$ETCD_ENDPOINTS

# as USER ARGS...: rigdeck --batch as etcd user USER (its password file)
as () {
    u=$1; shift
    $WRAP "$BIN" --batch --store "$STORE" --etcd-user "$u" --etcd-password-file "$SEC/$u.pw" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
# ectl USER ARGS...: etcdctl with USER's own password
ectl () {
    u=$1; shift
    etcdctl --endpoints "$E" --user "$u" --password "$(cat "$SEC/$u.pw")" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
denied () {   # the last etcdctl call was refused by etcd's permissions
    if [ "$RC" != 0 ] && grep -q "permission denied" "$ERR"; then pass; else fail "etcd allowed it: $1"; fi
}

case_ "a fleet of two tenants, an operator and a viewer (before securing)"
rd -c "account create alice" -c "account create bob" -c "account create ops --role operator" \
   -c "account create viv --role viewer" -c "price set a100 2.78" \
   -c "account deposit alice 100" -c "account deposit bob 100"
expect_status 0
rd --as alice -c "provider enable physical" -c "region create alab --provider physical --storage local" \
   -c "node add alab n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0
rd --as bob -c "provider enable physical" -c "region create blab --provider physical --storage local" \
   -c "node add blab n2 --minion m-2 --inventory $INV/a100x4.yaml" -c "node maintenance n2 off"
expect_status 0

case_ "store secure turns etcd authentication on; credentials per account and agent"
rd -c "store secure --root-password-file $SEC/root.pw"
expect_status 0
[ "$(stat -c %a "$SEC/root.pw")" = 600 ] && pass || fail "root.pw mode $(stat -c %a "$SEC/root.pw")"
rd -c "account list"
expect_status 3
expect_err "the store is secured: give --etcd-user and --etcd-password-file"
for u in alice bob ops viv node:n1 node:n2; do
    as root --output json -c "store credentials $u --password-file $SEC/$u.pw"
    expect_status 0
done
as root --output json -c "store credentials viv --password-file $SEC/viv.pw"
expect_json access relay
as root --output json -c "store credentials node:n1 --password-file $SEC/node:n1.pw"
expect_json access agent
as root -c "store credentials mallory --password-file $SEC/mallory.pw"
expect_status 1
expect_err "account 'mallory' does not exist"
as root -c "store secure --root-password-file $SEC/root.pw"
expect_status 1
expect_err "secured already"
printf 'wrong-password\n' >"$SEC/bad.pw"; chmod 600 "$SEC/bad.pw"
$BIN --batch --store "$STORE" --etcd-user alice --etcd-password-file "$SEC/bad.pw" -c "job list" >"$OUT" 2>"$ERR"
RC=$?
expect_status 3
expect_err "cannot log in as 'alice'"

case_ "with no controller a tenant's command says so, and nothing runs later"
mark=$(etcdctl --endpoints "$E" --user "root:$(cat "$SEC/root.pw")" get / --prefix --keys-only | grep -c relay)
[ "$mark" = 0 ] && pass || fail "relay keys left: $mark"

case_ "the controller and the agents run with their own users"
RIGDECK_ETCD_USER=root RIGDECK_ETCD_PASSWORD_FILE="$SEC/root.pw" start_serve s1 --node-timeout 6s --sched-every 1s
RIGDECK_ETCD_USER=node:n1 RIGDECK_ETCD_PASSWORD_FILE="$SEC/node:n1.pw" start_agent n1 --inventory $INV/a100x4.yaml --sample 1s
RIGDECK_ETCD_USER=node:n2 RIGDECK_ETCD_PASSWORD_FILE="$SEC/node:n2.pw" start_agent n2 --inventory $INV/a100x4.yaml --sample 1s
agent_online () {
    $BIN --batch --store "$STORE" --etcd-user root --etcd-password-file "$SEC/root.pw" --output json \
        -c "node show $1" 2>/dev/null | python3 -c "import json,sys; sys.exit(json.load(sys.stdin)['agent']['state'] != 'online')"
}
wait_until 60 agent_online n1
wait_until 60 agent_online n2

case_ "store info says who is acting"
as alice --output json -c "store info"
expect_json identity alice
expect_json secured true
expect_json actor alice

case_ "tenants submit jobs through the controller; the agents run them and report their ends"
job_spec ajob 'echo alice-was-here'
as alice --output json -c "job submit $TMP/ajob.yaml"
expect_status 0
AJ=$(jget id)
job_spec bjob 'echo bob-was-here'
as bob --output json -c "job submit $TMP/bjob.yaml"
expect_status 0
BJ=$(jget id)
job_done () {
    $BIN --batch --store "$STORE" --etcd-user "$1" --etcd-password-file "$SEC/$1.pw" --output json \
        -c "job show $2" 2>/dev/null | python3 -c "import json,sys; sys.exit(json.load(sys.stdin)['state'] != 'finished')"
}
wait_until 90 job_done alice "$AJ"
wait_until 90 job_done bob "$BJ"
as alice --output json -c "job show $AJ"
expect_json workers.0.node n1
as alice -c "job logs $AJ"
expect_out "alice-was-here"
as bob -c "job logs $BJ"
expect_out "bob-was-here"

case_ "each agent's output and watch registrations are under its own node and user"
etcdctl --endpoints "$E" --user "root:$(cat "$SEC/root.pw")" get --prefix --keys-only /rigdeck/logs/ >"$OUT" 2>"$ERR"
expect_out "^/rigdeck/logs/n1/$AJ/0$"
expect_out "^/rigdeck/logs/n2/$BJ/0$"
expect_no_out "^/rigdeck/logs/job-"
etcdctl --endpoints "$E" --user "root:$(cat "$SEC/root.pw")" get --prefix --keys-only '~rigdeck/watchers/' >"$OUT" 2>"$ERR"
expect_out "^~rigdeck/watchers/node:n1/[0-9a-f]\{16\}$"
expect_out "^~rigdeck/watchers/node:n2/[0-9a-f]\{16\}$"
expect_out "^~rigdeck/watchers/root/[0-9a-f]\{16\}$"

case_ "rigdeck: a tenant sees its own, never the other's"
as alice --output json -c "job list"
expect_out "$AJ"
expect_no_out "$BJ"
as alice -c "job show $BJ"
expect_status 1
expect_err "does not exist"
as alice --output json -c "node list"
expect_out '"n1"'
expect_no_out '"n2"'
# the forms the console reads (--fields, pages) travel through the relay too
as alice --output json -c "job list --fields id,state,workers.state --limit 1"
expect_status 0
expect_out "$AJ"
expect_no_out "$BJ"
expect_no_out '"workers_spec"'
as alice --output json -c "node list --fields name,state"
expect_out '"n1"'
expect_no_out '"n2"'
expect_no_out '"inventory"'
as alice -c "ledger entries --account bob"
expect_status 1
# bob's jobs and their states, his nodes and their states, his projects
bob_view () {
    as bob --output json -c "job list" -c "node list" -c "project list"
    python3 -c "
import json, sys
for line in open(sys.argv[1]):
    for i in json.loads(line)['items']:
        print(i.get('id') or i.get('name'), i.get('state'), i.get('owner'))" "$OUT"
}
BOB_BEFORE=$(bob_view)

case_ "rigdeck: what a tenant may not do is refused"
as alice -c "account deposit alice 5"
expect_status 1
expect_err "only an administering account"
as alice -c "price set a100 0.01"
expect_status 1
as alice -c "job stop $BJ"
expect_status 1
as alice -c "node maintenance n2 on"
expect_status 1
as alice --as bob -c "job list"
expect_status 1
expect_err "only an admin may act as another account; you are 'alice'"

case_ "etcdctl as a tenant: no reads of others' jobs or the ledger, no writes anywhere but its requests"
ectl alice get --prefix /rigdeck/jobs/
denied "alice lists jobs"
ectl alice get "/rigdeck/jobs/$BJ"
denied "alice reads bob's job"
ectl alice get --prefix /rigdeck/ledger/
denied "alice reads the ledger"
ectl alice get /rigdeck/ledger/accounts/wallet:bob
denied "alice reads bob's wallet"
ectl alice put /rigdeck/prices/a100 '{"name":"a100","price_ucr":1}'
denied "alice sets a price"
ectl alice put /rigdeck/ledger/accounts/wallet:alice '{}'
denied "alice writes her balance"
ectl alice put /rigdeck/nodes/n2 '{}'
denied "alice writes bob's node"
ectl alice del "/rigdeck/jobs/$AJ"
denied "alice deletes even her own job directly"
ectl alice put "/rigdeck/relay/bob/req/0000000000000001" '{"words":["job","stop","'"$BJ"'"]}'
denied "alice forges bob's request"
ectl alice get --prefix /rigdeck/relay/bob/
denied "alice reads bob's requests"
ectl alice get --prefix /rigdeck/audit/
denied "alice reads the audit trail"
ectl alice put /rigdeck/relay/alice/req/00000000000000aa '{"words":["account","deposit","alice","1000"]}'
expect_status 0

case_ "a request written by hand runs as its writer, with the same rules"
reply_of () {
    etcdctl --endpoints "$E" --user "alice:$(cat "$SEC/alice.pw")" get --print-value-only \
        /rigdeck/relay/alice/rep/00000000000000aa 2>/dev/null | grep -q '"ok":false'
}
wait_until 30 reply_of
ectl alice get --print-value-only /rigdeck/relay/alice/rep/00000000000000aa
expect_out "only an administering account may deposit credits"

case_ "the operator: every node, maintenance anywhere; no money, no tenant work"
as ops --output json -c "node list"
expect_out '"n1"'
expect_out '"n2"'
as ops -c "node maintenance n2 on" -c "node maintenance n2 off"
expect_status 0
as ops -c "account deposit ops 5"
expect_status 1
as ops -c "job submit $TMP/ajob.yaml"
expect_status 1
ectl ops get --prefix /rigdeck/ledger/
denied "the operator reads the ledger"
ectl ops put /rigdeck/nodes/n1 '{}'
denied "the operator writes a node directly"

case_ "the viewer: reads what its account sees; every change refused"
as viv --output json -c "job list"
expect_status 0
expect_no_out "$AJ"
as viv -c "node maintenance n1 on"
expect_status 1
expect_err "viewer and may only read"
ectl viv get --prefix /rigdeck/
denied "the viewer reads the store"

case_ "agents report only on their own node and its workers"
as node:n1 -c "job report $BJ --worker 0 failed"
expect_status 1
expect_err "not placed on node n1"
as node:n1 -c "node health report n2 0 --reason ecc --detail forged"
expect_status 1
expect_err "only for its own node"
as node:n1 -c "account deposit alice 5"
expect_status 1
ectl node:n1 put /rigdeck/agent-alive/n2 x
denied "n1's agent writes n2's liveness"
ectl node:n1 put /rigdeck/metrics/now/n2 '{}'
denied "n1's agent writes n2's vital stats"
ectl node:n1 put /rigdeck/nodes/n1 '{}'
denied "n1's agent writes its node document"
ectl node:n1 get --prefix /rigdeck/ledger/
denied "n1's agent reads the ledger"
ectl node:n1 put /rigdeck/jobs/x '{}'
denied "n1's agent writes a job"
ectl node:n1 put "/rigdeck/logs/n2/$BJ/0" "rigdeck-log 6
forged"
denied "n1's agent writes output of a worker on n2"
ectl node:n1 put "/rigdeck/logs/$BJ/0" "rigdeck-log 6
forged"
denied "n1's agent writes output at the older job-keyed place"
ectl node:n1 put "/rigdeck/logs/n1/$AJ/7" "rigdeck-log 3
own"
expect_status 0
ectl node:n1 del "/rigdeck/logs/n1/$AJ/7"
expect_status 0
ectl node:n1 put '~rigdeck/watchers/node:n2/00000000000000aa' '{"revision":1}'
denied "n1's agent writes n2's watch registration"
ectl node:n1 del --prefix '~rigdeck/watchers/node:n2/'
denied "n1's agent deletes n2's watch registrations"
ectl node:n1 put '~rigdeck/watchers/00000000000000aa' '{"revision":1}'
denied "n1's agent writes a registration outside its own prefix"
ectl node:n1 get --prefix '~rigdeck/watchers/'
denied "n1's agent reads every watch registration"
ectl node:n1 put '~rigdeck/watchers/node:n1/00000000000000aa' '{"revision":1}'
expect_status 0
ectl node:n1 del '~rigdeck/watchers/node:n1/00000000000000aa'
expect_status 0

case_ "compaction counts registrations of both layouts (by user, and at the top)"
root_ectl () { etcdctl --endpoints "$E" --user "root:$(cat "$SEC/root.pw")" "$@" >"$OUT" 2>"$ERR"; RC=$?; }
# needs older than any live watch's: each must hold compaction back itself
root_ectl put '~rigdeck/watchers/00000000000000bb' '{"revision":1}'
expect_status 0
root_ectl put '~rigdeck/watchers/node:n1/00000000000000bb' '{"revision":2}'
expect_status 0
root_ectl get --prefix --keys-only '~rigdeck/watchers/'
REGS=$(grep -c . "$OUT")
as root --output json -c "store compact"
expect_status 0
expect_json oldest_watch 1
W=$(jget watchers)
# the daemons' own registrations may come and go (a lapsed lease), ours stay
[ "$W" -ge 5 ] && [ "$W" -le $((REGS + 1)) ] && pass || fail "store compact counted $W registrations, etcd holds $REGS"
root_ectl del '~rigdeck/watchers/00000000000000bb'
as root --output json -c "store compact"
expect_json oldest_watch 2
root_ectl del '~rigdeck/watchers/node:n1/00000000000000bb'
expect_status 0

case_ "renewing an agent's credentials takes back broader grants of an older version"
root_ectl role grant-permission --prefix=true rigdeck:node:n1 write /rigdeck/logs/
expect_status 0
root_ectl role grant-permission --prefix=true rigdeck:node:n1 readwrite '~rigdeck/watchers/'
expect_status 0
ectl node:n1 put "/rigdeck/logs/n2/$BJ/9" x
expect_status 0   # the old grant, as stores secured before the change have it
ectl node:n1 del "/rigdeck/logs/n2/$BJ/9"
# older still: the jobs to read and no work view; the agent reads the jobs
root_ectl role revoke-permission rigdeck:node:n1 /rigdeck/work/n1/ --prefix=true
expect_status 0
root_ectl role grant-permission --prefix=true rigdeck:node:n1 read /rigdeck/jobs/
expect_status 0
job_spec aold 'echo alice-older-grants'
as alice --output json -c "job submit $TMP/aold.yaml"
expect_status 0
AO=$(jget id)
wait_until 90 job_done alice "$AO"
grep -q "these credentials do not reach the work view: reading the jobs" "$TMP/agent-n1.log" && pass ||
    fail "n1's agent did not fall back to the jobs"
as root --output json -c "store credentials node:n1 --password-file $SEC/node:n1.pw"
expect_status 0
ectl node:n1 put "/rigdeck/logs/n2/$BJ/9" x
denied "n1's agent still writes n2's output after its credentials were renewed"
ectl node:n1 get --prefix '~rigdeck/watchers/'
denied "n1's agent still reads every registration after its credentials were renewed"
ectl node:n1 get --prefix /rigdeck/jobs/
denied "n1's agent still reads the jobs after its credentials were renewed"
job_spec ajob2 'echo alice-again'
as alice --output json -c "job submit $TMP/ajob2.yaml"
expect_status 0
AJ2=$(jget id)
wait_until 90 job_done alice "$AJ2"
as alice -c "job logs $AJ2"
expect_out "alice-again"
[ "$(grep -c "reading this node's work view" "$TMP/agent-n1.log")" -ge 2 ] && pass ||
    fail "n1's agent did not go back to its view"

case_ "an admin acts as another account; the audit trail names both"
as root --as alice --output json -c "project create research"
expect_status 0
as root --output json -c "audit list --limit 1"
expect_json items.0.actor alice
expect_json items.0.by default

case_ "nothing alice tried changed what bob sees or owns"
BOB_AFTER=$(bob_view)
[ "$BOB_BEFORE" = "$BOB_AFTER" ] && pass || fail "bob's view changed"

case_ "the console as alice reads through the controller: her node, never bob's"
if [ -z "$WRAP" ] && command -v tmux >/dev/null 2>&1; then
    TM="tmux -L rdsec$$ -f /dev/null"
    $TM new-session -d -s rd -x 150 -y 40 -e LC_ALL=C.UTF-8 -e RIGDECK_MASTER_KEY="$RIGDECK_MASTER_KEY" \
        "$BIN --store $STORE --etcd-user alice --etcd-password-file $SEC/alice.pw; sleep 30"
    screen_has () { $TM capture-pane -p -t rd | grep -q "$1"; }
    wait_until 30 screen_has "alab"
    $TM capture-pane -p -t rd >"$OUT"
    expect_out "n1"
    expect_no_out "blab"
    # Jobs: her job, read in pages through the relay; never bob's
    $TM send-keys -t rd 6
    wait_until 30 screen_has "$AJ"
    $TM capture-pane -p -t rd >"$OUT"
    expect_out "$AJ"
    expect_no_out "$BJ"
    $TM kill-server 2>/dev/null
else
    :   # no tmux here (or under valgrind): the batch checks above stand
fi

case_ "agents read only their own node's work view, never the jobs"
job_state_is () {   # job_state_is USER JOB STATE...: the job is in one of STATEs
    u=$1; j=$2; shift 2
    st=$($BIN --batch --store "$STORE" --etcd-user "$u" --etcd-password-file "$SEC/$u.pw" --output json \
        -c "job show $j" 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['state'])")
    for want in "$@"; do [ "$st" = "$want" ] && return 0; done
    return 1
}
job_spec along 'sleep 300'
as alice --output json -c "job submit $TMP/along.yaml"
expect_status 0
AL=$(jget id)
job_spec blong 'sleep 300'
as bob --output json -c "job submit $TMP/blong.yaml"
expect_status 0
BL=$(jget id)
wait_until 90 job_state_is alice "$AL" running
wait_until 90 job_state_is bob "$BL" running
ectl node:n1 get --prefix /rigdeck/jobs/
denied "n1's agent lists the jobs"
ectl node:n1 get "/rigdeck/jobs/$BL"
denied "n1's agent reads bob's job"
ectl node:n1 get "/rigdeck/jobs/$AL"
denied "n1's agent reads even the job it runs"
ectl node:n1 get --prefix /rigdeck/work/n2/
denied "n1's agent reads n2's work view"
ectl node:n1 get --prefix /rigdeck/work/
denied "n1's agent reads every node's work view"
ectl node:n1 put "/rigdeck/work/n1/$AL/0" '{}'
denied "n1's agent writes its own work view"
ectl node:n1 get --prefix --keys-only /rigdeck/work/n1/
expect_status 0
expect_out "^/rigdeck/work/n1/$AL/0$"
expect_no_out "$BL"
ectl node:n1 get --print-value-only "/rigdeck/work/n1/$AL/0"
expect_out '"secret_env":'
expect_out '"worker":{'
expect_no_out '"workers":\['
expect_no_out '"owner"'
expect_no_out 'RDTEST_TAG":"tagged'   # the value is sealed; only its name travels
grep -q "reading this node's work view" "$TMP/agent-n1.log" && pass || fail "n1's agent does not say it reads its view"

case_ "a job stopped while it runs is stopped by its agent, which the view tells"
as alice -c "job stop $AL"
expect_status 0
wait_until 90 job_state_is alice "$AL" stopped
as alice --output json -c "job show $AL"
expect_json workers.0.state stopped
view_has () { etcdctl --endpoints "$E" --user "root:$(cat "$SEC/root.pw")" get --keys-only "$1" 2>/dev/null | grep -q .; }
view_gone () { ! view_has "$1"; }
wait_until 30 view_gone "/rigdeck/work/n1/$AL/0"
grep -q "$AL/0: SIGTERM" "$TMP/agent-n1.log" && pass || fail "n1's agent sent no SIGTERM to $AL/0"

case_ "the view heals after the controller restarts: a key deleted by hand comes back"
# n2's agent is paused meanwhile, so that it does not act on the missing key
kill -STOP "$(agent_pid n2)"
kill_daemon "$PID_s1" KILL
root_ectl del "/rigdeck/work/n2/$BL/0"
expect_status 0
view_gone "/rigdeck/work/n2/$BL/0" && pass || fail "the key is still there"
RIGDECK_ETCD_USER=root RIGDECK_ETCD_PASSWORD_FILE="$SEC/root.pw" start_serve s2 --node-timeout 60s --sched-every 1s
wait_until 90 view_has "/rigdeck/work/n2/$BL/0"
kill -CONT "$(agent_pid n2)"
grep -q "work view resynced: 1 key(s) written" "$TMP/s2.log" && pass || fail "s2 did not say it repaired the view"
job_running_on_n2 () { job_state_is bob "$BL" running; }
job_running_on_n2 && pass || fail "bob's job no longer runs after the repair"
as bob -c "job stop $BL"
expect_status 0
wait_until 90 job_state_is bob "$BL" stopped
wait_until 30 view_gone "/rigdeck/work/n2/$BL/0"

case_ "a key a job attaches reaches its worker through the node's work view (sealed), opened by the agent"
printf 'ALICE_TOKEN=alice-sekrit\n' >"$TMP/alice-vars.env"
as alice -c "key add avars --type env --file $TMP/alice-vars.env"
expect_status 0
job_spec akey 'echo tok=$ALICE_TOKEN data=$ML_DATA_PATH'
printf '  keys: [avars]\n' >>"$TMP/akey.yaml"
as alice --output json -c "job submit $TMP/akey.yaml"
expect_status 0
AK=$(jget id)
wait_until 90 job_done alice "$AK"
as alice -c "job logs $AK"
expect_out "^tok=alice-sekrit data=.*/$AK/0/opt/ml/input$"
as alice --output json -c "job show $AK"
expect_no_out "alice-sekrit"

case_ "the ledger is still consistent"
as root -c "ledger verify"
expect_status 0

finish
