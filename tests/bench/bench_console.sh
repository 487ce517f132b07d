#!/bin/sh
# bench_console.sh - the console on a large fleet: first frame, keys, memory.
#
# The store: BENCH_CONSOLE_NODES nodes (default 10,000) and
# BENCH_CONSOLE_JOBS jobs (default 100,000: most ended, 6% running, 3%
# queued), built once by $BUILD/bench/bigfleet_gen (tests/bench/
# bigfleet_gen.c) and kept in $BIGFLEET_DIR (default /tmp/rigdeck-bigfleet)
# for the next run.  The console runs on it in tmux at 120x40 with
# RIGDECK_CONSOLE_TIMING, which appends each key's time from its read to the
# frame that answers it; every key below is sent only after the answer to
# the one before is in (deadlines are generous; nothing sleeps for
# correctness).  Keys: on Nodes moving, paging, the ends, sorting, a filter
# typed and cleared; '6' to Jobs; the same there; '3' back.  Then VmRSS and
# VmHWM of the console process from /proc.  The console reads the Jobs
# table in idle time from its first frame on; a second run presses '6' as
# soon as the Nodes table shows, while the jobs are still being read, and
# the same keys there, then waits for the last page.
#
# Prints "bench: NAME VALUE UNIT": console_first_frame_ms (start to the first
# frame showing the Nodes table read), console_{nodes,jobs}_{move,page,edge,
# sort,filter}_ms (the slowest of each kind), console_jobs_switch_ms ('6':
# the Jobs table shown), console_jobs_loaded_ms (start to the whole Jobs
# table read, in idle time), console_key_ms_max, console_rss_mib,
# console_peak_rss_mib; of the second run console_early_jobs_switch_ms ('6'
# to the first frame with the rows read so far), console_early_jobs_
# {move,page,edge,sort,filter}_ms, console_early_key_ms_max (keys while the
# table fills) and console_early_jobs_loaded_ms.  The aims: < 100 ms,
# < 5 ms, < 64 MiB.  Measures only: exits 0, and skips in one line without
# tmux or a build.
set -u
BUILD=${BUILD:-build-bench}
N=${BENCH_CONSOLE_NODES:-10000}
J=${BENCH_CONSOLE_JOBS:-100000}
BIN="$(pwd)/$BUILD/rigdeck"
GEN="$(pwd)/$BUILD/bench/bigfleet_gen"
if ! command -v tmux >/dev/null 2>&1; then
    echo "bench_console: tmux is not installed; skipped"
    exit 0
fi
if [ ! -x "$BIN" ] || [ ! -x "$GEN" ]; then
    echo "bench_console: $BIN or $GEN is not built (make bench); skipped"
    exit 0
fi
DIR=${BIGFLEET_DIR:-/tmp/rigdeck-bigfleet}
mkdir -p "$DIR"
export RIGDECK_MASTER_KEY="$DIR/master.key"
DB="$DIR/fleet-$N-$J.db"
if [ ! -e "$DB" ]; then
    echo "bench_console: building $N nodes and $J jobs in $DB"
    t0=$(date +%s)
    rm -f "$DB.building" "$DB.building-wal" "$DB.building-shm"
    if ! "$GEN" "sqlite:$DB.building" "$N" "$J" "$(pwd)/tests/inventories" "$(pwd)/tests/specs/sched"; then
        echo "bench_console: the generator failed; skipped"
        exit 0
    fi
    mv "$DB.building" "$DB"
    rm -f "$DB.building-wal" "$DB.building-shm"
    echo "bench_console: built in $(( $(date +%s) - t0 )) s"
fi

SOCK="rdcon$$"
T () { tmux -L "$SOCK" -f /dev/null "$@"; }
OUT="$DIR/timing.$$"
FIGS="$DIR/figures.$$"
: >"$OUT"
: >"$FIGS"
trap 'T kill-server 2>/dev/null; rm -f "$OUT" "$FIGS"' EXIT

# wait_screen PATTERN SECONDS: until the screen shows PATTERN.
wait_screen () {
    tries=$(( $2 * 20 ))
    while [ "$tries" -gt 0 ]; do
        T capture-pane -p -t con 2>/dev/null | grep -q -- "$1" && return 0
        sleep 0.05
        tries=$((tries - 1))
    done
    echo "bench_console: the screen never showed '$1'" >&2
    return 1
}
keys_done () { awk '/^key /{n++} END{print n+0}' "$OUT"; }
# key LABEL TMUX-KEY...: sends one key, waits for its answer, records
# "LABEL MS".  A key with no answer within 120 s is reported as missing.
key () {
    label=$1
    shift
    before=$(keys_done)
    T send-keys -t con "$@"
    tries=2400
    while [ "$(keys_done)" -le "$before" ] && [ "$tries" -gt 0 ]; do
        sleep 0.05
        tries=$((tries - 1))
    done
    ms=$(grep '^key ' "$OUT" | sed -n "$((before + 1))p" | awk '{print $3}')
    if [ -z "$ms" ]; then
        echo "bench_console: no answer to $label ($*)" >&2
        return 0
    fi
    echo "$label $ms" >>"$FIGS"
}
walk () { # walk PANE: the same keys on either table
    p=$1
    for k in j j j j j; do key "${p}_move" j; done
    for k in 1 2 3; do key "${p}_page" NPage; done
    key "${p}_page" PPage
    key "${p}_edge" G
    key "${p}_edge" g
    key "${p}_sort" s
    key "${p}_sort" s
    key "${p}_filter" /
    for ch in "$2" "$3" "$4"; do key "${p}_filter" -l "$ch"; done
    key "${p}_filter" Enter
    key "${p}_filter" /
    key "${p}_filter" C-u
    key "${p}_filter" Enter
}

