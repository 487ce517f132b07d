#!/usr/bin/env python3
"""agent_starts.py - every `rigdeck agent` a test or script starts names its runtime.

Usage: agent_starts.py PATH...   (files or folders, searched for *.sh, *.py and *.c)

An agent left on the default runtime `auto` picks podman whenever `podman
info` answers, and then pulls a built-in image that exists nowhere: a test
that passes on one machine fails on the next.  So every agent start in
tests/ and scripts/ passes `--runtime` itself.  Prints each start that does
not ("FILE:LINE: ...") and exits 1 if there is one; exits 0 otherwise,
after printing how many starts it checked.

An agent start is a shell command line (backslash continuations joined)
with the word `agent` right after the binary ($BIN, $RIGDECK, rigdeck,
build/rigdeck...) and followed by an option, or a Python argument list
with "agent" followed by an option string.  Comments are skipped.

C files are read for the agent starts they write into scripts: the cloud
node's startup script (core/cloud/cloud_agent.c) starts `rigdeck agent` on
a machine rigdeck does not control, so it names the runtime too (there the
environment chooses it, "${RIGDECK_RUNTIME:-auto}"); a string line that
starts the agent must carry --runtime on the same line.
"""
import os
import re
import sys

SHELL_START = re.compile(r'''(?:\$\{?\w*BIN\w*\}?|\$\{?RIGDECK\w*\}?|[\w./-]*rigdeck)["']?\s+agent\s+--''')
PY_START = re.compile(r'''["']agent["']\s*,\s*["']--''')


def logical_lines(text):
    """(first line number, joined text) of each line, continuations joined."""
    out, buf, first = [], "", None
    for no, line in enumerate(text.split("\n"), 1):
        if first is None:
            first = no
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        out.append((first, buf + line))
        buf, first = "", None
    return out


def check_file(path):
    """Yields (line number, text, ok) for each agent start in PATH."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    start = PY_START if path.endswith(".py") else SHELL_START   # C: the shell text in its strings
    for no, line in logical_lines(text):
        if line.lstrip().startswith(("/*", "*", "//") if path.endswith(".c") else "#"):
            continue
        for m in start.finditer(line):
            # the rest of this command: up to a pipe, redirection or `;`/`&`
            rest = re.split(r'\s[|;&]|\s\d?>', line[m.end() - 2:])[0]
            yield no, line.strip(), "--runtime" in rest


def files_under(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                for n in sorted(names):
                    if n.endswith((".sh", ".py", ".c")):
                        yield os.path.join(root, n)
        else:
            yield p


def main(argv):
    if len(argv) < 2:
        print("usage: agent_starts.py PATH...", file=sys.stderr)
        return 2
    starts = bad = 0
    for path in files_under(argv[1:]):
        if os.path.abspath(path) == os.path.abspath(__file__):
            continue
        for no, line, ok in check_file(path):
            starts += 1
            if not ok:
                bad += 1
                print(f"{path}:{no}: agent started without --runtime: {line[:160]}")
    print(f"{starts} agent start(s) checked, {bad} without --runtime")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
