#!/bin/sh
# test_lost_reply.sh - a txn whose reply is lost is never applied twice.
#
# One etcd member, reached first through tests/etcd/lossy_proxy.py, which
# lets every txn reach etcd but drops its reply: the client sees its
# connection break after the txn applied, and must retry on the other
# address (the same member, directly) without applying it again.  Checks:
# the whole conformance suite (which asserts exact revision steps and
# versions) passes through it, and 20 deposits made by 20 processes, each
# of whose first txn loses its reply, add exactly 20 credits.
# Prints "batch-summary: passed=N failed=M".
set -u
BUILD=${BUILD:-build}
WRAP=${RIGDECK_WRAP:-}
BIN=$BUILD/rigdeck
T=$(mktemp -d "${TMPDIR:-/tmp}/rdlost.XXXXXX")
PASSED=0
FAILED=0
export RIGDECK_NOW=2026-11-01T00:00:00Z RIGDECK_MASTER_KEY="$T/master.key"
unset RIGDECK_ACCOUNT RIGDECK_STORE
pass () { PASSED=$((PASSED + 1)); }
fail () { FAILED=$((FAILED + 1)); echo "  FAIL $1" >&2; }

. tests/etcd/lib.sh
PROXY_PID=""
trap 'kill $PROXY_PID 2>/dev/null; etcd_stop_all; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
etcd_single "$T/etcd" || { echo "batch-summary: passed=0 failed=1"; exit 1; }
REAL=$(cat "$T/etcd/m1.port")
python3 tests/etcd/lossy_proxy.py "$REAL" "$T/proxy.port" &
PROXY_PID=$!
for _ in $(seq 1 50); do [ -s "$T/proxy.port" ] && break; sleep 0.1; done
STORE="etcd://127.0.0.1:$(cat "$T/proxy.port"),127.0.0.1:$REAL"
rd () {
    # shellcheck disable=SC2086
    $WRAP "$BIN" --batch --store "$STORE" "$@"
}

# shellcheck disable=SC2086
$WRAP "$BUILD/tests/store_conformance" "$STORE" >"$T/conf.log" 2>&1
rc=$?
p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$T/conf.log" | tail -n 1)
if [ "$rc" = 0 ] && [ -n "$p" ]; then PASSED=$((PASSED + p)); else
    fail "conformance through the lossy proxy (exit $rc)"
    grep -v '^\[ \(RUN\|  *OK\) ' "$T/conf.log" | tail -n 30 >&2
fi

rd -c "account create lost" >/dev/null 2>"$T/err" && pass || fail "account create: $(cat "$T/err")"
bad=0
for i in $(seq 1 20); do
    rd -c "account deposit lost 1" >/dev/null 2>>"$T/err" || bad=$((bad + 1))
done
[ "$bad" = 0 ] && pass || fail "$bad deposits failed: $(sort "$T/err" | uniq -c | head -n 3)"
got=$(rd --output json -c "ledger balance lost" | python3 -c 'import json,sys; print(json.load(sys.stdin)["balance_ucr"])')
[ "$got" = 20000000 ] && pass || fail "balance $got, want 20000000 (20 deposits of 1)"
n=$(rd --output json -c "ledger entries --account lost" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))')
[ "$n" = 20 ] && pass || fail "$n ledger entries, want 20"
rd -c "ledger verify" >"$T/verify" 2>&1 && pass || fail "ledger verify: $(cat "$T/verify")"

echo "batch-summary: passed=$PASSED failed=$FAILED"
[ "$FAILED" = 0 ]
