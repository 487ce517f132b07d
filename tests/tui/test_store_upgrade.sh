#!/bin/sh
# test_store_upgrade.sh - the console opened on a store written by an older
# rigdeck (the SQLite schema version-2 fixture of tests/batch/
# test_store_upgrade.sh): the one-time upgrade blocks the first read, so
# the console says so on its status line, and once it is done the status
# line keeps what was done.  Nothing goes to stderr behind the screen.
. tests/tui/lib.sh

FIX=tests/fixtures/store_v2
DB=$TMP/old.db
STORE="sqlite:$DB"
sqlite3 "$DB" <"$FIX/store.sql"

start_shell 200 40
case_ "the status line says the store was upgraded"
start_console "2>$TMP/console.err"
expect_screen 'upgraded from schema version 2 to 4 in [0-9]* ms' 30
case_ "the upgraded fleet shows"
expect_screen 'gpu-01' 30
case_ "the console ends cleanly, with nothing written to stderr under the screen"
keys q
expect_screen 'rigdeck-exit=0' 30
if [ -s "$TMP/console.err" ]; then fail "stderr: $(cat "$TMP/console.err")"; else pass; fi
[ "$(sqlite3 "$DB" 'PRAGMA user_version')" = 4 ] && pass || fail "the file is not at schema version 4"
summary
exit $((FAILED != 0))
