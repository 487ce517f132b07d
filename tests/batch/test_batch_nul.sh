#!/bin/sh
# A NUL byte in a line of -f FILE or standard input: the executor reads a
# line as a C string, so "account deposit alice 5<NUL> 00" would run as
# "account deposit alice 5".  Such a line is refused whole with one stderr
# line naming the file, the line, the column and the rule; exit 1, nothing of
# it runs, and the run stops there unless --keep-going.
. tests/batch/lib.sh

balance () { $WRAP "$BIN" --batch --store "$STORE" --output json -c "ledger balance alice" 2>/dev/null |
             python3 tests/jget.py balance_ucr; }
RULE="a command line must not contain NUL bytes; nothing on this line ran"

rd -c "account create alice" -c "account deposit alice 1"
expect_status 0

case_ "a -f line with a NUL byte is refused; none of it runs"
printf 'account deposit alice 5\000 00\n' >"$TMP/nul"
before=$(snapshot)
rd -f "$TMP/nul"
expect_refused 1 "$before" "^rigdeck: $TMP/nul:1: a NUL byte at column 24: $RULE\$"
[ "$(balance)" = 1000000 ] && pass || fail "the balance moved: $(balance) ucr"

case_ "the run stops at the line; --keep-going runs the rest, still not the line"
printf 'account create bob\naccount deposit alice 5\000 00\naccount create carol\n' >"$TMP/mixed"
rd -f "$TMP/mixed"
expect_status 1
expect_err "^rigdeck: $TMP/mixed:2: a NUL byte at column 24: "
expect_err_lines 1
rd -c "account show carol"
expect_status 1
rd --keep-going -f "$TMP/mixed"
expect_status 1
expect_err "$TMP/mixed:1: account 'bob' exists already"
expect_err "$TMP/mixed:2: a NUL byte at column 24: "
rd -c "account show carol"
expect_status 0
[ "$(balance)" = 1000000 ] && pass || fail "the balance moved: $(balance) ucr"

case_ "standard input: the same, named stdin or -"
before=$(snapshot)
printf 'account deposit alice 5\000 00\n' | $WRAP "$BIN" --batch --store "$STORE" >"$OUT" 2>"$ERR"; RC=$?
expect_refused 1 "$before" "^rigdeck: stdin:1: a NUL byte at column 24: $RULE\$"
printf '\000account deposit alice 5\n' | $WRAP "$BIN" --batch --store "$STORE" -f - >"$OUT" 2>"$ERR"; RC=$?
expect_refused 1 "$before" "^rigdeck: -:1: a NUL byte at column 1: "
# a NUL in what would be a comment is no exception
printf 'account deposit alice 5 # \000\n' | $WRAP "$BIN" --batch --store "$STORE" >"$OUT" 2>"$ERR"; RC=$?
expect_refused 1 "$before" "^rigdeck: stdin:1: a NUL byte at column 27: "
[ "$(balance)" = 1000000 ] && pass || fail "the balance moved: $(balance) ucr"

case_ "with --output json, an error document on stdout"
rd --output json -f "$TMP/nul"
expect_status 1
expect_json error.code invalid
expect_out "a NUL byte at column 24"
finish
