#!/bin/sh
# test_fleet_grid.sh - the Fleet map pane (#, issue 35): on the demo fleet,
# a cell per node under its region's heading and the legend of the
# colouring; the lab's two edge devices after its nodes, past a '|', in
# lower case (cam-01 active and running, cam-02 provisioning), named by
# the cursor, with no GPU figures, health from the deployment, Enter
# opening `device show`; c switches the colouring (the legend follows; GPU use comes
# from a reading imported for gpu-02); the arrows move the cursor and the
# node under it is named; Enter opens its details; and with --ascii and
# NO_COLOR the cells are still letters and shades.
. tests/tui/lib.sh

if ! rd -f scripts/demo-fleet.txt >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the demo fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi
# gpu-02 (no agent) gets a reading a minute old: two GPUs, 90% and 10% busy
python3 - >"$TMP/reading.jsonl" <<'PY'
import json, time
t = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60))
print(json.dumps({"t": t, "gpus": [{"index": 0, "gpu_util": 90, "gpu_temp_c": 85},
                                   {"index": 1, "gpu_util": 10, "gpu_temp_c": 40}]}))
PY
rd -c "metrics import gpu-02 $TMP/reading.jsonl" >"$TMP/import.log" 2>&1 || { cat "$TMP/import.log" >&2; FAILED=1; }

start_shell 120 40

case_ "# opens the Fleet map: regions, a cell per node, the state legend"
start_console
expect_screen 'gpu-01' 15
keys '#'
expect_screen 'Fleet map · 9 of 9'
expect_screen '7 nodes and 2 devices by region'
expect_screen '# Map'
expect_screen 'colour: state  A active  M maintenance'
expect_screen '^ dc-east *$'
expect_screen '^ AA[A-Z]*'
expect_screen '^ lab *$'
expect_screen '^ [A-Z][A-Z]*|ap *$'
expect_screen '| devices: a p o'
expect_screen '^ gpu-01  region dc-east  active'
expect_screen 'c colour'

case_ "the cursor names the node under it; Down goes to the next region"
keys Right
expect_screen '^ gpu-02  region dc-east  active'
expect_screen '^gpu-02  region dc-east  active'   # the status line too
keys l
expect_screen '^ new-01  region dc-east  provisioning'
keys Left Down
expect_screen '^ lab-storage  region lab'
keys Up
expect_screen '^ gpu-02  region dc-east'

case_ "c switches the colouring: the legend and the figure follow"
keys c
expect_screen 'colour: GPU allocation  \. <20%'
expect_screen 'gpu-02  region dc-east  active  0/4 GPUs allocated (0%)'
keys c
expect_screen 'colour: GPU use  \. <20%'
expect_screen 'gpu-02  region dc-east  active  GPU use 50% (mean of its GPUs)'
keys c
expect_screen 'colour: temperature'
expect_screen 'hottest GPU 85 C'
keys c
expect_screen 'colour: health  o all GPUs healthy  X a GPU unhealthy'
keys c
expect_screen 'colour: state  A active'

case_ "Enter opens the node's details, Esc closes them"
keys Enter
expect_screen 'Fleet gpu-02  (Esc closes)'
expect_screen 'minion_id  *7f3a-0002'
keys Escape
expect_not_screen 'Esc closes'

case_ "devices: named by the cursor, no GPU figures, health from the deployment, Enter shows the device"
keys End
expect_screen '^ device cam-02  region lab  provisioning'
keys Left
expect_screen '^ device cam-01  region lab  active'
keys c
expect_screen 'no reading  - no GPUs  | devices follow'
expect_screen '^ device cam-01  region lab  active  an edge device: no GPU allocation'
expect_screen '^ [.:+#@?-]*|?? *$'
keys c c c
expect_screen '| devices: o running  X failed  - none'
expect_screen '^ device cam-01  region lab  active  deployment running'
expect_screen '^ [oX-]*|o- *$'
keys c
expect_screen 'colour: state  A active'
keys Enter
expect_screen 'Fleet device cam-01  (Esc closes)'
expect_screen 'model  *jetson-orin-nano'
keys Escape

case_ "> from a device cell goes to its region, < comes back to the map; a node cell goes to its jobs"
keys '>'
expect_screen 'device cam-01 -> region lab (< goes back)'
expect_screen 'Regions'
keys '<'
expect_screen 'back to Fleet device cam-01'
expect_screen '^ device cam-01  region lab  active'
keys Home
expect_screen '^ gpu-01  region dc-east  active'
keys '>'
# no job runs in this scenario: the jump says so and nothing moves
expect_screen 'no job in .* names node gpu-01: nothing to jump to'
expect_screen '^ gpu-01  region dc-east  active'
keys End Left
expect_screen '^ device cam-01  region lab  active'
expect_not_screen 'Esc closes'
keys / k i n d : d e v i c e Enter
expect_screen 'Fleet map · 2 of 9'
expect_screen '^ |ap *$'
keys q
expect_screen 'rigdeck-exit=0'

case_ "--ascii with NO_COLOR: the cells are letters and shades"
type_ "clear; NO_COLOR=1 $BIN --store $STORE --ascii; echo rigdeck-exit=\$?"
keys Enter
expect_screen 'gpu-01' 15
keys '#' c c
expect_screen 'colour: GPU use  \. <20%  : 20-39%  + 40-59%  # 60-79%  @ >=80%  ? no reading'
# gpu-01 has no reading, gpu-02 is at 50%, new-01 has no GPUs
expect_screen '^ ?+-'
keys q
expect_screen 'rigdeck-exit=0'

summary
exit $((FAILED != 0))
