#!/bin/sh
# Job environment values are sealed at rest like other secrets.  `job
# submit` seals them with the master key, so the stored job document, `job
# show`, `job list`, the audit trail and the daemons' logs never hold one in
# plain text (the names stay visible, each value "***"); a real agent with
# the same key opens them and the worker's process sees the real values.  A
# document from before sealing (plain values) still runs as it is.  An
# agent with another key, or none, fails the worker with a reason and never
# starts it.  Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

SEALED=tok-7f3a9c-sealed         # values that must never be seen at rest
SPACED="two words e91b"
PLAIN_OLD=plain-old-5d2e         # a value as a document before sealing held it

# raw_values: every value in the store as the backend keeps it, bypassing
# rigdeck (whose results drop secret fields), history included on SQLite.
raw_values () {
    case $STORE in
    etcd://*) etcdctl --endpoints "http://${STORE#etcd://}" get --prefix /rigdeck/ ;;
    *) cat "${STORE#sqlite:}"* ;;
    esac
}
# raw_put KEY FILE: writes a document behind rigdeck's back, as an older
# rigdeck would have left it.
raw_put () {
    case $STORE in
    etcd://*) etcdctl --endpoints "http://${STORE#etcd://}" put "$1" <"$2" >/dev/null ;;
    *) python3 - "${STORE#sqlite:}" "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("UPDATE kv SET value = ? WHERE key = ?",
               (open(sys.argv[3], "rb").read(), sys.argv[2].encode())).rowcount
db.commit()
sys.exit(0 if n == 1 else 1)
PY
    ;;
    esac
}
raw_has () { raw_values | grep -a -q -- "$1"; }

# env_job NAME COMMAND ENV: a one-worker job whose environment.env is ENV.
env_job () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers:
  count: 1
  commands:
    - |-
      : rdtest-worker-$$; $2
environment: {env: $3}
EOF
}

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0

case_ "job submit seals the values: the stored document holds none in plain text"
env_job sealed 'printf "myvar=%s\n" "$MYVAR"; printf "spaced=%s\n" "$SPACED"' \
    "{MYVAR: \"$SEALED\", SPACED: \"$SPACED\"}"
rd --output json -c "job submit $TMP/sealed.yaml"
expect_status 0
J=$(jget id)
expect_json environment.env.MYVAR '***'
expect_json environment.env.SPACED '***'
expect_no_out "$SEALED"
expect_no_out "$SPACED"
expect_no_out "rdsec1:"
expect_no_out "secret_env"
if raw_has "$SEALED" || raw_has "$SPACED"; then fail "the store holds a value in plain text"; else pass; fi
raw_has '"secret_env":"rdsec1:' && pass || fail "the store holds no sealed variables"
rd --output json -c "store dump --prefix /rigdeck/jobs/"
expect_status 0
expect_out "MYVAR"
expect_no_out "$SEALED"
expect_no_out "rdsec1:"

case_ "job show, job list, job why and the audit trail name the variables, never a value or the sealed text"
for line in "job show $J" "job list" "job why $J" "audit list"; do
    for fmt in json table; do
        rd --output $fmt -c "$line"
        expect_status 0
        expect_no_out "$SEALED"
        expect_no_out "$SPACED"
        expect_no_out "rdsec1:"
    done
done
rd --output json -c "job show $J"
expect_json environment.env '{"MYVAR": "***", "SPACED": "***"}'
rd --output json -c "job list"
expect_json items.0.environment.env.MYVAR '***'

case_ "a value that is not a string is refused without echoing it"
env_job pin 'true' '{PIN: 918273}'
rd -c "job submit $TMP/pin.yaml"
expect_status 1
expect_err "environment.env.PIN must be a string (quote numbers and booleans"
if grep -q 918273 "$ERR"; then fail "the refusal shows the value"; else pass; fi

