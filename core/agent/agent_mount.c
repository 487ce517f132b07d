/* agent_mount.c - a worker's regional datastores, mounted before its
 * command and unmounted when it ends (agent_mount.h).
 *
 * The job carries what to mount (data_refs.datastores, copied at submit:
 * type, address, root, user, the sealed password) and where: data.input /
 * data.output of type regional, and datastore:NAME/PATH datasets,
 * checkpoints and models.  Each mount's server path is dspath_resolve's
 * join of the datastore's root and the path, the very code of `datastore
 * resolve`, so a path that would climb out is refused the same way.
 *
 * Like staging, nothing is kept in memory: WORKER_DIR/.mount holds each
 * mount's process id and start (N.pid) and its output (N.log), and
 * /proc/self/mountinfo says what is live, so a restarted agent finds where
 * its workers stand.  The mounting process runs in its own session
 * (rclone stays and serves the mount; mount(8) exits once done), so a
 * restarted agent leaves a running worker's data in place; at start it
 * releases the mounts of workers that no longer run (agent_mount_sweep).
 *
 * Inputs (datasets, models, data.input) are mounted read-only; outputs
 * and checkpoints read-write.
 */
#include "agent_mount.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "doc.h"
#include "fleet.h"
#include "dspath.h"
#include "rdtime.h"
#include "runner.h"
#include "runtime.h"
#include "secret.h"

extern char **environ;

enum {
    MOUNT_QUICK_MS = 3000,     /* a fresh mount is waited for this long before the next round looks */
    UNMOUNT_WAIT_MS = 10000,   /* fusermount3/umount get this long */
    MOUNT_POINTS_MAX = 64,
    ITEM_UNSTARTED = 100       /* item_state: nothing started for it yet */
};

/* One mount a worker needs. */
typedef struct {
    char what[300];            /* "data.input", "dataset 'x'" */
    const json_t *ds;          /* its datastore, from data_refs.datastores */
    char ds_name[128];
    char path[DSPATH_MAX];     /* under the datastore's root ("/" all of it) */
    char dest[4400];           /* the folder in the worker's tree */
    int read_only;
} mount_item;

/* ---- small helpers --------------------------------------------------------- */

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Our mounts (mount_type_ours) at or under prefix ("" for all), deepest
 * first, as n malloc'd paths in pts (at most MOUNT_POINTS_MAX); exact: the
 * one mount point that equals prefix. */
static size_t mounts_under(const char *prefix, int exact, char **pts)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[8192], point[4400], fstype[64];
    size_t n = 0, plen = strlen(prefix);
    if (!f)
        return 0;
    while (n < MOUNT_POINTS_MAX && fgets(line, sizeof line, f))
        if (mount_info_parse(line, point, sizeof point, fstype, sizeof fstype) == 0 && mount_type_ours(fstype) &&
            (exact ? strcmp(point, prefix) == 0 : strncmp(point, prefix, plen) == 0 && point[plen] == '/') &&
            (pts[n] = strdup(point)))
            n++;
    fclose(f);
    /* deepest first: a mount inside another goes before it */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strlen(pts[j]) > strlen(pts[j - 1]); j--) {
            char *t = pts[j];
            pts[j] = pts[j - 1];
            pts[j - 1] = t;
        }
    return n;
}

static void points_free(char **pts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(pts[i]);
}

static int is_mounted(const char *point)
{
    char *pts[MOUNT_POINTS_MAX];
    size_t n = mounts_under(point, 1, pts);
    points_free(pts, n);
    return n > 0;
}

/* Starts argv (PATH searched) with env, output into log, in its own
 * session; -1 with errno-style code in *why. */
static pid_t spawn(const char *const *argv, char *const *env, const char *log, int *why)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    pid_t pid = -1;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
    *why = posix_spawnp(&pid, argv[0], &fa, &at, (char *const *)argv, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return *why ? -1 : pid;
}

