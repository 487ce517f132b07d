#!/bin/sh
# A device's datastore is mounted at its output path (spec/execution.md §7,
# agent_device_mount_output): a real SMB server (smbd.sh) exports a share;
# a device configuration with `--datastore lab --datastore-path /a/out`
# and a model read from `datastore:lab/m` runs under a real `rigdeck agent
# --device` on the process runtime.  The model's folder is the share's m/
# (mounted read-only, the command runs there), the file the command writes
# into $ML_OUTPUT_PATH lands in the share's a/out on disk, the deployment
# ends `failed` with exit_code 0 (the spec's "failed with the exit status"),
# and no mount or rclone is left once it ended.  A run stopped by a new
# deploy, by the agent's SIGTERM, and one whose agent was killed (the
# restarted agent unmounts what the old run left before removing its
# folder) leave no mount either, and the share's files stay.  A wrong
# password fails the deployment staging_failed naming the datastore and
# rclone's first line.  The password is never in a result or a log.
# Skipped where smbd, rclone, fusermount3 or /dev/fuse is missing
# (smbd.sh).  Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh
. tests/batch/smbd.sh
smbd_start
mkdir -p "$S/share/a" "$S/share/m"
echo "keep me" >"$S/share/a/keep.txt"
cat >"$S/share/m/run.sh" <<'EOF'
echo "from-device $RIGDECK_DEVICE in=$(pwd)" >"$ML_OUTPUT_PATH/result.txt" && echo wrote-output
grep -c " $(dirname "$ML_OUTPUT_PATH")/" /proc/self/mountinfo
exit 0
EOF

printf '%s\n' "$SMB_PASS" >"$TMP/pw"
printf 'wrong-pass\n' >"$TMP/badpw"
rd -c "provider enable physical" -c "region create edge --provider physical --storage central" \
   -c "node add edge st-1 --agent none --minion m-st --role storage --inventory $INV/storage.yaml" \
   -c "device add edge cam-1 --minion j-1 --model jetson-orin-nano" \
   -c "datastore add edge lab --type smb --address 127.0.0.1:$SPORT --root /data --username $ME --password-file $TMP/pw" \
   -c "datastore add edge badpw --type smb --address 127.0.0.1:$SPORT --root /data --username $ME --password-file $TMP/badpw" \
   -c "model add yolo --source datastore:lab/m" \
   -c "device-config create edge out --image docker.io/library/busybox:1 --model yolo --command 'sh run.sh' --datastore lab --datastore-path /a/out" \
   -c "device-config create edge long --image docker.io/library/busybox:1 --model yolo --command 'exec sleep 298.$$' --datastore lab --datastore-path /a/out" \
   -c "device-config create edge bad --image docker.io/library/busybox:1 --model yolo --command 'echo command-ran' --datastore badpw --datastore-path /a/out" \
   -c "device set-config cam-1 out"
expect_status 0

start_device () {
    mkdir -p "$TMP/work-dev"
    $WRAP "$BIN" agent --store "$STORE" --device cam-1 --work-dir "$TMP/work-dev" --heartbeat 1s --runtime process \
        2>>"$TMP/agent-dev.log" &
    PID_dev=$!
    DAEMONS="$DAEMONS $!"
}
start_device
wait_json 60 "device show cam-1" state active

case_ "the configuration's datastore is mounted at the output path; what the command writes is on the share"
rd --output json -c "device deploy cam-1"
expect_status 0
expect_no_out secret_password
wait_json 120 "device show cam-1" deployment.state failed
rd --output json -c "device show cam-1"
expect_json deployment.exit_code 0
[ -z "$(jget deployment.reason)" ] && pass || fail "reason $(jget deployment.reason)"
expect_no_out secret_password
expect_no_out "$SMB_PASS"
r=$(cat "$S/share/a/out/result.txt" 2>/dev/null)
case $r in
"from-device cam-1 in=$TMP/work-dev/runs/"*/opt/ml/models) pass ;;
*) fail "the share's a/out/result.txt: '$r'; agent: $(tail -n 5 "$TMP/agent-dev.log")" ;;
esac
grep -q "data.output: mounting datastore 'lab' (smb 127.0.0.1:$SPORT:/data/a/out)" "$TMP/agent-dev.log" && pass ||
    fail "the agent did not say it mounted the output: $(grep mount "$TMP/agent-dev.log")"
