#!/bin/sh
# Port reservations (execution.md §6): a worker of a job with
# `regional.reservation` is given the reservation's port (PORT, over one the
# job set itself) and hostname (RIGDECK_HOSTNAME) and listens on that port
# (python3 -m http.server, fetched with curl); its node publishes the
# hostname by mDNS at the agent's --mdns-address while the worker runs.
#
# First without an mDNS daemon (D-Bus pointed at a socket that is not
# there): the worker runs all the same, and the agent's log and the
# worker's own output say once that the name is not published.
#
# Then real mDNS that never leaves this machine: a network namespace of
# its own (`unshare -n -m`: only its loopback, multicast on; a private /run
# so avahi's pid file is its own) runs a system-style dbus-daemon (its
# socket under $TMP) and avahi-daemon (use-ipv6=no).  The agent runs
# outside it, on the store as always (SQLite or etcd on 127.0.0.1), and its
# avahi-publish reaches that daemon through DBUS_SYSTEM_BUS_ADDRESS (a path
# socket, which network namespaces do not separate); `avahi-resolve`
# inside the namespace (nsenter) answers the name with the address.  The
# publisher outlives a killed agent and the next agent adopts it (same pid,
# never a second one); a worker that died while no agent ran is withdrawn
# once one is back; `job stop` withdraws it too: resolution stops (polled,
# generous deadline).  That part is left out, saying so, where unshare,
# nsenter, dbus-daemon or avahi are missing or unshare is not allowed.
# Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

command -v curl >/dev/null 2>&1 || skip "curl is not installed"

TAG=rdtest-$$
NAME=$TAG-web.local                      # what the reservation publishes
ADDR=192.0.2.10                          # TEST-NET-1: --mdns-address
NSPID=""
# every test process of ours ends with the scenario: the publishers (found
# by the unique name), the namespace's daemons, then the rest
mdns_cleanup () {
    for p in $(pgrep -f "avahi-publish -a -R $NAME"); do kill -9 "$p" 2>/dev/null; done
    if [ -n "$NSPID" ]; then
        : >"$TMP/ns-stop"
        end=$(($(date +%s) + 20))
        while kill -0 "$NSPID" 2>/dev/null && [ "$(date +%s)" -le "$end" ]; do sleep 0.2; done
        for f in avahi.pid dbus.pid; do [ -s "$TMP/$f" ] && kill -9 "$(cat "$TMP/$f")" 2>/dev/null; done
        kill -9 "$NSPID" 2>/dev/null
    fi
    daemons_cleanup
}
trap mdns_cleanup EXIT

# A free port for the reservation (asked of the kernel, then let go).
P=$(free_port)

rd -c "price set a100 2.78" -c "account create alice --plan team" -c "account deposit alice 100"
expect_status 0
rd --as alice -c "provider enable physical" -c "region create lab --provider physical --storage local" \
   -c "node add lab n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
   -c "reservation add lab web --hostname $TAG-web.local --port $P"
expect_status 0

# res_job NAME: a job on the reservation whose worker says its PORT and
# hostname, then serves HTTP on that port until stopped
res_job () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers:
  count: 1
  commands:
    - ': rdtest-worker-$$; echo "port=\$PORT host=\$RIGDECK_HOSTNAME"; exec python3 -m http.server "\$PORT" --bind 127.0.0.1'
environment:
  python: "3.9"
  framework: pytorch
  env: {PORT: "1"}
regional: {reservation: web}
EOF
    rd --as alice --output json -c "job submit $TMP/$1.yaml"
    jget id
}
logs_have () { rd -c "job logs $1"; grep -q -- "$2" "$OUT"; }
serves () { curl -sf -o /dev/null "http://127.0.0.1:$P/"; }

case_ "job submit copies the reservation's hostname and port into the job"
J=$(res_job nodaemon)
rd --output json -c "job show $J"
expect_json reservation.name web
expect_json reservation.hostname "$TAG-web.local"
expect_json reservation.port "$P"
expect_json region_pin lab

case_ "agent --mdns-address must be an address: exit 2, one line"
$WRAP "$BIN" agent --store "$STORE" --node n1 --work-dir "$TMP/work-bad" --runtime process --mdns-address web.local \
    >"$OUT" 2>"$ERR"
RC=$?
expect_status 2
expect_err "^rigdeck agent: --mdns-address must be an IPv4 or IPv6 address, got 'web.local'$"
expect_err_lines 1

case_ "no mDNS daemon: the worker runs on the reservation's port; one warning in the agent's log and the worker's output"
start_serve s1 --sched-every 1s
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$TMP/no-bus start_agent n1 --inventory $INV/a100x4.yaml --mdns-address $ADDR
wait_json 120 "job show $J" workers.0.state running
wait_until 60 logs_have "$J" "^port=$P host=$NAME$"
wait_until 60 serves
wait_until 60 logs_have "$J" "rigdeck: warning: mDNS: $NAME is not published: "
n=$(grep -c "not published by mDNS" "$TMP/agent-n1.log")
[ "$n" = 1 ] && pass || fail "the agent said $n times that the name is not published (once expected)"
rd -c "job logs $J"
n=$(grep -c "rigdeck: warning: mDNS" "$OUT")
[ "$n" = 1 ] && pass || fail "the worker's output says $n times that the name is not published (once expected)"
rd --as alice -c "job stop $J"
expect_status 0
wait_json 60 "job show $J" state stopped
kill_daemon "$(agent_pid n1)" KILL