/* Runs argv to its end (UNMOUNT_WAIT_MS at most); 0 when it exited 0. */
static int run_wait(const char *const *argv, const char *log)
{
    int why, st = 0;
    pid_t pid = spawn(argv, environ, log, &why);
    if (pid < 0)
        return -1;
    for (int64_t end = rdtime_mono_ms() + UNMOUNT_WAIT_MS;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
        if (r < 0)
            return -1;
        if (rdtime_mono_ms() > end) {
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        sleep_ms(20);
    }
}

/* 1 while pid (a mount process this agent, or the one before it,
 * started for the worker in dir) lives; reaps it when it is our child and
 * has ended.  Not our child: its command line must name dir, or the pid
 * now belongs to another process (another worker's rclone among them). */
static int proc_alive(pid_t pid, const char *dir)
{
    int st;
    char path[64], text[8192];
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == 0)
        return 1;
    if (r == pid || errno != ECHILD)
        return 0;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (runner_read_text(path, text, sizeof text) != 0)
        return 0;
    const char *close = strrchr(text, ')');
    if (!close || close[1] != ' ' || close[2] == 'Z')
        return 0;
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "re");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    for (size_t i = 0; i < n; i++)
        if (!text[i])
            text[i] = ' ';
    text[n] = '\0';
    size_t dl = strlen(dir);
    for (const char *p = strstr(text, dir); p; p = strstr(p + 1, dir))
        if (p[dl] == '/')
            return 1;
    return 0;
}

/* The first line of file (a mount's output), or dflt. */
static void first_line(const char *file, const char *dflt, char *out, size_t len)
{
    char text[2048] = "";
    runner_read_text(file, text, sizeof text);
    char *p = text + strspn(text, "\n");
    p[strcspn(p, "\n")] = '\0';
    snprintf(out, len, "%s", *p ? p : dflt);
}

/* ---- what to mount --------------------------------------------------------- */

static void item_add(mount_item *items, size_t *n, const json_t *refs, const char *ds, const char *what,
                    const char *path, const char *dest, int read_only)
{
    mount_item *it = &items[(*n)++];
    memset(it, 0, sizeof *it);
    snprintf(it->what, sizeof it->what, "%s", what);
    snprintf(it->ds_name, sizeof it->ds_name, "%s", ds ? ds : "");
    snprintf(it->path, sizeof it->path, "%s", path && *path ? path : "/");
    snprintf(it->dest, sizeof it->dest, "%s", dest);
    it->ds = json_object_get(json_object_get(refs, "datastores"), it->ds_name);
    it->read_only = read_only;
}

/* The objects of list read from a datastore, at their staging folders. */
static void items_objects(mount_item *items, size_t *n, const json_t *refs, const char *list, const char *word,
                          const char *base, int read_only)
{
    const json_t *all = json_object_get(refs, list), *r;
    size_t i;
    json_array_foreach(all, i, r) {
        char what[300], dest[4400];
        if (!*doc_str(r, "datastore"))
            continue;
        snprintf(what, sizeof what, "%s '%s'", word, doc_str(r, "name"));
        agent_stage_object_dest(dest, sizeof dest, base, json_array_size(all), doc_str(r, "name"));
        item_add(items, n, refs, doc_str(r, "datastore"), what, doc_str(r, "path"), dest, read_only);
    }
}

