import json, sys
# cmp.py FULL PICKED FIELDS: PICKED's items are FULL's, each with only FIELDS
# ("a.b": member b of each object of array a), in the same order.
full = json.load(open(sys.argv[1]))['items']
picked = json.load(open(sys.argv[2]))['items']
fields = sys.argv[3].split(',')
def pick(doc, names):
    out = {}
    for k, v in doc.items():
        if k in names:
            out[k] = v
            continue
        subs = [n.split('.', 1)[1] for n in names if n.startswith(k + '.')]
        if not subs:
            continue
        if isinstance(v, dict):
            out[k] = {s: v[s] for s in subs if s in v}
        elif isinstance(v, list):
            out[k] = [{s: e[s] for s in subs if s in e} if isinstance(e, dict) else e for e in v]
        else:
            out[k] = v
    return out
want = [pick(d, fields) for d in full]
if want != picked:
    print("differ: %d vs %d items; first want %s got %s" % (len(want), len(picked), want[:1], picked[:1]))
    sys.exit(1)
