#!/bin/sh
# Account scenarios: roles on accounts (create, list, show, set), the last
# admin, what operators and viewers are refused, and `account remove` --
# refused while the account runs or holds anything, allowed once it does
# not, and the account gone for good afterwards.
. tests/batch/lib.sh
INV=tests/inventories
SP=tests/specs/sched
export RIGDECK_MASTER_KEY="$TMP/master.key"

case_ "a new store: default is an admin, platform a member"
rd --output json -c "account show default"
expect_json role admin
expect_json admin true
rd --output json -c "account show platform"
expect_json role member
expect_json admin false

case_ "account create with each role; member by default"
rd --output json -c "account create alice --plan team" -c "account create op --role operator" \
   -c "account create vi --role viewer" -c "account create boss --role admin" -c "account create mem --role member"
expect_status 0
expect_json role member 0
expect_json admin false 0
expect_json role operator 1
expect_json role viewer 2
expect_json role admin 3
expect_json admin true 3
expect_json role member 4
rd -c "account create carol --plan team --role member"
expect_status 0
expect_out "^role  *member"

case_ "a bad role word is refused naming the field and the choices; nothing changes"
before=$(snapshot)
rd -c "account create dave --role root"
expect_refused 1 "$before" "\-\-role must be one of admin, operator, member, viewer, got 'root'"
rd -c "account set alice --role superuser"
expect_refused 1 "$before" "\-\-role must be one of admin, operator, member, viewer, got 'superuser'"

case_ "account list shows a role column (table, csv and json)"
rd -c "account list"
expect_status 0
expect_out "^NAME  *PLAN  *ROLE  *CREATED_AT$"
expect_out "^alice  *team  *member "
expect_out "^boss  *free  *admin "
expect_out "^default  *team  *admin "
expect_out "^op  *free  *operator "
expect_out "^platform  *enterprise  *member "
expect_out "^vi  *free  *viewer "
rd --output csv -c "account list"
expect_out "^name,plan,role,created_at$"
expect_out "^op,free,operator,"
rd --output json -c "account list"
[ "$(jget items | python3 -c 'import json,sys; print(" ".join(a["name"] + "=" + a["role"] for a in json.load(sys.stdin)))')" = \
  "alice=member boss=admin carol=member default=admin mem=member op=operator platform=member vi=viewer" ] && pass ||
    fail "every account listed with its role"

case_ "a tenant lists itself and the accounts it shares projects with, both ways; staff list all"
# t-own shares with t-in; t-out shares with t-own; t-none shares nothing
names () { python3 -c 'import json,sys; print(" ".join(a["name"] for a in json.load(sys.stdin)["items"]))' <"$OUT"; }
rd -c "account create t-own --plan team" -c "account create t-in" -c "account create t-out" -c "account create t-none" \
   -c "project create mine --owner t-own" -c "project share mine t-in" \
   -c "project create yours --owner t-out" -c "project share yours t-own"
