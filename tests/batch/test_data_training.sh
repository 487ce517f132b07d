#!/bin/sh
# Issue 32's "done when", as one scenario (execution.md §5; docs/operations.md,
# "Data"): alice's training job attaches two datasets, an HTTP archive
# served by `python3 -m http.server` on 127.0.0.1 and an S3 prefix in a real
# S3-compatible server (s3rver, tests/batch/s3rver.sh, through the dataset's
# --endpoint), a git model (a bare repository served by the same HTTP
# server: `git update-server-info`), a key of type aws (environment.keys:
# it reads the S3 prefix and writes the output, and the worker gets its
# AWS_* variables), and an S3 output (type wasabi, the same server).  A
# real agent on the process runtime stages all of it before the command;
# the command lists its data, reads its model's code and writes both into
# $ML_OUTPUT_PATH, whose zip lands in the bucket as "<job name>.zip"; the
# test fetches and unzips it.  Then a job whose dataset's source is gone
# (HTTP 404), and one whose HTTP server has stopped, fail `staging_failed`
# naming the dataset, never start, and cost nothing while the first job is
# billed.  Runs on SQLite and, with RIGDECK_TEST_STORE_URL, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

command -v git >/dev/null 2>&1 || skip "git is not installed"
. tests/batch/s3rver.sh

# ---- the sources --------------------------------------------------------------
W=$TMP/www
mkdir -p "$W" "$TMP/img/images/cats" "$TMP/lab/sub"
echo "a cat" >"$TMP/img/images/cats/c1.jpg"
echo "a dog" >"$TMP/img/images/d1.jpg"
tar -C "$TMP/img" -czf "$W/images.tar.gz" images
cp "$W/images.tar.gz" "$W/vanishing.tar.gz"
echo "c1,cat" >"$TMP/lab/labels.csv"
echo "d1,dog" >"$TMP/lab/sub/more.csv"
s3 copy "$TMP/lab" :s3:results/labels && pass || fail "could not put the S3 prefix: $(tail -1 "$TMP/rclone.log")"
git init -q "$TMP/modelsrc"
echo 'print("training the model")' >"$TMP/modelsrc/train.py"
git -C "$TMP/modelsrc" add train.py
git -C "$TMP/modelsrc" -c user.name=t -c user.email=t@example.com commit -q -m model
git clone -q --bare "$TMP/modelsrc" "$W/model.git"
git -C "$W/model.git" update-server-info

http_serve "$W"
HPORT=$HTTP_PORT
U=http://127.0.0.1:$HPORT

# ---- the platform and alice's objects ----------------------------------------
printf 'AWS_ACCESS_KEY_ID=S3RVER\nAWS_SECRET_ACCESS_KEY=S3RVER\n' >"$TMP/aws.env"
rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account create alice --plan team" -c "account deposit alice 100" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0
rd --as alice -c "key add aws --type aws --file $TMP/aws.env" \
   -c "dataset add Images --source $U/images.tar.gz" \
   -c "dataset add 'S3 Labels' --source s3://results/labels/ --endpoint $EP" \
   -c "dataset add Vanishing --source $U/vanishing.tar.gz"
expect_status 0

# train_job NAME DATASETS: alice's training job; its command lists its data,
# reads its model's code and says which AWS key id it was given, all into
# its output folder (and its log), then runs for a couple of seconds so
# that it is billed something.
train_job () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
data:
  datasets: $2
  output: {type: wasabi, path: "s3://results/out", endpoint: "$EP"}
model: {source: git, location: "$U/model.git"}
workers:
  count: 1
  commands:
    - |-
      : rdtest-worker-$$; set -e; echo command-ran
      ls -R "\$ML_DATA_PATH" >"\$ML_OUTPUT_PATH/ls-R.txt"
      (cd "\$ML_DATA_PATH" && find . -type f | sort) | tee "\$ML_OUTPUT_PATH/data.txt"
      cat "\$ML_MODEL_PATH/train.py" | tee "\$ML_OUTPUT_PATH/model.txt"
      echo "key=\$AWS_ACCESS_KEY_ID" >"\$ML_OUTPUT_PATH/key.txt"
      sleep 2
environment: {python: "3.9", framework: pytorch, keys: [aws]}
EOF
    rd --as alice --output json -c "job submit $TMP/$1.yaml"
    J=$(jget id)
}
# fee JOB: what alice's ledger entries for JOB add up to (usage fees or GPU
# rental, whichever the node's kind bills), in micro-credits
fee () {
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "ledger entries --account alice" |
        python3 -c "import json,sys; print(sum(t['amount_ucr'] for t in json.load(sys.stdin)['items'] if '/$1/' in t['id']))"
}
fee_positive () { [ "$(fee "$1")" -gt 0 ] 2>/dev/null; }

