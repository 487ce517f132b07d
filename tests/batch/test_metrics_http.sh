#!/bin/sh
# The agent's Prometheus endpoint: a real `rigdeck agent --metrics-listen`
# on a free loopback port, its GPUs from the stand-in nvidia-smi (two A100s,
# tests/agent/fake-nvidia-smi), scraped and parsed strictly
# (tests/promtext.py); bad values and a port in use refused with one line;
# SIGTERM stops it with exit 0 and frees the port.  Where Prometheus is
# installed, a real Prometheus scrapes it every second and answers a query
# with the node's two GPUs.  Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

export RIGDECK_NVIDIA_SMI=tests/agent/fake-nvidia-smi
unset FAKE_NVIDIA_SMI_CSV FAKE_NVIDIA_SMI_EXIT

# scrape: the strict parser's canonical lines in $TMP/scrape (exit 0 only
# when the reply is valid).
scrape () { python3 tests/promtext.py "http://127.0.0.1:$PORT/metrics" >"$TMP/scrape" 2>"$TMP/scrape.err"; }
has_line () { grep -qxF -- "$1" "$TMP/scrape"; }
expect_line () { if has_line "$1"; then pass; else fail "scrape lacks '$1': $(cat "$TMP/scrape" "$TMP/scrape.err")"; fi; }
# a scrape with readings: the second sample has been published
scrape_with_cpu () { scrape && grep -q '^rigdeck_cpu_util{node="n1"} ' "$TMP/scrape"; }

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0

PORT=$(free_port)
case_ "a bad --metrics-listen is refused with one line, before the store is touched"
# (before any agent runs: a running one writes its vital stats)
before=$(snapshot)
for bad in "127.0.0.1:0|port must be 1-65535" "127.0.0.1|expected HOST:PORT" "::1:9400|an IPv6 address goes in brackets" \
           "127.0.0.1:http|port must be a number" "[::1]9400|expected \\[IPV6\\]:PORT"; do
    val=${bad%%|*} msg=${bad#*|}
    $WRAP "$BIN" agent --store "$STORE" --node n1 --work-dir "$TMP/work-bad" --runtime process --once --metrics-listen "$val" >"$OUT" 2>"$ERR"
    RC=$?
    expect_status 2
    expect_err "^rigdeck agent: --metrics-listen: $msg"
    expect_err_lines 1
done
$WRAP "$BIN" serve --store "$STORE" --metrics-listen "127.0.0.1:$PORT" >"$OUT" 2>"$ERR"
RC=$?
expect_status 2
expect_err "unknown option --metrics-listen"
[ "$(snapshot)" = "$before" ] && pass || fail "a refused agent changed the store"

case_ "the agent serves /metrics on --metrics-listen, in the text format, parsed strictly"
start_agent n1 --inventory "$INV/a100x4.yaml" --sample 1s --metrics-listen "127.0.0.1:$PORT"
wait_until 90 scrape_with_cpu
expect_line 'rigdeck_up{node="n1"} 1.0'
for g in 0 1; do
    for s in gpu_util gpu_mem_used_gb gpu_temp_c gpu_power_w gpu_ecc_errors; do
        grep -q "^rigdeck_$s{gpu=\"$g\",node=\"n1\"} " "$TMP/scrape" && pass || fail "no rigdeck_$s for GPU $g"
    done
done
# the stand-in's readings: 12 %, 1024 MiB, 41 C, 95.37 W (0.1 W steps), 0 ECC; GPU 1 at 37 C
expect_line 'rigdeck_gpu_temp_c{gpu="0",node="n1"} 41.0'
expect_line 'rigdeck_gpu_temp_c{gpu="1",node="n1"} 37.0'
expect_line 'rigdeck_gpu_util{gpu="0",node="n1"} 12.0'
expect_line 'rigdeck_gpu_mem_used_gb{gpu="0",node="n1"} 1.0'
expect_line 'rigdeck_gpu_power_w{gpu="0",node="n1"} 95.4'
expect_line 'rigdeck_gpu_ecc_errors{gpu="1",node="n1"} 0.0'
for s in mem_used_gb disk_used_gb net_rx_bps net_tx_bps; do
    grep -q "^rigdeck_$s{node=\"n1\"} " "$TMP/scrape" && pass || fail "no rigdeck_$s"
done
python3 - "$TMP/scrape" <<'EOF' && pass || fail "values out of range: $(cat "$TMP/scrape")"
import sys, time
v = {l.rsplit(" ", 1)[0]: float(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1])}
assert 0 <= v['rigdeck_cpu_util{node="n1"}'] <= 100
assert v['rigdeck_mem_used_gb{node="n1"}'] > 0
assert abs(v['rigdeck_sample_timestamp_seconds{node="n1"}'] - time.time()) < 600
EOF
grep -q "metrics: serving Prometheus metrics at http://127.0.0.1:$PORT/metrics" "$TMP/agent-n1.log" && pass ||
    fail "the agent did not say where it listens: $(cat "$TMP/agent-n1.log")"

