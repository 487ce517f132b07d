#!/bin/sh
# Slow clients cannot starve the agent's /metrics: 40 connections that each
# send one more header line every second (tests/batch/slowloris.py, never
# finishing a request, never idle) while a normal scrape must still be
# answered; a single such connection is closed by the server once the
# request's whole-time deadline (10 s) has passed, however it trickles.
# Before the guard, libmicrohttpd's idle timeout never fired on them and the
# 32 connection slots stayed full: the scrape got no answer at all.
. tests/batch/lib.sh
. tests/batch/daemons.sh

export RIGDECK_NVIDIA_SMI=tests/agent/fake-nvidia-smi
unset FAKE_NVIDIA_SMI_CSV FAKE_NVIDIA_SMI_EXIT

scrape () { python3 tests/promtext.py "http://127.0.0.1:$PORT/metrics" >"$TMP/scrape" 2>"$TMP/scrape.err"; }
scrape_with_cpu () { scrape && grep -q '^rigdeck_cpu_util{node="n1"} ' "$TMP/scrape"; }
# loris_field FILE FIELD: a number from a slowloris.py status file (0 before the first round)
loris_field () { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2" 2>/dev/null || echo 0; }
loris_at_least () { [ "$(loris_field "$1" "$2")" -ge "$3" ]; }

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0
PORT=$(free_port)
start_agent n1 --inventory "$INV/a100x4.yaml" --sample 1s --metrics-listen "127.0.0.1:$PORT"
wait_until 90 scrape_with_cpu

case_ "40 slow clients trickling header lines: a normal scrape is still answered"
python3 tests/batch/slowloris.py --port "$PORT" --count 40 --status "$TMP/loris" 2>"$TMP/loris.err" &
LORIS=$!
DAEMONS="$DAEMONS $LORIS"
# two rounds: every connection is open and has trickled, the slots are theirs
wait_until 60 loris_at_least "$TMP/loris" rounds 2
if scrape_with_cpu; then pass; else fail "no scrape while slow clients trickle: $(cat "$TMP/scrape.err")"; fi
# they were still at it during the scrape: the scrape was not answered by
# their giving up (they never do), and they keep going after it
rounds=$(loris_field "$TMP/loris" rounds)
wait_until 60 loris_at_least "$TMP/loris" rounds $((rounds + 2))
kill -0 "$LORIS" 2>/dev/null && pass || fail "slowloris.py died: $(cat "$TMP/loris.err")"
if scrape_with_cpu; then pass; else fail "no second scrape while slow clients trickle: $(cat "$TMP/scrape.err")"; fi
kill_daemon "$LORIS" TERM

case_ "one slow client is cut once the request's whole time is up, trickling or not"
python3 tests/batch/slowloris.py --port "$PORT" --count 1 --no-reconnect --status "$TMP/one" 2>"$TMP/one.err" &
ONE=$!
DAEMONS="$DAEMONS $ONE"
wait_until 90 loris_at_least "$TMP/one" cut 1
kill_daemon "$ONE" TERM
scrape_with_cpu && pass || fail "no scrape after the slow client: $(cat "$TMP/scrape.err")"

case_ "SIGTERM still stops the agent with exit 0"
kill_daemon "$(agent_pid n1)" TERM
RC=$DSTATUS
expect_status 0
finish
