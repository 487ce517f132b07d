#!/bin/sh
# Regional datastore mounts (execution.md §5, agent_mount.c): a real SMB
# server, Debian's samba `smbd` on 127.0.0.1 on a free high port with its
# own smb.conf and user database in this scenario's temp dir, exports a
# share with folders a/ and b/.  A datastore (root /data, the share) names
# it with a user and a password file; a job on a process-runtime agent
# reads data.input /a/ and writes data.output /a/out.  Its datastore is
# mounted (rclone over FUSE), not copied: the command lists only a's files
# at $ML_DATA_PATH, cannot reach b by any `..`, cannot write its input (read
# only), and the file it writes lands in the share's a/out on disk.  Once
# the worker ends no mount is left (the whole of /proc/self/mountinfo is
# looked at), nor is its rclone process; the same for a worker stopped
# while it runs (`job stop`) and for an agent killed while its worker ran,
# then restarted after the worker died (the restarted agent sweeps the
# stale mount).  A wrong password fails the worker staging_failed naming
# the datastore and rclone's first line, unbilled, and leaves no mount; an
# NFS datastore on this kernel (no NFS client) fails the same way, saying
# so (left out where the kernel has one).
# Skipped where smbd, rclone, fusermount3 or /dev/fuse is missing
# (smbd.sh).  Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh
. tests/batch/smbd.sh
smbd_start
mkdir -p "$S/share/a" "$S/share/b"
echo "alpha file" >"$S/share/a/fa.txt"
echo "secret of b" >"$S/share/b/fb.txt"

printf 'sm8-pass\n' >"$TMP/pw"
printf 'wrong-pass\n' >"$TMP/badpw"
rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
   -c "datastore add dc lab --type smb --address 127.0.0.1:$SPORT --root /data --username $ME --password-file $TMP/pw" \
   -c "datastore add dc badpw --type smb --address 127.0.0.1:$SPORT --root /data --username $ME --password-file $TMP/badpw"
expect_status 0

# ds_job NAME DATASTORE COMMAND: an inference job reading /a/, writing /a/out
ds_job () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: inference
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers:
  count: 1
  commands:
    - |-
      : rdtest-worker-$$; $3
data:
  input: {type: regional, path: /a/}
  output: {type: regional, path: /a/out}
regional: {datastore: $2}
environment: {python: "3.9", framework: pytorch}
EOF
}

case_ "an SMB datastore mounted at the input and output: only its subtree, written through to the share"
start_serve s1 --sched-every 1s
start_agent n1 --inventory $INV/a100x4.yaml
ds_job rw lab 'echo "[input]"; ls "$ML_DATA_PATH"; echo "[up]"; ls "$ML_DATA_PATH/.."; echo "[up2]"; ls "$ML_DATA_PATH/../.."; cat "$ML_DATA_PATH/../b/fb.txt" "$ML_DATA_PATH/../../b/fb.txt" 2>&1; cat "$ML_DATA_PATH/fa.txt"; echo result-from-job >"$ML_OUTPUT_PATH/result.txt" && echo wrote-output; echo x >"$ML_DATA_PATH/nope.txt" 2>/dev/null && echo input-writable; echo "out=$ML_OUTPUT_PATH"; grep -c " $(dirname "$ML_DATA_PATH")/" /proc/self/mountinfo'
J=$(submit rw)
wait_json 120 "job show $J" state finished
rd -c "job logs $J"
expect_out "^fa.txt$"
expect_out "^alpha file$"
expect_out "^wrote-output$"
expect_no_out "^fb.txt$"      # b is not listed anywhere (the cat of ../b only says it is not there)
expect_no_out "secret of b"
expect_no_out "input-writable"
expect_out "^out=.*/$J/0/opt/ml/output$"
expect_out "^2$"                  # two mounts while it ran: input and output
[ "$(cat "$S/share/a/out/result.txt" 2>/dev/null)" = "result-from-job" ] && pass ||
    fail "the job's output is not in the share's a/out: $(ls -R "$S/share" | tr '\n' ' ')"
