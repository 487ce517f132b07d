#!/bin/sh
# The man page keeps in step with the command table: every command that
# `help` lists appears in docs/rigdeck.1.
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

case_ "the man page is well-formed"
if command -v groff >/dev/null 2>&1; then
    warn=$(groff -man -Tutf8 -ww docs/rigdeck.1 2>&1 >/dev/null)
    if [ -z "$warn" ]; then pass; else fail "groff warnings: $warn"; fi
fi

finish
