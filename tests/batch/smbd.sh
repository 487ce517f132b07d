# smbd.sh - a real SMB server for the datastore mount tests
# (test_datastore_mount.sh, test_device_datastore.sh), sourced after lib.sh
# and daemons.sh: Debian's samba `smbd` on 127.0.0.1 on a free high port,
# with its own smb.conf and user database under $S=$TMP/smb, exporting
# $S/share as share "data" to the current user ($ME) with password
# $SMB_PASS.  The scenario skips where smbd, smbpasswd, rclone,
# fusermount3 or /dev/fuse is missing, or smbd cannot start here.
#
# smbd_start    starts it (sets S, SPORT, ME, SMBD) and installs the EXIT
#               trap mount_cleanup, which unmounts what the scenario
#               mounted under $TMP before daemons.sh's cleanup removes
#               $TMP (which must never reach through a mount into the share)
# our_mounts, no_mounts, has_mount POINT, no_rclone: for wait_until

command -v smbd >/dev/null 2>&1 || skip "smbd (Debian's samba) is not installed"
command -v rclone >/dev/null 2>&1 || skip "rclone is not installed"
command -v fusermount3 >/dev/null 2>&1 || skip "fusermount3 (Debian's fuse3) is not installed"
[ -c /dev/fuse ] || skip "/dev/fuse is missing"
command -v smbpasswd >/dev/null 2>&1 || skip "smbpasswd (samba) is not installed"

SMB_PASS=sm8-pass

# the mounts of this scenario (the work dirs are under $TMP)
our_mounts () { grep -c " $TMP/" /proc/self/mountinfo; }
no_mounts () { [ "$(our_mounts)" = 0 ]; }
has_mount () { grep -q " $1 " /proc/self/mountinfo; }
no_rclone () { ! pgrep -f "rclone mount.* $TMP/" >/dev/null; }

mount_cleanup () {
    for m in $(grep " $TMP/" /proc/self/mountinfo | cut -d' ' -f5); do fusermount3 -uz "$m" 2>/dev/null; done
    for p in $(pgrep -f "rclone mount.* $TMP/"); do kill -9 "$p" 2>/dev/null; done
    if [ -n "${SMBD:-}" ]; then
        for c in $(pgrep -P "$SMBD"); do kill -9 "$c" 2>/dev/null; done
        kill -9 "$SMBD" 2>/dev/null
    fi
    daemons_cleanup
}

smbd_start () {
    trap mount_cleanup EXIT
    S=$TMP/smb
    mkdir -p "$S/share" "$S/private" "$S/lock" "$S/pid" "$S/state" "$S/cache" "$S/log"
    SPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    ME=$(id -un)
    cat >"$S/smb.conf" <<EOF
[global]
  smb ports = $SPORT
  interfaces = 127.0.0.1
  bind interfaces only = yes
  private dir = $S/private
  lock directory = $S/lock
  pid directory = $S/pid
  state directory = $S/state
  cache directory = $S/cache
  ncalrpc dir = $S/state/ncalrpc
  log file = $S/log/smbd.log
  passdb backend = tdbsam:$S/private/passdb.tdb
  server role = standalone server
  map to guest = never
  load printers = no
  disable spoolss = yes
  printing = bsd
  printcap name = /dev/null
  server min protocol = SMB2
[data]
  path = $S/share
  read only = no
EOF
    printf '%s\n%s\n' "$SMB_PASS" "$SMB_PASS" | smbpasswd -c "$S/smb.conf" -a -s "$ME" >"$S/log/passwd" 2>&1 ||
        skip "smbpasswd cannot add user $ME here: $(head -1 "$S/log/passwd")"
    smbd --foreground --no-process-group -s "$S/smb.conf" >"$S/log/out" 2>&1 &
    SMBD=$!
    end=$(($(date +%s) + 30))
    until python3 -c "import socket; socket.create_connection(('127.0.0.1', $SPORT), 1)" 2>/dev/null; do
        if [ "$(date +%s)" -gt "$end" ] || ! kill -0 "$SMBD" 2>/dev/null; then
            skip "smbd does not start here: $(head -3 "$S/log/out" "$S/log/smbd.log" 2>/dev/null | tr '\n' ' ')"
        fi
        sleep 0.2
    done
}
