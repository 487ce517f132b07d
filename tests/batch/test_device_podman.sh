#!/bin/sh
# An edge device's agent under real podman (spec/execution.md §7): the
# deployed configuration's image (an offline busybox image imported under a
# registry-qualified local name, as in test_runtime_podman.sh) runs with the
# staged model under /opt/ml, its env, and every /dev/video* of the device
# passed through with --device ($RIGDECK_DEV_DIR stands for /dev: a video0
# made with mknod as a copy of /dev/null).  It is reported running, then
# failed with the container's exit status.  Skips where podman cannot run a
# container or mknod is not allowed.
. tests/batch/lib.sh
. tests/batch/daemons.sh

. tests/batch/podman.sh
podman_conf || skip "$PODMAN_WHY"
podman_rootfs "$TMP/rootfs" sh echo cat test ls || skip "$PODMAN_WHY"
mkdir -p "$TMP/dev"
mknod "$TMP/dev/video0" c 1 3 2>/dev/null || skip "mknod is not allowed here (no stand-in camera)"
IMG=docker.io/rdtest/device-busybox-$$:1
podman_image "$TMP/rootfs" "$IMG" || skip "$PODMAN_WHY"
cleanup_image () { podman rmi -f "$IMG" >/dev/null 2>&1; daemons_cleanup; }
trap cleanup_image EXIT
export RIGDECK_DEV_DIR=$TMP/dev

W=$TMP/www
mkdir -p "$W" "$TMP/model"
echo 'echo "video=$(test -c '"$TMP"'/dev/video0 && echo yes) code=$(cat code.txt) tag=$TAG" >/opt/ml/output/marker; exit 5' \
    >"$TMP/model/run.sh"
echo here >"$TMP/model/code.txt"
tar -C "$TMP/model" -czf "$W/model.tar.gz" run.sh code.txt
http_serve "$W"
PORT=$HTTP_PORT

rd -c "provider enable physical" -c "region create edge --provider physical --storage central" \
   -c "node add edge st-1 --agent none --minion m-st --role storage --inventory $INV/storage.yaml" \
   -c "device add edge cam-$$ --minion j-1 --model jetson-orin-nano" \
   -c "model add yolo --source http://127.0.0.1:$PORT/model.tar.gz" \
   -c "device-config create edge detect --image $IMG --model yolo --command 'sh run.sh' --env TAG=podman-tag" \
   -c "device set-config cam-$$ detect"
expect_status 0

case_ "the deployed image runs with the device's camera passed through; its exit status is reported"
mkdir -p "$TMP/work-dev"
$WRAP "$BIN" agent --store "$STORE" --device cam-$$ --work-dir "$TMP/work-dev" --heartbeat 1s --runtime podman \
    2>>"$TMP/agent-dev.log" &
DAEMONS="$DAEMONS $!"
wait_json 60 "device show cam-$$" state active
rd -c "device deploy cam-$$"
expect_status 0
wait_json 120 "device show cam-$$" deployment.state failed
rd --output json -c "device show cam-$$"
expect_json deployment.exit_code 5
expect_json agent.runtime podman
M=$(find "$TMP/work-dev/runs" -name marker 2>/dev/null | head -1)
[ -n "$M" ] && grep -q "^video=yes code=here tag=podman-tag$" "$M" && pass ||
    fail "marker: $(cat "$M" 2>/dev/null); agent: $(tail -n 5 "$TMP/agent-dev.log")"
grep -q "1 device(s) passed through" "$TMP/agent-dev.log" && pass || fail "agent: $(cat "$TMP/agent-dev.log")"

finish
