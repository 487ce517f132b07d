#!/bin/sh
# The house rules of issue 14, checked: no group of files in core/ or tui/
# calls each other (scripts/callgraph.py), and core/ includes no header of
# the console.  Issue 34: core/'s folders are layers (the Makefile's
# CORE_LAYERS): a folder's include path holds only itself and the folders
# below it, and `callgraph.py --folders` finds no call against the order.  Fails on the tree before the clean-up (5 cycles in core/, 1
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

case_ "a core folder's include path holds only the folders below it (issue 34)"
# the flags make gives core/cmd's files: a header of core/access (above)
# is not found, one of core/store (below) is
flags=$(make -s -n -B BUILD="$TMP/mk" "$TMP/mk/obj/core/cmd/cmd.o" 2>"$ERR" | grep -o ' -iquote [^ ]*' | tr '\n' ' ')
case "$flags" in *core/store*) pass ;; *) fail "no core/store on core/cmd's include path: $flags" ;; esac
case "$flags" in *core/access*|*core/app*|*core/fleet*) fail "core/cmd sees a folder above it: $flags" ;; *) pass ;; esac
printf '#include "access.h"\n' >"$TMP/up.c"
printf '#include "tx.h"\n' >"$TMP/down.c"
# shellcheck disable=SC2086
if cc -std=c17 $flags $(pkg-config --cflags jansson) -fsyntax-only "$TMP/up.c" 2>"$ERR"; then
    fail "core/cmd's flags find access.h"
else
    grep -q "access.h" "$ERR" && pass || fail "unexpected error: $(head -2 "$ERR")"
fi
# shellcheck disable=SC2086
cc -std=c17 $flags $(pkg-config --cflags jansson) -fsyntax-only "$TMP/down.c" 2>"$ERR" && pass || fail "core/cmd's flags miss tx.h: $(head -2 "$ERR")"
# core/app, the top, sees every folder
flags=$(make -s -n -B BUILD="$TMP/mk" "$TMP/mk/obj/core/app/app.o" 2>"$ERR" | grep -o ' -iquote [^ ]*' | tr '\n' ' ')
n=$(ls -d core/*/ | wc -l)
[ "$(echo "$flags" | grep -o 'iquote' | wc -l)" -eq "$n" ] && pass || fail "core/app's flags are not every folder: $flags"

case_ "the folder checker finds calls against the layer order"
# a call up (base -> cmd), the same pair both ways, and a folder the order lacks
mkdir -p "$TMP/layers/base" "$TMP/layers/cmd" "$TMP/layers/nowhere"
printf 'int cmd_fn(void);\nint base_fn(void)\n{\n    return cmd_fn();\n}\n' >"$TMP/layers/base/a.c"
printf 'int base_fn(void);\nint cmd_fn(void)\n{\n    return base_fn();\n}\n' >"$TMP/layers/cmd/b.c"
printf 'int nowhere_fn(void)\n{\n    return 0;\n}\n' >"$TMP/layers/nowhere/c.c"
python3 scripts/callgraph.py --folders "$TMP/layers" >"$OUT" 2>"$ERR"; RC=$?
expect_status 1
expect_out "^both ways: base <-> cmd"
expect_out "^against the order: base -> cmd: .*a.c -> .*b.c (cmd_fn)"
expect_out "^folder not in the layer order: nowhere"
expect_no_out "against the order: cmd -> base"
# calls down only: clean
rm -r "$TMP/layers/nowhere"
printf 'int base_fn(void)\n{\n    return 1;\n}\n' >"$TMP/layers/base/a.c"
python3 scripts/callgraph.py --folders "$TMP/layers" >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
expect_out " 0 against the order"

case_ "the framework, access, store and app call only down (issue 34)"
python3 scripts/callgraph.py --folders core >"$OUT" 2>"$ERR"
grep -E "^against the order: (base|model|store|cmd|access) ->|^both ways: .*\b(base|model|store|cmd|access|app)\b|-> app:|^folder not" "$OUT" >"$TMP/mine"
[ ! -s "$TMP/mine" ] && pass || fail "calls against the order: $(head -3 "$TMP/mine")"

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

# Last: the whole of core/ (issue 34's "done when"), after the cases above.
case_ "core/ folders call only down the layer order: no pair both ways"
python3 scripts/callgraph.py --folders core >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
expect_out " 0 against the order"
expect_no_out "^both ways"

finish
