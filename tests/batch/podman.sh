# podman.sh - the offline images of the tests that run real podman (sourced
# after lib.sh).
#
# No registry is reachable from a test: an image is a static busybox root
# file system imported under a registry-qualified local name, so a job
# naming it runs without a pull.  podman runs on hosts like this sandbox
# only with the containers.conf podman_conf writes (default_ulimits = [],
# runc, cgroupfs: docs/operations.md).  Each function returns non-zero with
# the reason in $PODMAN_WHY, which a test turns into a skip or a note.
#
#   podman_conf                   $TMP/pm/containers.conf, exported as CONTAINERS_CONF
#   podman_rootfs DIR APPLET...   DIR/bin/busybox with the applets linked, DIR/tmp
#   podman_image DIR IMG          DIR imported as IMG, and a trivial container of it run

PODMAN_WHY=""

podman_conf() {
    if ! command -v podman >/dev/null 2>&1; then
        PODMAN_WHY="podman is not installed"
        return 1
    fi
    mkdir -p "$TMP/pm"
    printf '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\n' \
        >"$TMP/pm/containers.conf"
    CONTAINERS_CONF=$TMP/pm/containers.conf
    export CONTAINERS_CONF
}

podman_rootfs() {
    _dir=$1
    shift
    _bb=$(command -v busybox 2>/dev/null || echo /bin/busybox)
    if [ ! -x "$_bb" ]; then
        PODMAN_WHY="no busybox (busybox-static) to build an offline image from"
        return 1
    fi
    mkdir -p "$_dir/bin" "$_dir/tmp" && cp "$_bb" "$_dir/bin/busybox" || {
        PODMAN_WHY="cannot copy busybox into $_dir"
        return 1
    }
    for _c in "$@"; do ln -sf busybox "$_dir/bin/$_c"; done
}

podman_image() {
    if ! tar -C "$1" -c . | timeout 120 podman import - "$2" >/dev/null 2>"$TMP/pm/import.err"; then
        PODMAN_WHY="podman import failed: $(tail -n 1 "$TMP/pm/import.err")"
        return 1
    fi
    if ! timeout 120 podman run --rm "$2" /bin/sh -c true >"$TMP/pm/run.err" 2>&1; then
        PODMAN_WHY="podman cannot run a container here even with $CONTAINERS_CONF: $(tail -n 1 "$TMP/pm/run.err")"
        podman rmi -f "$2" >/dev/null 2>&1
        return 1
    fi
}
