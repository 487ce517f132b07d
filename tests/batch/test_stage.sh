#!/bin/sh
# Staging (execution.md §5): before a worker's command, unbilled, a real
# agent on the process runtime fetches its data into the worker's /opt/ml
# tree: two datasets served over HTTP by `python3 -m http.server` on
# 127.0.0.1 (a .tar.gz and a .zip, extracted into /opt/ml/input/<NAME>), a
# git model (a bare repository served over the same HTTP server: `git
# update-server-info`) cloned into /opt/ml/models, and a key of type env
# handed to the command as variables.  The command lists its input, reads
# its model's code and prints the key's variable (`job logs`); `job show`
# said `phase: staging` meanwhile, `running` after (none once it ended).  A dataset whose
# source is gone (HTTP 404) fails the worker `staging_failed` naming the
# dataset and the status line, with no started_at and nothing billed; an
# archive with a `../` entry is refused the same way and writes nothing
# outside its folder.  An inference job's data.input: a .zip extracted
# into /opt/ml/input, a URL ending in `/` (http.server's listing) copied
# whole with rclone.  S3: a real S3-compatible server, s3rver from the npm
# registry (installed once into $RIGDECK_TEST_S3RVER_DIR, default
# /tmp/rigdeck-test-s3rver; the case is left out, saying so, where npm
# cannot fetch it), on 127.0.0.1, reached through the dataset's --endpoint
# with a key of type aws: a prefix copied whole and an archive extracted; a
# prefix that is not there fails staging_failed.  Where podman can run
# containers, the same data in a container at /opt/ml.  Runs on SQLite
# and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

command -v git >/dev/null 2>&1 || skip "git is not installed"

W=$TMP/www
mkdir -p "$W" "$TMP/src/one/a" "$TMP/src/two"
echo "first dataset" >"$TMP/src/one/a/hello.txt"
echo "second dataset" >"$TMP/src/two/b.txt"
tar -C "$TMP/src/one" -czf "$W/one.tar.gz" a
python3 - "$TMP/src/two/b.txt" "$W/two.zip" "$W/evil.tar.gz" <<'PY' || { echo "could not build the archives" >&2; exit 1; }
import io, sys, tarfile, zipfile
with zipfile.ZipFile(sys.argv[2], "w") as z:
    z.write(sys.argv[1], "b.txt")
with tarfile.open(sys.argv[3], "w:gz") as t:
    data = b"escaped\n"
    info = tarfile.TarInfo("../../evil-escaped.txt")
    info.size = len(data)
    t.addfile(info, io.BytesIO(data))
PY
# the model: a bare repository served as static files
git init -q "$TMP/modelsrc"
echo 'print("model code here")' >"$TMP/modelsrc/train.py"
git -C "$TMP/modelsrc" add train.py
git -C "$TMP/modelsrc" -c user.name=t -c user.email=t@example.com commit -q -m model
git clone -q --bare "$TMP/modelsrc" "$W/model.git"
git -C "$W/model.git" update-server-info

http_serve "$W"
PORT=$HTTP_PORT
U=http://127.0.0.1:$PORT

printf 'STAGE_TOKEN=sekrit-42\nOTHER_VAR=x y\n' >"$TMP/vars.env"
rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
   -c "key add vars --type env --file $TMP/vars.env" \
   -c "dataset add one --source $U/one.tar.gz" -c "dataset add 'Two Set' --source $U/two.zip" \
   -c "dataset add gone --source $U/missing.tar.gz" -c "dataset add evil --source $U/evil.tar.gz"
expect_status 0

# data_job NAME DATASETS COMMAND
data_job () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers:
  count: 1
  commands:
    - |-
      : rdtest-worker-$$; $3
data: {datasets: $2}
model: {source: git, location: "$U/model.git"}
environment:
  python: "3.9"
  framework: pytorch
  keys: [vars]
EOF
}

