#!/bin/sh
# bigfleet.sh [NODES [JOBS]] - how the console copes with a large fleet.
#
# Builds a store of NODES (default 10000) nodes in 10 physical regions and
# JOBS (default 100000) jobs, most ended, some running on the nodes, a few
# thousand queued (tests/bench/bigfleet_gen.c; cached in $BIGFLEET_DIR,
# default /tmp/rigdeck-bigfleet), then opens
# the console on it in tmux at 120x40 with RIGDECK_CONSOLE_TIMING and walks
# it: moving, paging, sorting, filtering, switching panes, a change made by
# batch.  Prints the console's own figures (first frame; each key from its
# read to the frame that answers it) as "bench: NAME VALUE UNIT" lines.
# Measurements on a shared machine are noisy: run it more than once.
set -eu
N=${1:-10000}
JOBS=${2:-100000}
BIN=${RIGDECK_BIN:-build/rigdeck}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
DIR=${BIGFLEET_DIR:-/tmp/rigdeck-bigfleet}
mkdir -p "$DIR"
DB="$DIR/fleet-$N-$JOBS.db"
STORE="sqlite:$DB"
export RIGDECK_MASTER_KEY="$DIR/master.key"
INV="$(pwd)/tests/inventories"
SPECS="$(pwd)/tests/specs/sched"

if [ ! -e "$DB" ]; then
    # The same builder as tests/bench/bench_console.sh: nodes, running and
    # queued jobs by commands, the ended history as copies of real ended jobs.
    GEN="$(dirname "$BIN")/bench/bigfleet_gen"
    [ -x "$GEN" ] || make --no-print-directory BUILD="$(dirname "$BIN")" "$GEN" >/dev/null
    echo "bigfleet: building $N nodes and $JOBS jobs in $DB"
    t0=$(date +%s)
    rm -f "$DB.building"
    "$GEN" "sqlite:$DB.building" "$N" "$JOBS" "$INV" "$SPECS"
    mv "$DB.building" "$DB"
    rm -f "$DB.building-wal" "$DB.building-shm"
    echo "bigfleet: built in $(( $(date +%s) - t0 )) s"
fi

SOCK="rdbig$$"
T () { tmux -L "$SOCK" -f /dev/null "$@"; }
OUT="$DIR/timing.$$"
trap 'T kill-server 2>/dev/null' EXIT
wait_for () { # wait_for PATTERN SECONDS
    tries=$(( $2 * 20 ))
    while [ "$tries" -gt 0 ]; do
        T capture-pane -p -t big 2>/dev/null | grep -q -- "$1" && return 0
        sleep 0.05
        tries=$((tries - 1))
    done
    echo "bigfleet: the screen never showed '$1'" >&2
    return 1
}
now_ms () { python3 -c 'import time; print(int(time.monotonic() * 1000))'; }

T new-session -d -s big -x 120 -y 40 -e LC_ALL=C.UTF-8 \
    "env RIGDECK_CONSOLE_TIMING=$OUT RIGDECK_CLOUD_SYNC_S=0 $BIN --store $STORE; sleep 30"
wait_for "Nodes · $N of $N" 60
step () { T send-keys -t big "$@"; sleep 0.25; }
for k in j j j j j j j j j j; do step $k; done
for k in NPage NPage NPage NPage NPage; do step $k; done
step G; step g
step s; step s
step /; for ch in n 0 9 9; do step -l "$ch"; done; step Enter
step /; step C-u; step Enter
step 6; sleep 2; step j; step j; step j; step j
step 7; step 2; step 3
# Changes made by batch: from the end of the batch run to the screen
# (tmux polling adds up to 50 ms, the console's loop up to 100 ms).
"$BIN" --batch --store "$STORE" -c "node maintenance n00001 toggle" >/dev/null
step /; for ch in n 0 0 0 0 1; do step -l "$ch"; done; step Enter
wait_for "n00001 .*\(draining\|maintenance\|active\)" 10
"$BIN" --batch --store "$STORE" -c "node maintenance n00001 toggle" >/dev/null
"$BIN" --batch --store "$STORE" -c "node maintenance n00001 toggle" >/dev/null
t0=$(now_ms)
wait_for "n00001 .*\(draining\|maintenance\)" 10
t1=$(now_ms)
# A bulk change: 500 nodes and n00001 in one batch run (patched row by row).
python3 -c "
for i in range(100, 600): print(f'node maintenance n{i:05d} toggle')
print('node maintenance n00001 toggle')" >"$DIR/bulk.txt"
"$BIN" --batch --store "$STORE" -f "$DIR/bulk.txt" >/dev/null
t2=$(now_ms)
wait_for "n00001 .*active" 20
t3=$(now_ms)
step q
i=0
while [ ! -s "$OUT" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
echo "bigfleet: $N nodes, 120x40; per-key lines are 'key CODE MS' in the console's timing file"
awk '$1 != "key" { printf "bench: console_%s_%s %s %s\n", "'"$N"'", $1, $2, $3 }' "$OUT"
echo "bench: console_${N}_live_change_ms $((t1 - t0)) ms"
echo "bench: console_${N}_live_bulk501_ms $((t3 - t2)) ms"