/* Every mount the job needs (malloc'd, *n of them; NULL when none). */
static mount_item *items_build(const json_t *job, const char *dir, size_t *n)
{
    const json_t *refs = json_object_get(job, "data_refs"), *data = json_object_get(job, "data");
    size_t cap = json_array_size(json_object_get(refs, "datasets")) +
                 json_array_size(json_object_get(refs, "checkpoints")) + 3;
    mount_item *items = calloc(cap, sizeof *items);
    char tree[4200], base[4300];
    *n = 0;
    if (!items)
        return NULL;
    snprintf(tree, sizeof tree, "%s/opt/ml", dir);
    snprintf(base, sizeof base, "%s/input", tree);
    items_objects(items, n, refs, "datasets", "dataset", base, 1);
    snprintf(base, sizeof base, "%s/checkpoint", tree);
    items_objects(items, n, refs, "checkpoints", "checkpoint", base, 0);
    const json_t *model = json_object_get(refs, "model");
    snprintf(base, sizeof base, "%s/models", tree);
    if (json_is_object(model) && *doc_str(model, "datastore")) {
        char what[300];
        snprintf(what, sizeof what, "model '%s'", doc_str(model, "name"));
        item_add(items, n, refs, doc_str(model, "datastore"), what, doc_str(model, "path"), base, 1);
    }
    static const char *const slots[] = { "input", "output" };
    for (int s = 0; s < 2; s++) {
        const json_t *io = json_object_get(data, slots[s]);
        char what[32];
        if (strcmp(doc_str(io, "type"), "regional") != 0)
            continue;
        snprintf(what, sizeof what, "data.%s", slots[s]);
        snprintf(base, sizeof base, "%s/%s", tree, slots[s]);
        item_add(items, n, refs, doc_str(refs, "regional_datastore"), what, doc_str(io, "path"), base, s == 0);
    }
    if (!*n) {
        free(items);
        return NULL;
    }
    return items;
}

/* ---- mounting -------------------------------------------------------------- */

/* The datastore's password, opened with the master key (NULL: none, or
 * msg says why it cannot be opened). */
static char *password_open(agent_state *a, const json_t *ds, char *msg, size_t len)
{
    const char *sealed = doc_str(ds, "secret_password");
    char *plain = NULL;
    size_t n = 0;
    rd_err err = { 0 };
    if (!*sealed)
        return NULL;
    rd_code rc = fleet_unseal(&a->ctx, sealed, &plain, &n, &err);
    if (rc != RD_OK)
        snprintf(msg, len, "cannot open its password: %s", err.msg);
    return rc == RD_OK ? plain : NULL;
}

/* `rclone obscure -` of plain (on its standard input: never on a command
 * line) into out; rclone takes its SMB password only so. */