[ ! -e "$S/share/a/nope.txt" ] && pass || fail "the read-only input was written"
wait_until 30 no_mounts
wait_until 30 no_rclone
grep -q "mounting datastore 'lab' (smb 127.0.0.1:$SPORT:/data/a)" "$TMP/agent-n1.log" && pass ||
    fail "the agent did not say what it mounted"
[ "$(cat "$S/share/a/fa.txt")" = "alpha file" ] && [ -f "$S/share/b/fb.txt" ] && pass ||
    fail "the share's files are not intact after the worker's folder went"
if grep -q "sm8-pass" "$TMP/agent-n1.log" "$TMP/s1.log"; then fail "the password is in a log"; else pass; fi
rd --output json -c "job show $J"
if grep -q "sm8-pass\|secret_password" "$OUT"; then fail "job show carries the password"; else pass; fi

case_ "a worker stopped while it runs leaves no mount"
ds_job stop lab 'ls "$ML_DATA_PATH"; echo started; sleep 300'
J=$(submit stop)
wait_json 120 "job show $J" state running
wait_until 60 has_mount "$TMP/work-n1/$J/0/opt/ml/input"
rd -c "job stop $J"
expect_status 0
wait_json 120 "job show $J" workers.0.state stopped
wait_until 30 no_mounts
wait_until 30 no_rclone

case_ "an agent killed while its worker ran, restarted after the worker died, sweeps the stale mount"
ds_job crash lab 'ls "$ML_DATA_PATH"; sleep 300'
J=$(submit crash)
wait_json 120 "job show $J" state running
wait_until 60 has_mount "$TMP/work-n1/$J/0/opt/ml/output"
kill_daemon "$(agent_pid n1)" KILL
# the worker (and its shim) die while no agent looks
for p in $(pgrep -f "rdtest-worker-$$"); do kill_group "$p"; done
for p in $(pgrep -f -- "--work-dir $TMP/work-n1"); do kill -9 "$p" 2>/dev/null; done
has_mount "$TMP/work-n1/$J/0/opt/ml/output" && pass || fail "the mount went with the agent (nothing left to sweep)"
start_agent n1 --inventory $INV/a100x4.yaml
wait_until 60 no_mounts
wait_until 30 no_rclone
grep -q "releasing the mounts an earlier agent left" "$TMP/agent-n1.log" && pass ||
    fail "the restarted agent did not say it swept the mount"
wait_json 120 "job show $J" workers.0.state failed

case_ "a mount that cannot be made: failed, staging_failed, naming the datastore and the cause, unbilled"
ds_job bad badpw 'echo command-ran'
J=$(submit bad)
wait_json 120 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason staging_failed
expect_json workers.0.started_at null
msg=$(jget workers.0.message)
case $msg in
"datastore 'badpw' (data.input): "*"couldn't connect SMB"*) pass ;;
*) fail "message: $msg" ;;
esac
rd --output json -c "ledger entries --account default --kind usage_fee"
billed=$(jget items | python3 -c "import json,sys; print(sum(t['amount_ucr'] for t in json.load(sys.stdin) if '$J' in t['id']))")
[ "$billed" = 0 ] && pass || fail "a failed mount billed $billed ucr"
rd -c "job logs $J"
expect_no_out "command-ran"
wait_until 30 no_mounts
wait_until 30 no_rclone

case_ "an NFS datastore on a node whose kernel has no NFS client: staging_failed saying so"
if grep -qw 'nfs4\|nfs' /proc/filesystems || [ -d "/lib/modules/$(uname -r)/kernel/fs/nfs" ]; then
    echo "  (this kernel has an NFS client: the case is left out; the mount's command is unit-tested)" >&2
else
    rd -c "datastore add dc nas --type nfs --address 127.0.0.1 --root /exports"
    expect_status 0
    ds_job nfs nas 'echo command-ran'
    J=$(submit nfs)
    wait_json 120 "job show $J" state failed
    rd --output json -c "job show $J"
    expect_json workers.0.reason staging_failed
    expect_json workers.0.message "datastore 'nas' (data.input): this node's kernel has no NFS client (no nfs or nfs4 in /proc/filesystems); NFS datastores need one"
    wait_until 30 no_mounts
fi

finish
