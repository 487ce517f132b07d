#!/bin/sh
# Foundation scenarios: batch mode, exit codes, accounts, projects, audit.
. tests/batch/lib.sh

case_ "a new store holds default (team, admin) and platform"
rd --output json -c "account list"
expect_status 0
expect_json items.len 2
expect_json items.0.name default
expect_json items.0.plan team
expect_json items.0.admin true
expect_json items.0.role admin
expect_json items.1.name platform
expect_json items.1.role member

case_ "account create answers with the account, table and json"
rd -c "account create alice --plan enterprise"
expect_status 0
expect_out "plan  *enterprise"
rd --output json -c "account create bob"
expect_json name bob
expect_json plan free
rd --output json -c "account show bob"
expect_json projects.0 default

case_ "table output of a list has a header and one row per item"
rd -c "account list"
expect_out "^NAME  *PLAN  *ROLE  *CREATED_AT"
expect_out "^alice  *enterprise  *member"

case_ "bad names are refused with the rule, exit 1, nothing changed"
before=$(revision)
rd -c "account create Bad!Name"
expect_status 1
expect_err "account name must be 1-63 characters of a-z, 0-9, '-', '_' or '.'"
expect_err_lines 1
rd -c "account create external"
expect_status 1
expect_err "reserved"
rd -c "account create carol --plan gold"
expect_status 1
expect_err "\-\-plan must be one of free, team, enterprise, got 'gold'"
rd -c "account create alice"
expect_status 1
expect_err "account 'alice' exists already"
after=$(revision)
if [ "$before" = "$after" ] && [ -n "$before" ]; then pass; else fail "revision moved $before -> $after"; fi

case_ "json mode prints an error document on stdout"
rd --output json -c "account create Nope"
expect_status 1
expect_json error.code invalid

case_ "usage errors exit 2"
rd -c "frobnicate"
expect_status 2
expect_err "unknown command 'frobnicate'"
rd -c "account frob"
expect_status 2
expect_err "unknown subcommand"
rd -c "account create"
expect_status 2
rd -c "account create x --bogus"
expect_status 2
expect_err "unknown option --bogus"
$WRAP "$BIN" --batch --frob >"$OUT" 2>"$ERR"; RC=$?
expect_status 2
rd -c "account create 'unterminated"
expect_status 2

case_ "store unreachable exits 3"
$WRAP "$BIN" --batch --store "sqlite:$TMP/no/such/dir/x.db" -c "account list" >"$OUT" 2>"$ERR"; RC=$?
expect_status 3
mkdir -p "$TMP/ro" && chmod 500 "$TMP/ro"
if [ "$(id -u)" != 0 ]; then
    $WRAP "$BIN" --batch --store "$TMP/ro/x.db" -c "account list" >"$OUT" 2>"$ERR"; RC=$?
    expect_status 3
fi
$WRAP "$BIN" --batch --store "sqlite:$TMP/no/such/dir/x.db" -c "help" >"$OUT" 2>"$ERR"; RC=$?
expect_status 0

case_ "non-admins cannot create accounts"
rd --as bob -c "account create mallory"
expect_status 1
expect_err "only an administering account"
rd --as nobody -c "account list"
expect_status 1
expect_err "\-\-as: account 'nobody' does not exist"

case_ "projects: create, share, resolve, refuse"
rd --as alice --output json -c "project create vision"
expect_status 0
expect_json owner alice
expect_json name vision
rd --as alice --output json -c "project share vision bob"
expect_json members.0 bob
rd --as bob --output json -c "project show vision"
expect_status 0
expect_json owner alice
rd --as bob -c "project share alice/vision bob"
expect_status 1
expect_err "only the owner 'alice'"
rd --as alice -c "project create vision"
expect_status 1
expect_err "exists already"
rd --as alice -c "project share vision ghost"
expect_status 1
expect_err "account 'ghost' does not exist"
rd --as bob -c "project create x --owner alice"
expect_status 1
# a project not shared with bob is not there for bob at all
rd --as bob -c "project show alice/default"
expect_status 1
expect_err "project 'alice/default' does not exist"

case_ "keep-going runs the rest; without it the run stops"
rd -c "account create dave" -c "account create Bad" -c "account create erin"
expect_status 1
rd --output json -c "account show erin"
expect_status 1
rd --keep-going -c "account create Bad" -c "account create erin"
expect_status 1
rd -c "account show erin"
expect_status 0

case_ "files, stdin, comments and quoting"
cat >"$TMP/lines" <<'LINES'
# a comment line, then a blank one

account create "frank"   # trailing comment
account create 'gina' --plan=team
LINES
rd -f "$TMP/lines"
expect_status 0
rd --output json -c "account show gina"
expect_json plan team
printf 'account create hank\naccount show hank\n' | $WRAP "$BIN" --batch --store "$STORE" --output json >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
expect_json name hank
printf 'account create ivan\naccount create Bad\n' >"$TMP/bad"
rd -f "$TMP/bad"
expect_status 1
expect_err "$TMP/bad:2:"

case_ "the audit trail records who, when, what; refusals leave none"
rd --output json --now 2026-11-02T10:00:00Z --as alice -c "project create nlp"
rd --output json -c "audit list --since 2026-11-02T00:00:00Z"
expect_json items.len 1
expect_json items.0.actor alice
expect_json items.0.at 2026-11-02T10:00:00Z
expect_json items.0.command "project create nlp"
expect_json items.0.changes.0.object project/alice/nlp
expect_json items.0.changes.0.action created
rd --output json -c "audit list"
n=$(jget items.len)
rd --as bob -c "account create zed"
rd --output json -c "audit list"
expect_json items.len "$n"

case_ "environment variables set the global options"
RIGDECK_ACCOUNT=alice RIGDECK_STORE="$STORE" RIGDECK_NOW=2026-11-03T00:00:00Z \
    $WRAP "$BIN" --batch --output json -c "project create envtest" >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
expect_json owner alice
expect_json created_at 2026-11-03T00:00:00Z
$WRAP "$BIN" --batch --now yesterday -c help >"$OUT" 2>"$ERR"; RC=$?
expect_status 2
expect_err "\-\-now must be an RFC 3339 time"

case_ "csv output: a header, one row per item, fields quoted when needed"
rd -c "account create 'csv.test' --plan team" 
rd --output csv -c "account list"
expect_status 0
expect_out "^name,plan,role,created_at$"
expect_out "^csv.test,team,member,2026-11-01T00:00:00Z$"
rd --output csv -c "audit list --limit 1"
expect_out '^at,actor,command,changes$'
expect_out '"created account/csv.test, created project/csv.test/default"'
$WRAP "$BIN" --batch --store "$STORE" --output xml -c help >"$OUT" 2>"$ERR"; RC=$?
expect_status 2
expect_err "\-\-output must be one of table, json, csv"

case_ "help prints from the command table"
rd -c "help"
expect_status 0
expect_out "account create NAME \[--plan free|team|enterprise\]"
rd --output json -c "help account create"
expect_json name "account create"
expect_json flags.0.flag "--plan"
rd -c "help nosuch"
expect_status 2

case_ "without a terminal the console refuses plainly and points to batch mode"
$WRAP "$BIN" --store "$STORE" >"$OUT" 2>"$ERR" </dev/null; RC=$?
expect_status 2
expect_err "use 'rigdeck --batch'"

finish
