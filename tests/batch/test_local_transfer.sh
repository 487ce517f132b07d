#!/bin/sh
# Data of type local (docs/operations.md, "Data"): a real agent on the
# process runtime runs an inference job whose data.input is a folder on
# "the user's computer" (here: this test's temp dir) and whose
# data.output is local too.  The worker waits in staging ("waiting for job
# send", unbilled, its record naming the agent's transfer server and a
# sealed token); `job send` packs the folder and uploads it, the command
# sees its files and writes its output; the worker then waits in
# uploading ("waiting for job receive"); `job receive --into DIR` gets
# "<job name>.zip" whose content is what the command wrote, and the
# worker finishes.  A request with a wrong token is refused by the agent,
# and another tenant's `job send` by the store, in one line.  Nobody
# sending within a short deadline (RIGDECK_TRANSFER_WAIT) fails the worker
# staging_failed naming data.input, and costs nothing.  A local
# model.source that is one file (~/model.py) is kept as it is.  Runs on SQLite
# and, with RIGDECK_TEST_STORE_URL, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

command -v curl >/dev/null 2>&1 || skip "curl is not installed"

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account create alice --plan team" -c "account deposit alice 100" \
   -c "account create bob --plan team" -c "account deposit bob 100" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0

mkdir -p "$TMP/home/in/deep" "$TMP/home/out" "$TMP/got"
echo "first" >"$TMP/home/in/a.txt"
echo "second" >"$TMP/home/in/deep/b.txt"
# the spec names the folders through $VAR, expanded on "this computer"
export RDTEST_HOME="$TMP/home"

# loc_job NAME: an inference job whose input and output are local
loc_job () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: inference
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers:
  count: 1
  commands:
    - |-
      : rdtest-worker-$$; cd "\$ML_DATA_PATH" && find . -type f | sort && cat deep/b.txt >"\$ML_OUTPUT_PATH/result.txt" && echo done >>"\$ML_OUTPUT_PATH/result.txt"
data:
  input: {type: local, path: "\$RDTEST_HOME/in"}
  output: {type: local, path: "\$RDTEST_HOME/out"}
environment: {python: "3.9", framework: pytorch}
EOF
}
asub () { rd --as alice --output json -c "job submit $TMP/$1.yaml"; jget id; }
billed () {
    rd --output json -c "ledger entries --account alice --kind usage_fee"
    jget items | python3 -c "import json,sys; print(sum(t['amount_ucr'] for t in json.load(sys.stdin) if '$1' in t['id']))"
}

start_serve s1 --sched-every 1s

case_ "a node without the fleet's master key fails the worker, naming why, and makes no key"
# The agent seals the transfer token for the admin hosts; a key of the
# node's own would seal what they cannot open.  Nothing has sealed anything
# yet in this scenario, so there is no key.
rm -f "$RIGDECK_MASTER_KEY"
RIGDECK_TRANSFER_LISTEN=127.0.0.1:0 start_agent n1 --inventory $INV/a100x4.yaml
loc_job nokey
J=$(asub nokey)
wait_json 120 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason staging_failed
expect_out "data.input (type local): the transfer token cannot be sealed on this node"
[ ! -e "$RIGDECK_MASTER_KEY" ] && pass || fail "the agent made a master key of its own"
[ "$(billed "$J")" = 0 ] && pass || fail "a worker that could not seal its token was billed"
kill_daemon "$(agent_pid n1)" TERM
# the admin host seals something first (a key), which makes the fleet's key
printf 'hf_0123456789abcdef\n' >"$TMP/hf.token"
rd --as alice -c "key add hub --type huggingface --file $TMP/hf.token"
expect_status 0
[ -s "$RIGDECK_MASTER_KEY" ] && pass || fail "key add made no master key"

