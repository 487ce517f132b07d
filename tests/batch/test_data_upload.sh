#!/bin/sh
# Output after the command (execution.md §5, "After the command";
# docs/operations.md, "Data"): a real agent on the process runtime runs
# jobs that write into $ML_OUTPUT_PATH, and a real S3-compatible server
# (s3rver, from the npm registry, on 127.0.0.1) receives the zip of that
# folder as "<job name>.zip", or "<job name>_<index>.zip" for each worker
# of a two-worker job.  While it uploads the worker stays running, phase
# `uploading` with the archive's size, and is billed to the upload's end;
# an output to a bucket that does not exist fails the worker `failed`,
# reason upload_failed, with rclone's error line; type rigdeck stores the
# zip under the account's artifacts location and registers a dataset
# named after the job; a job stopped while it uploads ends the upload and
# uploads nothing.  Runs on SQLite and, with RIGDECK_TEST_STORE_URL,
# on etcd.  Skips (saying why) where npm or the registry cannot be reached.
. tests/batch/lib.sh
. tests/batch/daemons.sh

. tests/batch/s3rver.sh

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "account create alice --plan team" -c "account deposit alice 100" \
   -c "account create bob --plan team" -c "account deposit bob 100" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0
printf 'AWS_ACCESS_KEY_ID=S3RVER\nAWS_SECRET_ACCESS_KEY=S3RVER\n' >"$TMP/s3.env"
rd --as alice -c "key add s3 --type wasabi --file $TMP/s3.env"
expect_status 0

# out_job NAME WORKERS OUTPUT: a training job writing two files into its
# output folder (hello.txt, sub/deep.txt), uploading as OUTPUT says.
out_job () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
data:
  output: $3
workers:
  count: $2
  commands:
    - |-
      : rdtest-worker-$$; cd "\$ML_OUTPUT_PATH" && echo hello.txt >hello.txt && mkdir sub && echo deep.txt >sub/deep.txt
environment: {python: "3.9", framework: pytorch, keys: [s3]}
EOF
}
asub () { rd --as alice --output json -c "job submit $TMP/$1.yaml"; jget id; }

# A stand-in rclone first on the agent's PATH: it waits for $TMP/go (so
# the test sees the upload in progress), then runs the real one.
mkdir -p "$TMP/bin"
cat >"$TMP/bin/rclone" <<EOF
#!/bin/sh
while [ ! -e "$TMP/go" ]; do sleep 0.1; done
exec $(command -v rclone) "\$@"
EOF
chmod +x "$TMP/bin/rclone"

start_serve s1 --sched-every 1s
PATH="$TMP/bin:$PATH" start_agent n1 --inventory $INV/a100x4.yaml

case_ "one worker: the output folder lands in the bucket as <job name>.zip; running, uploading, billed meanwhile"
out_job first-run 1 "{type: wasabi, path: \"s3://results/out\", endpoint: \"$EP\"}"
J=$(asub first-run)
wait_json 120 "job show $J" workers.0.phase uploading
rd --output json -c "job show $J"
expect_json workers.0.state running
wait_until 60 sh -c "$WRAP $BIN --batch --store '$STORE' --output json -c 'job show $J' | python3 tests/jget.py workers.0.phase_bytes | grep -q '^[1-9]'"
sleep 2   # the upload takes these seconds: they are billed (whole seconds on both sides)
go_at=$(date -u +%s)
touch "$TMP/go"
wait_json 120 "job show $J" state finished
rd --output json -c "job show $J"
expect_json workers.0.exit_code 0
expect_json workers.0.phase ""
ended=$(jget workers.0.ended_at)
python3 -c "
import sys, datetime
e = datetime.datetime.strptime('$ended', '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=datetime.timezone.utc).timestamp()
sys.exit(0 if e >= $go_at else 1)" && pass || fail "ended_at $ended is before the upload ended ($go_at): the upload was not billed"
zip_has out/first-run.zip hello.txt sub/deep.txt
grep -q "$J/0: uploading its output to s3://results/out/first-run.zip" "$TMP/agent-n1.log" && pass ||
    fail "the agent's log lacks the upload"
grep -q "S3RVER" "$TMP/agent-n1.log" && fail "the agent's log holds the key" || pass

case_ "two workers: <job name>_0.zip and <job name>_1.zip"
out_job pair 2 "{type: wasabi, path: \"s3://results/pair/\", endpoint: \"$EP\"}"
J=$(asub pair)
wait_json 120 "job show $J" state finished
zip_has pair/pair_0.zip hello.txt sub/deep.txt
zip_has pair/pair_1.zip hello.txt sub/deep.txt

case_ "a bucket that does not exist: failed, upload_failed, rclone's error line"
out_job nowhere 1 "{type: wasabi, path: \"s3://no-such-bucket/x\", endpoint: \"$EP\"}"
J=$(asub nowhere)
wait_json 120 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason upload_failed
expect_json workers.0.exit_code 0
msg=$(jget workers.0.message)
case $msg in *NoSuchBucket*) pass ;; *) fail "message '$msg' lacks NoSuchBucket" ;; esac

case_ "type rigdeck needs the account's artifacts location at submit"
out_job art 1 "{type: rigdeck, path: dataset}"
before=$(snapshot)
rd --as alice -c "job submit $TMP/art.yaml"
expect_refused 1 "$before" "data.output: type rigdeck stores the results under the account's artifacts location"

case_ "type rigdeck: the zip under the artifacts location, a dataset named after the job for its creator"
rd --as alice -c "account set alice --artifacts s3://results/art --artifacts-key s3 --artifacts-endpoint $EP"
expect_status 0
J=$(asub art)
wait_json 120 "job show $J" state finished
rd --output json -c "job show $J"
expect_json workers.0.output_object.name art
zip_has "art/$J/art.zip" hello.txt sub/deep.txt
rd --as alice --output json -c "dataset show art"
expect_status 0
expect_json source "s3://results/art/$J/art.zip"
expect_json key s3
expect_json endpoint "$EP"
rd --as alice -c "dataset list"
expect_out "art"
rd --as bob -c "dataset list"
expect_no_out "art"

case_ "a second job of that name: its zip is kept apart, the name taken: upload_failed"
J2=$(asub art)
wait_json 120 "job show $J2" state failed
rd --output json -c "job show $J2"
expect_json workers.0.reason upload_failed
msg=$(jget workers.0.message)
case $msg in *"dataset 'art' of account 'alice' exists already"*) pass ;; *) fail "message '$msg'" ;; esac
zip_has "art/$J2/art.zip" hello.txt sub/deep.txt

case_ "only the node's side reports a worker uploading, and only while it runs"
rd --as bob -c "job report $J uploading --worker 0"
expect_status 1
expect_err "account 'bob' may report only on its own jobs"
rd -c "job report $J uploading --worker 0"
expect_status 1
expect_err "is finished, not running; it cannot be uploading"

case_ "a job stopped while its worker uploads: the upload ends, the worker is stopped, nothing lands"
rm -f "$TMP/go"
out_job halted 1 "{type: wasabi, path: \"s3://results/halted\", endpoint: \"$EP\"}"
J=$(asub halted)
wait_json 120 "job show $J" workers.0.phase uploading
rd --as alice -c "job stop $J"
expect_status 0
wait_json 120 "job show $J" workers.0.state stopped
# the upload's process is gone (the stand-in waits while it lives)
wait_until 30 sh -c "! pgrep -f '$TMP/bin/rclon[e]'"
s3 lsf -R :s3:results/ >"$TMP/ls.txt"
grep -q halted "$TMP/ls.txt" && fail "the stopped worker's output was uploaded" || pass

finish
