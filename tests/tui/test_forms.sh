#!/bin/sh
# test_forms.sh - the add and edit forms of every pane whose objects have an
# add or set command: hints while typing, the core's refusal shown with the
# typed values kept, and the row the command made or changed on screen (and
# in batch).
. tests/tui/lib.sh

INV=tests/inventories
if ! rd -c "provider enable physical" \
        -c "region create edge --provider physical --storage central" \
        -c "node add edge st-01 --agent none --minion m-st --role storage --inventory $INV/storage.yaml" \
        -c "node maintenance st-01 off" -c "account create alice --plan team" \
        >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the test fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi
batch_field () { rd --output json -c "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print(eval('d' + sys.argv[1]))" "$2"; }

start_shell 120 40
start_console
expect_screen 'st-01' 15

case_ "Providers: a opens the enable form; the core's refusal shows and the values stay"
keys 1
expect_screen 'physical'
keys a
expect_screen 'Enable a provider'
keys Right Right
expect_screen 'runs: provider enable gcp'
keys Enter
expect_screen 'provider enable gcp: --key-file FILE'
expect_screen 'runs: provider enable gcp'
keys Escape
expect_not_screen 'Enable a provider'

case_ "Nodes: e on a row of the projected list prefills from the whole node"
# The Nodes table holds only the fields its columns show (node list
# --fields); the form's UPnP and mining come from node show.  r reads the
# table again, so the row is the list's, not one patched in from node show.
rd -c "node set st-01 --upnp off" >/dev/null
keys 3
expect_screen 'st-01'
keys r
expect_screen 'reloaded Nodes: 1 row' 30
expect_screen 'st-01'
keys e
expect_screen 'Edit a node'
expect_screen 'runs: node set st-01 --upnp off --mining off --agent none'
expect_screen 'Agent'
keys Escape
expect_not_screen 'Edit a node'

case_ "Regions: e edits a region after creation (region set), prefilled from its row"
keys 2
expect_screen 'edge'
keys e
expect_screen 'Edit a region'
expect_screen 'runs: region set edge --public off'
keys Left
expect_screen 'runs: region set edge --public on'
keys Enter
expect_screen 'done: region set edge --public on'
[ "$(batch_field 'region show edge' "['public']")" = True ] && pass || fail "batch does not see edge public"

case_ "Devices: a adds a device; an unknown model is flagged while typing"
keys 4
expect_screen 'No edge devices yet'
keys a
expect_screen 'Add a device'
type_ "edge"; keys Tab
type_ "cam-01"; keys Tab
type_ "m-cam1"; keys Tab
type_ "jetson-nano-x"
expect_screen 'unknown (known: jetson'
keys Enter
expect_screen '--model must be a device model'
expect_screen 'Add a device'
keys C-u
type_ "jetson-orin-nano"
expect_not_screen 'unknown (known'
keys Enter
expect_screen 'done: device add edge cam-01 --minion m-cam1 --model jetson-orin-nano'
expect_screen 'cam-01 .*edge .*jetson-orin-nano'
[ "$(batch_field 'device show cam-01' "['model']")" = jetson-orin-nano ] && pass || fail "batch does not see cam-01"

case_ "Devices: v shows configurations; a creates one with repeated --env"
keys v
expect_screen 'No device configurations yet'
keys a
expect_screen 'Create a device configuration'
type_ "edge"; keys Tab
type_ "cam"; keys Tab
type_ "registry/cam:1"; keys Tab
type_ "jetson-orin-nano"; keys Tab
type_ "python cam.py"; keys Tab Tab
type_ "nosuch-store"; keys Tab Tab
type_ "FPS=30 MODE=fast"
expect_screen 'unknown (known: none)'
keys Enter
expect_screen 'datastore.*nosuch-store'
expect_screen 'Create a device configuration'
keys Up Up C-u
keys Enter
expect_screen 'done: device-config create edge cam --image registry/cam:1 --model jetson-orin-nano'
expect_screen 'cam .*edge .*jetson-orin-nano'
# both --env values reached the store (sealed there: shown as ***)
[ "$(batch_field 'device-config list' "['items'][0]['env']['MODE']")" = '***' ] &&
    [ "$(batch_field 'device-config list' "['items'][0]['env']['FPS']")" = '***' ] && pass ||
    fail "the config's env is not in the store"

case_ "Devices: e chooses a device's configuration"
keys v
expect_screen 'cam-01'
keys e
expect_screen "Choose a device's configuration"
type_ "nope"
expect_screen 'unknown (known: cam)'
keys C-u
type_ "cam"
keys Enter
expect_screen 'done: device set-config cam-01 cam'
[ "$(batch_field 'device show cam-01' "['config']")" = cam ] && pass || fail "batch does not see the config"

case_ "Devices: d on a configuration in use is refused with the core's reason"
keys v
expect_screen 'registry/cam:1'
keys d
expect_screen 'Remove config edge cam?'
keys y
expect_screen 'device-config remove: .*cam-01'

case_ "Jobs: v shows projects; a creates one, e changes its setting"
keys 6
keys v
expect_screen 'ON QUOTA EXHAUSTED'
keys a
expect_screen 'Create a project'
type_ "vision"; keys Tab
type_ "alice"
keys Enter
expect_screen 'done: project create vision --owner alice'
expect_screen 'alice .*vision .*move'
keys /
type_ "vision"
keys Enter
keys e
expect_screen 'Edit a project'
expect_screen 'runs: project set alice/vision --on-quota-exhausted move'
keys Left
expect_screen 'runs: project set alice/vision --on-quota-exhausted fail'
keys Enter
expect_screen 'done: project set alice/vision'
expect_screen 'alice .*vision .*fail'
[ "$(batch_field 'project show alice/vision' "['on_quota_exhausted']")" = fail ] && pass || fail "batch still sees move"

case_ "Billing: a creates an account, e sets a mining wallet"
keys 7
expect_screen 'alice'
keys a
expect_screen 'Create an account'
type_ "bob"
keys Enter
expect_screen 'done: account create bob'
expect_screen 'bob '
keys /
type_ "bob"
keys Enter
keys e
expect_screen 'Edit an account'
keys Down
type_ "not a wallet"
keys Enter
expect_screen 'mining'
expect_screen 'Edit an account'
keys Escape

case_ "Jobs: v shows the environments, read only but for d (remove)"
keys 6 v
expect_screen 'Jobs: Jobs Projects \[Environments\]'
expect_screen 'pytorch-1.13-py39 *pytorch *1.13.1 *3.9 *763104351884.dkr.ecr'

case_ "Jobs: a submits a job spec file; a missing file is flagged"
keys v
expect_screen 'No jobs yet'
keys a
expect_screen 'Submit a job'
type_ "/nonexistent.yaml"
expect_screen 'no readable file here'
keys Escape

case_ "Jobs: r reads the jobs again (a page at a time, in idle time) and says so"
rd -c "account deposit default 100" -c "job submit tests/specs/sched/a100-1.yaml" >/dev/null
keys r
expect_screen 'reloaded Jobs: 1 row' 30
expect_screen 'Jobs: \[Jobs\] Projects Environments · 1 of 1'
expect_screen '1 waiting'

case_ "--read-only: no add or edit on the new panes either"
keys q
expect_screen 'rigdeck-exit=0'
start_console --read-only
expect_screen 'READ-ONLY' 15
keys 4
keys e
expect_screen 'read-only session (--read-only): e F4 (edit) is disabled'
keys v a
expect_screen 'read-only session (--read-only): a F7 (add) is disabled'
keys q
expect_screen 'rigdeck-exit=0'
summary