expect_status 0
rd --as t-own --output json -c "account list"
[ "$(names)" = "t-in t-out t-own" ] && pass || fail "t-own: shared with t-in, shared to by t-out; got $(names)"
rd --as t-in --output json -c "account list"
[ "$(names)" = "t-in t-own" ] && pass || fail "t-in sees t-own, who shared with it; got $(names)"
rd --as t-out -c "account list"
expect_out "^t-own  *team  *member "
expect_no_out "^t-in "
expect_no_out "^default "
expect_no_out "^alice "
rd --as t-none --output csv -c "account list"
[ "$(cat "$OUT")" = "name,plan,role,created_at
$(grep '^t-none,' "$OUT")" ] && pass || fail "a tenant sharing nothing sees itself only"
rd --as vi --output json -c "account list"
[ "$(names)" = "vi" ] && pass || fail "a viewer sharing nothing sees itself only; got $(names)"
for staff in default op boss; do
    rd --as "$staff" --output json -c "account list"
    [ "$(names)" = "alice boss carol default mem op platform t-in t-none t-out t-own vi" ] && pass ||
        fail "$staff sees every account; got $(names)"
done

case_ "a tenant's account show of an account it does not see answers as a missing one"
rd --as t-in -c "account show t-out"
expect_status 1
expect_err "^rigdeck: account: account 't-out' does not exist$"
rd --as t-in -c "account show nobody"
expect_err "^rigdeck: account: account 'nobody' does not exist$"
rd --as t-in --output json -c "account show t-own"
expect_json name t-own
rd --as op --output json -c "account show t-out"
expect_json name t-out

case_ "account show shows the role (table and json)"
rd -c "account show vi"
expect_out "^role  *viewer$"
rd --output json -c "account show op"
expect_json role operator
expect_json admin false

case_ "only an admin may change a role"
before=$(snapshot)
rd --as alice -c "account set alice --role admin"
expect_refused 1 "$before" "account set --role: only an admin may change roles; account 'alice' has role member"
rd --as alice -c "account set carol --role viewer"
expect_refused 1 "$before" "account set: account 'alice' may only change itself"
rd --output json -c "account set mem --role operator"
expect_status 0
expect_json role operator
expect_json admin false
rd --as boss --output json -c "account set mem --role admin"
expect_status 0
expect_json role admin
expect_json admin true
rd --as mem --output json -c "account set mem --role member"
expect_status 0
expect_json role member
expect_json admin false

case_ "a member still changes its own mining wallets"
rd --as alice --output json -c "account set alice --mining-wallet 0x52908400098527886E0F7030069857D2E4169EE7"
expect_status 0
expect_json mining_wallets.0 0x52908400098527886E0F7030069857D2E4169EE7
expect_json role member

case_ "operators and viewers may not change accounts (account set is tenant work)"
before=$(snapshot)
rd --as op -c "account set op --clear-mining-wallets"
expect_refused 1 "$before" "account set: account 'op' has role operator; only members (tenants) and admins may do this"
rd --as vi -c "account set vi --clear-mining-wallets"
expect_refused 1 "$before" "account set: account 'vi' is a viewer and may only read"
rd --as op -c "account set op --role admin"
expect_refused 1 "$before" "account 'op' has role operator"

case_ "platform's role never changes"
rd -c "account set platform --role admin"
expect_refused 1 "$before" "account set --role: 'platform' is the installation's revenue account and never acts"

case_ "operators and viewers: no deposits, no jobs"
rd --as op -c "account deposit alice 5"
expect_refused 1 "$before" "account deposit: only an administering account may deposit credits; account 'op' has role operator"
rd --as vi -c "account deposit alice 5"
expect_refused 1 "$before" "account deposit: account 'vi' is a viewer and may only read"
rd --as op -c "job submit $SP/a100-1.yaml"
expect_refused 1 "$before" "job submit: account 'op' has role operator; only members (tenants) and admins may do this"
rd --as vi -c "job submit $SP/a100-1.yaml"
expect_refused 1 "$before" "job submit: account 'vi' is a viewer and may only read"
rd --as alice -c "account deposit alice 5"
expect_refused 1 "$before" "account deposit: only an administering account may deposit credits; account 'alice' has role member"
# Reading stays open to them.
rd --as vi -c "account list"
expect_status 0

case_ "the last admin keeps its role and its account"
rd --as boss -c "account remove boss"
expect_status 0
before=$(snapshot)
rd -c "account set default --role member"
expect_refused 1 "$before" "account set: 'default' is the last admin; make another account admin first"
rd -c "account remove default"
expect_refused 1 "$before" "account remove: 'default' is the last admin; make another account admin first"
rd -c "account set carol --role admin" -c "account set default --role operator"
expect_status 0
rd --as carol -c "account set carol --role member"
expect_status 1
expect_err "account set: 'carol' is the last admin"
rd --as carol --output json -c "account set default --role admin" -c "account set carol --role member"
expect_status 0
expect_json role member

case_ "account remove: admins only; platform and external never; unknown names"
before=$(snapshot)
rd --as alice -c "account remove carol"
expect_refused 1 "$before" "account remove: only an administering account may remove accounts; account 'alice' has role member"
rd --as op -c "account remove carol"
expect_refused 1 "$before" "account remove: only an administering account may remove accounts; account 'op' has role operator"
rd --as vi -c "account remove carol"
expect_refused 1 "$before" "account remove: account 'vi' is a viewer and may only read"
rd -c "account remove platform"
expect_refused 1 "$before" "account remove: 'platform' is the installation's revenue account and cannot be removed"
rd -c "account remove external"
expect_refused 1 "$before" "account remove: 'external' is the ledger's outside world, never an account"
rd -c "account remove nobody"
expect_refused 1 "$before" "account remove: account 'nobody' does not exist"
rd -c "account remove 'Bad Name'"
expect_refused 1 "$before" "account"

# alice: a region with an A100 node of her own, a quarter credit (one
# hour of the usage fee on one A100) and a job that runs on it; and a job
# she submits into carol's project, which waits (carol has no credit).
rd -c "account deposit alice 0.25" -c "project create vision --owner carol" -c "project share vision alice"
rd --as alice -c "provider enable physical" -c "region create lab --provider physical --storage local" \
   -c "node add lab gpu-a --agent none --minion m-a --inventory $INV/a100x4.yaml" -c "node maintenance gpu-a off" \
   -c "project create notes" -c "project share notes carol"
expect_status 0
rd --as alice --output json -c "job submit $SP/a100-1.yaml"
JOB=$(jget id)
rd --as alice --output json -c "job submit $SP/a100-1.yaml --project carol/vision"
JOB2=$(jget id)
rd -c "sched run"
rd --output json -c "job show $JOB" -c "job show $JOB2"
expect_json state running 0
expect_json state waiting_gpus 1

case_ "account remove is refused naming the jobs, the region, the node and the balance"
before=$(snapshot)
rd -c "account remove alice"
expect_refused 1 "$before" "account remove: 'alice' still has 2 unfinished jobs (job-.*, job-.*), 1 region (lab), 1 node (gpu-a) and a wallet balance of 0.25 credits; stop, remove or pay out these first"
expect_err "$JOB"
expect_err "$JOB2"
rd --output json -c "account remove alice"
expect_json error.code invalid
# carol pays for nothing yet, but a job waits in her project.
rd -c "account remove carol"
expect_refused 1 "$before" "account remove: 'carol' still has 1 unfinished job ($JOB2); stop, remove or pay out these first"

case_ "after an hour the jobs stop and the fee spends the wallet: the fleet is left"
rd --as alice --now 2026-11-01T01:00:00Z -c "job stop $JOB" -c "job stop $JOB2"
expect_status 0
rd --output json -c "ledger balance alice"
expect_json balance_ucr 0
before=$(snapshot)
rd --now 2026-11-01T01:00:00Z -c "account remove alice"
expect_refused 1 "$before" "account remove: 'alice' still has 1 region (lab) and 1 node (gpu-a); stop, remove or pay out these first"
rd --as alice --now 2026-11-01T01:00:00Z -c "node maintenance gpu-a on" -c "node remove gpu-a"
expect_status 0
before=$(snapshot)
rd --now 2026-11-01T01:00:00Z -c "account remove alice"
expect_refused 1 "$before" "account remove: 'alice' still has 1 region (lab); stop"
rd --as alice --now 2026-11-01T01:00:00Z -c "region remove lab"
expect_status 0

case_ "with nothing left alice goes, with her projects, memberships and provider"
rd --now 2026-11-01T02:00:00Z --output json -c "account remove alice"
expect_status 0
expect_json state removed
expect_json removed_projects '["default", "notes"]'
expect_json left_projects '["carol/vision"]'
expect_json removed_providers '["physical"]'
rd --output json -c "project show carol/vision"
expect_json members '[]'
rd --output json -c "provider list"
expect_no_out '"owner":"alice"'

case_ "a wallet balance alone keeps an account"
rd --now 2026-11-01T02:00:00Z -c "account create rich" -c "account deposit rich 12.5"
before=$(snapshot)
rd --now 2026-11-01T02:00:00Z -c "account remove rich"
expect_refused 1 "$before" "account remove: 'rich' still has a wallet balance of 12.50 credits; stop, remove or pay out these first"

case_ "device fees not yet billed keep an account until bill run posts them"
rd -c "account create edgy --plan team" -c "account deposit edgy 0.5"
rd --as edgy -c "provider enable physical" -c "region create edge --provider physical --storage central" \
   -c "node add edge st-1 --agent none --minion m-st1 --role storage --inventory $INV/storage.yaml" \
   -c "device add edge cam-1 --minion d-1 --model jetson-orin-nano"
expect_status 0
before=$(snapshot)
rd -c "account remove edgy"
expect_refused 1 "$before" "'edgy' still has 1 region (edge), 1 node (st-1), 1 device (cam-1) and a wallet balance of 0.50 credits"
rd --as edgy --now 2026-11-01T05:00:00Z -c "device remove cam-1" -c "node remove st-1" -c "region remove edge"
expect_status 0
before=$(snapshot)
rd --now 2026-11-01T06:00:00Z -c "account remove edgy"
expect_refused 1 "$before" "account remove: 'edgy' still has a wallet balance of 0.50 credits and device fees not yet billed for 2026-11-01 (bill run once that day has ended)"
# November has 30 days: one device for one day is 15 / 30 = 0.5 credits.
rd --now 2026-11-02T00:00:00Z --output json -c "bill run"
expect_json device_fees_ucr 500000
rd --now 2026-11-02T00:00:00Z --output json -c "account remove edgy"
expect_status 0
expect_json removed_providers '["physical"]'
rd --output json -c "provider list"
expect_no_out '"owner":"edgy"'

case_ "carol goes once the job in her project has ended"
rd --now 2026-11-02T00:00:00Z --output json -c "account remove carol"
expect_status 0
expect_json removed_projects '["default", "vision"]'
expect_json left_projects '[]'

case_ "a removed account can no longer act, and is gone from the lists"
rd --as alice -c "account list"
expect_status 1
expect_err "\-\-as: account 'alice' does not exist"
rd --as carol -c "job submit $SP/a100-1.yaml"
expect_status 1
expect_err "\-\-as: account 'carol' does not exist"
rd --as edgy -c "job list"
expect_status 1
expect_err "\-\-as: account 'edgy' does not exist"
rd --output json -c "account list"
expect_no_out '"carol"'
rd --output json -c "account show edgy"
expect_status 1
expect_err "account 'edgy' does not exist"
rd --output json -c "project list"
expect_no_out '"owner":"carol"'
expect_no_out '"owner":"alice"'

case_ "history stays: the audit trail, the ended job, a clean ledger"
rd --output json -c "audit list --actor default"
expect_out "account remove edgy"
expect_out '{"object":"account/edgy","action":"deleted"}'
expect_out '{"object":"provider/edgy/physical","action":"deleted"}'
expect_out '{"object":"project/edgy/default","action":"deleted"}'

rd --output json -c "job show $JOB"
expect_json state stopped
expect_json creator alice
rd --output json -c "ledger verify"
expect_status 0
expect_json ok true
expect_json total_balance_ucr 0

finish