case_ "nobody sends within the deadline: staging_failed naming data.input, nothing billed"
RIGDECK_TRANSFER_LISTEN=127.0.0.1:0 RIGDECK_TRANSFER_WAIT=3 start_agent n1 --inventory $INV/a100x4.yaml
loc_job late
J=$(asub late)
wait_json 120 "job show $J" workers.0.message "waiting for job send"
wait_json 120 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason staging_failed
expect_json workers.0.message "data.input (type local): no one sent it within 3 s (rigdeck job send)"
expect_json workers.0.started_at null
[ "$(billed "$J")" = 0 ] && pass || fail "a worker that waited for job send was billed"
kill_daemon "$(agent_pid n1)" TERM

case_ "job send uploads the folder; the command sees it; job receive gets the output"
RIGDECK_TRANSFER_LISTEN=127.0.0.1:0 start_agent n1 --inventory $INV/a100x4.yaml
loc_job loc
J=$(asub loc)
wait_json 120 "job show $J" workers.0.message "waiting for job send"
rd --output json -c "job show $J"
expect_json workers.0.state starting
expect_json workers.0.phase staging
expect_json workers.0.transfer.host 127.0.0.1
PORT=$(python3 tests/jget.py workers.0.transfer.port <"$OUT")
TOK=$(python3 tests/jget.py workers.0.transfer.token <"$OUT")
[ -n "$PORT" ] && [ -n "$TOK" ] && pass || fail "the worker's record names no transfer"

case_ "a wrong token is refused by the agent; another tenant by the store"
code=$(curl -s -o "$TMP/ans" -w '%{http_code}' -T "$TMP/home/in/a.txt" -H "X-Rigdeck-Token: $TOK" \
       "http://127.0.0.1:$PORT/send/input")
[ "$code" = 403 ] && grep -q "^refused" "$TMP/ans" && pass || fail "the sealed token as the token: HTTP $code"
code=$(curl -s -o "$TMP/ans" -w '%{http_code}' -T "$TMP/home/in/a.txt" "http://127.0.0.1:$PORT/send/input")
[ "$code" = 403 ] && pass || fail "no token: HTTP $code"
rd --as bob -c "job send $J"
expect_status 1; expect_err "$J"; expect_err_lines 1

case_ "job send, then the command runs with the files"
rd --as alice --output json -c "job send $J"
expect_status 0
expect_json sent.0.item data.input
expect_json sent.0.folder true
wait_json 120 "job show $J" workers.0.message "waiting for job receive"
rd --output json -c "job show $J"
expect_json workers.0.state running
expect_json workers.0.phase uploading
rd -c "job logs $J"
expect_out "^./a.txt$"
expect_out "^./deep/b.txt$"
rd --as bob -c "job receive $J --into $TMP/got"
expect_status 1; expect_err "$J"; expect_err_lines 1
rd --as alice --output json -c "job receive $J --into $TMP/got"
expect_status 0
[ -f "$TMP/got/loc.zip" ] && pass || fail "job receive wrote no loc.zip"
python3 - "$TMP/got/loc.zip" <<'PY' && pass || fail "the zip's content differs"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    assert z.namelist() == ["result.txt"], z.namelist()
    assert z.read("result.txt") == b"second\ndone\n", z.read("result.txt")
PY
wait_json 120 "job show $J" state finished
rd --output json -c "job show $J"
expect_json workers.0.exit_code 0
expect_json workers.0.message ""
expect_json workers.0.transfer ""
if grep -q "$TOK" "$TMP/agent-n1.log"; then fail "the sealed token is in the agent's log"; else pass; fi

case_ "a local model.source that is one file: sent as it is, kept under its name in /opt/ml/models"
echo 'print("model from my computer")' >"$TMP/home/model.py"
cat >"$TMP/mod.yaml" <<EOF
name: mod
type: inference
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers: {count: 1, commands: [": rdtest-worker-$$; cat \$ML_MODEL_PATH/model.py"]}
model: {source: local, location: "~/model.py"}
environment: {python: "3.9", framework: pytorch}
EOF
J=$(asub mod)
wait_json 120 "job show $J" workers.0.message "waiting for job send"
HOME="$TMP/home" rd --as alice --output json -c "job send $J --worker 0"
expect_status 0
expect_json sent.0.item model.source
expect_json sent.0.folder false
wait_json 120 "job show $J" state finished
rd -c "job logs $J"
expect_out '^print("model from my computer")$'

finish
