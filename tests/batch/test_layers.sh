#!/bin/sh
# The house rules of issue 14, checked: no group of files in core/ or tui/
# calls each other (scripts/callgraph.py), and core/ includes no header of
# the console.  Fails on the tree before the clean-up (5 cycles in core/, 1
# in tui/).  Every agent a test or script starts names its runtime
# (tests/agent_starts.py), so the tests pass whether podman is installed.
. tests/batch/lib.sh

case_ "core/ files call one way: no cycle"
python3 scripts/callgraph.py core >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
expect_out "0 cycles"

case_ "tui/ files call one way: no cycle"
python3 scripts/callgraph.py tui >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
expect_out "0 cycles"

case_ "the checker finds a cycle when there is one"
mkdir -p "$TMP/loop"
printf 'int b_fn(void);\nint a_fn(void)\n{\n    return b_fn();\n}\n' >"$TMP/loop/a.c"
printf 'int a_fn(void);\nint b_fn(void)\n{\n    return a_fn();\n}\n' >"$TMP/loop/b.c"
python3 scripts/callgraph.py "$TMP/loop" >"$OUT" 2>"$ERR"; RC=$?
expect_status 1
expect_out "cycle: .*a.c .*b.c"

case_ "core/ includes no console header"
bad=""
for h in tui/*/*.h; do
    n=$(basename "$h")
    ls core/*/"$n" >/dev/null 2>&1 && continue
    grep -l "#include \"$n\"" core/*/*.c core/*/*.h >/dev/null 2>&1 && bad="$bad $n"
done
[ -z "$bad" ] && pass || fail "core/ includes console headers:$bad"
if grep -l "curses" core/*/*.c core/*/*.h >/dev/null 2>&1; then fail "core/ mentions curses"; else pass; fi

case_ "no code outside core/store/ picks a backend by its URL (issue 34)"
# Callers ask the backend's capabilities (store_caps_get); a string that
# starts with a backend's scheme or name is how a URL test looks.
grep -rn '"etcd\|"sqlite' core --include=*.c | grep -v '^core/store/' >"$OUT"
[ ! -s "$OUT" ] && pass || fail "backend names outside core/store/: $(head -3 "$OUT")"

case_ "every agent a test or script starts names its runtime (podman or not)"
# `auto` picks podman when `podman info` answers: a test must not depend on it
python3 tests/agent_starts.py tests scripts core/cloud >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
expect_out "0 without --runtime"
n=$(sed -n 's/^\([0-9]*\) agent start.*/\1/p' "$OUT")
[ "${n:-0}" -ge 10 ] && pass || fail "the checker found only ${n:-0} agent starts"
# the cloud node's startup script (core/cloud/cloud_agent.c) is one of them
python3 tests/agent_starts.py core/cloud >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
expect_out "^[1-9][0-9]* agent start(s) checked, 0 without --runtime"

case_ "the runtime checker finds an agent started without --runtime"
# (the word comes through %s, or this very line would be such a start)
printf '#!/bin/sh\n"$BIN" %s --store "$STORE" --node n1 \\\n    --heartbeat 1s 2>log &\n' agent >"$TMP/bad.sh"
printf '"$BIN" %s --store "$STORE" --node n1 --runtime process --once >"$OUT"\n' agent >"$TMP/good.sh"
python3 tests/agent_starts.py "$TMP/bad.sh" "$TMP/good.sh" >"$OUT" 2>"$ERR"; RC=$?
expect_status 1
expect_out "bad.sh:2: agent started without --runtime"
expect_no_out "good.sh"

finish
