# lib.sh - helpers for batch scenario tests, sourced by tests/batch/*.sh.
#
# Each scenario runs the real binary against a real store in a fresh temp
# directory.  `rd ARGS...` runs `rigdeck --batch --store $STORE ARGS...` and
# leaves stdout in $OUT, stderr in $ERR and the exit status in $RC; the
# expect_* helpers record one check each.  `finish` prints the counts;
# `skip REASON` ends a scenario that cannot run on this store or machine.
set -u
BUILD=${BUILD:-build}
BIN=${RIGDECK_BIN:-$BUILD/rigdeck}
WRAP=${RIGDECK_WRAP:-}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rdbatch.XXXXXX")
STORE=${RIGDECK_TEST_STORE_URL:-sqlite:$TMP/store.db}
export RIGDECK_NOW=${RIGDECK_NOW:-2026-11-01T00:00:00Z}
unset RIGDECK_ACCOUNT RIGDECK_STORE COLUMNS   # help wraps to $COLUMNS: scenarios see the default 80
PASSED=0
FAILED=0
CASE=""
OUT=$TMP/out
ERR=$TMP/err
RC=0
trap 'rm -rf "$TMP"' EXIT

case_ () { CASE=$1; }

rd () {
    # shellcheck disable=SC2086
    $WRAP "$BIN" --batch --store "$STORE" "$@" >"$OUT" 2>"$ERR"
    RC=$?
    if [ "$RC" = 99 ]; then
        echo "  valgrind reported errors in: rigdeck $*" >&2
        sed 's/^/    /' "$ERR" >&2
    fi
}

pass () { PASSED=$((PASSED + 1)); }
fail () {
    FAILED=$((FAILED + 1))
    echo "  FAIL [$CASE] $1" >&2
    echo "    exit $RC; stdout: $(head -c 600 "$OUT")" >&2
    echo "    stderr: $(head -c 600 "$ERR")" >&2
}

expect_status () { if [ "$RC" = "$1" ]; then pass; else fail "expected exit $1, got $RC"; fi; }
expect_out () { if grep -q -- "$1" "$OUT"; then pass; else fail "stdout lacks '$1'"; fi; }
expect_no_out () { if grep -q -- "$1" "$OUT"; then fail "stdout has '$1'"; else pass; fi; }
expect_err () { if grep -q -- "$1" "$ERR"; then pass; else fail "stderr lacks '$1'"; fi; }
expect_err_lines () {
    n=$(wc -l <"$ERR")
    if [ "$n" = "$1" ]; then pass; else fail "expected $1 stderr line(s), got $n"; fi
}
# expect_json PATH VALUE [LINE]: a field of the (last) JSON document on stdout.
expect_json () {
    got=$(python3 tests/jget.py "$1" ${3:+"$3"} <"$OUT" 2>/dev/null)
    if [ "$got" = "$2" ]; then pass; else fail "json $1: expected '$2', got '$got'"; fi
}
jget () { python3 tests/jget.py "$@" <"$OUT"; }
# free_port: a TCP port free on 127.0.0.1 just now (for a server a test starts)
free_port () {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The store revision: every write bumps it, so an unchanged revision proves
# that a refused command changed nothing (on any backend).
revision () {
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "store info" 2>/dev/null |
        python3 tests/jget.py revision
}

finish () {
    echo "batch-summary: passed=$PASSED failed=$FAILED"
    [ "$FAILED" = 0 ]
}

# skip REASON: this scenario cannot run here; says why in the line
# "batch-skip: REASON" (tests/run.sh then reports "skipped (REASON)"
# instead of a program that ran no check) and ends the script.
skip () {
    echo "batch-skip: $*"
    finish
    exit
}

# A digest of every key and document: a refused command must leave it equal.
snapshot () {
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "store dump" 2>/dev/null | md5sum
}
# snapshot_books: the same, less what a running agent writes on its own
# (vital stats, workers' output, its registration's heartbeat and lease),
# for scenarios that check a refusal while an agent runs.
snapshot_books () {
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "store dump" 2>/dev/null | python3 -c '
import json, sys
skip = ("/rigdeck/metrics/", "/rigdeck/logs/", "/rigdeck/agent-alive/", "/rigdeck/agents/", "~")
items = [i for i in json.load(sys.stdin)["items"] if not i["key"].startswith(skip)]
for i in items:
    i.pop("mod_revision", None)
print(json.dumps(items, sort_keys=True))' | md5sum
}
# expect_refused STATUS SNAPSHOT MESSAGE: exit status, one stderr line naming
# the rule, and a store identical to SNAPSHOT.
expect_refused () {
    expect_status "$1"
    expect_err "$3"
    expect_err_lines 1
    now=$(${SNAPSHOT:-snapshot})   # SNAPSHOT=snapshot_books while an agent runs
    if [ "$now" = "$2" ]; then pass; else fail "the store changed after a refused command"; fi
}
