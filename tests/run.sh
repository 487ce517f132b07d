#!/bin/sh
# run.sh - runs every test: unit (cmocka), store conformance, batch scenarios.
# Prints one line per test program and ends with the summary line
#   tests: N passed, M failed
# RIGDECK_WRAP (e.g. valgrind ...) wraps every program run.
#
# A program that ran no check proves nothing, so it does not pass quietly
# as "ok (0)": a script that cannot run here says why with a line
#   batch-skip: REASON
# (the `skip REASON` helper of tests/batch/lib.sh and tests/tui/lib.sh) and
# shows as "skipped (REASON)"; one that ran no check without saying why is
# "FAIL (ran no check)" and counts as one failure.
set -u
BUILD=${BUILD:-build}
WRAP=${RIGDECK_WRAP:-}
export BUILD RIGDECK_WRAP="$WRAP"
TMPROOT=$(mktemp -d "${TMPDIR:-/tmp}/rdtests.XXXXXX")
trap 'rm -rf "$TMPROOT"' EXIT
export TMPDIR="$TMPROOT"
passed=0
failed=0
failures=""

# Each program's line ends with its wall time, so that the slow ones are
# easy to find when the suite nears its time budget (README: make test).
started=$(date +%s)
note () { printf '%-48s %s%s\n' "$1" "$2" "${3:+ [$3 s]}"; }

# What of a failing program's log is shown.
show_cmocka_log () { sed 's/^/    /' "$1" | grep -v '^    \[ \(RUN\|  *OK\) ' | tail -n 40; }
show_batch_log () { grep -v '^batch-summary' "$1" | tail -n 60; }

# report NAME PASSED FAILED STATUS LOG SKIP_REASON SHOW_LOG: the program's
# line and the running totals; on failure SHOW_LOG LOG prints its log.
report () {
    name=$1 p=$2 f=$3 rc=$4 log=$5 why=$6 show_log=$7
    secs=$(( $(date +%s) - started ))
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
    if [ "$f" = 0 ] && [ "$p" = 0 ] && [ -z "$why" ]; then
        note "$name" "FAIL (ran no check)" "$secs"
        "$show_log" "$log"
        failed=$((failed + 1)); failures="$failures $name"
        return
    fi
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$f" != 0 ]; then
        note "$name" "FAIL ($p passed, $f failed)" "$secs"
        "$show_log" "$log"
        failures="$failures $name"
    elif [ "$p" = 0 ]; then
        note "$name" "skipped ($why)" "$secs"
    elif [ -n "$why" ]; then
        note "$name" "ok ($p), then skipped the rest ($why)" "$secs"
    else
        note "$name" "ok ($p)" "$secs"
    fi
}

# cmocka prints "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)..."
count_cmocka () {
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
    echo "${p:-0} ${f:-0}"
}

run_cmocka () {
    name=$1; shift
    started=$(date +%s)
    log="$TMPROOT/$(basename "$name").log"
    # shellcheck disable=SC2086
    $WRAP "$@" >"$log" 2>&1
    rc=$?
    # shellcheck disable=SC2046
    report "$name" $(count_cmocka "$log") "$rc" "$log" "" show_cmocka_log
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    run_cmocka "unit/$(basename "$t")" "$t"
done

mkdir -p "$TMPROOT/conf"
run_cmocka "conformance/sqlite" "$BUILD/tests/store_conformance" "sqlite:$TMPROOT/conf/store.db"

run_batch_script () {
    name=$1 s=$2
    started=$(date +%s)
    log="$TMPROOT/$(echo "$name" | tr / _).log"
    sh "$s" >"$log" 2>&1
    rc=$?
    line=$(grep '^batch-summary:' "$log" | tail -n 1)
    p=$(echo "$line" | sed -n 's/.*passed=\([0-9]*\).*/\1/p')
    f=$(echo "$line" | sed -n 's/.*failed=\([0-9]*\).*/\1/p')
    why=$(sed -n 's/^batch-skip: *//p' "$log" | tail -n 1)
    report "$name" "${p:-0}" "${f:-0}" "$rc" "$log" "$why" show_batch_log
}

for s in tests/batch/test_*.sh; do
    run_batch_script "batch/$(basename "$s" .sh)" "$s"
done

# ---- etcd: the conformance suite and every batch scenario again, on a
# single-member etcd on free loopback ports (data in the temp dir), when
# etcd is installed; then tests/etcd/test_*.sh (TLS, lost replies, failover
# of a 3-member cluster), each with its own etcd.
# Each scenario starts from an empty key space, as it would on a new file.

for s in tests/tui/test_*.sh; do run_batch_script "tui/$(basename "$s" .sh)" "$s"; done  # console in tmux

if command -v etcd >/dev/null 2>&1 && command -v etcdctl >/dev/null 2>&1; then
    . tests/etcd/lib.sh
    trap 'etcd_stop_all; rm -rf "$TMPROOT"' EXIT
    trap 'exit 130' INT TERM
    if etcd_single "$TMPROOT/etcd"; then
        run_cmocka "conformance/etcd" "$BUILD/tests/store_conformance" "$ETCD_URL"
        export RIGDECK_TEST_STORE_URL="$ETCD_URL"
        for s in tests/batch/test_*.sh; do
            etcd_wipe
            run_batch_script "batch-etcd/$(basename "$s" .sh)" "$s"
        done
        unset RIGDECK_TEST_STORE_URL
        etcd_stop_all
    else
        note "etcd" "FAIL (could not start a member)"
        failed=$((failed + 1)); failures="$failures etcd"
    fi
    # Each takes 10-25 s; under valgrind (RIGDECK_WRAP) far longer, so
    # there only with RIGDECK_SLOW_TESTS=1.
    if [ -z "$WRAP" ] || [ "${RIGDECK_SLOW_TESTS:-0}" = 1 ]; then
        for s in tests/etcd/test_*.sh; do
            run_batch_script "etcd/$(basename "$s" .sh)" "$s"
        done
    else
        for s in tests/etcd/test_*.sh; do
            note "etcd/$(basename "$s" .sh)" "skipped (too slow under RIGDECK_WRAP; RIGDECK_SLOW_TESTS=1 runs it)"
        done
    fi
else
    note "etcd" "skipped (etcd/etcdctl not installed)"
fi

echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ] || { echo "failing:$failures"; exit 1; }