start_serve s1 --sched-every 1s
start_agent n1 --inventory $INV/a100x4.yaml

case_ "a training job with an HTTP archive, an S3 prefix, a git model, an aws key and an S3 output"
train_job resnet '[Images, "S3 Labels"]'
[ -n "$J" ] && pass || fail "job submit: $(cat "$ERR")"
TRAIN=$J
wait_json 300 "job show $J" state finished
rd --output json -c "job show $J"
expect_json workers.0.exit_code 0
expect_json workers.0.reason ""
rd --as alice -c "job logs $J"
expect_out "^./Images/images/cats/c1.jpg$"
expect_out "^./Images/images/d1.jpg$"
expect_out "^./S3_Labels/labels.csv$"
expect_out "^./S3_Labels/sub/more.csv$"
expect_out '^print("training the model")$'
expect_no_out "images.tar.gz"   # the archive itself is gone once extracted
grep -q "GET /model.git/info/refs" "$TMP/http.log" && pass || fail "git never fetched the model over HTTP"
grep -q "GET /images.tar.gz" "$TMP/http.log" && pass || fail "the HTTP dataset was never fetched"

case_ "its output lands in the bucket as <job name>.zip, holding what the worker saw"
rm -rf "$TMP/got" "$TMP/got.zip"
s3 copyto :s3:results/out/resnet.zip "$TMP/got.zip" && pass || fail "no object results/out/resnet.zip"
python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$TMP/got.zip" "$TMP/got" &&
    pass || fail "results/out/resnet.zip is not a zip"
printf '%s\n' ./Images/images/cats/c1.jpg ./Images/images/d1.jpg ./S3_Labels/labels.csv ./S3_Labels/sub/more.csv \
    >"$TMP/want.txt"
cmp -s "$TMP/want.txt" "$TMP/got/data.txt" && pass || fail "data.txt in the zip: $(cat "$TMP/got/data.txt" 2>&1)"
grep -q '^print("training the model")$' "$TMP/got/model.txt" && pass || fail "model.txt: $(cat "$TMP/got/model.txt" 2>&1)"
grep -q "^key=S3RVER$" "$TMP/got/key.txt" && pass || fail "the aws key's variables: $(cat "$TMP/got/key.txt" 2>&1)"
# `ls -R` of the data: one folder per dataset (spaces as _), the archive extracted
for want in '^Images$' '^S3_Labels$' '/Images/images/cats:$' '^c1.jpg$' '/S3_Labels/sub:$' '^more.csv$'; do
    grep -q "$want" "$TMP/got/ls-R.txt" && pass || fail "ls -R lacks $want: $(cat "$TMP/got/ls-R.txt" 2>&1)"
done
grep -q "S3RVER" "$TMP/agent-n1.log" "$TMP/s1.log" && fail "a log holds the key" || pass

case_ "the training job is billed"
wait_until 120 fee_positive "$TRAIN"

case_ "a dataset whose source is gone (HTTP 404): failed, staging_failed naming it, never started, costs nothing"
rm -f "$W/vanishing.tar.gz"
train_job gone '[Images, Vanishing]'
GONE=$J
wait_json 300 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason staging_failed
expect_json workers.0.message "dataset 'Vanishing': HTTP 404 File not found"
expect_json workers.0.started_at null
rd --as alice -c "job logs $J"
expect_no_out "command-ran"

case_ "the HTTP server stopped: staging_failed naming the dataset, never started, costs nothing"
kill "$HTTP_PID"
wait_until 60 sh -c "! kill -0 $HTTP_PID 2>/dev/null"
train_job stopped '[Images]'
STOPPED=$J
wait_json 300 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason staging_failed
expect_json workers.0.started_at null
msg=$(jget workers.0.message)
case $msg in "dataset 'Images': "*"127.0.0.1"*) pass ;; *) fail "message '$msg' does not name the dataset and the server" ;; esac
s3 lsf :s3:results/out/ >"$TMP/ls.txt"
grep -q -e gone -e stopped "$TMP/ls.txt" && fail "a job that never ran uploaded an output" || pass
[ "$(fee "$GONE")" = 0 ] && pass || fail "the failed staging (404) billed $(fee "$GONE") ucr"
[ "$(fee "$STOPPED")" = 0 ] && pass || fail "the failed staging (server stopped) billed $(fee "$STOPPED") ucr"

finish
