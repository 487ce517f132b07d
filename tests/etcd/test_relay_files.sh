#!/bin/sh
# test_relay_files.sh - a relayed command reads only the files its sender
# sent, and each request id runs once.
#
# One etcd member, secured; a tenant (alice), the agent of her node n1 and
# a real controller.  Requests written by hand with etcdctl name files on
# the controller's own disk (job submit FILE, datastore add --password-file,
# node report --inventory with the agent's password, key add --file): each
# is refused,
# the answer never holds the file's text, and it is word for word the same
# for a path that exists and one that does not.  A file sent with the
# request works as before; a request id put again after its answer does
# not run again.  docs/security.md, "The request relay".
# Prints "batch-summary: passed=N failed=M" like the batch scenarios.
set -u
. tests/etcd/lib.sh
SEC=$(mktemp -d "${TMPDIR:-/tmp}/rdrelayf.XXXXXX")
etcd_single "$SEC/etcd" >/dev/null || { echo "batch-skip: etcd did not start"; exit 0; }
export RIGDECK_TEST_STORE_URL="$ETCD_URL"
. tests/batch/lib.sh
. tests/batch/daemons.sh
trap 'daemons_cleanup; etcd_stop_all; rm -rf "$SEC"' EXIT
E=$ETCD_ENDPOINTS

# The controller's secrets: a one-line file, and an inventory-shaped one.
SECRET=$SEC/controller-secret.txt
printf 'CONTROLLER-SECRET-%s\n' "$$" >"$SECRET"
chmod 600 "$SECRET"
MISSING=$SEC/no-such-file.txt