case_ "two datasets, a git model and an env key are staged before the command, which sees them"
start_serve s1 --sched-every 1s
start_agent n1 --inventory $INV/a100x4.yaml
data_job ok '[one, "Two Set"]' 'cd "$ML_DATA_PATH" && find . -type f | sort; cat "$ML_MODEL_PATH/train.py"; echo "tok=$STAGE_TOKEN other=$OTHER_VAR"; echo "out=$ML_OUTPUT_PATH"'
J=$(submit ok)
wait_json 120 "job show $J" state finished
rd --output json -c "job show $J"
expect_json workers.0.exit_code 0
expect_json workers.0.phase ""   # it said staging, then running; an ended worker has none
rd -c "job logs $J"
expect_status 0
expect_out "^./one/a/hello.txt$"
expect_out "^./Two_Set/b.txt$"
expect_out '^print("model code here")$'
expect_out "^tok=sekrit-42 other=x y$"
expect_out "^out=.*/$J/0/opt/ml/output$"
expect_no_out "one.tar.gz"      # the archive itself is gone once extracted
grep -q "GET /model.git/info/refs" "$TMP/http.log" && pass || fail "git never fetched the model over HTTP"
grep -q "staging 3 item(s)" "$TMP/agent-n1.log" && pass || fail "the agent did not say it staged"
rd --output json -c "job show $J"
if grep -q "sekrit-42" "$OUT" "$TMP/agent-n1.log" "$TMP/s1.log"; then fail "a key's value is in job show or a log"; else pass; fi

case_ "a dataset whose source is gone: failed, staging_failed, naming it, never started, nothing billed"
data_job gone '[one, gone]' 'echo command-ran'
J=$(submit gone)
wait_json 120 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.state failed
expect_json workers.0.reason staging_failed
expect_json workers.0.message "dataset 'gone': HTTP 404 File not found"
expect_json workers.0.started_at null
expect_json workers.0.phase staging     # where it was when it failed
rd --output json -c "ledger entries --account default --kind usage_fee"
billed=$(jget items | python3 -c "import json,sys; print(sum(t['amount_ucr'] for t in json.load(sys.stdin) if '$J' in t['id']))")
[ "$billed" = 0 ] && pass || fail "a failed staging billed $billed ucr"
rd -c "job logs $J"
expect_no_out "command-ran"
[ ! -d "$TMP/work-n1/$J" ] && pass || fail "the failed worker's directory is left behind"

case_ "an inference job's data.input: an archive extracted into /opt/ml/input, a folder URL copied whole"
cat >"$TMP/inf.yaml" <<EOF
name: inf
type: inference
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers: {count: 1, commands: [": rdtest-worker-$$; cd \$ML_DATA_PATH && find . -type f | sort"]}
data: {input: {type: web, path: "$U/two.zip"}}
environment: {python: "3.9", framework: pytorch}
EOF
J=$(submit inf)
wait_json 120 "job show $J" state finished
rd -c "job logs $J"
expect_out "^./b.txt$"
expect_no_out "two.zip"
mkdir -p "$W/folder/deep"
echo f1 >"$W/folder/f1.txt"
echo f2 >"$W/folder/deep/f2.txt"
sed -i "s|$U/two.zip|$U/folder/|" "$TMP/inf.yaml"
J=$(submit inf)
wait_json 120 "job show $J" state finished
rd -c "job logs $J"
expect_out "^./f1.txt$"
expect_out "^./deep/f2.txt$"

case_ "an archive entry that would land outside its folder is refused"
data_job evil '[evil]' 'echo command-ran'
J=$(submit evil)
wait_json 120 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason staging_failed
expect_out "dataset 'evil': evil.tar.gz: the entry '../../evil-escaped.txt' would land outside the target folder; refused"
found=$(find "$TMP" -name evil-escaped.txt | head -1)
[ -z "$found" ] && pass || fail "the escaping entry was written: $found"

case_ "S3 through --endpoint (s3rver): a prefix copied whole, an archive extracted, a missing prefix refused"
S3D=${RIGDECK_TEST_S3RVER_DIR:-/tmp/rigdeck-test-s3rver}
if [ ! -x "$S3D/node_modules/.bin/s3rver" ] && command -v npm >/dev/null 2>&1; then
    mkdir -p "$S3D" && (cd "$S3D" && timeout 300 npm install --no-audit --no-fund s3rver@3.7.1 >/dev/null 2>&1)
fi
if [ ! -x "$S3D/node_modules/.bin/s3rver" ] || ! command -v rclone >/dev/null 2>&1; then
    echo "  (s3rver could not be installed from npm, or rclone is missing: the S3 case is left out)" >&2
