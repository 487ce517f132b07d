#!/bin/sh
# Who may use the store commands.  The store holds every tenant's jobs (with
# their environments), ledgers and audit trail, and one history policy for
# all: until tenants and roles exist, `store dump`, `store watch` and `store
# compact` belong to administering accounts.  `store info` stays open (the
# console of any account reads it to notice a lost store).
. tests/batch/lib.sh
export RIGDECK_MASTER_KEY="$TMP/master.key"   # the job's variable is sealed with it

rd -c "account create alice --plan team" -c "account create bob --plan team"
cat >"$TMP/job.yaml" <<'YAML'
name: private-run
type: training
resources: {gpu_types: [a100], disk_size: 50}
workers: {commands: ["python train.py"]}
environment: {env: {API_TOKEN: bob-only-9f3c}}
YAML
# Revisions are taken, never assumed: on etcd the key space is wiped between
# scripts but the revision counter and compactions carry on.
start=$(revision)
rd --as bob --output json -c "job submit $TMP/job.yaml"
expect_status 0
BOBJOB=$(jget id)

case_ "rule: a plain account may not dump the store (other tenants' jobs)"
before=$(snapshot)
rd --as alice --output json -c "store dump --prefix /rigdeck/jobs"
expect_refused 1 "$before" "store dump: only an administering account may read the whole store"
expect_no_out "bob-only-9f3c"
expect_out '"code": *"'
rd --as alice -c "store dump"
expect_refused 1 "$before" "account 'alice' has role member"
rd --as bob -c "store dump --prefix /rigdeck/jobs --revision $start"
expect_refused 1 "$before" "store dump: only an administering account"

case_ "rule: a plain account may not change the store-wide history policy"
rd -c "store compact --keep 5000 --keep-for 2h --every 500"
expect_status 0
before=$(snapshot)
rev=$(revision)
rd --as alice -c "store compact --keep 1"
expect_refused 1 "$before" "store compact: only an administering account may change the store-wide history policy"
rd --as alice -c "store compact --keep 1 --keep-for 0 --every 0"
expect_refused 1 "$before" "store compact: only an administering account"
[ "$(revision)" = "$rev" ] && pass || fail "the revision moved after a refused compact"
rd --output json -c "store compact"
expect_status 0
expect_json policy.keep_revisions 5000
expect_json policy.keep_seconds 7200
expect_json policy.every 500
# history before the refused compaction is still readable
rd --output json -c "store dump --revision $start"
expect_status 0

case_ "rule: a plain account may not watch the store (every tenant's changes)"
before=$(snapshot)
rd --as alice -c "store watch --prefix /rigdeck/jobs --timeout 5s"
expect_refused 1 "$before" "store watch: only an administering account may watch the whole store"
rd --as alice -c "store watch --after $start --count 100 --timeout 1s"
expect_refused 1 "$before" "store watch: only an administering account"

case_ "store info stays open and shows nothing of any tenant"
rd --as alice --output json -c "store info"
expect_status 0
expect_json actor alice
check_keys () {
    got=$(python3 -c "import json,sys; print(','.join(sorted(json.load(sys.stdin))))" <"$OUT")
    if [ "$got" = "$1" ]; then pass; else fail "store info keys: expected $1, got $got"; fi
}
check_keys "actor,name,revision,secured,url"
expect_no_out "bob"

case_ "the administering account still dumps, watches and compacts"
rd --output json -c "store dump --prefix /rigdeck/jobs"
expect_status 0
expect_out "$BOBJOB"
expect_out "API_TOKEN"        # the variable by name: its value is sealed at rest
expect_no_out "bob-only-9f3c"
rd --output json -c "store watch --after $start --count 1 --timeout 5s"
expect_status 0
expect_json items.len 1
rd --output json -c "store compact --keep 1000"
expect_status 0
expect_json policy.keep_revisions 1000

case_ "an unknown account is refused as before, not told about the store"
rd --as mallory -c "store dump"
expect_status 1
expect_err_lines 1
expect_no_out "bob-only-9f3c"

case_ "rule: a store without users of its own (SQLite) cannot be secured"
# The store's capabilities say so (store_caps_get: authenticates), not its
# URL; etcd's side is tests/etcd/test_secure.sh.
case $STORE in
sqlite:*)
    before=$(snapshot)
    rd -c "store secure --root-password-file $TMP/root.pw"
    expect_refused 1 "$before" "store secure: this is an SQLite store, one trust domain"
    [ ! -e "$TMP/root.pw" ] && pass || fail "store secure wrote a password file for an SQLite store"
    rd -c "store credentials alice --password-file $TMP/alice.pw"
    expect_refused 1 "$before" "store credentials: this is an SQLite store, one trust domain"
    ;;
*) pass ;;
esac

finish
