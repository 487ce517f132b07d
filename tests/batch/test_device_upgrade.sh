#!/bin/sh
# A store written before device-config env values were sealed and before a
# device's deployment was an object (spec/execution.md §7): the plain
# values are never shown (***), are sealed by the first command on a host
# that holds the master key (and only there: a host without one waits
# rather than make a key the devices cannot have), and an old deployment
# word reads as the object.  The old documents are written into the SQLite
# file directly, so this runs on SQLite only.
. tests/batch/lib.sh

case "$STORE" in
sqlite:*) DB=${STORE#sqlite:} ;;
*) skip "writes old documents into the SQLite file" ;;
esac
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
export RIGDECK_MASTER_KEY="$TMP/master.key"

rd -c "provider enable physical" -c "region create edge --provider physical --storage central" \
   -c "node add edge st-1 --agent none --minion m-st --role storage --inventory tests/inventories/storage.yaml" \
   -c "device add edge cam-1 --minion j-1 --model jetson-orin-nano" -c "device report cam-1 --status ready" \
   -c "device-config create edge old --image img:1 --model m --command true --env OLD_TOKEN=x" \
   -c "device set-config cam-1 old"
expect_status 0
# as an older rigdeck wrote them: the value in clear, no mark, a word
sqlite3 "$DB" "UPDATE kv SET value = CAST(json_set(json_remove(CAST(value AS TEXT), '\$.secret_env'), '\$.env.OLD_TOKEN', 'plain-old-7') AS BLOB) WHERE key = CAST('/rigdeck/device-configs/edge/old' AS BLOB);
UPDATE kv SET value = CAST(json_remove(CAST(value AS TEXT), '\$.device_env_sealed') AS BLOB) WHERE key = CAST('/rigdeck/meta/store' AS BLOB);
UPDATE kv SET value = CAST(json_set(CAST(value AS TEXT), '\$.deployment', 'running', '\$.deployed_config', 'old', '\$.last_deployed_at', '2026-10-01T00:00:00Z') AS BLOB) WHERE key = CAST('/rigdeck/devices/cam-1' AS BLOB);"
rd --output json -c "store dump --prefix /rigdeck/device-configs/"
expect_out plain-old-7

case_ "an old device's deployment word reads as the object"
rd --output json -c "device show cam-1"
expect_json deployment.state running
expect_json deployment.config old
expect_json deployment.started_at 2026-10-01T00:00:00Z
rd --output json -c "device list"
expect_json items.0.deployment.state running

case_ "plain values are never shown; a host without the master key leaves them waiting"
mv "$TMP/master.key" "$TMP/master.key.away"
rd --output json -c "device-config list"
expect_json items.0.env.OLD_TOKEN "***"
expect_no_out plain-old-7
rd -c "account deposit default 1"   # any write runs the upgrade
expect_status 0
no_notice () { if grep -q "sealed the env" "$ERR"; then fail "stderr: $(cat "$ERR")"; else pass; fi; }
no_notice
[ ! -e "$TMP/master.key" ] && pass || fail "a master key was made on a host that had none"
rd --output json -c "store dump --prefix /rigdeck/device-configs/"
expect_out plain-old-7

case_ "the first write on a host holding the master key seals them"
mv "$TMP/master.key.away" "$TMP/master.key"
rd -c "account deposit default 1"
expect_status 0
expect_err "sealed the env values of 1 device configuration"
rd --output json -c "store dump --prefix /rigdeck/device-configs/"
expect_no_out plain-old-7
expect_json items.0.value.env.OLD_TOKEN "***"
rd --output json -c "store dump --prefix /rigdeck/meta/"
expect_out '"device_env_sealed":true'
rd -c "account deposit default 1"   # once: the mark says so
no_notice

finish