else
    mkdir -p "$TMP/s3data" "$TMP/s3up/pre/sub"
    "$S3D/node_modules/.bin/s3rver" --address 127.0.0.1 --port 0 --directory "$TMP/s3data" \
        --configure-bucket bkt >"$TMP/s3rver.log" 2>&1 &
    DAEMONS="$DAEMONS $!"
    S3PORT=""
    end=$(($(date +%s) + 30))
    while [ -z "$S3PORT" ] && [ "$(date +%s)" -le "$end" ]; do
        S3PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/s3rver.log")
        [ -n "$S3PORT" ] || sleep 0.2
    done
    echo "object one" >"$TMP/s3up/pre/o1.txt"
    echo "object two" >"$TMP/s3up/pre/sub/o2.txt"
    cp "$W/one.tar.gz" "$TMP/s3up/arch.tar.gz"
    # the test's own upload, with rclone (AWS_CA_BUNDLE upsets rclone 1.60)
    env -u AWS_CA_BUNDLE RCLONE_S3_PROVIDER=Other RCLONE_S3_ENDPOINT="http://127.0.0.1:$S3PORT" RCLONE_S3_ENV_AUTH=false \
        RCLONE_S3_ACCESS_KEY_ID=S3RVER RCLONE_S3_SECRET_ACCESS_KEY=S3RVER \
        rclone copy --config /dev/null "$TMP/s3up" :s3:bkt >"$TMP/s3up.log" 2>&1 && pass || fail "upload: $(cat "$TMP/s3up.log")"
    printf 'AWS_ACCESS_KEY_ID=S3RVER\nAWS_SECRET_ACCESS_KEY=S3RVER\n' >"$TMP/s3.env"
    E=http://127.0.0.1:$S3PORT
    rd -c "key add s3k --type aws --file $TMP/s3.env" \
       -c "dataset add s3pre --source s3://bkt/pre/ --key s3k --endpoint $E" \
       -c "dataset add s3arch --source s3://bkt/arch.tar.gz --key s3k --endpoint $E" \
       -c "dataset add s3gone --source s3://bkt/nothing-here/ --key s3k --endpoint $E"
    expect_status 0
    data_job s3 '[s3pre, s3arch]' 'cd "$ML_DATA_PATH" && find . -type f | sort'
    J=$(submit s3)
    wait_json 120 "job show $J" state finished
    rd -c "job logs $J"
    expect_out "^./s3pre/o1.txt$"
    expect_out "^./s3pre/sub/o2.txt$"
    expect_out "^./s3arch/a/hello.txt$"
    expect_no_out "arch.tar.gz"
    data_job s3g '[s3gone]' 'echo command-ran'
    J=$(submit s3g)
    wait_json 120 "job show $J" state failed
    rd --output json -c "job show $J"
    expect_json workers.0.reason staging_failed
    expect_json workers.0.message "dataset 's3gone': nothing there to copy"
fi

case_ "in a container (podman): the same tree bind-mounted at /opt/ml, ML_*_PATH naming it"
. tests/batch/podman.sh
IMG=docker.io/rigdecktest/stage-$$:1
if ! podman_conf || ! podman_rootfs "$TMP/rootfs" sh cat find sort echo ls || ! podman_image "$TMP/rootfs" "$IMG"; then
    echo "  ($PODMAN_WHY: the container case is left out)" >&2
else
    rd -c "node add dc c1 --minion m-c1 --inventory $INV/cpu.yaml" -c "node maintenance c1 off" \
       -c "price set cpu 0.2" -c "node maintenance n1 on"
    expect_status 0
    start_agent c1 --inventory $INV/cpu.yaml --runtime podman
    cat >"$TMP/ctr.yaml" <<EOF
name: ctr
type: training
resources: {gpu_types: [cpu], cpu_count: 4, max_price: 1, disk_size: 20}
workers: {count: 1, commands: ["cd /opt/ml/input && find . -type f | sort; cat /opt/ml/models/train.py; echo data=\$ML_DATA_PATH model=\$ML_MODEL_PATH tok=\$STAGE_TOKEN"]}
data: {datasets: [one, "Two Set"]}
model: {source: git, location: "$U/model.git"}
environment: {image: $IMG, keys: [vars]}
EOF
    J=$(submit ctr)
    wait_json 120 "job show $J" state finished
    rd -c "job logs $J"
    expect_out "^./one/a/hello.txt$"
    expect_out "^./Two_Set/b.txt$"
    expect_out '^print("model code here")$'
    expect_out "^data=/opt/ml/input model=/opt/ml/models tok=sekrit-42$"
    podman rmi -f "$IMG" >/dev/null 2>&1
fi

finish