as () {
    u=$1; shift
    $WRAP "$BIN" --batch --store "$STORE" --etcd-user "$u" --etcd-password-file "$SEC/$u.pw" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
ectl () {
    u=$1; shift
    etcdctl --endpoints "$E" --user "$u" --password "$(cat "$SEC/$u.pw")" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
# ask USER ID JSON: puts a request by hand and leaves the answer in $OUT
# (the file $SEC/answer-ID), then takes the answer away as a client does.
ask () {
    u=$1 id=$2
    ectl "$u" put "/rigdeck/relay/$u/req/$id" "$3"
    [ "$RC" = 0 ] || { fail "etcdctl put as $u: $(cat "$ERR")"; return; }
    answered () {
        etcdctl --endpoints "$E" --user "$u" --password "$(cat "$SEC/$u.pw")" get --print-value-only \
            "/rigdeck/relay/$u/rep/$id" 2>/dev/null | grep -q '"ok"'
    }
    wait_until 30 answered
    ectl "$u" get --print-value-only "/rigdeck/relay/$u/rep/$id"
    cp "$OUT" "$SEC/answer-$id"
    etcdctl --endpoints "$E" --user "$u" --password "$(cat "$SEC/$u.pw")" del "/rigdeck/relay/$u/rep/$id" >/dev/null 2>&1
}
# refused_alike ID_EXISTING ID_MISSING: both answers refuse, neither holds
# the secret, and they are the same once each names its own path.
refused_alike () {
    a=$SEC/answer-$1 b=$SEC/answer-$2
    if grep -q '"ok":false' "$a" && grep -q '"ok":false' "$b"; then pass; else
        fail "not refused: $(cat "$a") / $(cat "$b")"; fi
    if grep -q "CONTROLLER-SECRET" "$a" "$b"; then fail "an answer quotes the controller's file: $(cat "$a")"; else
        pass; fi
    x=$(sed "s|$SECRET|PATH|g" "$a") y=$(sed "s|$MISSING|PATH|g" "$b")
    if [ "$x" = "$y" ]; then pass; else fail "existing and missing paths answer differently: $x / $y"; fi
}

case_ "a tenant with a node, secured, with a controller"
rd -c "account create alice --plan team" -c "price set a100 2.78" -c "account deposit alice 100"
expect_status 0
rd --as alice -c "provider enable physical" -c "region create alab --provider physical --storage local" \
   -c "node add alab n1 --agent none --minion m-1 --inventory $INV/a100x4.yaml"
expect_status 0
rd -c "store secure --root-password-file $SEC/root.pw"
expect_status 0
for u in alice node:n1; do
    as root -c "store credentials $u --password-file $SEC/$u.pw"
    expect_status 0
done
RIGDECK_ETCD_USER=root RIGDECK_ETCD_PASSWORD_FILE="$SEC/root.pw" start_serve s1 --sched-every 1s

case_ "job submit naming a controller path: refused alike, the file never quoted"
ask alice 00000000000000a1 '{"words":["job","submit","'"$SECRET"'"]}'
ask alice 00000000000000a2 '{"words":["job","submit","'"$MISSING"'"]}'
refused_alike 00000000000000a1 00000000000000a2
expect_out "was not sent with the request"

case_ "datastore add --password-file naming a controller path: refused alike, nothing sealed"
ask alice 00000000000000b1 '{"words":["datastore","add","alab","s1","--type","smb","--address","smb.lab","--root","/",'\
'"--username","u","--password-file","'"$SECRET"'"]}'
ask alice 00000000000000b2 '{"words":["datastore","add","alab","s2","--type","smb","--address","smb.lab","--root","/",'\
'"--username","u","--password-file='"$MISSING"'"]}'
sed -i 's|--password-file=|--password-file |' "$SEC/answer-00000000000000b2"
refused_alike 00000000000000b1 00000000000000b2
as alice --output json -c "datastore list"
expect_no_out '"s1"'

case_ "node report --inventory with the agent's password naming a controller path: refused alike"
ask node:n1 00000000000000c1 '{"words":["node","report","n1","--inventory","'"$SECRET"'"]}'
ask node:n1 00000000000000c2 '{"words":["node","report","n1","--inventory","'"$MISSING"'"]}'
refused_alike 00000000000000c1 00000000000000c2

case_ "key add --file naming a controller path: refused alike, no key made of the controller's file"
# the controller's secret is one line: as a huggingface token it would pass
ask alice 00000000000000f1 '{"words":["key","add","stolen","--type","huggingface","--file","'"$SECRET"'"]}'
ask alice 00000000000000f2 '{"words":["key","add","stolen","--type","huggingface","--file='"$MISSING"'"]}'
sed -i 's|--file=|--file |' "$SEC/answer-00000000000000f2"
refused_alike 00000000000000f1 00000000000000f2
as alice --output json -c "key list"
expect_status 0
expect_no_out '"stolen"'

case_ "key add --file through the relay reads only the sent text, sealed, never answered back"
printf 'hf_relayed-token-%s\n' "$$" >"$TMP/hf.token"
as alice --output json -c "key add hf --type huggingface --file $TMP/hf.token" -c "key list"
expect_status 0
expect_json name hf 0
expect_json items.0.type huggingface 1
if grep -q "relayed-token" "$OUT" "$ERR"; then fail "the answer holds the key's value"; else pass; fi
if etcdctl --endpoints "$E" --user root --password "$(cat "$SEC/root.pw")" get --prefix /rigdeck/keys/ |
    grep -q "relayed-token"; then fail "the store holds the key in clear"; else pass; fi

case_ "a file sent with the request is what the command reads"
job_spec sent 'echo sent'
python3 - "$TMP/sent.yaml" >"$SEC/req.json" <<'EOF'
import json, sys
print(json.dumps({"words": ["job", "submit", "/nowhere/sent.yaml"],
                  "files": [{"word": 2, "prefix": "", "text": open(sys.argv[1]).read()}]}))
EOF
ask alice 00000000000000d1 "$(cat "$SEC/req.json")"
expect_out '"ok":true'
expect_out '"name":"sent"'
as alice --output json -c "job submit $TMP/sent.yaml"
expect_status 0
expect_json name sent

case_ "a request id put again after its answer does not run again"
as alice --output json -c "job list"
before=$(python3 -c "import json,sys; print(len(json.load(sys.stdin)['items']))" <"$OUT")
ask alice 00000000000000e1 "$(cat "$SEC/req.json")"
expect_out '"ok":true'
ask alice 00000000000000e1 "$(cat "$SEC/req.json")"
expect_out '"ok":false'
expect_out "already answered"
as alice --output json -c "job list"
after=$(python3 -c "import json,sys; print(len(json.load(sys.stdin)['items']))" <"$OUT")
[ "$after" = $((before + 1)) ] && pass || fail "jobs $before -> $after: the request ran more than once"
# a refused request is remembered too
ask alice 00000000000000a1 '{"words":["job","submit","'"$TMP/sent.yaml"'"]}'
expect_out "already answered"

case_ "a request that is not a JSON object is answered at once, not left to time out"
ask alice 00000000000000b1 'not json at all {'
expect_out '"ok":false'
expect_out "not a JSON object"
ask alice 00000000000000b2 '["job", "list"]'
expect_out "not a JSON object"
ectl alice get --prefix --keys-only /rigdeck/relay/alice/req/
[ -z "$(cat "$OUT")" ] && pass || fail "requests left behind: $(cat "$OUT")"

finish
