#!/usr/bin/env python3
"""callgraph.py DIR... - the file-level call graph of the C files under DIR.

A file calls another when it names a function or command table the other
defines (comments and strings are ignored).  Prints every cycle (a group of
files that reach each other through calls) and exits 1 when there is one;
with --edges also prints "a.c -> b.c" lines.  tests/batch/test_layers.sh
runs it over core/ and tui/ so a change that makes two files lean on each
other fails the build's tests, not a reviewer's patience.
"""
import collections
import glob
import re
import sys


def graph(dirs):
    files = [f for d in dirs for f in sorted(glob.glob(d + '/**/*.c', recursive=True))]
    defs = {}
    texts = {}
    for f in files:
        s = open(f, encoding='utf-8').read()
        for m in re.finditer(r'^(?!static)[a-z_][a-z0-9_ \*]*?[ \*]([a-z_][a-z0-9_]*)\([^;{]*\)\s*\{', s, re.M):
            defs.setdefault(m.group(1), f)
        # file-scope variables and tables: `const cmd_def *const name[] = {`
        for m in re.finditer(r'^(?!static|extern|typedef)[a-z_][a-z0-9_ \*]*?\b([a-z_][a-z0-9_]*)\s*(?:\[[^\]]*\])?\s*=', s, re.M):
            defs.setdefault(m.group(1), f)
        s = re.sub(r'/\*.*?\*/', '', s, flags=re.S)
        s = re.sub(r"'(\\.|[^'\\])'", "''", s)   # '"' must not open a string
        s = re.sub(r'"(\\.|[^"\\])*"', '""', s)
        texts[f] = set(re.findall(r'\b[a-z_][a-z0-9_]*\b', s))
    calls = collections.defaultdict(set)
    for f in files:
        for name in texts[f]:
            d = defs.get(name)
            if d and d != f:
                calls[f].add(d)
    return files, calls


def cycles(files, calls):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(calls.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in files:
        if v not in index:
            visit(v)
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    files, calls = graph(args or ['core'])
    if '--edges' in sys.argv:
        for f in files:
            for g in sorted(calls.get(f, ())):
                print(f'{f} -> {g}')
    found = cycles(files, calls)
    for c in found:
        print('cycle: ' + ' '.join(c))
    print(f'{len(files)} files, {sum(len(v) for v in calls.values())} calls, {len(found)} cycles')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
