#!/bin/sh
# help is prose for a person: wrapped to $COLUMNS, else to the terminal on
# stdout, else to 80 columns, descriptions in a column and continued under
# it, no word cut.  --output json is the same documents whatever the width.
. tests/batch/lib.sh

widest () { awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1"; }
words () { tr -s ' \n' '\n\n' <"$1"; }

case_ "without a terminal or \$COLUMNS help fits 80 columns"
rd -c help
expect_status 0
cp "$OUT" "$TMP/help80"
w=$(widest "$OUT")
if [ "$w" -le 80 ]; then pass; else fail "a line of $w columns"; fi
expect_out "^account create NAME \[--plan free|team|enterprise\]$"
expect_out "^    \[--role admin|operator|member|viewer\]$"
# a usage too long for a line goes on 4 columns in, [...] groups whole
expect_out "^region create NAME --provider physical|gcp \[--storage local|central\] \[--public\]$"
expect_out "^    \[--gcp-region GCP_REGION\] \[--storage-class micro|small|medium|large|xlarge\]$"
# its description starts on the next line, in the description column
expect_out "^ \{32\}create a physical or GCP region$"
# a short usage keeps its description on its line
expect_out "^account list  *list accounts$"

case_ "\$COLUMNS sets the width"
export COLUMNS=1000
rd -c help
cp "$OUT" "$TMP/help-wide"
expect_out "^region create NAME .*\[--idle-release DURATION\]  *create a physical or GCP region$"
export COLUMNS=40
rd -c help
w=$(widest "$OUT")
if [ "$w" -le 40 ]; then pass; else fail "a line of $w columns at COLUMNS=40"; fi
rd -c "help job submit"
w=$(widest "$OUT")
if [ "$w" -le 40 ]; then pass; else fail "help job submit: a line of $w columns at COLUMNS=40"; fi
expect_out "^usage    job submit FILE \[--project P\]$"
expect_out "^         \[--priority N\]$"
expect_out "^  --project   the project (NAME or$"
export COLUMNS=junk
rd -c help
if cmp -s "$OUT" "$TMP/help80"; then pass; else fail "COLUMNS=junk is not 80 columns"; fi
unset COLUMNS

case_ "wrapping moves words, never cuts or drops one"
words "$TMP/help80" >"$TMP/w80"
words "$TMP/help-wide" >"$TMP/wwide"
if cmp -s "$TMP/w80" "$TMP/wwide"; then pass; else fail "the words at 80 columns differ from one line each"; fi

case_ "on a terminal help fits the terminal's width"
if command -v script >/dev/null 2>&1 && command -v stty >/dev/null 2>&1; then
    script -qec "stty cols 50 && $WRAP $BIN --batch -c help" /dev/null >"$OUT" 2>"$ERR"
    RC=$?
    expect_status 0
    tr -d '\r' <"$OUT" >"$TMP/tty"
    w=$(widest "$TMP/tty")
    if [ "$w" -le 50 ] && [ "$w" -gt 40 ]; then pass; else fail "widest line $w on a 50-column terminal"; fi
fi

case_ "JSON help is the same whatever the width"
rd --output json -c help -c "help job submit"
cp "$OUT" "$TMP/json-default"
expect_json items.0.command "account create NAME [--plan free|team|enterprise] [--role admin|operator|member|viewer]" 0
expect_json usage "job submit FILE [--project P] [--priority N]" 1
export COLUMNS=30
rd --output json -c help -c "help job submit"
unset COLUMNS
if cmp -s "$OUT" "$TMP/json-default"; then pass; else fail "JSON help changed with COLUMNS=30"; fi
n=$(wc -l <"$OUT")
if [ "$n" = 2 ]; then pass; else fail "expected 2 JSON lines, got $n"; fi

finish