static int obscure(const char *plain, char *out, size_t len, char *msg, size_t mlen)
{
    int in[2], outp[2], st = 0;
    if (pipe2(in, O_CLOEXEC) != 0)
        return snprintf(msg, mlen, "rclone obscure: %s", strerror(errno)), -1;
    if (pipe2(outp, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return snprintf(msg, mlen, "rclone obscure: %s", strerror(errno)), -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
    const char *argv[] = { "rclone", "obscure", "-", NULL };
    pid_t pid;
    int rc = posix_spawnp(&pid, "rclone", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(outp[1]);
    size_t at = 0;
    if (rc == 0) {
        /* a password is short: the pipe holds it whole */
        ssize_t w = write(in[1], plain, strlen(plain));
        (void)!write(in[1], "\n", 1);
        close(in[1]);
        ssize_t r;
        while (w >= 0 && at + 1 < len && (r = read(outp[0], out + at, len - 1 - at)) > 0)
            at += (size_t)r;
        waitpid(pid, &st, 0);
    } else {
        close(in[1]);
    }
    close(outp[0]);
    out[at] = '\0';
    out[strcspn(out, "\r\n")] = '\0';
    if (rc != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !*out) {
        snprintf(msg, mlen, "rclone obscure failed%s%s", rc ? ": " : "", rc ? strerror(rc) : "");
        return -1;
    }
    return 0;
}

/* 1 when this kernel has an NFS client, or can load one. */
static int nfs_client(void)
{
    char fs[8192] = "", path[512];
    struct stat sb;
    if (runner_read_text("/proc/filesystems", fs, sizeof fs) == 0 && mount_nfs_client_listed(fs))
        return 1;
    FILE *f = fopen("/proc/sys/kernel/osrelease", "re");
    char rel[128] = "";
    if (f) {
        if (!fgets(rel, sizeof rel, f))
            rel[0] = '\0';
        fclose(f);
    }
    rel[strcspn(rel, "\n")] = '\0';
    snprintf(path, sizeof path, "/lib/modules/%s/kernel/fs/nfs", rel);
    return *rel && stat(path, &sb) == 0;
}

/* Starts mount i of the worker in dir; -1 with msg (the cause). */
static int item_start(agent_state *a, const mount_item *it, size_t i, const char *dir, char *msg, size_t len)
{
    char server[DSPATH_MAX + 8], mdir[4300], log[4400], cache[4400], pidf[4400], text[64];
    char *resolved = NULL, *env[8] = { 0 }, **envv = NULL;
    const char *argv[MOUNT_ARGV_MAX];
    rd_err err = { 0 };
    const char *type = doc_str(it->ds, "type");
    int rc = -1;
    if (dspath_resolve(doc_str(it->ds, "root"), it->path, &resolved, &err) != RD_OK) {
        snprintf(msg, len, "%s", err.msg);   /* the refusal `datastore resolve` gives */
        return -1;
    }
    snprintf(server, sizeof server, "%s", resolved);
    free(resolved);
    snprintf(mdir, sizeof mdir, "%s/.mount", dir);
    snprintf(log, sizeof log, "%s/%zu.log", mdir, i);
    snprintf(cache, sizeof cache, "%s/cache", mdir);
    snprintf(pidf, sizeof pidf, "%s/%zu.pid", mdir, i);
    if (runner_mkdirs(mdir, 0755, 0755) != 0 || runner_mkdirs(it->dest, 0755, 0755) != 0) {
        snprintf(msg, len, "cannot make %.300s: %s", it->dest, strerror(errno));
        return -1;
    }
    unlink(log);
    char remote[DSPATH_MAX + 16], opts[128], spec[DSPATH_MAX + 320];
    if (strcmp(type, "smb") == 0) {
        char *plain = password_open(a, it->ds, msg, len), obscured[512] = "";
        if (!plain && *doc_str(it->ds, "secret_password"))
            return -1;
        int ok = !plain || obscure(plain, obscured, sizeof obscured, msg, len) == 0;
        if (plain) {
            explicit_bzero(plain, strlen(plain));
            free(plain);
        }
        if (!ok)
            return -1;
        /* a container's users other than the mounter reach it only so */
        int other = runtime_find(a->runtime)->container && geteuid() == 0;
        if (mount_rclone_argv(server, it->dest, cache, it->read_only, other, remote, sizeof remote, argv) != 0) {
            snprintf(msg, len, "an SMB path must name a share: the datastore's root and the path resolve to '%.300s'",
                     server);
            return -1;
        }
        if (mount_rclone_env(doc_str(it->ds, "address"), doc_str(it->ds, "username"), obscured, env, 8) != 0)
            snprintf(msg, len, "its address '%s' is not host[:port]", doc_str(it->ds, "address"));
        else
            rc = 0;
        explicit_bzero(obscured, sizeof obscured);
    } else if (strcmp(type, "nfs") == 0) {
        if (!nfs_client())
            snprintf(msg, len, "this node's kernel has no NFS client (no nfs or nfs4 in /proc/filesystems); "
                     "NFS datastores need one");
        else if (mount_nfs_argv(doc_str(it->ds, "address"), server, it->dest, it->read_only, opts, sizeof opts, spec,
                                sizeof spec, argv) != 0)
            snprintf(msg, len, "its address '%s' is not host[:port]", doc_str(it->ds, "address"));
        else
            rc = 0;
    } else {
        snprintf(msg, len, "type '%s' cannot be mounted (nfs or smb)", type);
    }
    if (rc == 0) {
        /* the agent's variables, less any RCLONE_* of its own, then ours */
        size_t ne = 0, k = 0;
        while (environ[ne])
            ne++;
        envv = calloc(ne + 9, sizeof *envv);
        for (size_t e = 0; envv && e < ne; e++)
            if (strncmp(environ[e], "RCLONE_", 7) != 0)
                envv[k++] = environ[e];
        for (size_t e = 0; envv && env[e]; e++)
            envv[k++] = env[e];
        int why = ENOMEM;
        pid_t pid = envv ? spawn(argv, envv, log, &why) : -1;
        if (pid < 0) {
            snprintf(msg, len, "cannot start %s: %s", argv[0], strerror(why));
            rc = -1;
        } else {
            snprintf(text, sizeof text, "%d %lld\n", (int)pid, (long long)a->o->log.now());
            FILE *f = fopen(pidf, "we");
            if (f) {
                fputs(text, f);
                fclose(f);
            }
            dlog(&a->o->log, "mount", NULL, "%s: mounting datastore '%s' (%s %s:%s) at %s%s", it->what, it->ds_name,
                 type, doc_str(it->ds, "address"), server, it->dest, it->read_only ? ", read-only" : "");
        }
    }
    for (char **e = env; *e; e++) {
        explicit_bzero(*e, strlen(*e));
        free(*e);
    }
    free(envv);
    return rc;
}

/* Where mount i stands: STAGE_READY (live), STAGE_BUSY, STAGE_FAILED with
 * msg (the cause), or ITEM_UNSTARTED. */
static int item_state(agent_state *a, const mount_item *it, size_t i, const char *dir, char *msg,
                              size_t len)
{
    char pidf[4400], log[4400], text[64];
    if (is_mounted(it->dest))
        return STAGE_READY;
    snprintf(pidf, sizeof pidf, "%s/.mount/%zu.pid", dir, i);
    snprintf(log, sizeof log, "%s/.mount/%zu.log", dir, i);
    if (runner_read_text(pidf, text, sizeof text) != 0)
        return ITEM_UNSTARTED;
    long long pid = 0, at = 0;
    sscanf(text, "%lld %lld", &pid, &at);
    if (pid > 0 && proc_alive((pid_t)pid, dir)) {
        if (a->o->log.now() - at <= MOUNT_WAIT_S)
            return STAGE_BUSY;
        kill(-(pid_t)pid, SIGKILL);
        snprintf(msg, len, "the mount did not come up within %d s", MOUNT_WAIT_S);
        return STAGE_FAILED;
    }
    if (is_mounted(it->dest))   /* mount(8) exits once it has mounted */
        return STAGE_READY;
    first_line(log, "the mount ended without mounting", msg, len);
    return STAGE_FAILED;
}

stage_state agent_mount_step(agent_state *a, const json_t *job, const char *dir, char *msg, size_t len)
{
    size_t n = 0;
    mount_item *items = items_build(job, dir, &n);
    stage_state out = STAGE_READY;
    for (size_t i = 0; i < n && out != STAGE_FAILED; i++) {
        const mount_item *it = &items[i];
        char cause[600] = "";
        int s;
        if (!it->ds) {
            snprintf(cause, sizeof cause, "the job carries no record of it (submitted before datastore mounts)");
            s = STAGE_FAILED;
        } else {
            s = item_state(a, it, i, dir, cause, sizeof cause);
        }
        if (s == ITEM_UNSTARTED) {
            s = item_start(a, it, i, dir, cause, sizeof cause) == 0 ? STAGE_BUSY : STAGE_FAILED;
            /* a mount is usually live within a moment: no round lost */
            for (int64_t end = rdtime_mono_ms() + MOUNT_QUICK_MS; s == STAGE_BUSY && rdtime_mono_ms() < end;) {
                sleep_ms(50);
                s = item_state(a, it, i, dir, cause, sizeof cause);
            }
        }
        if (s == STAGE_FAILED)
            snprintf(msg, len, "datastore '%s' (%s): %s", it->ds_name, it->what, cause);
        if (s == STAGE_FAILED || (s == STAGE_BUSY && out == STAGE_READY))
            out = (stage_state)s;
    }
    free(items);
    return out;
}

/* ---- unmounting ------------------------------------------------------------ */

/* 1 when the mount at point is a FUSE one (rclone's), 0 for NFS. */
static int is_fuse(const char *point)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    int fuse = 1;
    char line[8192], p[4400], t[64];
    while (f && fgets(line, sizeof line, f))
        if (mount_info_parse(line, p, sizeof p, t, sizeof t) == 0 && strcmp(p, point) == 0)
            fuse = strncmp(t, "fuse", 4) == 0;
    if (f)
        fclose(f);
    return fuse;
}

static int unmount_one(agent_state *a, const char *point, const char *log)
{
    const char *fuse_u[] = { "fusermount3", "-u", point, NULL }, *fuse_z[] = { "fusermount3", "-uz", point, NULL };
    const char *um[] = { "umount", point, NULL }, *um_l[] = { "umount", "-l", point, NULL };
    int fuse = is_fuse(point);
    run_wait(fuse ? fuse_u : um, log);
    if (is_mounted(point)) {
        dlog(&a->o->log, "mount", NULL, "%s is busy: detaching it (lazy unmount)", point);
        run_wait(fuse ? fuse_z : um_l, log);
    }
    if (is_mounted(point) && geteuid() == 0)
        umount2(point, MNT_DETACH);
    return is_mounted(point) ? -1 : 0;
}

int agent_mount_release(agent_state *a, const char *dir)
{
    char mdir[4300], log[4400], pidf[4400], text[64];
    char *pts[MOUNT_POINTS_MAX];
    struct stat sb;
    snprintf(mdir, sizeof mdir, "%s/.mount", dir);
    size_t n = mounts_under(dir, 0, pts);
    if (n == 0 && stat(mdir, &sb) != 0) {
        return 0;
    }
    snprintf(log, sizeof log, "%s/unmount.log", mdir);
    int left = 0;
    for (size_t i = 0; i < n; i++) {
        if (unmount_one(a, pts[i], stat(mdir, &sb) == 0 ? log : "/dev/null") == 0)
            dlog(&a->o->log, "mount", NULL, "unmounted %s", pts[i]);
        else {
            dlog(&a->o->log, "mount", NULL, "cannot unmount %s (see %s)", pts[i], log);
            left++;
        }
    }
    points_free(pts, n);
    /* the processes that served them: rclone ends by itself once
     * unmounted; one that hangs is ended here */
    for (size_t i = 0; i < MOUNT_POINTS_MAX; i++) {
        snprintf(pidf, sizeof pidf, "%s/%zu.pid", mdir, i);
        if (runner_read_text(pidf, text, sizeof text) != 0)
            break;
        pid_t pid = (pid_t)atoi(text);
        for (int tries = 0; pid > 0 && proc_alive(pid, dir) && tries < 50; tries++) {
            kill(-pid, tries < 25 ? SIGTERM : SIGKILL);
            sleep_ms(40);
        }
        if (left == 0)
            unlink(pidf);   /* a later step starts afresh */
    }
    return left ? -1 : 0;
}

void agent_mount_sweep(agent_state *a)
{
    char *pts[MOUNT_POINTS_MAX];
    size_t n = mounts_under(a->o->work_dir, 0, pts);
    size_t wl = strlen(a->o->work_dir);
    for (size_t i = 0; i < n; i++) {
        /* WORK_DIR/<job>/<index>/... : the worker's folder */
        char wdir[4200];
        const char *rest = pts[i] + wl + 1, *s1 = strchr(rest, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
        if (!s2 || !is_mounted(pts[i]))
            continue;   /* not a worker's, or released with an earlier one of its worker's */
        snprintf(wdir, sizeof wdir, "%.*s", (int)(s2 - pts[i]), pts[i]);
        runner_status_t st;
        rd_err err = { 0 };
        if (runner_status(wdir, &st, &err) == RD_OK && st.state == RUNNER_RUNNING)
            continue;   /* its worker runs: its data stays */
        dlog(&a->o->log, "mount", NULL, "%s: its worker is not running; releasing the mounts an earlier agent left",
             wdir);
        agent_mount_release(a, wdir);
    }
    points_free(pts, n);
}
