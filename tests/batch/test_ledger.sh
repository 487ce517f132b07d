#!/bin/sh
# Ledger and billing scenarios: deposits, balances, entries, statements,
# verify, and `bill run` posting seed 000's device fees exactly once, even
# when run twice or by two processes at once.
. tests/batch/lib.sh
INV=tests/inventories

same_revision () {
    after=$(revision)
    if [ -n "$1" ] && [ "$1" = "$after" ]; then pass; else fail "revision moved $1 -> $after"; fi
}

rd -c "account create alice --plan team" -c "account create bob"
expect_status 0

case_ "deposit: exact credits from external to the wallet, answered with the new balance"
rd --output json -c "account deposit alice 100"
expect_status 0
expect_json kind deposit
expect_json debit external
expect_json credit wallet:alice
expect_json amount_ucr 100000000
expect_json balance_ucr 100000000
expect_json state posted
rd --output json -c "account deposit alice 12.345678 --ref inv-1"
expect_json id deposit/alice/inv-1
expect_json balance_ucr 112345678
rd -c "account deposit bob 0.5"
expect_status 0
expect_out "^amount  *0.5$"
expect_out "^balance  *0.5$"

case_ "deposit with the same --ref again: a no-op, the store unchanged"
before=$(revision)
rd --output json -c "account deposit alice 12.345678 --ref inv-1"
expect_status 0
expect_json duplicate true
expect_json balance_ucr 112345678
same_revision "$before"

case_ "deposit refusals: exit 1, one line naming the rule, nothing changed"
before=$(revision)
rd --as bob -c "account deposit bob 10"
expect_status 1
expect_err "only an administering account"
expect_err_lines 1
rd -c "account deposit alice 0"
expect_status 1
expect_err "AMOUNT must be an amount of credits with at most 6 decimals, above zero"
rd -c "account deposit alice -5"
expect_status 1
rd -c "account deposit alice 1.0000001"
expect_status 1
expect_err "at most 6 decimals"
rd -c "account deposit alice 1e3"
expect_status 1
rd -c "account deposit ghost 1"
expect_status 1
expect_err "account 'ghost' does not exist"
rd -c "account deposit platform 1"
expect_status 1
expect_err "revenue account"
rd -c "account deposit alice 13 --ref inv-1"
expect_status 1
expect_err "transfer deposit/alice/inv-1 exists with different fields (amount_ucr differs)"
rd -c "account deposit alice 1 --ref a/b"
expect_status 1
expect_err "\-\-ref must be"
rd --output json -c "account deposit alice 0"
expect_json error.code invalid
same_revision "$before"
rd -c "account deposit alice"
expect_status 2

case_ "balance: JSON shape, own account by default, others need an administrator"
rd --as alice --output json -c "ledger balance"
expect_status 0
expect_json account alice
expect_json ledger_account wallet:alice
expect_json balance_ucr 112345678
expect_json pending_ucr 0
expect_json earnings_ucr 0
rd -c "ledger balance alice"
expect_out "^balance  *112.345678$"
rd --output json -c "ledger balance external"
expect_json balance_ucr -112845678
rd --as bob -c "ledger balance alice"
expect_status 1
expect_err "may see only its own"
rd --as alice -c "ledger balance platform"
expect_status 1
rd -c "ledger balance ghost"
expect_status 1

case_ "setup: alice's devices come and go (seed 000's device-fee days)"
rd --as alice -c "provider enable physical" -c "region create core --provider physical --storage central" \
   -c "node add core st-01 --agent none --minion m-st1 --role storage --inventory $INV/storage.yaml"
expect_status 0
# Nov 1 00:00: 10 devices.  Nov 2 12:00: 5 removed.  Nov 4: a device added
# and removed 5 times.  Nov 6 09:00: 5 added.
set --
for i in 0 1 2 3 4 5 6 7 8 9; do set -- "$@" -c "device add core cam-$i --minion d-$i --model jetson-orin-nano"; done
rd --as alice --now 2026-11-01T00:00:00Z "$@"
expect_status 0
rd --as alice --now 2026-11-02T12:00:00Z -c "device remove cam-5" -c "device remove cam-6" -c "device remove cam-7" \
   -c "device remove cam-8" -c "device remove cam-9"
expect_status 0
for i in 1 2 3 4 5; do
    rd --as alice --now "2026-11-04T0$i:00:00Z" -c "device add core tmp-$i --minion t-$i --model jetson-orin-nano"
    expect_status 0
    rd --as alice --now "2026-11-04T0$i:30:00Z" -c "device remove tmp-$i"
    expect_status 0
