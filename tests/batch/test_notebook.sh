#!/bin/sh
# Notebooks (execution.md §6): a real agent on the process runtime runs
# Jupyter (Debian's jupyter-notebook: the classic notebook, as no jupyter
# lab is installed) for a notebook job, on 127.0.0.1 (--address) at a port
# it picked, with a random token.  `job connect` gives the URL; Jupyter's
# /api/status answers 200 JSON with the token and 403 without it; the token
# is on no process's command line, in no `job show`, and sealed in the
# store (`store dump` lacks it).  Another tenant's `job connect` is refused
# as for a missing job; a job of another type, a worker that does not run
# and a worker index out of range are refused in one line.  `job stop`
# stops Jupyter: its port closes and its process is gone, and `job
# connect` then refuses.  Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

command -v jupyter-notebook >/dev/null 2>&1 || command -v jupyter-lab >/dev/null 2>&1 ||
    skip "jupyter is not installed (Debian: jupyter-notebook)"
command -v curl >/dev/null 2>&1 || skip "curl is not installed"

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "account create alice --plan team" -c "account deposit alice 100" \
   -c "account create bob --plan team" -c "account deposit bob 100" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0

cat >"$TMP/nb.yaml" <<EOF
name: nb
type: notebook
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
environment: {python: "3.9", framework: pytorch, env: {RDTEST_TAG: rdtest-worker-$$}}
EOF

case_ "a notebook job runs Jupyter; job connect gives its URL"
start_serve s1 --sched-every 1s
start_agent n1 --inventory $INV/a100x4.yaml --address 127.0.0.1
rd --as alice --output json -c "job submit $TMP/nb.yaml"
J=$(jget id)
wait_json 120 "job show $J" state running
rd --as alice --output json -c "job connect $J"
expect_status 0
URL=$(jget url)
PORT=$(jget port)
TOKEN=$(jget token)
expect_json host 127.0.0.1
[ "$URL" = "http://127.0.0.1:$PORT/?token=$TOKEN" ] && pass || fail "url '$URL' is not http://127.0.0.1:$PORT/?token=..."
printf '%s' "$TOKEN" | grep -Eq '^[0-9a-f]{48}$' && pass || fail "token '$TOKEN' is not 48 hex characters"

case_ "Jupyter answers its API with the token and refuses without it"
api_up () { curl -sf -o /dev/null "http://127.0.0.1:$PORT/api/status?token=$TOKEN"; }
wait_until 120 api_up
code=$(curl -s -o "$TMP/status.json" -w '%{http_code}' "http://127.0.0.1:$PORT/api/status?token=$TOKEN")
[ "$code" = 200 ] && pass || fail "with the token: HTTP $code"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "started" in d' "$TMP/status.json" && pass ||
    fail "/api/status did not answer Jupyter's JSON: $(cat "$TMP/status.json")"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/status")
[ "$code" = 403 ] && pass || fail "without the token: HTTP $code, not 403"
# (not the token with a prefix: Jupyter logs a refused URL, and its log
# reaches the store as the worker's output)
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/status?token=0123456789abcdef")
[ "$code" = 403 ] && pass || fail "with a wrong token: HTTP $code, not 403"

case_ "the token is on no command line, in no job show, and sealed in the store"
if ps -eo args | grep -v grep | grep -q "$TOKEN"; then fail "the token is on a command line"; else pass; fi
rd --as alice --output json -c "job show $J"
expect_json workers.0.serving.port "$PORT"
expect_json workers.0.serving.host 127.0.0.1
expect_no_out "$TOKEN"
expect_no_out "secret_token"
rd --output json -c "store dump"
expect_status 0
expect_no_out "$TOKEN"
# at rest: the SQLite file holds the sealed text, never the token
case $STORE in
sqlite:*)
    if cat "${STORE#sqlite:}"* | grep -a -q "$TOKEN"; then fail "the token is in the store in plain text"; else pass; fi
    cat "${STORE#sqlite:}"* | grep -a -q '"secret_token": *"rdsec1:' && pass || fail "no sealed token in the store" ;;
esac
rd --as alice -c "job list"
expect_no_out "$TOKEN"

case_ "job connect: another tenant, another type, a worker out of range"
rd --as bob -c "job connect $J"
expect_status 1
expect_err "does not exist"
expect_err_lines 1
rd --as alice -c "job connect $J --worker 3"
expect_status 1
expect_err "\-\-worker"
expect_err_lines 1
job_spec train "sleep 600"
T=$(submit train)
rd -c "job connect $T"
expect_status 1
expect_err "is a training job; only notebook and endpoint jobs serve"
expect_err_lines 1
rd -c "job stop $T"

case_ "job stop stops Jupyter: its port closes, its process is gone"
rd --as alice -c "job stop $J"
expect_status 0
wait_json 120 "job show $J" state stopped
port_closed () { ! curl -s -o /dev/null "http://127.0.0.1:$PORT/"; }
wait_until 60 port_closed
no_jupyter () { ! pgrep -f -- "--port=$PORT" >/dev/null; }
wait_until 60 no_jupyter
rd --as alice -c "job connect $J"
expect_status 1
expect_err "is stopped, not running"
expect_err_lines 1

finish
