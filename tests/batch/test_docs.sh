#!/bin/sh
# The man page keeps in step with the command table: every command that
# `help` lists appears in docs/rigdeck.1; `make install` installs it with
# the binary, the bash completion and the route server; the demo script
# answers --help; tests/README.md's map names every test program.
. tests/batch/lib.sh

case_ "every command of the table is in the man page"
rd --output json -c help
cp "$OUT" "$TMP/help.json"
: >"$OUT"
n=$(python3 tests/jget.py items.len <"$TMP/help.json")
i=0
while [ "$i" -lt "$n" ]; do
    words=$(python3 tests/jget.py "items.$i.name" <"$TMP/help.json")
    if sed 's/\\-/-/g' docs/rigdeck.1 | grep -q "^\.B $words\( \|$\)"; then pass; else fail "docs/rigdeck.1 lacks '$words'"; fi
    i=$((i + 1))
done

case_ "make install puts the binary, the man page, the bash completion and the route server in place"
# A make of its own: not the jobserver of a `make -j test` that runs this.
root=$TMP/root
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install BUILD="$BUILD" PREFIX=/usr DESTDIR="$root" \
    >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
for f in bin/rigdeck share/man/man1/rigdeck.1 share/bash-completion/completions/rigdeck; do
    if [ -s "$root/usr/$f" ]; then pass; else fail "make install did not install usr/$f"; fi
done
if cmp -s scripts/rigdeck.bash-completion "$root/usr/share/bash-completion/completions/rigdeck"; then
    pass; else fail "the installed completion differs from scripts/rigdeck.bash-completion"; fi
# The route server endpoint workers run (execution.md section 6).
if cmp -s scripts/route_server.py "$root/usr/share/rigdeck/route_server.py"; then
    pass; else fail "make install did not install scripts/route_server.py as usr/share/rigdeck/route_server.py"; fi
if command -v bash >/dev/null 2>&1; then
    bash -c '. "$1" && complete -p rigdeck' sh "$root/usr/share/bash-completion/completions/rigdeck" >"$OUT" 2>"$ERR"
    RC=$?
    expect_out "complete -F _rigdeck rigdeck"
fi

case_ "scripts/demo_fleet.py --help prints its usage, no traceback"
python3 scripts/demo_fleet.py --help >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
expect_out "^usage: demo_fleet.py \[-h\] BIN STORE"
expect_out "RIGDECK_DEMO_START"
if [ -s "$ERR" ]; then fail "stderr is not empty"; else pass; fi
python3 scripts/demo_fleet.py >"$OUT" 2>"$ERR"; RC=$?
expect_status 2
expect_err "^demo_fleet.py: error: the following arguments are required: BIN, STORE"
if grep -q Traceback "$ERR"; then fail "a traceback"; else pass; fi

case_ "the man page is well-formed"
if command -v groff >/dev/null 2>&1; then
    warn=$(groff -man -Tutf8 -ww docs/rigdeck.1 2>&1 >/dev/null)
    if [ -z "$warn" ]; then pass; else fail "groff warnings: $warn"; fi
fi

case_ "tests/README.md names every test program"
# The map from command families and subsystems to tests stays true only if
# a new test is added to it (tests/README.md, "The map").
for f in tests/unit/test_*.c tests/tui_unit/test_*.c tests/batch/test_*.sh \
         tests/tui/test_*.sh tests/etcd/test_*.sh tests/fuzz/fuzz_*.c; do
    [ -e "$f" ] || continue
    name=${f#tests/}
    if grep -qFw -- "$name" tests/README.md; then pass; else fail "tests/README.md does not name $name"; fi
done

finish
