#!/bin/sh
# GPU discovery as real machines answer it (spec/execution.md §2), with real
# agents and a stand-in nvidia-smi replaying captures of tests/agent/nvidia-smi/
# from a file the test rewrites while the agents run: a driver that fails
# at start (the agent lives on, the node says why, the GPUs come once it
# answers), fails later (GPUs unhealthy for driver, healthy again by
# themselves), a lost GPU (missing), memory.total without a reading (the
# catalog's), and a GPU name no type lists (rejected, never a CPU node;
# named by `gpu add`, picked up by the running agent).
# Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

SMI=$PWD/tests/agent/fake-nvidia-smi
FIX=$PWD/tests/agent/nvidia-smi
export RIGDECK_NVIDIA_SMI=$SMI
# answer NODE FIXTURE: what the node's nvidia-smi says from now on
answer () { cp "$FIX/$2" "$TMP/smi-$1.new" && mv "$TMP/smi-$1.new" "$TMP/smi-$1.txt"; }
# agent NODE: its agent, discovering the machine, sampling every second
agent () {
    export FAKE_NVIDIA_SMI_FIXTURE="$TMP/smi-$1.txt"
    start_agent "$1" --sample 1s
    unset FAKE_NVIDIA_SMI_FIXTURE
}
alive () { kill -0 "$(agent_pid "$1")"; }
# field LINE PATH: prints one field of a JSON answer
field () { $WRAP "$BIN" --batch --store "$STORE" --output json -c "$1" 2>/dev/null | python3 tests/jget.py "$2"; }
detail_has () { field "node show $1" inventory_problems.0.detail | grep -q -- "$2"; }

rd -c "provider enable physical" -c "region create dc --provider physical --storage local" \
   -c "node add dc n1 --minion m-1" -c "node add dc n2 --minion m-2"
expect_status 0

case_ "nvidia-smi fails at start (exit 9): the agent registers, heartbeats and says why on the node"
answer n1 driver-not-loaded-exit9.txt
agent n1
wait_json 60 "node show n1" agent.state online
wait_json 60 "node show n1" inventory_problems.0.problem gpu_discovery
rd --output json -c "node show n1"
expect_json inventory_problems.len 1
detail=$(jget inventory_problems.0.detail)
case "$detail" in
*"exit status 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"*) pass ;;
*) fail "gpu_discovery detail: $detail" ;;
esac
expect_json gpu_count 0
alive n1 && pass || fail "the agent stopped"
grep -q "nvidia-smi cannot say what GPUs this machine has" "$TMP/agent-n1.log" && pass ||
    fail "agent log lacks the discovery line"

case_ "nvidia-smi answers (memory.total [N/A]): the GPUs are reported, with the catalog's memory, healthy"
answer n1 a100-memory-na.txt
wait_json 60 "node show n1" gpu_count 2
rd --output json -c "node show n1"
expect_json gpu_type a100
expect_json inventory_problems "[]"
expect_json inventory.gpus.0.memory_gb 40
expect_json inventory.gpus.0.count 2
# a few samples of readings without a value: still healthy
wait_json 60 "node show n1" agent.vitals.gpus.1.gpu_temp_c 37.0
rd --output json -c "node show n1"
expect_json gpu_health.0.state healthy
expect_json gpu_health.1.state healthy
expect_json agent.vitals.gpus.0.gpu_mem_used_gb null
alive n1 && pass || fail "the agent stopped"

case_ "nvidia-smi fails two samples in a row (exit 18): every GPU unhealthy, reason driver"
answer n1 version-mismatch-exit18.txt
wait_json 60 "node show n1" gpu_health.1.reason driver
rd --output json -c "node show n1"
expect_json gpu_health.0.reason driver
expect_json gpu_count 2
case "$(jget gpu_health.0.detail)" in *"exit status 18: Failed to initialize NVML"*) pass ;;
*) fail "driver detail: $(jget gpu_health.0.detail)" ;; esac
alive n1 && pass || fail "the agent stopped"

