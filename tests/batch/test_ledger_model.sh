#!/bin/sh
# Randomized billing: 100 seeded scenarios (jobs in own, public and shared
# projects, stops, devices added and removed across a month boundary, bill
# runs at random moments) checked to the micro-credit against an independent
# computation (tests/ledger_model.py), each ending with `ledger verify`.
# SQLite only: scenarios start from a copied template store file.
. tests/batch/lib.sh

case "$STORE" in
etcd*) skip "SQLite only: scenarios start from a copied template store file" ;;
esac
case_ "every balance matches the independent model, and the ledger verifies"
n=${RIGDECK_MODEL_SCENARIOS:-100}   # more: RIGDECK_MODEL_SCENARIOS=1000 make test
[ -n "$WRAP" ] && n=5   # under valgrind every command is slow; a few scenarios still check for errors
if python3 tests/ledger_model.py "$BIN" "$TMP" "$n" 20261122 >"$TMP/model.log" 2>&1; then
    pass
else
    fail "$(tail -n 5 "$TMP/model.log")"
fi

finish