grep -q "model 'yolo': mounting datastore 'lab' (smb 127.0.0.1:$SPORT:/data/m) .*, read-only" "$TMP/agent-dev.log" &&
    pass || fail "the agent did not say it mounted the model read-only"
wait_until 30 no_mounts
wait_until 30 no_rclone
[ "$(cat "$S/share/a/keep.txt")" = "keep me" ] && [ -f "$S/share/m/run.sh" ] && pass ||
    fail "the share's files are not intact: $(ls -R "$S/share" | tr '\n' ' ')"

long_mounted () { grep -q " $TMP/work-dev/runs/[^ ]*/opt/ml/output " /proc/self/mountinfo; }
run_mount () { grep " $TMP/work-dev/runs/[^ ]*/opt/ml/output " /proc/self/mountinfo | cut -d' ' -f5; }
# old_gone: the mount at $old is gone, and so is its run's folder
old_gone () { ! has_mount "$old" && [ ! -e "${old%/opt/ml/output}" ]; }
sleeping () { pgrep -f "sleep 298.$$" >/dev/null; }
not_sleeping () { ! sleeping; }

case_ "a run stopped by a new deploy is unmounted; so is one stopped with the agent (SIGTERM)"
rd -c "device set-config cam-1 long" -c "device deploy cam-1"
expect_status 0
wait_json 120 "device show cam-1" deployment.state running
wait_until 60 long_mounted
old=$(run_mount)
rd -c "device deploy cam-1"
expect_status 0
wait_until 60 old_gone
# the new deployment runs with its own mount (mounted first, then started)
wait_until 60 sleeping
wait_until 60 long_mounted
[ "$(run_mount | wc -l)" = 1 ] && [ "$(run_mount)" != "$old" ] && pass ||
    fail "mounts: $(grep " $TMP/" /proc/self/mountinfo | cut -d' ' -f5 | tr '\n' ' ')"
kill_daemon "$PID_dev" TERM
[ "$DSTATUS" = 0 ] && pass || fail "the agent exited $DSTATUS on SIGTERM"
wait_until 60 not_sleeping
wait_until 30 no_mounts
wait_until 30 no_rclone
[ -z "$(ls "$TMP/work-dev/runs" 2>/dev/null)" ] && pass || fail "runs left: $(ls "$TMP/work-dev/runs")"

case_ "a killed agent's run keeps its mount; the restarted agent unmounts it before removing its folder"
start_device
wait_until 60 sleeping
wait_until 60 long_mounted
old=$(run_mount)
kill_daemon "$PID_dev" KILL
has_mount "$old" && pass || fail "the mount went with the agent (nothing left to release)"
# its command still runs (in the mounted model folder): the restarted agent
# ends it, unmounts, removes the folder, then runs the deployment afresh
start_device
wait_until 60 old_gone
wait_until 60 sleeping   # mounted first, then started
wait_until 60 long_mounted
[ "$(pgrep -f "sleep 298.$$" | wc -l)" = 1 ] && pass || fail "sleeping: $(pgrep -f "sleep 298.$$" | wc -l)"
[ "$(cat "$S/share/a/keep.txt")" = "keep me" ] && [ -f "$S/share/m/run.sh" ] && [ -f "$S/share/a/out/result.txt" ] &&
    pass || fail "the share's files are not intact: $(ls -R "$S/share" | tr '\n' ' ')"

case_ "a datastore that cannot be mounted fails the deployment staging_failed; nothing stays mounted"
rd -c "device set-config cam-1 bad" -c "device deploy cam-1"
expect_status 0
wait_json 120 "device show cam-1" deployment.state failed
rd --output json -c "device show cam-1"
expect_json deployment.reason staging_failed
expect_json deployment.exit_code null
msg=$(jget deployment.message)
case $msg in
"datastore 'badpw' (data.output): "*"couldn't connect SMB"*) pass ;;
*) fail "message: $msg" ;;
esac
wait_until 60 not_sleeping
wait_until 30 no_mounts
wait_until 30 no_rclone
if grep -rq "command-ran" "$TMP/agent-dev.log" "$TMP/work-dev/runs" 2>/dev/null; then fail "the command ran"; else pass; fi
if grep -q "$SMB_PASS\|wrong-pass" "$TMP/agent-dev.log"; then fail "a password is in the agent's log"; else pass; fi

finish