# ---- real mDNS in a namespace of the test's own ----------------------------
for c in unshare nsenter ip dbus-daemon avahi-daemon avahi-publish avahi-resolve; do
    command -v $c >/dev/null 2>&1 || skip "$c is not installed (the mDNS part)"
done
unshare -n -m true 2>/dev/null || skip "unshare -n -m is not allowed here (the mDNS part)"

cat >"$TMP/dbus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$TMP/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
cat >"$TMP/avahi.conf" <<EOF
[server]
host-name=$TAG
use-ipv4=yes
use-ipv6=no
enable-dbus=yes
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
EOF
# The namespace's holder: brings its loopback up with multicast, starts the
# bus and avahi (in its process group, not daemons of their own, so that
# whatever ends the scenario's group ends them), and ends them when
# $TMP/ns-stop appears.
cat >"$TMP/ns.sh" <<EOF
mount -t tmpfs tmpfs /run || exit 1
mkdir -p /run/avahi-daemon
ip link set lo up && ip link set lo multicast on || exit 1
dbus-daemon --config-file="$TMP/dbus.conf" --nofork >"$TMP/dbus.log" 2>&1 &
echo \$! >"$TMP/dbus.pid"
n=0
while [ ! -S "$TMP/bus" ] && [ \$n -lt 300 ]; do sleep 0.2; n=\$((n + 1)); done
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$TMP/bus avahi-daemon --no-drop-root --no-chroot -f "$TMP/avahi.conf" \
    >"$TMP/avahi.log" 2>&1 &
echo \$! >"$TMP/avahi.pid"
while [ ! -e "$TMP/ns-stop" ]; do sleep 0.2; done
kill "\$(cat "$TMP/avahi.pid")" "\$(cat "$TMP/dbus.pid")"
wait
EOF
unshare -n -m sh "$TMP/ns.sh" >"$TMP/ns.log" 2>&1 &
NSPID=$!
avahi_up () { grep -q "Server startup complete" "$TMP/avahi.log"; }
end=$(($(date +%s) + 60))
while ! avahi_up && kill -0 "$NSPID" 2>/dev/null && [ "$(date +%s)" -le "$end" ]; do sleep 0.2; done
avahi_up || skip "avahi-daemon did not start in the namespace: $(cat "$TMP/ns.log" "$TMP/avahi.log" 2>/dev/null | tail -3)"
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$TMP/bus

# in_ns CMD...: runs CMD in the namespace
in_ns () { nsenter --net="/proc/$NSPID/ns/net" "$@"; }
resolves () { in_ns avahi-resolve -4 -n "$NAME" 2>/dev/null | grep -q "^$NAME	$ADDR$"; }
# (avahi-resolve exits 0 when it found nothing: its words tell)
unresolved () { in_ns avahi-resolve -4 -n "$NAME" 2>&1 | grep -q "^Failed to resolve host name '$NAME': Timeout reached"; }
publishers () { pgrep -f "avahi-publish -a -R $NAME" | wc -l; }
no_publishers () { [ "$(publishers)" = 0 ]; }

case_ "the node publishes the reservation's hostname at its address while the worker runs"
in_ns ip -o link show | grep -qv " lo:" && fail "the namespace has more than its loopback" || pass
unresolved && pass || fail "$NAME resolves before any worker runs"
start_agent n1 --inventory $INV/a100x4.yaml --mdns-address $ADDR
J=$(res_job published)
wait_json 120 "job show $J" workers.0.state running
wait_until 60 logs_have "$J" "^port=$P host=$NAME$"
wait_until 60 serves
wait_until 60 resolves
wait_until 60 grep -q "$J/0: $NAME published by mDNS" "$TMP/agent-n1.log"
rd -c "job logs $J"
expect_no_out "rigdeck: warning"
PUB=$(cat "$TMP/work-n1/$J/0/.rigdeck/mdns" | cut -d' ' -f1)
[ "$(publishers)" = 1 ] && pass || fail "$(publishers) publishers for $NAME (one expected)"

case_ "a restarted agent adopts the publisher: the same process, never a second one"
kill_daemon "$(agent_pid n1)" KILL
resolves && pass || fail "$NAME stopped resolving when the agent was killed (its worker runs)"
: >"$TMP/agent-n1.log"
start_agent n1 --inventory $INV/a100x4.yaml --mdns-address $ADDR
wait_until 60 grep -q "$J/0: $NAME published by mDNS (pid $PUB)" "$TMP/agent-n1.log"
[ "$(publishers)" = 1 ] && pass || fail "$(publishers) publishers for $NAME after the restart (one expected)"
resolves && pass || fail "$NAME does not resolve after the restart"

case_ "a worker that died while no agent ran: withdrawn once the agent is back"
kill_daemon "$(agent_pid n1)" KILL
for p in $(pgrep -f "http.server $P --bind"); do kill -9 "$p"; done   # the worker: this run's port
start_agent n1 --inventory $INV/a100x4.yaml --mdns-address $ADDR
wait_json 120 "job show $J" workers.0.state failed
wait_until 60 unresolved
wait_until 30 sh -c "! kill -0 $PUB"

case_ "job stop withdraws the name"
J=$(res_job stopped)
wait_json 120 "job show $J" workers.0.state running
wait_until 60 resolves
rd --as alice -c "job stop $J"
expect_status 0
wait_json 60 "job show $J" state stopped
wait_until 60 unresolved
wait_until 30 no_publishers
grep -q "$NAME withdrawn from mDNS" "$TMP/agent-n1.log" && pass || fail "the agent did not say it withdrew $NAME"

finish
