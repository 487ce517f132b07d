/* runner_state.c - what became of a worker, from any process: the pid,
 * exit and fate records runner.c's shim writes under DIR/.rigdeck/, and
 * what follows from them: status, signals, the fence's release and
 * abandonment (see runner.h), the log tail and cleanup.  runner.c starts
 * workers; runner_exec.c builds what they exec.
 */
#include "runner_int.h"
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- records ----------------------------------------------------------- */

char *runner_state_path(const char *dir, const char *file)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s%s%s", dir, STATE_DIR, *file ? "/" : "", file) < 0)
        return NULL;
    return p;
}

/* Reads DIR/.rigdeck/FILE (small) into buf; *found is 0 when it is missing. */
static rd_code read_state(const char *dir, const char *file, char *buf, size_t cap, int *found, rd_err *err)
{
    char *path = runner_state_path(dir, file);
    int fd;
    ssize_t n;
    size_t got = 0;
    *found = 0;
    buf[0] = '\0';
    if (!path)
        return rd_fail(err, RD_ENOMEM, "runner: out of memory");
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        rd_code rc = errno == ENOENT || errno == ENOTDIR
                         ? RD_OK
                         : rd_fail(err, RD_ESTORE, "runner: cannot read %s: %s", path, strerror(errno));
        free(path);
        return rc;
    }
    while (got < cap - 1 && ((n = read(fd, buf + got, cap - 1 - got)) > 0 || (n < 0 && errno == EINTR)))
        if (n > 0)
            got += (size_t)n;
    close(fd);
    free(path);
    buf[got] = '\0';
    *found = 1;
    return RD_OK;
}

/* The value after "key " on its own line, copied into out. */
static int rec_field(const char *text, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, kl) == 0 && p[kl] == ' ') {
            size_t n = strcspn(p + kl + 1, "\n");
            if (n >= cap)
                return 0;
            memcpy(out, p + kl + 1, n);
            out[n] = '\0';
            return 1;
        }
    }
    return 0;
}

rd_code runner_read_pid_rec(const char *dir, runner_pid_rec *r, int *found, rd_err *err)
{
    char text[4096], v[1024], kind[32];
    long long started = 0;
    rd_code rc;
    memset(r, 0, sizeof *r);
    if ((rc = read_state(dir, "pid", text, sizeof text, found, err)) != RD_OK || !*found)
        return rc;
    if (!rec_field(text, "rigdeck-runner", v, sizeof v) || strcmp(v, "1") != 0 ||
        !rec_field(text, "boot", r->boot, sizeof r->boot) || !rec_field(text, "kind", kind, sizeof kind) ||
        runner_kind_parse(kind, &r->kind, NULL) != RD_OK || !rec_field(text, "shim", v, sizeof v) ||
        sscanf(v, "%d %llu", &r->shim_pid, &r->shim_start) != 2 || !rec_field(text, "worker", v, sizeof v) ||
        sscanf(v, "%d %llu", &r->worker_pid, &r->worker_start) != 2 ||
        !rec_field(text, "started_ms", v, sizeof v) || sscanf(v, "%lld", &started) != 1)
        return rd_fail(err, RD_ECORRUPT, "runner: the pid record in %s/%s is damaged", dir, STATE_DIR);
    r->started_ms = started;
    r->hold = rec_field(text, "hold", v, sizeof v) && strcmp(v, "1") == 0;
    rec_field(text, "client", r->client, sizeof r->client);
    rec_field(text, "name", r->name, sizeof r->name);
    return RD_OK;
}

/* Fills code/sig/ended (and *unstarted when given) and sets *found when
 * the exit record is there. */
static rd_code read_exit_rec(const char *dir, int *found, int *code, int *sig, int64_t *ended, int *unstarted,
                             rd_err *err)
{
    char text[256], v[64];
    long long e = 0;
    rd_code rc;
    if ((rc = read_state(dir, "exit", text, sizeof text, found, err)) != RD_OK || !*found)
        return rc;
    *code = -1;
    *sig = 0;
    if (rec_field(text, "exit", v, sizeof v) && sscanf(v, "%d", code) == 1 && *code >= 0)
        ;
    else if (rec_field(text, "signal", v, sizeof v) && sscanf(v, "%d", sig) == 1 && *sig > 0)
        *code = -1;
    else
        return rd_fail(err, RD_ECORRUPT, "runner: the exit record in %s/%s is damaged", dir, STATE_DIR);
    if (rec_field(text, "ended_ms", v, sizeof v))
        sscanf(v, "%lld", &e);
    *ended = e;
    if (unstarted)
        *unstarted = rec_field(text, "unstarted", v, sizeof v) && strcmp(v, "1") == 0;
    return RD_OK;
}