case_ "nvidia-smi answers again: reason driver clears by itself"
answer n1 a100-memory-na.txt
wait_json 60 "node show n1" gpu_health.0.state healthy
wait_json 60 "node show n1" gpu_health.1.state healthy
grep -q "GPU 0 is healthy again: nvidia-smi answers" "$TMP/agent-n1.log" && pass || fail "agent log lacks the recovery"

case_ "a GPU lost (exit 15, 'GPU is lost'): that GPU is missing, the other stays healthy"
answer n1 gpu-lost-exit15.txt
wait_json 60 "node show n1" gpu_health.1.reason missing
rd --output json -c "node show n1"
expect_json gpu_health.0.state healthy
case "$(jget gpu_health.1.detail)" in *"GPU is lost"*) pass ;; *) fail "missing detail: $(jget gpu_health.1.detail)" ;; esac
answer n1 a100-memory-na.txt
rd --output json -c "node health clear n1 1"
expect_status 0
expect_json gpu_health.1.state healthy

case_ "lost with no GPU named or listed: every GPU of the node is missing"
answer n1 gpu-lost-alone-exit15.txt
wait_json 60 "node show n1" gpu_health.0.reason missing
wait_json 60 "node show n1" gpu_health.1.reason missing
answer n1 a100-memory-na.txt
rd -c "node health clear n1"
expect_status 0

case_ "an agent that starts while the driver is broken keeps the node's GPUs, unhealthy for driver at once"
kill_daemon "$(agent_pid n1)" TERM
answer n1 no-devices-exit6.txt
agent n1
wait_until 60 detail_has n1 "exit status 6: No devices were found"
wait_json 60 "node show n1" gpu_health.0.reason driver
rd --output json -c "node show n1"
expect_json gpu_count 2
expect_json gpu_type a100
expect_json gpu_health.1.reason driver
answer n1 a100-memory-na.txt
wait_json 60 "node show n1" inventory_problems "[]"
wait_json 60 "node show n1" gpu_health.0.state healthy
wait_json 60 "node show n1" gpu_health.1.state healthy

case_ "a GPU name no type lists: the node is rejected (gpu_model_known), never a CPU node"
answer n2 gb10-memory-na.txt
agent n2
wait_json 60 "node show n2" unmet.0.requirement gpu_model_known
rd --output json -c "node show n2"
expect_json state rejected
expect_json gpu_type null
expect_json unmet.0.actual "NVIDIA GB10"
expect_json unmet.0.required "a type of gpu list"
alive n2 && pass || fail "the agent stopped"

case_ "the agent reports again every sample: once the name maps, the node has its GPUs without a restart"
answer n2 a100-memory-na.txt
wait_json 60 "node show n2" gpu_type a100
rd --output json -c "node show n2"
expect_json gpu_count 2
case "$(jget unmet)" in *gpu_model_known*) fail "still unmet: $(jget unmet)" ;; *) pass ;; esac
alive n2 && pass || fail "the agent stopped"

case_ "gpu add names the card: the running agent reports it within a minute, with the catalog's memory"
rd -c "node add dc n3 --minion m-3"
answer n3 gb10-memory-na.txt
agent n3
wait_json 60 "node show n3" unmet.0.requirement gpu_model_known
rd -c "gpu add gb10 --nvidia-name 'NVIDIA GB10' --memory-gb 128 --fp32 31 --fp16 62 --class professional"
expect_status 0
wait_json 60 "node show n3" gpu_type gb10
rd --output json -c "node show n3"
expect_json gpu_count 1
expect_json inventory.gpus.0.memory_gb 128
case "$(jget unmet)" in *gpu_model_known*) fail "still unmet: $(jget unmet)" ;; *) pass ;; esac
alive n3 && pass || fail "the agent stopped"

finish
