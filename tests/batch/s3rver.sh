# s3rver.sh - sourced by tests (after lib.sh and daemons.sh): a real
# S3-compatible server on 127.0.0.1 with a bucket "results", its service URL
# in $EP.  s3rver comes from the npm registry, installed once per machine
# under the temp directory's parent; the scenario skips, saying why, when
# rclone, node or npm is missing or the registry cannot be reached.
#
#   s3 ARGS...            rclone against it (default credentials S3RVER)
#   zip_has KEY FILE...   results/KEY is a zip holding exactly FILE..., each
#                         file's content its own base name
command -v rclone >/dev/null 2>&1 || skip "rclone is not installed (Debian: apt-get install rclone)"
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || skip "node and npm are not installed"

# s3rver, installed once per machine under the temp directory's parent
# (the registry is asked only when the cache lacks it).
CACHE=$(dirname "$TMP")/rigdeck-test-s3rver
S3RVER=$CACHE/node_modules/.bin/s3rver
if [ ! -x "$S3RVER" ]; then
    mkdir -p "$CACHE"
    timeout 300 npm install --prefix "$CACHE" --no-audit --no-fund s3rver@3.7.1 >"$TMP/npm.log" 2>&1 ||
        skip "npm install s3rver failed (no registry here?): $(tail -1 "$TMP/npm.log")"
fi
mkdir -p "$TMP/s3"
"$S3RVER" -d "$TMP/s3" -a 127.0.0.1 -p 0 --configure-bucket results >"$TMP/s3rver.log" 2>&1 &
DAEMONS="$DAEMONS $!"
PORT=""
end=$(($(date +%s) + 60))
while [ -z "$PORT" ] && [ "$(date +%s)" -le "$end" ]; do
    PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/s3rver.log")
    [ -n "$PORT" ] || sleep 0.2
done
[ -n "$PORT" ] || { echo "s3rver did not start: $(cat "$TMP/s3rver.log")" >&2; exit 1; }
EP=http://127.0.0.1:$PORT

# s3 ARGS...: rclone against the server with its default credentials, in a
# clean environment (none of this machine's AWS_* variables).
s3 () {
    env -i PATH="$PATH" HOME="$TMP" RCLONE_CONFIG="$TMP/none.conf" RCLONE_S3_PROVIDER=Other RCLONE_S3_ENDPOINT="$EP" \
        RCLONE_S3_ACCESS_KEY_ID=S3RVER RCLONE_S3_SECRET_ACCESS_KEY=S3RVER rclone "$@" 2>>"$TMP/rclone.log"
}
# zip_has KEY FILE...: the object KEY in bucket results is a zip holding
# exactly FILE... (each with the content the job wrote: its name).
zip_has () {
    key=$1; shift
    rm -f "$TMP/got.zip"
    s3 copyto ":s3:results/$key" "$TMP/got.zip" || { fail "no object results/$key"; return; }
    python3 - "$TMP/got.zip" "$@" <<'PY' && pass || fail "results/$key: $(cat "$TMP/zip.err")"
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
files = sorted(n for n in z.namelist() if not n.endswith("/"))
want = sorted(sys.argv[2:])
bad = "files %s, want %s" % (files, want) if files != want else ""
for n in files:
    if not bad and z.read(n).decode().strip() != n.rsplit("/", 1)[-1]:
        bad = "%s holds %r" % (n, z.read(n))
open(os.environ["ZIPERR"], "w").write(bad)
sys.exit(1 if bad else 0)
PY
}
export ZIPERR="$TMP/zip.err"