void runner_boot_id(char out[64])
{
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, out, 63) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        n = 0;
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
    if (!out[0])
        strcpy(out, "unknown");
}

/* The process that was recorded is still this one and not a zombie. */
static int alive(const runner_pid_rec *r, int pid, unsigned long long start)
{
    char boot[64], st;
    unsigned long long now_start;
    runner_boot_id(boot);
    if (strcmp(boot, r->boot) != 0 || runner_proc_stat(pid, &st, &now_start) != 0)
        return 0;
    return now_start == start && st != 'Z' && st != 'X' && st != 'x';
}

/* The fate of a held worker in dir ('g', 'a', or 0: undecided). */
static char fate_of(const char *dir)
{
    char *path = runner_state_path(dir, "fate"), b;
    if (!path)
        return 0;
    b = runner_fate_read(path);
    free(path);
    return b;
}

rd_code runner_status(const char *dir, runner_status_t *st, rd_err *err)
{
    runner_pid_rec r;
    int found, got;
    rd_code rc;
    memset(st, 0, sizeof *st);
    st->exit_code = -1;
    if (!dir || !*dir)
        return rd_fail(err, RD_EINVAL, "runner: no worker dir");
    if ((rc = runner_read_pid_rec(dir, &r, &found, err)) != RD_OK)
        return rc;
    if (!found) {
        st->state = RUNNER_NONE;
        return RD_OK;
    }
    st->kind = r.kind;
    st->shim_pid = r.shim_pid;
    st->worker_pid = r.worker_pid;
    st->started_at = r.started_ms;
    st->hold = r.hold;
    st->released = !r.hold || fate_of(dir) == 'g';
    /* Exit record first: the shim writes it before it ends, so a worker
     * that is not alive and has no record after a second look is lost. */
    for (int look = 0; look < 2; look++) {
        if ((rc = read_exit_rec(dir, &got, &st->exit_code, &st->signal, &st->ended_at, &st->unstarted, err)) !=
            RD_OK)
            return rc;
        if (got) {
            st->state = RUNNER_EXITED;
            return RD_OK;
        }
        if (look == 0 && (alive(&r, r.worker_pid, r.worker_start) || alive(&r, r.shim_pid, r.shim_start))) {
            st->state = RUNNER_RUNNING;
            return RD_OK;
        }
    }
    st->state = RUNNER_GONE;
    return RD_OK;
}

rd_code runner_signal(const char *dir, int sig, rd_err *err)
{
    runner_pid_rec r;
    int found, ended_found, code, s;
    int64_t ended;
    rd_code rc;
    if (!dir || !*dir || sig <= 0 || sig >= NSIG)
        return rd_fail(err, RD_EINVAL, "runner: bad worker dir or signal %d", sig);
    if ((rc = runner_read_pid_rec(dir, &r, &found, err)) != RD_OK)
        return rc;
    if (!found)
        return RD_OK;
    if ((rc = read_exit_rec(dir, &ended_found, &code, &s, &ended, NULL, err)) != RD_OK)
        return rc;
    if (ended_found || !alive(&r, r.worker_pid, r.worker_start))
        return RD_OK;
    if (r.hold)
        runner_abandon(dir, NULL);   /* still held: it must never run now; released: it runs, signal it */
    if (sig == SIGKILL && runtime_find(r.kind) && runtime_find(r.kind)->stop && r.client[0] && r.name[0]) {
        /* A client cannot pass SIGKILL on: the runtime kills the container. */
        char *argv[8] = { 0 };
        runtime_find(r.kind)->stop(r.client, r.name, argv);
        runner_spawn_detached(r.client, argv);
    }
    if (kill(-r.worker_pid, sig) != 0 && errno != ESRCH)
        return rd_fail(err, errno == EPERM ? RD_EPERM : RD_ESTORE, "runner: cannot signal the worker in %s: %s", dir,
                       strerror(errno));
    return RD_OK;
}

/* Links DIR/.rigdeck/<from> to DIR/.rigdeck/fate: the first link decides
 * (runner.h, the fence).  *fate is the decision then in force ('g', 'a'),
 * or 0 when the worker was never held (no <from> to link). */
