#!/bin/sh
# run.sh - runs every benchmark: each $BUILD/bench/bench_* program in turn,
# then each tests/bench/bench_*.sh script (with BUILD set).
#
# When etcd is installed, a single-member etcd is started on free loopback
# ports (data in a temp dir) for the run and named in RIGDECK_BENCH_ETCD, so
# that benchmarks can measure the etcd backend too; it is stopped at the end.
# Benchmarks measure, they never fail the build: this always exits 0.
set -u
BUILD=${BUILD:-build-bench}
TMPROOT=$(mktemp -d "${TMPDIR:-/tmp}/rdbench.XXXXXX")
export TMPDIR="$TMPROOT"
ETCD_PIDS=""
trap 'etcd_stop_all 2>/dev/null; rm -rf "$TMPROOT"' EXIT
trap 'exit 130' INT TERM

if command -v etcd >/dev/null 2>&1 && command -v etcdctl >/dev/null 2>&1; then
    . tests/etcd/lib.sh
    if etcd_single "$TMPROOT/etcd" 2>/dev/null; then
        export RIGDECK_BENCH_ETCD="$ETCD_URL"
    else
        echo "bench: (etcd did not start; etcd figures skipped)"
    fi
fi

for b in "$BUILD"/bench/bench_*; do
    [ -x "$b" ] || continue
    echo "== $(basename "$b")"
    "$b" || echo "($(basename "$b") exited with status $?)"
done
for b in tests/bench/bench_*.sh; do
    [ -f "$b" ] || continue
    echo "== $(basename "$b")"
    BUILD="$BUILD" sh "$b" || echo "($(basename "$b") exited with status $?)"
done
exit 0