done
rd --as alice --now 2026-11-06T09:00:00Z -c "device add core cam-10 --minion d-10 --model jetson-orin-nano" \
   -c "device add core cam-11 --minion d-11 --model jetson-orin-nano" -c "device add core cam-12 --minion d-12 --model jetson-orin-nano" \
   -c "device add core cam-13 --minion d-13 --model jetson-orin-nano" -c "device add core cam-14 --minion d-14 --model jetson-orin-nano"
expect_status 0

case_ "bill run posts each day's device fee when the day ends: 5, 5, 2.5, 7.5-style days"
# Nov 1: 10 -> 5; Nov 2: 10 at 00:00 -> 5; Nov 3: 5 -> 2.5; Nov 4: 5 + 5
# additions -> 5; Nov 5: 5 -> 2.5; Nov 6: 5 + 5 -> 5.  Total 25 credits.
rd --now 2026-11-07T00:00:00Z --output json -c "bill run"
expect_status 0
expect_json device_fees 6
expect_json device_fees_ucr 25000000
expect_json items.0.id device_fee/alice/2026-11-01
expect_json items.0.at 2026-11-02T00:00:00Z
expect_json items.0.amount_ucr 5000000
expect_json items.2.amount_ucr 2500000
expect_json items.3.amount_ucr 5000000
rd --output json -c "ledger balance alice"
expect_json balance_ucr 87345678
rd --output json -c "ledger balance platform"
expect_json balance_ucr 25000000

case_ "bill run again: nothing posted twice, the store unchanged"
before=$(revision)
rd --now 2026-11-07T00:00:00Z --output json -c "bill run"
expect_status 0
expect_json posted 0
same_revision "$before"
rd --output json -c "ledger balance alice"
expect_json balance_ucr 87345678
# the table names a sum in credits apart from the count beside it
rd --now 2026-11-07T00:00:00Z -c "bill run"
expect_status 0
expect_out "^device_fees_cr  *0$"
dups=$(cut -d' ' -f1 "$OUT" | sort | uniq -d)
[ -z "$dups" ] && pass || fail "bill run's table repeats the names: $dups"

case_ "bill run refusals"
before=$(revision)
rd --now 2026-11-07T00:00:00Z -c "bill run --until 2026-11-08T00:00:00Z"
expect_status 1
expect_err "nothing is due in the future"
rd --as alice -c "bill run"
expect_status 1
expect_err "only an administering account"
rd -c "bill run --until yesterday"
expect_status 1
same_revision "$before"

case_ "two bill runs at once post each fee exactly once"
for n in 1 2; do
    $WRAP "$BIN" --batch --store "$STORE" --now 2026-11-09T00:00:00Z --output json -c "bill run" \
        >"$TMP/run$n.out" 2>"$TMP/run$n.err" &
done
wait
p1=$(python3 tests/jget.py posted <"$TMP/run1.out")
p2=$(python3 tests/jget.py posted <"$TMP/run2.out")
if [ "$((p1 + p2))" = 2 ]; then pass; else fail "the two runs posted $p1 + $p2 fees, not 2: $(cat "$TMP"/run*.err)"; fi
rd --output json -c "ledger balance alice"
expect_json balance_ucr 77345678
rd --output json -c "ledger entries --account alice --kind device_fee"
expect_json items.len 8

case_ "entries: filters by account, kind and time (inclusive)"
rd --output json -c "ledger entries --account alice"
expect_status 0
expect_json items.len 10
expect_json items.0.kind deposit
expect_json items.0.debit external
rd --output json -c "ledger entries --kind deposit"
expect_json items.len 3
rd --output json -c "ledger entries --account alice --kind device_fee --since 2026-11-03T00:00:00Z --until 2026-11-05T00:00:00Z"
expect_json items.len 3
expect_json items.0.id device_fee/alice/2026-11-02
expect_json items.2.id device_fee/alice/2026-11-04
rd --output json -c "ledger entries --account platform --since 2026-11-08T00:00:00Z"
expect_json items.len 2
rd -c "ledger entries --account alice --kind deposit"
expect_out "^AT  *ID  *KIND  *DEBIT  *CREDIT  *AMOUNT  *REF"
expect_out "deposit/alice/inv-1  *deposit  *external  *wallet:alice  *12.345678"
rd --as bob --output json -c "ledger entries"
expect_json items.len 1
expect_json items.0.credit wallet:bob
rd --as bob -c "ledger entries --account alice"
expect_status 1
rd -c "ledger entries --kind gift"
expect_status 1
rd -c "ledger entries --since 2026-11-05T00:00:00Z --until 2026-11-01T00:00:00Z"
expect_status 1

