#!/bin/sh
# test_same_json.sh - one substantial scenario gives identical JSON on both
# backends.
#
# Runs tests/etcd/same_json.txt (accounts, deposits, regions, nodes, prices,
# jobs submitted, scheduled and stopped, bill runs, balances, ledger
# entries, lists and shows, refusals) once on a fresh SQLite file and once
# on a fresh single-member etcd, every line as its own `rigdeck --batch
# --output json` process, and diffs the transcripts (answer, stderr and
# exit status of each line).  Time is fixed with --now, so the only
# differences allowed are these, rewritten before the diff:
#   - the store URL (store info), which names the backend;
#   - job ids and audit record ids, which hold random digits by design
#     (job-XXXXXXXX; <16-digit revision>-XXXXXXXX): each distinct id becomes
#     job#N / audit#N in order of first appearance, so two ids that differ
#     still show;
#   - the order of items in `job list` and `ledger entries`, which is by id
#     (random job ids, and transfer ids that contain them): their items are
#     compared sorted.
# Revision numbers are compared as they are: both stores start empty and
# must count revisions alike.
# Prints "batch-summary: passed=N failed=M" like the batch scenarios.
set -u
BUILD=${BUILD:-build}
WRAP=${RIGDECK_WRAP:-}
BIN=$BUILD/rigdeck
T=$(mktemp -d "${TMPDIR:-/tmp}/rdsame.XXXXXX")
PASSED=0
FAILED=0
pass () { PASSED=$((PASSED + 1)); }
fail () { FAILED=$((FAILED + 1)); echo "  FAIL $1" >&2; }
export RIGDECK_MASTER_KEY="$T/master.key"
unset RIGDECK_ACCOUNT RIGDECK_STORE RIGDECK_NOW

. tests/etcd/lib.sh
trap 'etcd_stop_all; rm -rf "$T"' EXIT

# run_scenario STORE OUT: the transcript of same_json.txt on STORE.
run_scenario () {
    store=$1 out=$2 now="" as=default n=0
    : >"$out"
    : >"$T/ids"
    while IFS= read -r line; do
        case $line in
            ''|'#'*) continue ;;
            '@TIME '*) now=${line#@TIME }; continue ;;
            '@AS '*) as=${line#@AS }; continue ;;
        esac
        want=0
        case $line in '!'*) line=${line#!}; want=1 ;; esac
        i=1
        while read -r id; do line=$(echo "$line" | sed "s/%$i\b/$id/g"); i=$((i + 1)); done <"$T/ids"
        # shellcheck disable=SC2086
        $WRAP "$BIN" --batch --store "$store" --output json --now "$now" --as "$as" -c "$line" \
            >"$T/stdout" 2>"$T/stderr"
        rc=$?
        if [ "$want" = 0 ] && [ "$rc" != 0 ] || [ "$want" = 1 ] && [ "$rc" = 0 ]; then
            fail "$store: '$line' exited $rc: $(cat "$T/stderr")"
        fi
        case $line in 'job submit'*)
            python3 tests/jget.py id <"$T/stdout" >>"$T/ids" ;;
        esac
        { echo "### [$as @ $now] $line -> exit $rc"; cat "$T/stdout" "$T/stderr"; } >>"$out"
        n=$((n + 1))
    done <tests/etcd/same_json.txt
    { echo "### store info"; "$BIN" --batch --store "$store" --output json -c "store info" 2>&1; } >>"$out"
    echo "ran $n lines on $store"
}

# The named rewrites explained above; nothing else is touched.
canon () {
    python3 - "$1" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
text = re.sub(r'"url":"[^"]*"', '"url":"<store>"', text)
for pat, name in ((r'job-[0-9a-f]{8}', 'job'), (r'\b\d{16}-[0-9a-f]{8}\b', 'audit')):
    seen = {}
    text = re.sub(pat, lambda m: seen.setdefault(m.group(0), '%s#%d' % (name, len(seen) + 1)), text)
out, cmd = [], ''
for line in text.split('\n'):
    if line.startswith('### '):
        cmd = line.split('] ', 1)[-1]
    elif cmd.startswith(('job list', 'ledger entries')) and line.startswith('{"items"'):
        doc = json.loads(line)
        doc['items'].sort(key=lambda i: json.dumps(i, sort_keys=True))
        line = json.dumps(doc, separators=(',', ':'))
    out.append(line)
sys.stdout.write('\n'.join(out))
PY
}

run_scenario "sqlite:$T/store.db" "$T/sqlite.out"
if ! etcd_single "$T/etcd"; then
    echo "batch-summary: passed=0 failed=1"
    exit 1
fi
run_scenario "$ETCD_URL" "$T/etcd.out"
etcd_stop_all

canon "$T/sqlite.out" >"$T/sqlite.canon" || fail "could not rewrite the SQLite transcript"
canon "$T/etcd.out" >"$T/etcd.canon" || fail "could not rewrite the etcd transcript"
lines=$(grep -c '^###' "$T/sqlite.canon")
if [ "$lines" -ge 50 ]; then pass; else fail "the scenario ran only $lines lines"; fi
if grep -q '"balance_ucr"' "$T/sqlite.canon" && grep -q '"state":"running"' "$T/sqlite.canon"; then pass; else
    fail "the scenario has no balances or running jobs"; fi
if diff -u "$T/sqlite.canon" "$T/etcd.canon" >"$T/diff"; then pass; else
    fail "SQLite and etcd answered differently:"
    head -n 80 "$T/diff" >&2
fi
[ -n "${SAME_JSON_KEEP:-}" ] && cp "$T/sqlite.out" "$T/etcd.out" "$SAME_JSON_KEEP/"
echo "batch-summary: passed=$PASSED failed=$FAILED"
[ "$FAILED" = 0 ]