case_ "other paths are 404, other methods 405"
http_status () {
    python3 - "$@" <<'EOF'
import sys, urllib.request, urllib.error
req = urllib.request.Request(sys.argv[2], method=sys.argv[1])
try:
    print(urllib.request.urlopen(req, timeout=30).status)
except urllib.error.HTTPError as e:
    print(e.code, e.headers.get("Allow", ""))
EOF
}
[ "$(http_status GET "http://127.0.0.1:$PORT/")" = "404 " ] && pass || fail "GET / is not 404"
[ "$(http_status GET "http://127.0.0.1:$PORT/metricsx")" = "404 " ] && pass || fail "GET /metricsx is not 404"
[ "$(http_status POST "http://127.0.0.1:$PORT/metrics")" = "405 GET, HEAD" ] && pass || fail "POST is not 405"
[ "$(http_status GET "http://127.0.0.1:$PORT/metrics?x=1")" = "200" ] && pass || fail "a query string is not ignored"

case_ "a port in use is a clear startup error; the agent that holds it keeps running"
rd --output json -c "agent list"
pid_before=$(jget items.0.pid)
$WRAP "$BIN" agent --store "$STORE" --node n1 --work-dir "$TMP/work-dup" --heartbeat 1s --runtime process --once \
    --metrics-listen "127.0.0.1:$PORT" >"$OUT" 2>"$ERR"
RC=$?
expect_status 1
expect_err "^rigdeck agent: --metrics-listen 127.0.0.1:$PORT: cannot listen: Address already in use"
expect_err_lines 1
rd --output json -c "agent list"
expect_json items.0.pid "$pid_before"
expect_json items.0.state online
scrape && pass || fail "the first agent stopped serving: $(cat "$TMP/scrape.err")"

# A real Prometheus scrapes the agent every second; its query API must
# return the node's two GPUs.
if command -v prometheus >/dev/null 2>&1; then
    case_ "a real Prometheus scrapes the agent"
    PPORT=$(free_port)
    cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: rigdeck
    scrape_interval: 1s
    scrape_timeout: 1s
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
    prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom-data" \
        --web.listen-address="127.0.0.1:$PPORT" >"$TMP/prometheus.log" 2>&1 &
    PROM_PID=$!
    DAEMONS="$DAEMONS $PROM_PID"
    prom_has_gpus () {
        python3 - "http://127.0.0.1:$PPORT" <<'EOF'
import json, sys, urllib.request
base = sys.argv[1]
r = json.load(urllib.request.urlopen(base + "/api/v1/query?query=rigdeck_gpu_temp_c", timeout=10))
got = sorted((s["metric"]["node"], s["metric"]["gpu"], float(s["value"][1])) for s in r["data"]["result"])
assert got == [("n1", "0", 41.0), ("n1", "1", 37.0)], got
t = json.load(urllib.request.urlopen(base + "/api/v1/targets", timeout=10))["data"]["activeTargets"]
assert len(t) == 1 and t[0]["health"] == "up" and t[0]["lastError"] == "", t
EOF
    }
    wait_until 120 prom_has_gpus || tail -n 20 "$TMP/prometheus.log" >&2
    kill_daemon "$PROM_PID" TERM
    [ "$DSTATUS" = 0 ] && pass || fail "prometheus exited $DSTATUS: $(tail -n 5 "$TMP/prometheus.log")"
fi

case_ "SIGTERM stops the agent with exit 0 and the port is free again"
kill_daemon "$(agent_pid n1)" TERM
RC=$DSTATUS
expect_status 0
scrape
[ $? = 2 ] && pass || fail "something still answers on port $PORT"

command -v prometheus >/dev/null 2>&1 ||
    skip "prometheus not installed (Debian package prometheus): the real scrape did not run"
finish
