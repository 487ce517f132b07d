# lib.sh - helpers for the console's end-to-end tests, sourced by
# tests/tui/test_*.sh.
#
# tmux runs a shell at a fixed size on a private socket; `keys` and `type_`
# type into it (send-keys), `shot` reads the screen back (capture-pane) and
# `wait_for` polls it for a basic regular expression with a timeout instead
# of sleeping.  `rd ARGS...` runs rigdeck --batch on $STORE.  `summary`
# prints "batch-summary: passed=N failed=M" like tests/batch/lib.sh, which
# tests/run.sh counts; `skip REASON` ends a test that cannot run here.
# Under RIGDECK_WRAP (make valgrind) every test is skipped: valgrind inside
# a terminal multiplexer is too slow for interactive timeouts.
set -u
BUILD=${BUILD:-build}
BIN=${RIGDECK_BIN:-$BUILD/rigdeck}
PASSED=0
FAILED=0
CASE=""

summary () { echo "batch-summary: passed=$PASSED failed=$FAILED"; }
# skip REASON: the test cannot run here; "batch-skip: REASON" makes
# tests/run.sh report "skipped (REASON)" rather than a test that ran no check.
skip () {
    echo "batch-skip: $*"
    summary
    exit $((FAILED != 0))
}
if [ -n "${RIGDECK_WRAP:-}" ]; then
    skip "tmux tests do not run under RIGDECK_WRAP, too slow for interactive timeouts"
fi
if ! command -v tmux >/dev/null 2>&1; then
    skip "tmux is not installed"
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rdtui.XXXXXX")
SOCK="rdtui$$"
STORE=${STORE:-"sqlite:$TMP/s.db"}
SCREEN="$TMP/screen"
export RIGDECK_MASTER_KEY="$TMP/master.key"
unset RIGDECK_STORE RIGDECK_ACCOUNT RIGDECK_NOW NO_COLOR
T () { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
# Absolute paths: the shell in tmux starts in the repository root anyway.
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac

case_ () { CASE=$1; }
pass () { PASSED=$((PASSED + 1)); }
fail () {
    FAILED=$((FAILED + 1))
    echo "  FAIL [$CASE] $1" >&2
    echo "  ---- screen ----" >&2
    sed 's/^/  | /' "$SCREEN" >&2
}

shot () { T capture-pane -p -t rd >"$SCREEN" 2>/dev/null; }

# wait_for PATTERN [SECONDS]: polls the screen every 0.1 s for a basic
# regular expression; 0 when it shows up in time.
wait_for () {
    tries=$(( ${2:-8} * 10 ))
    while [ "$tries" -gt 0 ]; do
        shot
        grep -q -- "$1" "$SCREEN" && return 0
        sleep 0.1
        tries=$((tries - 1))
    done
    return 1
}
wait_gone () {
    tries=$(( ${2:-8} * 10 ))
    while [ "$tries" -gt 0 ]; do
        shot
        grep -q -- "$1" "$SCREEN" || return 0
        sleep 0.1
        tries=$((tries - 1))
    done
    return 1
}
expect_screen () { if wait_for "$1" "${2:-8}"; then pass; else fail "the screen never showed '$1'"; fi; }
expect_not_screen () { if wait_gone "$1" "${2:-8}"; then pass; else fail "the screen still shows '$1'"; fi; }
keys () { T send-keys -t rd "$@"; }
# literal text (no key-name lookup)
type_ () { T send-keys -t rd -l -- "$1"; }

rd () { "$BIN" --batch --store "$STORE" "$@"; }
node_state () {
    rd --output json -c "node list" |
        python3 -c "import json,sys; print({n['name']: n['state'] for n in json.load(sys.stdin)['items']}.get(sys.argv[1], 'missing'))" "$1"
}
expect_state () {
    got=$(node_state "$1")
    if [ "$got" = "$2" ]; then pass; else fail "batch 'node list' says $1 is '$got', expected '$2'"; fi
}

# start_console ARGS...: runs the console in the tmux shell, recording the
# terminal modes before and after and the exit status on screen.
start_console () {
    type_ "clear; stty -g >$TMP/stty.before; $BIN --store $STORE $*; echo rigdeck-exit=\$?; stty -g >$TMP/stty.after"
    keys Enter
}

# start_shell: the tmux session "rd" with a recognisable prompt.
start_shell () {
    T new-session -d -s rd -x "${1:-120}" -y "${2:-40}" -e LC_ALL=C.UTF-8 "env PS1='rdtest\$ ' sh"
    wait_for 'rdtest\$' 5 || { echo "  FAIL tmux shell did not start" >&2; FAILED=1; summary; exit 1; }
}
