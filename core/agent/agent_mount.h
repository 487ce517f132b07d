/* agent_mount.h - regional datastores mounted, not copied, into a worker's
 * /opt/ml tree (execution.md §5): agent_mount.c mounts them before the
 * command and unmounts them whatever way the worker ends; mount_argv.c
 * builds the exact commands and reads /proc/self/mountinfo (pure, unit
 * tested).
 *
 * SMB goes through `rclone mount` (FUSE: this needs no kernel SMB client,
 * only /dev/fuse and fusermount3), NFS through the kernel's own client
 * (`mount -t nfs4`, which only root may run and only a kernel with an NFS
 * client can serve; rclone has no NFS backend).  Each mount is confined to
 * the datastore's root joined with the path exactly as `datastore resolve`
 * computes it (dspath_resolve): the server never hands out more than that
 * subtree, and `..` from the mount's top leads back into the worker's own
 * tree, not up the share.
 */
#ifndef RD_AGENT_MOUNT_H
#define RD_AGENT_MOUNT_H

#include <jansson.h>
#include <stddef.h>

#include "agent_stage.h"

enum {
    MOUNT_WAIT_S = 60,        /* a mount not live by then fails its worker */
    MOUNT_ARGV_MAX = 16       /* slots the argv builders fill, NULL included */
};

/* Mounts (or finds mounted) every datastore worker dir's job reads or
 * writes: data.input / data.output of type regional at /opt/ml/input and
 * /opt/ml/output, datastore:NAME/PATH datasets, checkpoints and models at
 * their staging folders.  READY once all are live, BUSY while one comes
 * up (started here; looked at again at the next round, MOUNT_WAIT_S at
 * most), FAILED with msg "datastore 'NAME' (WHAT): <first line of the
 * cause>".  Never waits long. */
stage_state agent_mount_step(agent_state *a, const json_t *job, const char *dir, char *msg, size_t len);

/* Unmounts everything this file mounted under worker dir (fusermount3 -u,
 * then -uz when busy; umount, then -l) and ends the processes serving it.
 * 0 once none is left; -1 when one is (the directory must then stay:
 * removing it would reach into the share). Cheap when dir has none. */
int agent_mount_release(agent_state *a, const char *dir);

/* At the agent's start: every mount of ours under its work dir whose
 * worker's process is not running is released (a starting worker mounts
 * again at its next round); those of running workers stay. */
void agent_mount_sweep(agent_state *a);

/* ---- mount_argv.c: the commands, for the unit tests ---- */

/* Splits a datastore address: "host", "host:port", "[v6]" or "[v6]:port";
 * a bare IPv6 address (several ':') is all host.  host without brackets. */
int mount_address_split(const char *address, char *host, size_t hlen, char *port, size_t plen);

/* `rclone mount --config /dev/null --cache-dir CACHE --vfs-cache-mode off
 * [--read-only] [--allow-other] :smb:SHARE/PATH TARGET` into argv
 * (MOUNT_ARGV_MAX slots), the remote written into remote; server_path is
 * the resolved "/SHARE/PATH".  -1 when it names no share ("/"). */
int mount_rclone_argv(const char *server_path, const char *target, const char *cache_dir, int read_only,
                      int allow_other, char *remote, size_t rlen, const char **argv);

/* The RCLONE_SMB_* variables (malloc'd, NULL-ended, cap slots): host and
 * port from address, the user (or "guest"), the password already obscured
 * (`rclone obscure`) or NULL. -1 on a bad address or no room. */
int mount_rclone_env(const char *address, const char *user, const char *obscured, char **env, size_t cap);

/* `mount -t nfs4 -o nosuid,nodev[,ro][,port=N] HOST:/PATH TARGET` into argv
 * (MOUNT_ARGV_MAX slots), the option list into opts and the source into
 * spec (an IPv6 host in brackets).  -1 on a bad address. */
int mount_nfs_argv(const char *address, const char *server_path, const char *target, int read_only, char *opts,
                   size_t olen, char *spec, size_t slen, const char **argv);

/* 1 when the text of /proc/filesystems lists an NFS client (nfs or nfs4). */
int mount_nfs_client_listed(const char *filesystems);

/* One line of /proc/self/mountinfo: its mount point and file system type,
 * octal escapes (\040 ...) decoded.  0, or -1 for a line it cannot read. */
int mount_info_parse(const char *line, char *point, size_t plen, char *fstype, size_t flen);

/* 1 for the file system types this agent mounts (fuse.rclone, nfs, nfs4). */
int mount_type_ours(const char *fstype);

#endif
