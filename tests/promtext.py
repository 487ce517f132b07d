#!/usr/bin/env python3
"""promtext.py URL - fetches a Prometheus endpoint and checks its reply
strictly against the text exposition format 0.0.4, as rigdeck promises it.

On success prints one line per sample, "NAME{LABEL="VALUE",...} VALUE" with
the labels sorted and values as Python floats print them (41.0), and exits
0.  On any deviation prints the first one on stderr and exits 1; when the
endpoint cannot be reached, exits 2.

Checked: status 200 and Content-Type text/plain; version=0.0.4; every line
ends with a newline and is a HELP, a TYPE or a sample (no blank lines);
metric and label names are valid, label values use only the three escapes,
values parse as floats and none is NaN; HELP and TYPE come at most once per
family and before its first sample; a family's samples are contiguous and
no series repeats.  rigdeck's own rules on top: every family is a gauge
with a HELP line, every sample has a node label, and values are plain
decimals (60, 0.0000001), never in exponent form.
"""
import math
import re
import sys
import urllib.error
import urllib.request

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


class Bad(Exception):
    pass


def unescape(text, allowed, where):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if i + 1 >= len(text) or text[i + 1] not in allowed:
                raise Bad(f"{where}: bad escape in {text!r}")
            out.append({"\\": "\\", "n": "\n", '"': '"'}[text[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_labels(text, where):
    """text starts after '{'; returns (labels, rest after '}')."""
    labels, i = {}, 0
    while True:
        if text[i:i + 1] == "}":
            return labels, text[i + 1:]
        m = LABEL.match(text, i)
        if not m:
            raise Bad(f"{where}: bad label name at {text[i:]!r}")
        name = m.group(0)
        if name.startswith("__"):
            raise Bad(f"{where}: reserved label name {name}")
        i = m.end()
        if text[i:i + 2] != '="':
            raise Bad(f"{where}: expected =\" after label {name}")
        i += 2
        j = i
        while j < len(text) and text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        if j >= len(text):
            raise Bad(f"{where}: unterminated label value")
        if name in labels:
            raise Bad(f"{where}: label {name} twice")
        labels[name] = unescape(text[i:j], '\\n"', where)
        i = j + 1
        if text[i:i + 1] == ",":
            i += 1
        elif text[i:i + 1] != "}":
            raise Bad(f"{where}: expected , or }} after label {name}")


def parse_value(text, where):
    if text in ("+Inf", "-Inf", "Inf", "NaN"):
        v = float(text.replace("Inf", "inf").replace("NaN", "nan"))
    else:
        if not re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text):
            raise Bad(f"{where}: bad value {text!r}")
        v = float(text)
    if math.isnan(v):
        raise Bad(f"{where}: NaN (a stat without a reading must be left out)")
    return v


def check(body):
    if body and not body.endswith("\n"):
        raise Bad("the last line does not end with a newline")
    helps, types, done, seen, out = {}, {}, set(), set(), []
    current = None
    for n, line in enumerate(body.split("\n")[:-1], 1):
        where = f"line {n}"
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not NAME.fullmatch(name):
                    raise Bad(f"{where}: bad metric name {name!r}")
                if name in done or name == current:
                    raise Bad(f"{where}: {parts[1]} of {name} after its samples")
                table = helps if parts[1] == "HELP" else types
                if name in table:
                    raise Bad(f"{where}: second {parts[1]} for {name}")
                text = parts[3] if len(parts) > 3 else ""
                if parts[1] == "HELP":
                    helps[name] = unescape(text, "\\n", where)
                elif text not in TYPES:
                    raise Bad(f"{where}: bad type {text!r}")
                else:
                    types[name] = text
            continue
        if not line:
            raise Bad(f"{where}: blank line")
        m = NAME.match(line)
        if not m:
            raise Bad(f"{where}: bad sample line {line!r}")
        name, rest = m.group(0), line[m.end():]
        labels = {}
        if rest.startswith("{"):
            labels, rest = parse_labels(rest[1:], where)
        if not rest.startswith(" "):
            raise Bad(f"{where}: expected a space before the value in {line!r}")
        fields = rest[1:].split(" ")
        if len(fields) not in (1, 2):
            raise Bad(f"{where}: trailing text in {line!r}")
        value = parse_value(fields[0], where)
        if re.search(r"[eE]", fields[0]):
            raise Bad(f"{where}: {fields[0]!r} in exponent form (rigdeck writes plain decimals: 60, not 6e+01)")
        if len(fields) == 2 and not re.fullmatch(r"-?\d+", fields[1]):
            raise Bad(f"{where}: bad timestamp {fields[1]!r}")
        if name != current:
            if name in done:
                raise Bad(f"{where}: samples of {name} are not contiguous")
            if current:
                done.add(current)
            current = name
        if types.get(name) != "gauge":
            raise Bad(f"{where}: {name} has no '# TYPE {name} gauge' before its samples")
        if name not in helps:
            raise Bad(f"{where}: {name} has no HELP before its samples")
        if "node" not in labels:
            raise Bad(f"{where}: {name} has no node label")
        series = name + "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"
        if series in seen:
            raise Bad(f"{where}: series {series} twice")
        seen.add(series)
        out.append(f"{series} {value!r}")
    return out


def main():
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=30) as r:
            status, ctype, body = r.status, r.headers.get("Content-Type", ""), r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        print(f"HTTP {e.code}", file=sys.stderr)
        return 1
    except (OSError, urllib.error.URLError) as e:
        print(f"cannot reach {sys.argv[1]}: {e}", file=sys.stderr)
        return 2
    try:
        if status != 200:
            raise Bad(f"status {status}")
        if ctype != "text/plain; version=0.0.4; charset=utf-8":
            raise Bad(f"Content-Type {ctype!r}")
        for line in check(body):
            print(line)
    except Bad as e:
        print(f"{sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