# run_console EARLY: one console; EARLY 1 presses '6' at once.
run_console () {
    : >"$OUT"
    T new-session -d -s con -x 120 -y 40 -e LC_ALL=C.UTF-8 \
        "exec env RIGDECK_CONSOLE_TIMING=$OUT RIGDECK_CLOUD_SYNC_S=0 $BIN --store sqlite:$DB"
    PID=$(T display-message -p -t con '#{pane_pid}')
    if ! wait_screen "Nodes · $N of $N" 120; then
        :
    elif [ "$1" = 1 ]; then
        key early_jobs_switch 6
        walk early_jobs f a i
        tries=2400
        while ! grep -q '^jobs_loaded_ms' "$OUT" && [ "$tries" -gt 0 ]; do sleep 0.05; tries=$((tries - 1)); done
    else
        walk nodes n 0 9
        key jobs_switch 6
        walk jobs f a i
        key nodes_switch 3
        tries=2400
        while ! grep -q '^jobs_loaded_ms' "$OUT" && [ "$tries" -gt 0 ]; do sleep 0.05; tries=$((tries - 1)); done
    fi
    RSS=$(awk '/^VmRSS:/ {print $2}' "/proc/$PID/status" 2>/dev/null)
    HWM=$(awk '/^VmHWM:/ {print $2}' "/proc/$PID/status" 2>/dev/null)
    ANON=$(awk '/^RssAnon:/ {print $2}' "/proc/$PID/status" 2>/dev/null)
    FILE=$(awk '/^RssFile:/ {print $2}' "/proc/$PID/status" 2>/dev/null)
    T send-keys -t con q
    i=0
    while ! grep -q '^key_ms_max' "$OUT" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    T kill-session -t con 2>/dev/null
}

run_console 0
nkeys=$(keys_done)
first=$(awk '$1 == "first_table_ms" {print $2}' "$OUT")
loaded=$(awk '$1 == "jobs_loaded_ms" {print $2}' "$OUT")
: >"$FIGS.early"
FIGS_MAIN=$FIGS
FIGS="$FIGS.early"
trap 'T kill-server 2>/dev/null; rm -f "$OUT" "$FIGS_MAIN" "$FIGS"' EXIT
RSS1=$RSS HWM1=$HWM ANON1=$ANON FILE1=$FILE
run_console 1
early_loaded=$(awk '$1 == "jobs_loaded_ms" {print $2}' "$OUT")

echo "bench_console: $N nodes, $J jobs, 120x40; $nkeys keys, each timed from its read to the frame answering it"
echo "bench: console_first_frame_ms ${first:--1} ms"
figures () { # figures FILE MAXNAME
    awk -v maxname="$2" '{ if (!($1 in max) || $2 > max[$1]) max[$1] = $2; if ($2 > all) all = $2; order[++n] = $1 }
         END { for (i = 1; i <= n; i++) if (!(order[i] in done)) { done[order[i]] = 1;
                   printf "bench: console_%s_ms %s ms\n", order[i], max[order[i]] }
               printf "bench: console_%s %s ms\n", maxname, all + 0 }' "$1"
}
figures "$FIGS_MAIN" key_ms_max
echo "bench: console_jobs_loaded_ms ${loaded:--1} ms"
[ -n "$RSS1" ] && echo "bench: console_rss_mib $(awk "BEGIN { printf \"%.1f\", $RSS1 / 1024 }") MiB"
[ -n "$ANON1" ] && echo "bench: console_rss_anon_mib $(awk "BEGIN { printf \"%.1f\", $ANON1 / 1024 }") MiB"
[ -n "$FILE1" ] && echo "bench: console_rss_file_mib $(awk "BEGIN { printf \"%.1f\", $FILE1 / 1024 }") MiB"
[ -n "$HWM1" ] && echo "bench: console_peak_rss_mib $(awk "BEGIN { printf \"%.1f\", $HWM1 / 1024 }") MiB"
figures "$FIGS" early_key_ms_max
echo "bench: console_early_jobs_loaded_ms ${early_loaded:--1} ms"
exit 0