static rd_code fate_claim(const char *dir, const char *from, char *fate, rd_err *err)
{
    char *src = runner_state_path(dir, from), *dst = runner_state_path(dir, "fate");
    rd_code rc = RD_OK;
    *fate = 0;
    if (!src || !dst) {
        rc = rd_fail(err, RD_ENOMEM, "runner: out of memory");
    } else if (link(src, dst) == 0) {
        *fate = from[5];   /* "fate-go" -> 'g', "fate-abandon" -> 'a' */
    } else if (errno == EEXIST) {
        *fate = runner_fate_read(dst);
        if (!*fate)
            rc = rd_fail(err, RD_ECORRUPT, "runner: the fate record in %s/%s is damaged", dir, STATE_DIR);
    } else if (errno != ENOENT) {
        rc = rd_fail(err, RD_ESTORE, "runner: cannot decide the fate of the worker in %s: %s", dir, strerror(errno));
    }
    free(src);
    free(dst);
    return rc;
}

rd_code runner_release(const char *dir, rd_err *err)
{
    char fate;
    rd_code rc = fate_claim(dir, "fate-go", &fate, err);
    if (rc == RD_OK && fate == 'a')
        rc = rd_fail(err, RD_ECONFLICT, "runner: the worker in %s was abandoned before it was released", dir);
    return rc;
}

rd_code runner_abandon(const char *dir, rd_err *err)
{
    char fate;
    rd_code rc = fate_claim(dir, "fate-abandon", &fate, err);
    if (rc == RD_OK && fate == 'g')
        rc = rd_fail(err, RD_ECONFLICT, "runner: the worker in %s was released already: its command runs", dir);
    return rc;
}

int runner_reap(void)
{
    return 0;
}

rd_code runner_log_tail(const char *dir, size_t max, char **text, size_t *len, int64_t *total, rd_err *err)
{
    char *path = runner_state_path(dir, "output.log"), *buf;
    struct stat sb;
    off_t off;
    size_t want, got = 0, from = 0;
    int fd;
    *text = NULL;
    *len = 0;
    *total = 0;
    if (!path)
        return rd_fail(err, RD_ENOMEM, "runner: out of memory");
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        rd_code rc = errno == ENOENT || errno == ENOTDIR
                         ? rd_fail(err, RD_ENOTFOUND, "runner: no output log in %s", dir)
                         : rd_fail(err, RD_ESTORE, "runner: cannot read %s: %s", path, strerror(errno));
        free(path);
        return rc;
    }
    free(path);
    if (fstat(fd, &sb) != 0) {
        close(fd);
        return rd_fail(err, RD_ESTORE, "runner: cannot stat the output log in %s: %s", dir, strerror(errno));
    }
    off = (size_t)sb.st_size > max ? sb.st_size - (off_t)max : 0;
    {
        /* Skip a punched-out front (zeros, not output). */
        off_t data = lseek(fd, off, SEEK_DATA);
        if (data > off && data < sb.st_size)
            off = data;
    }
    want = (size_t)(sb.st_size - off);
    if (!(buf = malloc(want + 1))) {
        close(fd);
        return rd_fail(err, RD_ENOMEM, "runner: out of memory reading the log");
    }
    while (got < want) {
        ssize_t r = pread(fd, buf + got, want - got, off + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    /* Cut: start after the first line break that is not the last byte: a
     * newline, or the carriage return a progress bar redraws itself with
     * (tqdm writes one "line" of megabytes).  Only near the front: a torn
     * line longer than RUNNER_LOG_CUT_MAX keeps its tail rather than
     * vanish with everything but the lines after it. */
    if (off > 0 && got > 1) {
        size_t scan = got - 1 < RUNNER_LOG_CUT_MAX ? got - 1 : RUNNER_LOG_CUT_MAX;
        for (size_t i = 0; i < scan; i++)
            if (buf[i] == '\n' || buf[i] == '\r') {
                from = i + 1 + (buf[i] == '\r' && buf[i + 1] == '\n');
                break;
            }
    }
    memmove(buf, buf + from, got - from);
    buf[got - from] = '\0';
    *text = buf;
    *len = got - from;
    *total = (int64_t)sb.st_size;
    return RD_OK;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

rd_code runner_cleanup(const char *dir, rd_err *err)
{
    runner_status_t st;
    struct stat sb;
    rd_err ignored;
    if (!dir || dir[0] != '/')
        return rd_fail(err, RD_EINVAL, "runner: cleanup needs an absolute worker dir");
    if (lstat(dir, &sb) != 0 && errno == ENOENT)
        return RD_OK;
    /* A damaged record must not make the directory unremovable. */
    if (runner_status(dir, &st, &ignored) == RD_OK && st.state == RUNNER_RUNNING)
        return rd_fail(err, RD_ECONFLICT, "runner: the worker in %s is still running", dir);
    /* FTW_MOUNT: never into a file system mounted inside (a datastore,
     * agent_mount.c): its files are the share's, not the worker's */
    if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0)
        return rd_fail(err, RD_ESTORE, "runner: cannot remove %s: %s", dir, strerror(errno));
    return RD_OK;
}
