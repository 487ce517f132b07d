/* mount_argv.c - the exact commands that mount a datastore (rclone for
 * SMB, the kernel's mount for NFS), their variables, and the reading of
 * /proc/self/mountinfo: pure functions, apart from agent_mount.c's
 * processes, so that the unit tests pin every argument (agent_mount.h).
 */
#include "agent_mount.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mount_address_split(const char *address, char *host, size_t hlen, char *port, size_t plen)
{
    const char *colon = strrchr(address, ':'), *hs = address, *he;
    port[0] = '\0';
    if (!*address)
        return -1;
    if (address[0] == '[') {
        const char *close = strchr(address, ']');
        if (!close || (close[1] && close[1] != ':'))
            return -1;
        hs = address + 1;
        he = close;
        colon = close[1] == ':' ? close + 1 : NULL;
    } else if (colon && strchr(address, ':') != colon) {
        colon = NULL;   /* a bare IPv6 address: no port */
        he = address + strlen(address);
    } else {
        he = colon ? colon : address + strlen(address);
    }
    if (colon) {
        size_t n = strlen(colon + 1);
        if (n == 0 || n > 5 || colon[1 + strspn(colon + 1, "0123456789")] || n >= plen)
            return -1;
        memcpy(port, colon + 1, n + 1);
    }
    if (he == hs || (size_t)(he - hs) >= hlen)
        return -1;
    memcpy(host, hs, (size_t)(he - hs));
    host[he - hs] = '\0';
    return 0;
}

int mount_rclone_argv(const char *server_path, const char *target, const char *cache_dir, int read_only,
                      int allow_other, char *remote, size_t rlen, const char **argv)
{
    /* the first segment of the server path is the share: "/" names none */
    const char *p = server_path + strspn(server_path, "/");
    if (!*p || (size_t)snprintf(remote, rlen, ":smb:%s", p) >= rlen)
        return -1;
    int i = 0;
    argv[i++] = "rclone";
    argv[i++] = "mount";
    argv[i++] = "--config";
    argv[i++] = "/dev/null";   /* the datastore says everything: no user's rclone.conf */
    argv[i++] = "--cache-dir";
    argv[i++] = cache_dir;
    /* writes go straight to the server and close() returns once they are
     * there: a write cache would still be uploading when the worker ends
     * and its mount goes */
    argv[i++] = "--vfs-cache-mode";
    argv[i++] = "off";
    if (read_only)
        argv[i++] = "--read-only";
    if (allow_other)
        argv[i++] = "--allow-other";   /* a container's own users (docker's daemon is not the mounter) */
    argv[i++] = remote;
    argv[i++] = target;
    argv[i] = NULL;
    return 0;
}

static int env_put(char **env, size_t cap, size_t *n, const char *k, const char *v)
{
    if (*n + 1 >= cap)
        return -1;
    size_t len = strlen(k) + strlen(v) + 2;
    if (!(env[*n] = malloc(len)))
        return -1;
    snprintf(env[*n], len, "%s=%s", k, v);
    env[++*n] = NULL;
    return 0;
}

int mount_rclone_env(const char *address, const char *user, const char *obscured, char **env, size_t cap)
{
    char host[300], port[8];
    size_t n = 0;
    memset(env, 0, cap * sizeof *env);
    if (mount_address_split(address, host, sizeof host, port, sizeof port) != 0)
        return -1;
    int rc = env_put(env, cap, &n, "RCLONE_SMB_HOST", host);
    if (rc == 0 && *port)
        rc = env_put(env, cap, &n, "RCLONE_SMB_PORT", port);
    /* no user: the share's guest access (rclone would take $USER) */
    if (rc == 0)
        rc = env_put(env, cap, &n, "RCLONE_SMB_USER", user && *user ? user : "guest");
    if (rc == 0 && obscured && *obscured)
        rc = env_put(env, cap, &n, "RCLONE_SMB_PASS", obscured);
    return rc;
}

int mount_nfs_argv(const char *address, const char *server_path, const char *target, int read_only, char *opts,
                   size_t olen, char *spec, size_t slen, const char **argv)
{
    char host[300], port[8];
    if (mount_address_split(address, host, sizeof host, port, sizeof port) != 0 || server_path[0] != '/')
        return -1;
    /* a share's set-user-id programs and device files mean nothing here */
    int n = snprintf(opts, olen, "nosuid,nodev%s%s%s", read_only ? ",ro" : "", *port ? ",port=" : "", port);
    int m = snprintf(spec, slen, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, server_path);
    if (n < 0 || (size_t)n >= olen || m < 0 || (size_t)m >= slen)
        return -1;
    int i = 0;
    argv[i++] = "mount";
    argv[i++] = "-t";
    argv[i++] = "nfs4";
    argv[i++] = "-o";
    argv[i++] = opts;
    argv[i++] = spec;
    argv[i++] = target;
    argv[i] = NULL;
    return 0;
}

int mount_nfs_client_listed(const char *fs)
{
    /* lines "nodev\tNAME" */
    for (const char *p = fs; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *tab = memchr(p, '\t', strcspn(p, "\n"));
        const char *name = tab ? tab + 1 : p;
        size_t n = strcspn(name, "\n");
        if ((n == 3 && strncmp(name, "nfs", 3) == 0) || (n == 4 && strncmp(name, "nfs4", 4) == 0))
            return 1;
    }
    return 0;
}

/* Copies the field at *s (up to a space) into out, decoding \NNN. */
static int field_copy(const char **s, char *out, size_t len)
{
    size_t at = 0;
    const char *p = *s;
    while (*p && *p != ' ' && *p != '\n') {
        char c = *p++;
        if (c == '\\' && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' && p[1] <= '7' && p[2] >= '0' && p[2] <= '7') {
            c = (char)((p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0'));
            p += 3;
        }
        if (at + 1 >= len)
            return -1;
        out[at++] = c;
    }
    out[at] = '\0';
    *s = *p == ' ' ? p + 1 : p;
    return at ? 0 : -1;
}

int mount_info_parse(const char *line, char *point, size_t plen, char *fstype, size_t flen)
{
    /* ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
    char skip[4096];
    const char *p = line;
    for (int f = 0; f < 4; f++)
        if (field_copy(&p, skip, sizeof skip) != 0)
            return -1;
    if (field_copy(&p, point, plen) != 0)
        return -1;
    const char *dash = strstr(p, " - ");
    if (!dash)
        return -1;
    p = dash + 3;
    return field_copy(&p, fstype, flen);
}

int mount_type_ours(const char *fstype)
{
    return strcmp(fstype, "fuse.rclone") == 0 || strcmp(fstype, "nfs") == 0 || strcmp(fstype, "nfs4") == 0;
}
