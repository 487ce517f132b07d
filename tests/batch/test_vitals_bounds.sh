#!/bin/sh
# Vital stats are bounded at every way in (issue 28, item 5; the values are
# the fuzzer's): `metrics import` refuses a reading outside its stat's
# range (cpu_util 9e16, which overflowed a minute's sum when it came twice
# in a minute), and an agent whose nvidia-smi prints an ECC count of 2^63-1
# stores 10^12, never a negative count, and goes on after a restart (the
# restarted agent continued the overflowed minute and UBSan stopped it).
# Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

SMI=$PWD/tests/agent/fake-nvidia-smi
CSV=$TMP/gpus.csv
export RIGDECK_NVIDIA_SMI=$SMI FAKE_NVIDIA_SMI_CSV=$CSV
gpus () {   # gpus TEMP0: GPU 0 counts 2^63-1 uncorrected ECC errors
    {
        echo "0, NVIDIA A100-SXM4-40GB, 40960, 4, 16, 20, 1024, $1, 95.50, 9223372036854775807"
        echo "1, NVIDIA A100-SXM4-40GB, 40960, 4, 16, 0, 4, 37, 61.00, 0"
    } >"$CSV.new" && mv "$CSV.new" "$CSV"
}
gpus 41

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x2.yaml" -c "node maintenance n1 off" \
   -c "node add dc n2 --minion m-2 --inventory $INV/a100x2.yaml"
expect_status 0

# lines FILE JSON...: one sample a line, t 5 and 4 minutes ago, 20 s apart
lines () {
    f=$1; shift
    python3 - "$@" >"$f" <<'PY'
import json, sys, time
t = (int(time.time()) // 60 - 5) * 60
for i, extra in enumerate(sys.argv[1:]):
    d = {"t": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t + 20 * i))}
    d.update(json.loads(extra))
    print(json.dumps(d))
PY
}

case_ "metrics import refuses a reading outside its stat's range, naming line, stat and range"
lines "$TMP/cpu.jsonl" '{"cpu_util": 9e16}' '{"cpu_util": 9e16}'
lines "$TMP/ecc.jsonl" '{"cpu_util": 5}' '{"gpus": [{"index": 0, "gpu_ecc_errors": 9223372036854775807}]}'
lines "$TMP/neg.jsonl" '{"net_rx_bps": -1}'
lines "$TMP/idx.jsonl" '{"gpus": [{"index": 1024, "gpu_util": 5}]}'
S=$(snapshot)
rd -c "metrics import n2 $TMP/cpu.jsonl"
expect_refused 1 "$S" "FILE: line 1: cpu_util must be between 0 and 100 %, got 9e+16"
rd -c "metrics import n2 $TMP/ecc.jsonl"
expect_refused 1 "$S" "FILE: line 2: gpu_ecc_errors must be between 0 and 1000000000000, got 9.22337203685478e+18"
rd -c "metrics import n2 $TMP/neg.jsonl"
expect_refused 1 "$S" "FILE: line 1: net_rx_bps must be between 0 and 1000000000000 B/s, got -1"
rd -c "metrics import n2 $TMP/idx.jsonl"
expect_refused 1 "$S" "FILE: line 1: every GPU needs an index 0..1023"

case_ "metrics import takes the range's ends"
lines "$TMP/ends.jsonl" '{"cpu_util": 100, "gpus": [{"index": 0, "gpu_ecc_errors": 1000000000000}]}' \
                        '{"cpu_util": 100, "gpus": [{"index": 0, "gpu_ecc_errors": 1000000000000}]}'
rd -c "metrics import n2 $TMP/ends.jsonl"
expect_status 0
rd --output json -c "metrics show n2 --metric cpu_util"
expect_json points.0.avg 100.0
rd --output json -c "metrics show n2 --metric gpu_ecc_errors --gpu 0"
expect_json points.0.max 1000000000000.0

# bounded GPU: every gpu_ecc_errors point of n1's GPU 0 is
# 0 <= min <= avg <= max = 10^12, and there is one
bounded () {
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "metrics show n1 --metric gpu_ecc_errors --gpu 0" \
        2>/dev/null | python3 -c "
import json, sys
p = json.load(sys.stdin)['points']
assert p and all(0 <= x['min'] <= x['avg'] <= x['max'] == 1e12 for x in p), p"
}
temp_is () {
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "metrics show n1 --metric gpu_temp_c --gpu 0" \
        2>/dev/null | python3 -c "
import json, sys
p = json.load(sys.stdin)['points']
assert p and p[-1]['max'] == float(sys.argv[1])" "$1"
}

case_ "an ECC count of 2^63-1 from nvidia-smi is stored as 10^12"
start_agent n1 --inventory $INV/a100x2.yaml --sample 1s
wait_json 60 "node show n1" agent.state online
wait_until 60 bounded
rd --output json -c "node show n1"
expect_json agent.vitals.gpus.0.gpu_ecc_errors 1000000000000.0
expect_json gpu_health.0.state healthy

case_ "a restarted agent continues the minute and goes on sampling"
kill_daemon "$(agent_pid n1)" TERM
[ "$DSTATUS" = 0 ] && pass || fail "the agent exited with $DSTATUS on SIGTERM"
start_agent n1 --inventory $INV/a100x2.yaml --sample 1s
gpus 60
wait_until 60 temp_is 60
kill -0 "$(agent_pid n1)" 2>/dev/null && pass || fail "the restarted agent died: $(tail -n 5 "$TMP/agent-n1.log")"
bounded && pass || fail "gpu_ecc_errors points out of bounds"

finish
