#!/bin/sh
# An edge device runs its own agent (spec/execution.md §7): a real `rigdeck
# agent --device` process on the process runtime registers (the device turns
# active), stages the configuration's model and checkpoint (served over HTTP
# on 127.0.0.1), runs its command in the model's folder with the
# configuration's env opened from its sealed value and its key, reports it
# running and then failed with its exit status exactly once, does not
# restart it while it keeps running, runs it again when the agent restarts,
# and a killed agent's device turns offline under a real controller.  The
# env values are never in the store in clear.  Runs on SQLite and, again,
# on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

MARK=$TMP/marker
W=$TMP/www
mkdir -p "$W" "$TMP/model"
cat >"$TMP/model/run.sh" <<EOF
echo "ran token=\$SECRET_TOKEN dev=\$RIGDECK_DEVICE key=\$KEY_TOKEN ckpt=\$(cat "\$ML_CHECKPOINT_PATH/weights.txt") in=\$(pwd)" >>$MARK
exit 3
EOF
tar -C "$TMP/model" -czf "$W/model.tar.gz" run.sh
echo "w-7" >"$W/weights.txt"
http_serve "$W"
PORT=$HTTP_PORT
U=http://127.0.0.1:$PORT
printf 'KEY_TOKEN=k-42\n' >"$TMP/vars.env"

rd -c "provider enable physical" -c "region create edge --provider physical --storage central" \
   -c "node add edge st-1 --agent none --minion m-st --role storage --inventory $INV/storage.yaml" \
   -c "device add edge cam-1 --minion j-1 --model jetson-orin-nano" \
   -c "model add yolo --source $U/model.tar.gz" -c "checkpoint add yolo-w --source $U/weights.txt" \
   -c "key add vars --type env --file $TMP/vars.env" \
   -c "device-config create edge detect --image docker.io/library/busybox:1 --model yolo --checkpoint yolo-w --key vars --command 'sh run.sh' --env SECRET_TOKEN=hunter2-sealed" \
   -c "device set-config cam-1 detect"
expect_status 0

case_ "device-config env values are sealed in the store and shown as ***"
rd --output json -c "device-config list"
expect_json items.0.env.SECRET_TOKEN "***"
expect_no_out hunter2-sealed
rd --output json -c "store dump --prefix /rigdeck/device-configs/"
expect_status 0
expect_no_out hunter2-sealed
case "$STORE" in
sqlite:*) if grep -q hunter2-sealed "${STORE#sqlite:}"*; then fail "the store file holds the clear value"; else pass; fi ;;
esac

case_ "a device agent registers: the device turns active"
rd --output json -c "device show cam-1"
expect_json state provisioning
expect_json agent.state none
start_serve s1 --node-timeout 3s --sched-every 1s
start_device () {
    mkdir -p "$TMP/work-dev"
    $WRAP "$BIN" agent --store "$STORE" --device cam-1 --work-dir "$TMP/work-dev" --heartbeat 1s --runtime process \
        2>>"$TMP/agent-dev.log" &
    PID_dev=$!
    DAEMONS="$DAEMONS $!"
}
start_device
wait_json 60 "device show cam-1" state active
rd --output json -c "device show cam-1"
expect_json agent.state online
expect_json deployment null

case_ "a deployed configuration runs; its end is reported once, with its exit status, and not restarted"
rd --output json -c "device deploy cam-1"
expect_json deployment.state deploying
expect_json deployment.config detect
wait_json 60 "device show cam-1" deployment.state failed
rd --output json -c "device show cam-1"
expect_json deployment.exit_code 3
expect_json deployment.config detect
started=$(jget deployment.started_at)
ended=$(jget deployment.ended_at)
[ -n "$started" ] && [ "$started" != null ] && [ -n "$ended" ] && [ "$ended" != null ] && pass ||
    fail "started_at '$started', ended_at '$ended'"
# in the staged model's folder, with the configuration's env (opened on the
# device), its key and its checkpoint
grep -q "^ran token=hunter2-sealed dev=cam-1 key=k-42 ckpt=w-7 in=$TMP/work-dev/runs/.*/opt/ml/models$" "$MARK" &&
    pass || fail "marker: $(cat "$MARK" 2>/dev/null); agent: $(tail -n 5 "$TMP/agent-dev.log")"
count_reports () {
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "audit list" 2>/dev/null |
        python3 -c "import json,sys; print(sum(1 for e in json.load(sys.stdin)['items'] if 'device report cam-1 --status $1' in e.get('command', '')))"
}
[ "$(count_reports running)" = 1 ] && pass || fail "running reported $(count_reports running) times"
[ "$(count_reports failed)" = 1 ] && pass || fail "failed reported $(count_reports failed) times"
# the agent lives on for several heartbeats and looks at the device every
# second: the command is not started again
n=0
while [ $n -lt 8 ]; do sleep 0.5; n=$((n + 1)); done
kill -0 "$PID_dev" 2>/dev/null && pass || fail "the agent died: $(tail -n 5 "$TMP/agent-dev.log")"
[ "$(wc -l <"$MARK")" = 1 ] && pass || fail "the command ran $(wc -l <"$MARK") times"
[ "$(count_reports failed)" = 1 ] && pass || fail "failed reported $(count_reports failed) times"

case_ "a restarted agent runs the deployment again, whatever its last end"
kill_daemon "$PID_dev" TERM
start_device
marker_lines () { [ "$(wc -l <"$MARK")" = "$1" ]; }
wait_until 60 marker_lines 2
two_failed () { [ "$(count_reports failed)" = 2 ]; }
wait_until 60 two_failed
rd --output json -c "device show cam-1"
expect_json deployment.state failed
expect_json deployment.exit_code 3

case_ "a killed agent's device turns offline; back active when its agent returns"
kill_daemon "$PID_dev" KILL
wait_json 60 "device show cam-1" state offline
rd --output json -c "device show cam-1"
expect_json agent.state lost
expect_json offline_reason agent_lost
start_device
wait_json 60 "device show cam-1" state active
wait_until 60 marker_lines 3

case_ "a model that is not there fails the deployment, reason staging_failed"
rd -c "device-config create edge nomodel --image docker.io/library/busybox:1 --model absent --command true" \
   -c "device set-config cam-1 nomodel" -c "device deploy cam-1"
expect_status 0
wait_json 60 "device show cam-1" deployment.reason staging_failed
rd --output json -c "device show cam-1"
expect_json deployment.state failed
expect_json deployment.exit_code null
expect_out "model 'absent' does not exist"

case_ "a new deploy takes over; removing the device stops what runs"
rd -c "device-config create edge long --image docker.io/library/busybox:1 --model yolo --command 'exec sleep 299.$$'" \
   -c "device set-config cam-1 long" -c "device deploy cam-1"
expect_status 0
wait_json 60 "device show cam-1" deployment.state running
rd --output json -c "device show cam-1"
expect_json deployment.config long
expect_json previous_deployment.state stopped
sleeping () { pgrep -f "sleep 299.$$" >/dev/null; }
wait_until 60 sleeping
not_sleeping () { ! sleeping; }
# stopping the agent stops what runs; it runs again with the agent
kill_daemon "$PID_dev" TERM
[ "$DSTATUS" = 0 ] && pass || fail "the agent exited $DSTATUS on SIGTERM"
wait_until 60 not_sleeping
start_device
wait_until 60 sleeping
rd -c "device remove cam-1"
expect_status 0
rd --output json -c "device show cam-1"
expect_json deployment.state stopped
wait_until 60 not_sleeping

finish
