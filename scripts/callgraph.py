#!/usr/bin/env python3
"""callgraph.py DIR... - the file-level call graph of the C files under DIR.

A file calls another when it names a function or command table the other
defines (comments and strings are ignored).  Prints every cycle (a group of
files that reach each other through calls) and exits 1 when there is one;
with --edges also prints "a.c -> b.c" lines.  tests/batch/test_layers.sh
runs it over core/ and tui/ so a change that makes two files lean on each
other fails the build's tests, not a reviewer's patience.

callgraph.py --folders DIR - the same graph between DIR's folders (core/'s
layers): prints each pair of folders that call each other both ways and
each call against the layer order (a folder calling one above it, with the
files and the names), and exits 1 when there is one.  The order is the
Makefile's CORE_LAYERS, the one list the build's include paths come from
too (--layers FILE reads another Makefile); a folder not in it is an error.
"""
import collections
import glob
import os
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
    names = collections.defaultdict(set)
    for f in files:
        for name in texts[f]:
            d = defs.get(name)
            if d and d != f:
                calls[f].add(d)
                names[f, d].add(name)
    return files, calls, names


def layers(makefile):
    """The words of CORE_LAYERS (with its continuation lines)."""
    text = open(makefile, encoding='utf-8').read()
    m = re.search(r'^CORE_LAYERS\s*:?=((?:[^\n]*\\\n)*[^\n]*)', text, re.M)
    if not m:
        sys.exit(f'{makefile}: no CORE_LAYERS variable')
    return m.group(1).replace('\\\n', ' ').split()


def folder_check(root, files, calls, names, order):
    """Prints the two-way pairs and the calls against the order; their count."""
    rank = {name: i for i, name in enumerate(order)}

    def folder(f):
        return os.path.relpath(f, root).split(os.sep)[0]

    bad = 0
    for name in sorted({folder(f) for f in files}):
        if name not in rank:
            print(f'folder not in the layer order: {name}')
            bad += 1
    pairs = collections.defaultdict(list)
    for f in files:
        for g in sorted(calls.get(f, ())):
            a, b = folder(f), folder(g)
            if a != b and a in rank and b in rank:
                pairs[a, b].append((f, g))
    for a, b in sorted(pairs):
        if rank[a] < rank[b] and (b, a) in pairs:
            print(f'both ways: {a} <-> {b}')
            bad += 1
    for a, b in sorted(pairs, key=lambda p: (rank[p[0]], rank[p[1]])):
        if rank[a] < rank[b]:
            for f, g in pairs[a, b]:
                print(f'against the order: {a} -> {b}: {f} -> {g} ({", ".join(sorted(names[f, g]))})')
                bad += 1
    n = len({(folder(f), folder(g)) for f in files for g in calls.get(f, ()) if folder(f) != folder(g)})
    print(f'{len(order)} layers, {n} folder pairs calling, {bad} against the order')
    return bad


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
    argv = sys.argv[1:]
    makefile = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'Makefile')
    if '--layers' in argv:
        i = argv.index('--layers')
        makefile = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith('--')]
    files, calls, names = graph(args or ['core'])
    if '--folders' in argv:
        bad = sum(folder_check(d, [f for f in files if f.startswith(d.rstrip('/') + '/')], calls, names,
                               layers(makefile)) for d in args or ['core'])
        return 1 if bad else 0
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
