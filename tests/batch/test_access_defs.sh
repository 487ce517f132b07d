#!/bin/sh
# Who may run a command is a field of its definition (issue 34): the class
# (.access) and what a node's agent may send (.agent) sit in the family's
# command table, and the guard (core/access/access.c) compares no command
# words.  Read from the sources: every command line a node's agent builds
# in core/agent/ (json_pack of its words; agent_device.c's device agent
# acts as its account, not as a node) names a command flagged .agent, and
# only those are.  tests/unit/test_access.c checks what the flags do.
. tests/batch/lib.sh

python3 - >"$OUT" 2>"$ERR" <<'PY'
import glob, re
sent = set()
for f in sorted(glob.glob("core/agent/*.c")):
    if f.endswith("/agent_device.c"):
        continue
    text = open(f).read()
    # json_pack("[s, s, ...]", "job", "report", id, ...): the literal words
    # before the first variable are the command's words
    for m in re.finditer(r'json_pack\("\[[^"]*\]",\s*((?:"[a-z][a-z-]*",\s*)+)', text):
        words = re.findall(r'"([a-z][a-z-]*)"', m.group(1))
        if words:
            sent.add(" ".join(words))
flagged, defined = {}, set()
for f in sorted(glob.glob("core/*/*.c")):
    text = open(f).read()
    for m in re.finditer(r'\{ \.words = "([^"]+)"((?:[^{}"]|"(?:[^"\\]|\\.)*")*)\}', text):
        defined.add(m.group(1))
        a = re.search(r'\.agent = (CMD_AGENT_\w+)', m.group(2))
        if a:
            flagged[m.group(1)] = a.group(1)
for w in sorted(sent):
    print("sent", w, flagged.get(w, "unflagged") if w in defined else "undefined")
for w in sorted(flagged):
    print("flagged", w, "sent" if w in sent else "unsent")
PY
RC=$?

case_ "the sources read"
expect_status 0
expect_out "^sent agent register "
expect_out "^sent job report "

case_ "every command a node's agent sends is flagged .agent on its definition"
if grep -q '^sent .* \(unflagged\|undefined\)$' "$OUT"; then
    fail "$(grep '^sent .* \(unflagged\|undefined\)$' "$OUT" | tr '\n' ';')"
else
    pass
fi
expect_out "^sent node report CMD_AGENT_OWN_NODE$"
expect_out "^sent node health report CMD_AGENT_OWN_NODE$"
expect_out "^sent agent register CMD_AGENT_OWN_NODE$"
expect_out "^sent job report CMD_AGENT_OWN_WORKER$"

case_ "only those are flagged"
if grep -q '^flagged .* unsent$' "$OUT"; then fail "$(grep '^flagged .* unsent$' "$OUT" | tr '\n' ';')"; else pass; fi

case_ "the guard compares no command words"
grep -n 'str[n]*cmp([^;]*words\|words, "' core/access/access.c >"$OUT"
if [ -s "$OUT" ]; then fail "core/access/access.c: $(tr '\n' ';' <"$OUT")"; else pass; fi
if grep -q 'CLASS_\|command_classes' core/access/access.c; then fail "core/access/access.c keeps a class table"; else pass; fi

finish
