#!/bin/sh
# The job spec's format is in `help job submit` and in docs/rigdeck.1
# (JOB SPEC), and both agree with the parser: the parser is asked which
# keys it allows at every level (a spec with one unknown key there is
# refused, listing them), and each must be a row of the help's field
# table and appear in the man page; each row must be a key the parser
# allows.  The help's example is a spec `job submit` accepts.
. tests/batch/lib.sh

case_ "help job submit shows the spec's format: fields, types, limits, an example"
rd -c "help job submit"
expect_status 0
expect_out "^FILE is a job spec in YAML"
expect_out "^  FIELD  *TYPE AND RULE$"
expect_out "^  resources.disk_size  *integer GB of working storage per worker,"
expect_out "10-1000, required"
expect_out "^  workers.count  *integer 1-100, training jobs only"
expect_out "^  environment.python  *\"3.8\" or \"3.9\""
expect_out "^Example (a training job):$"
expect_out "^  name: resnet50-sweep$"
rd --output json -c "help job submit"
python3 - "$OUT" "$TMP/example.yaml" >"$TMP/rows" <<'EOF'
import json, sys
notes = json.load(open(sys.argv[1]))["notes"]
rows = [l.split("\t", 1)[0] for l in notes if "\t" in l][1:]   # less the header
print("\n".join(rows))
with open(sys.argv[2], "w") as f:
    f.write("\n".join(l[2:] for l in notes if l.startswith("  ")) + "\n")
EOF
[ "$(wc -l <"$TMP/rows")" -gt 50 ] && pass || fail "too few rows in the help's field table: $(cat "$TMP/rows")"

case_ "every key the parser allows is a row of the help and is in the man page, and no other"
# Two complete specs reach every level; "zz_unknown" at one level at a time
# makes the parser list what it allows there.
cat >"$TMP/train.json" <<'EOF'
{"name": "t", "type": "training", "project": "default",
 "resources": {"gpu_types": ["a100"], "gpu_count": 1, "max_price": 2.5, "disk_size": 50},
 "data": {"datasets": ["d"], "input": {"type": "aws", "path": "s3://b/in"},
          "output": {"type": "wasabi", "path": "s3://b/out", "endpoint": "https://s3.wasabisys.com"}},
 "model": {"source": "git", "location": "https://example.com/r.git", "checkpoints": ["c"]},
 "workers": {"count": 1, "commands": ["python t.py"]},
 "environment": {"python": "3.9", "framework": "pytorch", "framework_version": "1.13",
                 "packages": {"apt": [], "conda": [], "pip": []}, "env": {"A": "b"}, "keys": []},
 "regional": {"datastore": "ds", "reservation": "r"}}
EOF
cat >"$TMP/endpoint.json" <<'EOF'
{"name": "e", "type": "endpoint",
 "resources": {"gpu_types": ["t4"], "disk_size": 30},
 "model": {"source": "aws", "location": "s3://m/"},
 "endpoint": {"routes": [{"verb": "POST", "path": "/p", "file": "s.py", "function": "f", "positional": false,
                          "params": [{"name": "x", "type": "string", "optional": true, "default": "None"}]}]}}
EOF
python3 - "$TMP" >/dev/null <<'EOF'
import json, sys
tmp = sys.argv[1]
levels = {"train": ["", "resources", "data", "data.input", "data.output", "model", "workers", "environment",
                    "environment.packages", "regional"],
          "endpoint": ["endpoint", "endpoint.routes[0]", "endpoint.routes[0].params[0]"]}
n = 0
for base, paths in levels.items():
    for path in paths:
        doc = json.load(open(f"{tmp}/{base}.json"))
        o = doc
        for part in filter(None, path.replace("]", "").replace("[", ".").split(".")):
            o = o[int(part)] if part.isdigit() else o[part]
        o["zz_unknown"] = 1
        with open(f"{tmp}/probe{n}.json", "w") as f:
            json.dump(doc, f)
        print(f"{n} {path}")
        n += 1
EOF
: >"$TMP/allowed"
i=0
for path in "" resources data data.input data.output model workers environment environment.packages regional \
            endpoint "endpoint.routes[0]" "endpoint.routes[0].params[0]"; do
    rd -c "job submit $TMP/probe$i.json"
    expect_status 1
    prefix=${path:+$path.}
    if grep -qF "${prefix}zz_unknown: unknown key (allowed: " "$ERR"; then pass; else fail "no allowed list at '$path'"; fi
    sed -n 's/.*unknown key (allowed: \(.*\))$/\1/p' "$ERR" | tr ',' '\n' | sed 's/^ *//' |
        while read -r key; do echo "$(echo "$prefix" | sed 's/\[0\]/[]/g')$key"; done >>"$TMP/allowed"
    i=$((i + 1))
done
# keys of a level (environment.env's are the user's own) are rows; so are the levels
sort -u "$TMP/allowed" >"$TMP/allowed.s"
sort -u "$TMP/rows" >"$TMP/rows.s"
missing=$(comm -23 "$TMP/allowed.s" "$TMP/rows.s" | tr '\n' ' ')
extra=$(comm -13 "$TMP/allowed.s" "$TMP/rows.s" | tr '\n' ' ')
[ -z "$missing" ] && pass || fail "keys the parser allows but help job submit does not list: $missing"
[ -z "$extra" ] && pass || fail "rows of help job submit the parser does not allow: $extra"
[ "$(wc -l <"$TMP/allowed.s")" -gt 50 ] && pass || fail "the parser listed too few keys: $(cat "$TMP/allowed.s")"
sed 's/\\-/-/g; s/\\fB//g; s/\\fR//g; s/\\fI//g' docs/rigdeck.1 >"$TMP/man"
while read -r field; do
    grep -qF -- "$field" "$TMP/man" || echo "$field"
done <"$TMP/rows.s" >"$TMP/man-missing"
[ ! -s "$TMP/man-missing" ] && pass || fail "docs/rigdeck.1 lacks: $(tr '\n' ' ' <"$TMP/man-missing")"

case_ "the help's example is a spec job submit accepts"
rd --output json -c "job submit $TMP/example.yaml"
expect_status 0
expect_json name resnet50-sweep
expect_json workers.len 2
expect_json environment.framework pytorch

finish
