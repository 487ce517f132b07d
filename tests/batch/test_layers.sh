#!/bin/sh
# The house rules of issue 14, checked: no group of files in core/ or tui/
# calls each other (scripts/callgraph.py), and core/ includes no header of
# the console.  Fails on the tree before the clean-up (5 cycles in core/, 1
# in tui/).
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
for h in tui/*.h; do
    n=$(basename "$h")
    ls core/*/"$n" >/dev/null 2>&1 && continue
    grep -l "#include \"$n\"" core/*/*.c core/*/*.h >/dev/null 2>&1 && bad="$bad $n"
done
[ -z "$bad" ] && pass || fail "core/ includes console headers:$bad"
if grep -l "curses" core/*/*.c core/*/*.h >/dev/null 2>&1; then fail "core/ mentions curses"; else pass; fi

finish
