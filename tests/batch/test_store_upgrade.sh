#!/bin/sh
# test_store_upgrade.sh - a store written by an older rigdeck (SQLite schema
# version 2) opens, is upgraded in place through version 3 to version 4,
# and reads exactly as before: the current state and every older revision.
# The fixture is the `.dump` of a real version-2 file
# (tests/fixtures/store_v2/store.sql) with the version-2 binary's `store
# dump` outputs beside it.  Then the upgraded file keeps working: writes,
# deletes, reads at old revisions, compaction, and the history invariants
# of schema 4 hold in the file itself.
. tests/batch/lib.sh
FIX=tests/fixtures/store_v2

if [ -n "${RIGDECK_TEST_STORE_URL:-}" ]; then
    skip "SQLite only: the fixture is a version-2 SQLite file"
fi
DB=$TMP/store.db
sqlite3 "$DB" <"$FIX/store.sql"

same_as () {   # same_as FIXTURE: stdout equals the version-2 binary's output
    if cmp -s "$OUT" "$FIX/$1"; then pass; else fail "output differs from $FIX/$1"; fi
}

# Schema 4's invariants, read from the file: each live key points at its
# newest history row, a PUT; every link points back to an earlier PUT of the
# same key, which is there and whose value the linking row keeps, unless
# compaction removed both; a DELETE always links; nothing is logged past
# the revision.
invariants () {
    bad=$(sqlite3 "$DB" "SELECT
      (SELECT count(*) FROM kv WHERE NOT EXISTS (SELECT 1 FROM kv_log AS l WHERE l.rev = kv.mod_rev
         AND l.sub = kv.mod_sub AND l.key = kv.key AND l.type = 0))
    + (SELECT count(*) FROM kv_log AS l WHERE l.prev_rev IS NOT NULL AND ((l.prev_rev, l.prev_sub) >= (l.rev, l.sub)
         OR (l.prev_rev >= (SELECT compact_rev FROM meta) AND (l.prev_value IS NULL OR NOT EXISTS (SELECT 1
             FROM kv_log AS p WHERE p.rev = l.prev_rev AND p.sub = l.prev_sub AND p.key = l.key AND p.type = 0)))))
    + (SELECT count(*) FROM kv_log WHERE type = 1 AND prev_rev IS NULL AND rev >= (SELECT compact_rev FROM meta))
    + (SELECT count(*) FROM kv_log AS l WHERE l.rev > (SELECT rev FROM meta))")
    if [ "$bad" = 0 ]; then pass; else fail "$bad history rows break schema 4's invariants"; fi
}

case_ "the version-2 file reads the same after the upgrade"
rd --output json -c "store dump"
expect_status 0
same_as dump_now.json
# The operator is told why the first open takes long, on stderr, once.
if grep -q "^rigdeck: store .*: upgrading the file from schema version 2 to 4 (once" "$ERR" &&
   grep -q "^rigdeck: store .*: upgraded from schema version 2 to 4 in [0-9]* ms$" "$ERR"; then
    pass
else
    fail "no upgrade notice on stderr: $(cat "$ERR")"
fi
[ "$(sqlite3 "$DB" 'PRAGMA user_version')" = 4 ] && pass || fail "schema version is not 4"
invariants
for r in 3 7 11; do
    rd --output json -c "store dump --revision $r"
    expect_status 0
    same_as "dump_$r.json"
done
if [ -s "$ERR" ]; then fail "an upgraded file still gives a notice: $(cat "$ERR")"; else pass; fi

case_ "the controller logs the upgrade of an older file it opens, one line before and one after"
SV=$TMP/serve.db
sqlite3 "$SV" <"$FIX/store.sql"
$WRAP "$BIN" serve --store "sqlite:$SV" --once --log-format json 2>"$TMP/serve.log"
[ $? = 0 ] && pass || fail "serve --once on the version-2 file: $(tail -n 3 "$TMP/serve.log")"
python3 - "$TMP/serve.log" <<'PY' && pass || fail "no store_upgrade / store_upgraded lines: $(head -n 3 "$TMP/serve.log")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
acts = [l["action"] for l in lines]
assert acts[:2] == ["store_upgrade", "store_upgraded"], acts[:3]
assert "from schema version 2 to 4" in lines[0]["message"] and "in " in lines[1]["message"], lines[:2]
# then the documents: the node that never had an agent is a manual one
assert acts[2] == "store_upgraded" and "0 node(s) that have had an agent are agent_mode required" in \
    lines[2]["message"] and ", 1 without one are none" in lines[2]["message"], lines[2:3]
PY
[ "$(sqlite3 "$SV" 'PRAGMA user_version')" = 4 ] && pass || fail "serve did not leave the file at schema version 4"

case_ "the upgraded file takes writes, deletes and re-creates"
rd -c "node maintenance gpu-01 off" -c "account deposit alice 7" -c "price set a100 2.5"
expect_status 0
# the first write gives the nodes their agent mode, and says so once
expect_err "^rigdeck: store: upgraded to agent modes: 0 node(s) that have had an agent are agent_mode required (work only while their agent is online), 1 without one are none (manual: placement is the start, as before)$"
expect_err_lines 1
rd -c "node add lab gpu-03 --agent none --minion m2 --inventory tests/inventories/rtx3090x2.yaml" -c "node remove gpu-03" \
   -c "node add lab gpu-04 --agent none --minion m2 --inventory tests/inventories/rtx3090x2.yaml"
expect_status 0
invariants
rd --output json -c "node show gpu-01"
expect_json state active
expect_json agent_mode none   # it never had an agent: placed on as before
rd --output json -c "ledger balance alice"
expect_json balance_ucr 112000000
rd -c "ledger verify"
expect_status 0
for r in 3 7 11; do
    rd --output json -c "store dump --revision $r"
    same_as "dump_$r.json"
done
rd --output json -c "store dump --revision 15"
same_as dump_now.json

case_ "compaction of an upgraded file keeps the compacted revision readable"
rd --output json -c "store info"
now=$(jget revision)
rd -c "store compact --keep $((now - 10)) --keep-for 0"
expect_status 0
rd --output json -c "store dump --revision 11"
expect_status 0
same_as dump_11.json
rd -c "store dump --revision 7"
expect_status 1
expect_err "compacted"
invariants
rd --output json -c "store dump --revision 15"
same_as dump_now.json

case_ "a history link that points forward is refused as corrupt, not followed"
rd --output json -c "store dump"
before=$(md5sum <"$OUT")
broken=$(sqlite3 "$DB" "UPDATE kv_log SET prev_rev = rev, prev_sub = sub + 1 WHERE (rev, sub) =
  (SELECT mod_rev, mod_sub FROM kv WHERE mod_rev > 11 AND create_rev <= 11 ORDER BY key LIMIT 1); SELECT changes();")
[ "$broken" = 1 ] && pass || fail "no history row to break ($broken)"
rd --output json -c "store dump --revision 11"
expect_status 1
expect_err "links forward"
rd --output json -c "store dump"
expect_status 0
[ "$(md5sum <"$OUT")" = "$before" ] && pass || fail "the current state changed"

finish
