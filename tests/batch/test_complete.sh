#!/bin/sh
# Shell completion: `rigdeck --complete WORD...` answers from the command
# tables and the store, scripts/rigdeck.bash-completion asks it, and every
# command `help` lists can be completed (nothing drifts).
. tests/batch/lib.sh

SCRIPT=scripts/rigdeck.bash-completion

# comp WORD...: the candidates for the last word, in $OUT (one a line).
comp () {
    $WRAP "$BIN" --complete "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
expect_line () { if grep -qxF -- "$1" "$OUT"; then pass; else fail "no candidate '$1'"; fi; }
expect_lines () {
    n=$(wc -l <"$OUT")
    if [ "$n" = "$1" ]; then pass; else fail "expected $1 candidate(s), got $n"; fi
}
expect_quiet () { if [ -s "$ERR" ]; then fail "stderr is not empty"; else pass; fi; }

rd -c "provider enable physical" -c "region create lab --provider physical --storage local" \
   -c "node add lab gpu-01 --agent none --minion m-1" -c "node add lab gpu-02 --agent none --minion m-2" \
   -c "node add lab ws-01 --agent none --minion m-3" -c "account create alice" -c "account create bob"
rd --as alice -c "project create vision"
rd --as bob -c "project create nlp" -c "project share nlp alice"
expect_status 0

case_ "command words, sub-commands, flags and choices from the tables"
comp -c no
expect_status 0
expect_quiet
expect_lines 1
expect_line "node "              # the only candidate: the line goes on
comp -c "node "
for sub in add list show maintenance replace remove set report health; do expect_line "node $sub"; done
expect_lines 9
comp -c "job submit spec.yaml --"
expect_line "job submit spec.yaml --project"
expect_line "job submit spec.yaml --priority"
comp -c "job submit spec.yaml --pro"
expect_line "job submit spec.yaml --project "
comp -c "node list --state d"
expect_line "node list --state draining "
comp -c "help node ma"
expect_line "help node maintenance "
comp -c "region set r --agent "
expect_line "region set r --agent none"
expect_line "region set r --agent required"
expect_lines 2
comp -c "region set r --public "
expect_line "region set r --public on"
expect_line "region set r --public off"
comp -c "region create r --provider gcp --im"
expect_line "region create r --provider gcp --image "

case_ "object names come from the store, as the acting account sees them"
comp --store "$STORE" -c "node maintenance "
expect_quiet
expect_line "node maintenance gpu-01"
expect_line "node maintenance gpu-02"
expect_line "node maintenance ws-01"
expect_lines 3
comp --store "$STORE" -c "node maintenance gpu-01 "
expect_line "node maintenance gpu-01 on"
expect_line "node maintenance gpu-01 toggle"
RIGDECK_STORE=$STORE comp -c "region show "
expect_line "region show lab "
RIGDECK_STORE=$STORE comp -c "region set "
expect_line "region set lab "
comp --store "$STORE" --as alice -c "job submit spec.yaml --project "
expect_line "job submit spec.yaml --project vision"
expect_line "job submit spec.yaml --project bob/nlp"
expect_no_out "platform"
comp --store="$STORE" --as bob -c "project show "
expect_line "project show nlp"
expect_no_out "vision"

case_ "data objects: the --type values, and key, dataset, checkpoint and model names as the account sees them"
export RIGDECK_MASTER_KEY="$TMP/master.key"
printf 'hf_token_123\n' >"$TMP/hf.token"
rd --as alice -c "key add hub --type huggingface --file $TMP/hf.token" \
   -c "dataset add voc --source https://example.com/voc.tar" -c "checkpoint add ckpt --source https://example.com/c" \
   -c "model add code --source https://github.com/org/r.git --key hub"
expect_status 0
comp -c "key add k --type "
for t in aws gcp azure wasabi git huggingface wandb env; do expect_line "key add k --type $t"; done
expect_lines 8
comp --store "$STORE" --as alice -c "dataset add d --source https://e.com/x --key "
expect_line "dataset add d --source https://e.com/x --key hub "
comp --store "$STORE" --as alice -c "account set alice --artifacts s3://b/x --artifacts-key "
expect_line "account set alice --artifacts s3://b/x --artifacts-key hub "
for kind in key:hub dataset:voc checkpoint:ckpt model:code; do
    comp --store "$STORE" --as alice -c "${kind%%:*} remove "
    expect_line "${kind%%:*} remove ${kind#*:} "
    comp --store "$STORE" --as bob -c "${kind%%:*} show "
    expect_lines 0
done

case_ "global options and their values"
comp --
expect_line "--store"
expect_line "--output"
expect_line "--batch"
comp --output ""
expect_line "json"
expect_lines 3
comp --output=c
expect_line "csv"
comp --store "$STORE" --as ""
expect_line "alice"
expect_line "default"

case_ "no store, no names and not a word on stderr"
comp --store "sqlite:$TMP/missing/none.db" -c "node show "
expect_status 0
expect_lines 0
expect_quiet
comp --store "$TMP/none.db" -c "node show "
expect_lines 0
if [ -e "$TMP/none.db" ]; then fail "completion created a store"; else pass; fi
comp --store "etcd://127.0.0.1:9" -c "node show "
expect_status 0
expect_lines 0
expect_quiet
# command words need no store
comp --store "$TMP/none.db" -c "node sh"
expect_line "node show "

case_ "every command help lists can be completed, word by word"
rd --output json -c help
python3 -c 'import json,sys; [print(i["name"]) for i in json.load(sys.stdin)["items"]]' <"$OUT" >"$TMP/commands"
comp -c ""
cp "$OUT" "$TMP/groups"
: >"$TMP/seen"
while read -r group sub; do
    if grep -qxF -- "$group" "$TMP/groups"; then pass; else fail "'$group' is not a candidate of an empty line"; fi
    [ -n "$sub" ] || continue
    if ! grep -qxF -- "$group" "$TMP/seen"; then
        comp -c "$group "
        cp "$OUT" "$TMP/subs-$group"
        echo "$group" >>"$TMP/seen"
    fi
    first=${sub%% *}   # a three-word command (job logs prune): its second word here
    if grep -qxF -e "$group $first" -e "$group $first " "$TMP/subs-$group"; then pass; else fail "'$group $first' is not a candidate of '$group '"; fi
done <"$TMP/commands"

case_ "the bash function completes through rigdeck --complete"
# bash_comp CWORD WORD...: runs _rigdeck with COMP_WORDS=(WORD...), prints COMPREPLY
bash_comp () {
    bash -c '. "$1"; shift; COMP_CWORD=$1; shift; COMP_WORDS=("$@")
             _rigdeck; printf "%s\n" "${COMPREPLY[@]}"' sh "$SCRIPT" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
if command -v bash >/dev/null 2>&1; then
    bash_comp 3 "$BIN" --batch -c no
    expect_status 0
    expect_quiet
    expect_line "node "
    bash_comp 3 "$BIN" --batch -c "'node "
    expect_line "node maintenance"
    expect_line "node list"
    bash_comp 5 "$BIN" --store "$STORE" --batch -c "'node maintenance g"
    expect_line "node maintenance gpu-01"
    expect_line "node maintenance gpu-02"
    expect_lines 2
    # inside quotes a sole match comes with a twin, so readline leaves the quote open
    bash_comp 5 "$BIN" --store "$STORE" --batch -c "'node maintenance w"
    expect_line "node maintenance ws-01 "
    expect_line "node maintenance ws-01  "
    bash_comp 3 "$BIN" --batch -c "\"job submit x --pro"
    expect_line "job submit x --project "
    # bash splits a URL at each ':' (sqlite:PATH, etcd://HOST:PORT) as it splits COMP_WORDS
    bash -c '. "$1"; IFS=: read -ra parts <<<"$3"; words=("$2" --store "${parts[0]}")
             for p in "${parts[@]:1}"; do words+=(: "$p"); done
             COMP_WORDS=("${words[@]}" --batch -c "$4"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
             _rigdeck; printf "%s\n" "${COMPREPLY[@]}"' sh "$SCRIPT" "$BIN" "$STORE" "'region show " >"$OUT" 2>"$ERR"
    RC=$?
    expect_line "region show lab "
    # bash splits --output=json at '='
    bash_comp 3 "$BIN" --output = j
    expect_line "json"
    expect_lines 1
    bash_comp 1 "$BIN" --ver
    expect_line "--version"
    bash -c '. "$1"; complete -p rigdeck' sh "$SCRIPT" >"$OUT" 2>"$ERR"; RC=$?
    expect_out "complete -F _rigdeck rigdeck"
fi

finish