case_ "a job without variables needs no master key and makes none"
env_job novars 'true' '{}'
RIGDECK_MASTER_KEY=$TMP/nokey/master.key rd --output json -c "job submit $TMP/novars.yaml"
expect_status 0
expect_json environment.env '{}'
[ ! -e "$TMP/nokey/master.key" ] && pass || fail "a master key was made for a job without variables"
rd -c "job stop $(jget id)"
expect_status 0

case_ "a document stored before values were sealed (plain values) is shown redacted"
env_job old 'printf "oldvar=%s\n" "$OLDVAR"' '{OLDVAR: placeholder}'
rd --output json -c "job submit $TMP/old.yaml"
OLD=$(jget id)
rd --output json -c "store dump --prefix /rigdeck/jobs/$OLD"
python3 -c "
import json, sys
doc = json.load(sys.stdin)['items'][0]['value']
doc['environment']['env'] = {'OLDVAR': '$PLAIN_OLD'}
doc['environment'].pop('secret_env', None)
sys.stdout.write(json.dumps(doc, separators=(',', ':')))" <"$OUT" >"$TMP/old.json"
raw_put "/rigdeck/jobs/$OLD" "$TMP/old.json" && pass || fail "could not write the old document"
raw_has "$PLAIN_OLD" && pass || fail "the old document is not in the store"
rd --output json -c "job show $OLD"
expect_json environment.env.OLDVAR '***'
expect_no_out "$PLAIN_OLD"
rd --output json -c "job list"
expect_no_out "$PLAIN_OLD"

case_ "an agent with the master key passes the real values to the worker's process"
start_serve s1 --sched-every 1s
start_agent n1 --inventory $INV/a100x4.yaml
wait_json 60 "job show $J" state finished
rd -c "job logs $J"
expect_status 0
expect_out "^myvar=$SEALED\$"
expect_out "^spaced=$SPACED\$"

case_ "an old document's plain values still reach its worker, unchanged"
wait_json 60 "job show $OLD" state finished
rd -c "job logs $OLD"
expect_out "^oldvar=$PLAIN_OLD\$"

case_ "the daemons' logs hold no value"
if grep -q -e "$SEALED" -e "$SPACED" "$TMP/s1.log" "$TMP/agent-n1.log"; then fail "a log holds a value"; else pass; fi

# wrong_key_fails KEYFILE REASON MESSAGE: an agent with KEYFILE fails a
# sealed job's worker with REASON, says MESSAGE in its log, runs nothing.
wrong_key_fails () {
    kill_daemon "$(agent_pid n1)" TERM
    : >"$TMP/agent-n1.log"
    start_agent n1 --inventory $INV/a100x4.yaml --master-key "$1"
    env_job bad 'echo ran=$MYVAR' "{MYVAR: \"$SEALED\"}"
    W=$(submit bad)
    wait_json 60 "job show $W" workers.0.state failed
    rd --output json -c "job show $W"
    expect_json state failed
    expect_json workers.0.reason "$2"
    expect_json workers.0.started_at null
    rd -c "job logs $W"
    expect_no_out "ran="
    grep -q "$W/0 could not start: .*$3" "$TMP/agent-n1.log" && pass || fail "the agent's log does not say '$3'"
    if grep -q "$SEALED" "$TMP/agent-n1.log"; then fail "the agent's log holds the value"; else pass; fi
    wait_json 30 "node show n1" gpus_used 0
}

case_ "an agent with another master key fails the worker with a clear reason and never starts it"
python3 -c "import os; print(os.urandom(32).hex())" >"$TMP/other.key"
chmod 600 "$TMP/other.key"
wrong_key_fails "$TMP/other.key" env_wrong_master_key "sealed with a different master key"

case_ "an agent without a master key fails the worker the same way"
wrong_key_fails "$TMP/none.key" env_no_master_key "no usable master key"

case_ "the agent keeps running the jobs it can open"
kill_daemon "$(agent_pid n1)" TERM
start_agent n1 --inventory $INV/a100x4.yaml
J2=$(submit sealed)
wait_json 60 "job show $J2" state finished
rd -c "job logs $J2"
expect_out "^myvar=$SEALED\$"

finish
