#!/bin/sh
# Compaction scenarios: `store compact` forgets old revisions by count and
# by age, never past a registered watcher (`store watch`, like the console's
# live view), refuses bad policies, runs by itself every N revisions, and a
# watcher starting below the compaction gets a clear error.
. tests/batch/lib.sh

wait_for_watchers () {   # wait_for_watchers N: until N registrations exist (10 s at most)
    i=0
    while [ $i -lt 100 ]; do
        rd --output json -c "store dump --prefix ~rigdeck/watchers/"
        [ "$(jget items.len)" = "$1" ] && return 0
        sleep 0.1; i=$((i + 1))
    done
    return 1
}

case_ "history is readable before compaction"
rd -c "account create a1"
rd -c "account create a2"
old=$(revision)
rd -c "account create a3"
rd --output json -c "store dump --revision $old"
expect_status 0
expect_out '"/rigdeck/accounts/a2"'
expect_no_out '"/rigdeck/accounts/a3"'

case_ "bad policies are refused, naming the flag, and change nothing"
snap=$(snapshot)
rd -c "store compact --keep 0"
expect_refused 1 "$snap" "\-\-keep must be a whole number of at least 1, got '0'"
rd -c "store compact --every x"
expect_refused 1 "$snap" "\-\-every must be a whole number of at least 0, got 'x'"
rd -c "store compact --keep-for soon"
expect_status 1
expect_err "keep-for"
rd -c "store dump --revision -3"
expect_status 1
expect_err "\-\-revision must be a whole number of at least 1"

case_ "the first run with the default policy compacts nothing (nothing is an hour old yet)"
rd --output json -c "store compact"
expect_status 0
expect_json compacted 0
expect_json policy.keep_revisions 10000
expect_json policy.keep_seconds 3600
expect_json policy.every 1000
rd -c "store dump --revision $old"
expect_status 0

case_ "keep by count: the newest N revisions stay readable, older ones are gone"
rd -c "account create a4"
rd -c "account create a5"
rd --output json -c "store compact --keep 3 --keep-for 0"
expect_status 0
now=$(jget revision)
expect_json compacted $((now - 2))
expect_json by_count $((now - 2))
expect_json oldest_watch null
rd -c "store dump --revision $old"
expect_status 1
expect_err "revision $old has been compacted"
rd --output json -c "store dump --revision $((now - 2))"
expect_status 0
rd -c "store dump --revision $((now - 3))"
expect_status 1
rd --output json -c "account list"
expect_json items.len 7

case_ "a watcher starting below the compaction is refused clearly"
rd -c "store watch --after $old --timeout 2s"
expect_status 1
expect_err "has been compacted"

case_ "a registered watcher holds compaction at the revision it still needs"
out_w=$TMP/watch.out
"$BIN" --batch --store "$STORE" --output json -c "store watch --prefix /rigdeck/accounts/z --count 2 --timeout 60s" \
    >"$out_w" 2>&1 &
wpid=$!
if wait_for_watchers 1; then pass; else fail "the watcher did not register"; fi
need=$(jget items.0.value.revision)
rd -c "account create b1"
rd -c "account create b2"
rd -c "account create b3"
rd --output json -c "store compact --keep 1 --keep-for 0"
expect_status 0
expect_json watchers 1
expect_json oldest_watch "$need"
expect_json compacted "$need"
rd --output json -c "store dump --revision $need"
expect_status 0
rd -c "store dump --revision $((need - 1))"
expect_status 1
rd -c "account create z1"
rd -c "account create z2"
wait $wpid
RC=$?
expect_status 0
if python3 tests/jget.py items.1.key <"$out_w" | grep -q '/rigdeck/accounts/z2'; then pass; else
    fail "the watcher missed events: $(cat "$out_w")"; fi

case_ "a finished watcher is unregistered and no longer holds compaction back"
wait_for_watchers 0
expect_json items.len 0
rd --output json -c "store compact --keep 1 --keep-for 0"
expect_json watchers 0
now=$(jget revision)
expect_json compacted "$now"

case_ "keep by age: a revision is kept until a sample an hour later covers it"
rd --now 2026-11-01T10:00:00Z --output json -c "store compact --keep 1 --keep-for 1h"
t0=$(jget revision)
prev=$(jget compacted)
rd -c "account create c1"
rd --now 2026-11-01T10:30:00Z --output json -c "store compact"
expect_json compacted "$prev"
expect_json policy.keep_seconds 3600
rd --now 2026-11-01T11:00:00Z --output json -c "store compact"
expect_json by_time "$t0"
expect_json compacted "$t0"

case_ "writers run the saved policy by themselves every N revisions"
rd --output json -c "store compact --keep 1 --keep-for 0 --every 100"
expect_json policy.every 100
start=$(revision)
i=0
: >"$TMP/lines"
while [ $i -lt 220 ]; do echo "account create auto$i" >>"$TMP/lines"; i=$((i + 1)); done
rd -f "$TMP/lines"
expect_status 0
rd --output json -c "store dump --prefix ~rigdeck/compaction"
auto=$(jget items.0.value.compacted)
if [ "$auto" -gt "$start" ]; then pass; else fail "no automatic compaction past $start (compacted $auto)"; fi
rd -c "store dump --revision $start"
expect_status 1
expect_err "has been compacted"
rd --output json -c "account list"
expect_json items.len 233

case_ "--every 0 turns automatic runs off"
rd --output json -c "store compact --every 0"
expect_json policy.every 0
start=$(revision)
sed 's/auto/late/' "$TMP/lines" >"$TMP/lines2"
rd -f "$TMP/lines2"
expect_status 0
rd -c "store dump --revision $start"
expect_status 0

case_ "retry markers (etcd: one per writing process) are deleted once idle for ten minutes"
rd --output json -c "store dump --prefix ~rigdeck/txn/"
before=$(jget items.len)
case $STORE in
    etcd*) if [ "$before" -ge 3 ]; then pass; else fail "only $before markers on etcd"; fi ;;
    *) if [ "$before" = 0 ]; then pass; else fail "$before markers on SQLite"; fi ;;
esac
# (earlier samples may already cover some of them: count over all three runs)
rd --now 2027-01-01T00:00:00Z --output json -c "store compact"
deleted=$(jget markers_deleted)
rd --now 2027-01-01T00:09:00Z --output json -c "store compact"
deleted=$((deleted + $(jget markers_deleted)))
rd --output json -c "store dump --prefix ~rigdeck/txn/"
mid=$(jget items.len)
rd --now 2027-01-01T00:11:00Z --output json -c "store compact"
deleted=$((deleted + $(jget markers_deleted)))
if [ "$deleted" -ge "$before" ]; then pass; else fail "deleted $deleted of $before markers"; fi
rd --output json -c "store dump --prefix ~rigdeck/txn/"
left=$(jget items.len)
case $STORE in   # left: the markers of the three runs' own processes at most
    etcd*) if [ "$left" -le 3 ] && [ "$mid" -ge 2 ]; then pass; else fail "$mid then $left markers left"; fi ;;
    *) if [ "$left" = 0 ]; then pass; else fail "$left markers on SQLite"; fi ;;
esac

finish