case_ "statement: opening balance, entries by kind with totals, closing balance"
rd --output json -c "ledger statement alice --month 2026-11"
expect_status 0
expect_json ledger_account wallet:alice
expect_json opening_balance_ucr 0
expect_json closing_balance_ucr 77345678
expect_json totals.0.kind deposit
expect_json totals.0.in_ucr 112345678
expect_json totals.1.kind device_fee
expect_json totals.1.count 8
expect_json totals.1.net_ucr -35000000
expect_json items.len 10
expect_json items.2.counterparty platform
expect_json items.2.amount_ucr -5000000
rd -c "ledger statement alice --month 2026-11"
expect_out "^opening_balance  *0$"
expect_out "^closing_balance  *77.345678$"
expect_out "device_fee  *8  *0  *35  *-35"
rd --output json -c "ledger statement alice --month 2026-12"
expect_json opening_balance_ucr 77345678
expect_json closing_balance_ucr 77345678
expect_json items.len 0
rd --output json -c "ledger statement platform --month 2026-11"
expect_json closing_balance_ucr 35000000
rd -c "ledger statement alice --month 2026-13"
expect_status 1
expect_err "\-\-month must be YYYY-MM"
rd -c "ledger statement alice"
expect_status 2
rd --as bob -c "ledger statement alice --month 2026-11"
expect_status 1

case_ "kill -9 at random points, 50 times: the next run completes exactly what is missing"
CRASH="sqlite:$TMP/crash.db"
rdc () { $WRAP "$BIN" --batch --store "$CRASH" "$@" >"$OUT" 2>"$ERR"; RC=$?; }
rdc -c "account create carol --plan team"
rdc --as carol -c "provider enable physical" -c "region create edge --provider physical --storage central" \
    -c "node add edge st-9 --agent none --minion m-st9 --role storage --inventory $INV/storage.yaml"
set --
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do set -- "$@" -c "device add edge e-$i --minion e-$i --model jetson-orin-nano"; done
rdc --as carol --now 2026-09-01T00:00:00Z "$@"
expect_status 0
i=1
while [ "$i" -le 50 ]; do
    # each run has new days to post; it dies before, during or after its commit
    now=$(date -u -d "2026-09-01 + $i days" +%Y-%m-%dT%H:%M:%SZ)
    "$BIN" --batch --store "$CRASH" --now "$now" -c "bill run" >/dev/null 2>&1 &
    pid=$!
    sleep "$(printf '0.0%02d' $(( $(od -An -N2 -tu2 /dev/urandom) % 30 )))"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    i=$((i + 1))
done
rdc --now 2026-10-21T00:00:00Z --output json -c "bill run"
expect_status 0
# 50 days of 12 devices: 30 September days at 15 x 12 / 30 = 6 credits and
# 20 October days at 15 x 12 / 31 = 5.806452 (rounded to the ucr)
rdc --output json -c "ledger entries --account carol --kind device_fee"
expect_json items.len 50
rdc --output json -c "ledger balance carol"
expect_json balance_ucr -296129040
rdc --output json -c "ledger verify"
expect_status 0
expect_json transfers 50

case_ "ledger verify: exit 0 with a report when every invariant holds"
rd --output json -c "ledger verify"
expect_status 0
expect_json ok true
expect_json transfers 11
expect_json total_balance_ucr 0
expect_json violation_count 0
rd --as alice -c "ledger verify"
expect_status 1

case_ "ledger verify: exit 1 naming the first violation when a document was edited"
case "$STORE" in
sqlite:*)
    if command -v sqlite3 >/dev/null 2>&1; then
        sqlite3 "${STORE#sqlite:}" "UPDATE kv SET value = CAST(replace(CAST(value AS TEXT),
            '\"credits_posted_ucr\":112345678', '\"credits_posted_ucr\":112345679') AS BLOB)
            WHERE key = CAST('/rigdeck/ledger/accounts/wallet:alice' AS BLOB)"
        rd -c "ledger verify"
        expect_status 1
        expect_err_lines 1
        expect_err "ledger verify: 2 violations; first: account wallet:alice: credits_posted_ucr is 112345679 but its transfers sum to 112345678"
        rd --output json -c "ledger verify"
        expect_json error.code corrupt
    fi
    ;;
esac

finish
