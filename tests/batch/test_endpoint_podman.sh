#!/bin/sh
# An endpoint in a real podman container (execution.md §6, seed 001): its
# start_command (busybox httpd, offline image) listens on port 80 inside,
# told so in PORT, and the agent publishes it on 127.0.0.1 (--address) at
# the port `job connect` names; a real HTTP request there is answered from
# inside the container.  `job stop` closes the port.  Skips where podman
# cannot run a container even with the containers.conf written here (see
# test_runtime_podman.sh).
. tests/batch/lib.sh
. tests/batch/daemons.sh

command -v podman >/dev/null 2>&1 || skip "podman is not installed"
command -v curl >/dev/null 2>&1 || skip "curl is not installed"
BB=$(command -v busybox 2>/dev/null || echo /bin/busybox)
[ -x "$BB" ] || skip "no busybox to build an offline image from"

mkdir -p "$TMP/pm" "$TMP/rootfs/bin"
cat >"$TMP/pm/containers.conf" <<EOF
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
EOF
export CONTAINERS_CONF=$TMP/pm/containers.conf
cp "$BB" "$TMP/rootfs/bin/busybox"
for c in sh echo cat mkdir httpd test; do ln -s busybox "$TMP/rootfs/bin/$c"; done
podman run --rm --rootfs "$TMP/rootfs" /bin/sh -c true >"$TMP/pmcheck" 2>&1 ||
    skip "podman cannot run a container here even with $CONTAINERS_CONF: $(tail -1 "$TMP/pmcheck")"
IMG=docker.io/rdtest/busybox-endpoint-$$:1
tar -C "$TMP/rootfs" -c . | podman import - "$IMG" >/dev/null 2>"$TMP/pmcheck" ||
    skip "podman import failed: $(tail -1 "$TMP/pmcheck")"
trap 'podman rmi -f "$IMG" >/dev/null 2>&1; daemons_cleanup' EXIT

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set cpu 0.2" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/cpu.yaml" -c "node maintenance n1 off"
expect_status 0

case_ "an endpoint's start_command in a container: port 80 inside, published where job connect says"
start_serve s1 --sched-every 1s
$WRAP "$BIN" agent --store "$STORE" --node n1 --work-dir "$TMP/work-n1" --heartbeat 1s --runtime podman \
    --inventory $INV/cpu.yaml --address 127.0.0.1 2>>"$TMP/agent-n1.log" &
DAEMONS="$DAEMONS $!"
cat >"$TMP/ep.yaml" <<EOF
name: ep
type: endpoint
resources: {gpu_types: [cpu], cpu_count: 4, disk_size: 20}
endpoint:
  start_command: 'mkdir -p /tmp/www && echo "in the container on \$PORT" >/tmp/www/i.txt && exec httpd -f -p "\$PORT" -h /tmp/www'
environment: {image: "$IMG"}
EOF
J=$(submit ep)
wait_json 120 "job show $J" state running
rd --output json -c "job connect $J"
expect_status 0
P=$(jget port)
expect_json url "http://127.0.0.1:$P/"
served () { curl -sf "http://127.0.0.1:$P/i.txt" >"$TMP/got"; }
wait_until 120 served
grep -q "in the container on 80" "$TMP/got" && pass || fail "the endpoint answered '$(cat "$TMP/got" 2>/dev/null)'"

case_ "job stop closes the published port"
rd -c "job stop $J"
expect_status 0
wait_json 120 "job show $J" state stopped
closed () { ! curl -s -o /dev/null "http://127.0.0.1:$P/"; }
wait_until 60 closed

finish
