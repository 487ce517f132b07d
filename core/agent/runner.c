/* runner.c - starts one worker under a shim that outlives the agent, and
 * reads back what became of it from any process: the shim itself, the pid
 * and exit records, status, signals, the log tail and cleanup.  See
 * runner.h for the files and the guarantees; runner_exec.c builds what the
 * worker execs.
 *
 * Code between fork() and _exit()/execve() uses only async-signal-safe
 * calls (no malloc, no stdio): the agent may have threads, and a lock one
 * of them held at fork would never be released in the child.
 */
#include "rdtime.h"
#include "runner_int.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STATE_DIR ".rigdeck"
#define START_TIMEOUT_MS 10000

/* ---- async-signal-safe pieces (used by the shim) ----------------------- */

typedef struct {
    char b[4096];
    size_t n;
} sbuf;

static void sb_str(sbuf *s, const char *t)
{
    while (*t && s->n < sizeof s->b - 1)
        s->b[s->n++] = *t++;
    s->b[s->n] = '\0';
}

static void sb_int(sbuf *s, long long v)
{
    char tmp[24];
    int i = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        tmp[i++] = (char)('0' + u % 10);
    while ((u /= 10) && i < 23);
    if (v < 0 && s->n < sizeof s->b - 1)
        s->b[s->n++] = '-';
    while (i > 0 && s->n < sizeof s->b - 1)
        s->b[s->n++] = tmp[--i];
    s->b[s->n] = '\0';
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes buf to tmp, syncs it and renames it over path: readers see the
 * whole record or none, and it survives a power cut once renamed. */
static int write_atomic(const char *tmp, const char *path, const char *buf, size_t len)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), bad;
    if (fd < 0)
        return -1;
    bad = write_all(fd, buf, len) != 0 || fsync(fd) != 0;
    if (close(fd) != 0 || bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Field 3 (state) and field 22 (start time, clock ticks since boot) of
 * /proc/PID/stat; -1 when the process does not exist. */
static int proc_stat(int pid, char *state, unsigned long long *start)
{
    sbuf path = { .n = 0 };
    char buf[1024];
    ssize_t n;
    int fd, field = 3;
    char *p, *end;
    sb_str(&path, "/proc/");
    sb_int(&path, pid);
    sb_str(&path, "/stat");
    if (pid <= 0 || (fd = open(path.b, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* The name (field 2) is in parentheses and may itself hold ") ". */
    for (p = end = buf; *p; p++)
        if (*p == ')')
            end = p;
    if (*end != ')' || end[1] != ' ')
        return -1;
    p = end + 2;
    *state = *p;
    while (field < 22 && *p) {
        if (*p++ == ' ')
            field++;
    }
    if (field != 22)
        return -1;
    *start = 0;
    while (*p >= '0' && *p <= '9')
        *start = *start * 10 + (unsigned long long)(*p++ - '0');
    return 0;
}

/* Frees the log's blocks before its last RUNNER_LOG_KEEP bytes once more
 * than RUNNER_LOG_CAP bytes of it are on disk (see runner.h). */
static void log_trim(int fd)
{
    struct stat st;
    off_t end;
    if (fstat(fd, &st) != 0 || (long long)st.st_blocks * 512 <= RUNNER_LOG_CAP)
        return;
    end = (st.st_size - RUNNER_LOG_KEEP) & ~(off_t)65535;
    if (end > 0)
        fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, end);
}

/* ---- the shim ---------------------------------------------------------- */

/* Everything the middle process, the shim and the worker need, prepared
 * before the first fork. */
typedef struct {
    runner_plan plan;
    const char *dir;
    char *state, *log_path, *pid_path, *pid_tmp, *exit_path, *exit_tmp;
    char boot[64];
    int ready_w;
} shim_ctx;

/* What went wrong before the worker started, told to runner_start over the
 * ready pipe: 'E', the stage, then errno. */
_Noreturn static void shim_fail(int fd, char stage)
{
    char msg[2 + sizeof(int)];
    int e = errno;
    msg[0] = 'E';
    msg[1] = stage;
    memcpy(msg + 2, &e, sizeof e);
    write_all(fd, msg, sizeof msg);
    _exit(1);
}

_Noreturn static void worker_exec(const shim_ctx *c)
{
    sbuf m = { .n = 0 };
    close(3); /* the ready pipe: its EOF must not wait for our exec */
    setpgid(0, 0);
    runner_reset_signals();
    if (chdir(c->dir) != 0) {
        sb_str(&m, "rigdeck: cannot enter ");
        sb_str(&m, c->dir);
    } else {
        /* A client not found on PATH is a bare name: never look for it in
         * the job's directory. */
        if (strchr(c->plan.path, '/'))
            execve(c->plan.path, c->plan.argv, c->plan.envp);
        else
            errno = ENOENT;
        sb_str(&m, "rigdeck: cannot run ");
        sb_str(&m, c->plan.path);
    }
    sb_str(&m, ": ");
    sb_str(&m, strerrordesc_np(errno) ? strerrordesc_np(errno) : "error");
    sb_str(&m, "\n");
    write_all(2, m.b, m.n);
    _exit(127);
}

_Noreturn static void shim_main(const shim_ctx *c)
{
    sigset_t wait_set;
    struct sigaction ign;
    int null, log, ready, status = 0;
    pid_t pid;
    int64_t started;
    unsigned long long shim_start = 0, worker_start = 0;
    char st;
    sbuf rec = { .n = 0 };

    /* Default dispositions (the agent may ignore SIGCHLD, which would make
     * waitpid fail), then the signals the shim handles synchronously. */
    runner_reset_signals();
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, NULL);
    sigemptyset(&wait_set);
    sigaddset(&wait_set, SIGCHLD);
    sigaddset(&wait_set, SIGTERM);
    sigaddset(&wait_set, SIGINT);
    sigaddset(&wait_set, SIGQUIT);
    sigaddset(&wait_set, SIGHUP);
    sigprocmask(SIG_BLOCK, &wait_set, NULL);

    /* 0 = /dev/null, 1 = 2 = the log, 3 = the ready pipe, nothing else: the
     * agent's store sockets and files must not stay open for the job's
     * lifetime.  Moving everything above 3 first means no dup2 below can
     * overwrite a descriptor still to be moved. */
    if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
        shim_fail(c->ready_w, 'n');
    if ((log = open(c->log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) < 0)
        shim_fail(c->ready_w, 'l');
    null = fcntl(null, F_DUPFD_CLOEXEC, 4);
    log = fcntl(log, F_DUPFD_CLOEXEC, 4);
    ready = fcntl(c->ready_w, F_DUPFD_CLOEXEC, 4);
    if (null < 0 || log < 0 || ready < 0 || dup2(null, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0 ||
        dup2(ready, 3) < 0)
        shim_fail(ready >= 0 ? ready : c->ready_w, 'd');
    fcntl(3, F_SETFD, FD_CLOEXEC);
    runner_close_from(4);

    started = now_ms();
    pid = fork();
    if (pid < 0)
        shim_fail(3, 'f');
    if (pid == 0)
        worker_exec(c);
    setpgid(pid, pid); /* also here: a signal may come before the child runs */

    proc_stat(getpid(), &st, &shim_start);
    proc_stat(pid, &st, &worker_start);
    sb_str(&rec, "rigdeck-runner 1\nboot ");
    sb_str(&rec, c->boot);
    sb_str(&rec, "\n");
    sb_str(&rec, c->plan.record);
    sb_str(&rec, "shim ");
    sb_int(&rec, getpid());
    sb_str(&rec, " ");
    sb_int(&rec, (long long)shim_start);
    sb_str(&rec, "\nworker ");
    sb_int(&rec, pid);
    sb_str(&rec, " ");
    sb_int(&rec, (long long)worker_start);
    sb_str(&rec, "\nstarted_ms ");
    sb_int(&rec, started);
    sb_str(&rec, "\n");
    if (write_atomic(c->pid_tmp, c->pid_path, rec.b, rec.n) != 0) {
        int e = errno;
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        errno = e;
        shim_fail(3, 'p');
    }
    close(3); /* EOF with no report: the pid record is in place */

    for (;;) {
        struct timespec tick = { RUNNER_SHIM_TICK_MS / 1000, (RUNNER_SHIM_TICK_MS % 1000) * 1000000L };
        int sig = sigtimedwait(&wait_set, NULL, &tick);
        pid_t r;
        if (sig == SIGTERM || sig == SIGINT || sig == SIGQUIT)
            kill(-pid, sig); /* someone stopping the shim means the worker */
        else if (sig < 0 && errno == EAGAIN)
            log_trim(1);
        r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            _exit(1); /* cannot happen; no exit record: GONE */
    }
    /* What the command left behind in its group goes with it: a finished
     * worker must not keep holding its GPUs.  The group id cannot have been
     * reused: a pid stays taken while its group has members. */
    kill(-pid, SIGKILL);

    rec.n = 0;
    if (WIFSIGNALED(status)) {
        sb_str(&rec, "signal ");
        sb_int(&rec, WTERMSIG(status));
    } else {
        sb_str(&rec, "exit ");
        sb_int(&rec, WEXITSTATUS(status));
    }
    sb_str(&rec, "\nended_ms ");
    sb_int(&rec, now_ms());
    sb_str(&rec, "\n");
    _exit(write_atomic(c->exit_tmp, c->exit_path, rec.b, rec.n) == 0 ? 0 : 1);
}

/* ---- records ----------------------------------------------------------- */

typedef struct {
    char boot[64];
    runner_kind kind;
    int shim_pid, worker_pid;
    unsigned long long shim_start, worker_start;
    int64_t started_ms;
    char client[1024];
    char name[256];
} pid_rec;

static char *state_path(const char *dir, const char *file)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s%s%s", dir, STATE_DIR, *file ? "/" : "", file) < 0)
        return NULL;
    return p;
}

/* Reads DIR/.rigdeck/FILE (small) into buf; *found is 0 when it is missing. */
static rd_code read_state(const char *dir, const char *file, char *buf, size_t cap, int *found, rd_err *err)
{
    char *path = state_path(dir, file);
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

static rd_code read_pid_rec(const char *dir, pid_rec *r, int *found, rd_err *err)
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
    rec_field(text, "client", r->client, sizeof r->client);
    rec_field(text, "name", r->name, sizeof r->name);
    return RD_OK;
}

/* Fills code/sig/ended and sets *found when the exit record is there. */
static rd_code read_exit_rec(const char *dir, int *found, int *code, int *sig, int64_t *ended, rd_err *err)
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
    return RD_OK;
}

static void boot_id(char out[64])
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
static int alive(const pid_rec *r, int pid, unsigned long long start)
{
    char boot[64], st;
    unsigned long long now_start;
    boot_id(boot);
    if (strcmp(boot, r->boot) != 0 || proc_stat(pid, &st, &now_start) != 0)
        return 0;
    return now_start == start && st != 'Z' && st != 'X' && st != 'x';
}

/* ---- the API ----------------------------------------------------------- */

static rd_code mkdirs(const char *dir, rd_err *err)
{
    char *p = strdup(dir);
    rd_code rc = RD_OK;
    if (!p)
        return rd_fail(err, RD_ENOMEM, "runner: out of memory");
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0700) != 0 && errno != EEXIST) {
                rc = rd_fail(err, RD_ESTORE, "runner: cannot create %s: %s", p, strerror(errno));
                break;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
    return rc;
}

static rd_code start_failure(const char *dir, const char *msg, int n, rd_err *err)
{
    int e = 0;
    const char *what = "the shim ended before starting the worker";
    if (n >= (int)(2 + sizeof e) && msg[0] == 'E') {
        memcpy(&e, msg + 2, sizeof e);
        switch (msg[1]) {
        case 'n': what = "cannot open /dev/null"; break;
        case 'l': what = "cannot open the output log"; break;
        case 'd': what = "cannot arrange the shim's descriptors"; break;
        case 'f': what = "cannot fork the worker"; break;
        case 'p': what = "cannot write the pid record"; break;
        case 's': what = "cannot fork the shim"; break;
        default: break;
        }
        return rd_fail(err, RD_ESTORE, "runner: starting the worker in %s: %s: %s", dir, what, strerror(e));
    }
    if (n == 0 && msg[0] == 't')
        what = "the shim did not report within 10 s";
    return rd_fail(err, RD_ESTORE, "runner: starting the worker in %s: %s", dir, what);
}

rd_code runner_start(const runner_spec *spec, runner_info *out, rd_err *err)
{
    shim_ctx c;
    rd_code rc;
    int fds[2] = { -1, -1 }, n = 0, status;
    char msg[2 + sizeof(int)] = { 0 };
    pid_t mid;
    struct stat sb;
    /* Every allocation hangs off c, which stays on the stack of the forked
     * processes that never return from here: nothing in them is lost. */

    memset(&c, 0, sizeof c);
    if ((rc = runner_plan_build(spec, &c.plan, err)) != RD_OK)
        return rc;
    c.dir = spec->dir;
    boot_id(c.boot);
    c.state = state_path(spec->dir, "");
    c.log_path = state_path(spec->dir, "output.log");
    c.pid_path = state_path(spec->dir, "pid");
    c.pid_tmp = state_path(spec->dir, "pid.tmp");
    c.exit_path = state_path(spec->dir, "exit");
    c.exit_tmp = state_path(spec->dir, "exit.tmp");
    if (!c.state || !c.log_path || !c.pid_path || !c.pid_tmp || !c.exit_path || !c.exit_tmp) {
        rc = rd_fail(err, RD_ENOMEM, "runner: out of memory");
        goto done;
    }
    if ((rc = mkdirs(spec->dir, err)) != RD_OK || (rc = mkdirs(c.state, err)) != RD_OK)
        goto done;
    if (stat(c.pid_path, &sb) == 0 || stat(c.exit_path, &sb) == 0) {
        rc = rd_fail(err, RD_EEXISTS, "runner: a worker was already started in %s", spec->dir);
        goto done;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        rc = rd_fail(err, RD_ESTORE, "runner: cannot make a pipe: %s", strerror(errno));
        goto done;
    }
    c.ready_w = fds[1];

    /* The middle process puts the shim in a session of its own and leaves
     * at once, so the shim is reparented away from the agent. */
    mid = fork();
    if (mid < 0) {
        rc = rd_fail(err, RD_ESTORE, "runner: cannot fork: %s", strerror(errno));
        goto done;
    }
    if (mid == 0) {
        pid_t shim;
        close(fds[0]);
        setsid();
        shim = fork();
        if (shim < 0)
            shim_fail(fds[1], 's');
        if (shim == 0)
            shim_main(&c);
        _exit(0);
    }
    close(fds[1]);
    fds[1] = -1;
    while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
        ;

    /* Wait for the shim: EOF once the pid record is in place (the shim,
     * and so nothing of this process, holds the pipe then), or an error
     * report first.  EOF without a record means it died. */
    {
        int64_t deadline = rdtime_mono_ms() + START_TIMEOUT_MS;
        for (;;) {
            int64_t left = deadline - rdtime_mono_ms();
            struct pollfd pfd = { fds[0], POLLIN, 0 };
            ssize_t r;
            if (left <= 0) {
                msg[0] = 't';
                n = 0;
                break;
            }
            if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
                break;
            if (!pfd.revents)
                continue;
            r = read(fds[0], msg + n, sizeof msg - (size_t)n);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            n += (int)r;
            if (n == (int)sizeof msg)
                break;
        }
    }
    if (n > 0 || msg[0] == 't' || stat(c.pid_path, &sb) != 0) {
        rc = start_failure(spec->dir, msg, n, err);
        goto done;
    }
    if (out) {
        pid_rec r;
        int found;
        if ((rc = read_pid_rec(spec->dir, &r, &found, err)) != RD_OK)
            goto done;
        if (!found) {
            rc = rd_fail(err, RD_ESTORE, "runner: the pid record in %s vanished", spec->dir);
            goto done;
        }
        out->shim_pid = r.shim_pid;
        out->worker_pid = r.worker_pid;
        out->started_at = r.started_ms;
    }
    rc = RD_OK;
done:
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    runner_plan_free(&c.plan);
    free(c.state);
    free(c.log_path);
    free(c.pid_path);
    free(c.pid_tmp);
    free(c.exit_path);
    free(c.exit_tmp);
    return rc;
}

rd_code runner_status(const char *dir, runner_status_t *st, rd_err *err)
{
    pid_rec r;
    int found, got;
    rd_code rc;
    memset(st, 0, sizeof *st);
    st->exit_code = -1;
    if (!dir || !*dir)
        return rd_fail(err, RD_EINVAL, "runner: no worker dir");
    if ((rc = read_pid_rec(dir, &r, &found, err)) != RD_OK)
        return rc;
    if (!found) {
        st->state = RUNNER_NONE;
        return RD_OK;
    }
    st->kind = r.kind;
    st->shim_pid = r.shim_pid;
    st->worker_pid = r.worker_pid;
    st->started_at = r.started_ms;
    /* Exit record first: the shim writes it before it ends, so a worker
     * that is not alive and has no record after a second look is lost. */
    for (int look = 0; look < 2; look++) {
        if ((rc = read_exit_rec(dir, &got, &st->exit_code, &st->signal, &st->ended_at, err)) != RD_OK)
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
    pid_rec r;
    int found, ended_found, code, s;
    int64_t ended;
    rd_code rc;
    if (!dir || !*dir || sig <= 0 || sig >= NSIG)
        return rd_fail(err, RD_EINVAL, "runner: bad worker dir or signal %d", sig);
    if ((rc = read_pid_rec(dir, &r, &found, err)) != RD_OK)
        return rc;
    if (!found)
        return RD_OK;
    if ((rc = read_exit_rec(dir, &ended_found, &code, &s, &ended, err)) != RD_OK)
        return rc;
    if (ended_found || !alive(&r, r.worker_pid, r.worker_start))
        return RD_OK;
    if (sig == SIGKILL && r.kind != RUNNER_PROCESS && r.client[0] && r.name[0]) {
        /* A client cannot pass SIGKILL on: the runtime kills the container. */
        char *argv[] = { r.client, (char *)"kill", (char *)"--signal", (char *)"KILL", r.name, NULL };
        runner_spawn_detached(r.client, argv);
    }
    if (kill(-r.worker_pid, sig) != 0 && errno != ESRCH)
        return rd_fail(err, errno == EPERM ? RD_EPERM : RD_ESTORE, "runner: cannot signal the worker in %s: %s", dir,
                       strerror(errno));
    return RD_OK;
}

int runner_reap(void)
{
    return 0;
}

rd_code runner_log_tail(const char *dir, size_t max, char **text, size_t *len, int64_t *total, rd_err *err)
{
    char *path = state_path(dir, "output.log"), *buf;
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
    /* Cut: start after the first newline that is not the last byte. */
    if (off > 0 && got > 1) {
        char *nl = memchr(buf, '\n', got - 1);
        if (nl)
            from = (size_t)(nl + 1 - buf);
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
    if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return rd_fail(err, RD_ESTORE, "runner: cannot remove %s: %s", dir, strerror(errno));
    return RD_OK;
}
