#!/usr/bin/env python3
"""jget.py PATH [LINE] - print a field of a JSON document read from stdin.

PATH is dot-separated: keys, list indexes, or 'len' for a length
(items.0.name, items.len).  LINE picks one document when stdin holds one
JSON document per line (default: the last).  Strings print bare; anything
else prints as JSON.  A missing path prints nothing and exits 1.
"""
import json
import sys

path = sys.argv[1]
lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
if not lines:
    sys.exit(1)
doc = json.loads(lines[int(sys.argv[2]) if len(sys.argv) > 2 else -1])
try:
    for part in path.split(".") if path else []:
        if part == "len":
            doc = len(doc)
        elif isinstance(doc, list):
            doc = doc[int(part)]
        else:
            doc = doc[part]
except (KeyError, IndexError, ValueError, TypeError):
    sys.exit(1)
print(doc if isinstance(doc, str) else json.dumps(doc))
