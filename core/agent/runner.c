/* runner.c - starts one worker under a shim that outlives the agent: the
 * shim itself (records, the fence's hold, log trimming) and runner_start.
 * See runner.h for the files and the guarantees; runner_state.c reads back
 * what became of a worker; runner_exec.c builds what the worker execs.
 *
 * Code between fork() and _exit()/execve() uses only async-signal-safe
 * calls (no malloc, no stdio): the agent may have threads, and a lock one
 * of them held at fork would never be released in the child.
 */
#include "fileio.h"
#include "rdtime.h"
#include "runner_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* Writes buf to tmp, syncs it and renames it over path: readers see the
 * whole record or none, and it survives a power cut once renamed. */
static int write_atomic(const char *tmp, const char *path, const char *buf, size_t len)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), bad;
    if (fd < 0)
        return -1;
    bad = fileio_write_all(fd, buf, len) != 0 || fsync(fd) != 0;
    if (close(fd) != 0 || bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
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

/* Writes a small file whole and syncs it (its blocks are then allocated). */
static int write_synced(const char *path, const char *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), bad;
    if (fd < 0)
        return -1;
    bad = fileio_write_all(fd, buf, len) != 0 || fsync(fd) != 0;
    return close(fd) != 0 || bad ? -1 : 0;
}

/* ---- the shim ---------------------------------------------------------- */

/* Room reserved for the exit record (its longest form is under 64 bytes). */
#define EXIT_RESERVE 128

/* Everything the middle process, the shim and the worker need, prepared
 * before the first fork. */
typedef struct {
    runner_plan plan;
    const char *dir;
    char *state, *log_path, *pid_path, *pid_tmp, *exit_path, *exit_tmp;
    char *fate, *fate_go, *fate_abandon;
    char *ctl_go, *ctl_abandon, *step;   /* containers (plan.ctl): see runner_int.h */
    char boot[64];
    int ready_w;
    int hold;                         /* wait for the fate before exec */
    int agent_pid;                    /* who started it, and when (the */
    unsigned long long agent_start;   /* shim abandons a held worker once it is gone) */
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
    fileio_write_all(fd, msg, sizeof msg);
    _exit(1);
}

/* Creates an empty file (a flag in the control folder). */
static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

/* A container's pull step (plan.pull_argv), its output in the log; the
 * worker exits with the step's status when it fails. */
static void worker_pull(const shim_ctx *c)
{
    pid_t pid;
    int status = 0;
    write_synced(c->step, "pull\n", 5);
    pid = fork();
    if (pid < 0)
        _exit(125);
    if (pid == 0) {
        execve(c->plan.pull_path, c->plan.pull_argv, c->plan.envp);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 125);
}

/* go_r: the read end of the hold pipe, or -1 when not held. */
_Noreturn static void worker_exec(const shim_ctx *c, int go_r)
{
    sbuf m = { .n = 0 };
    close(3); /* the ready pipe: its EOF must not wait for our exec */
    setpgid(0, 0);
    runner_reset_signals();
    if (go_r >= 0 && c->plan.ctl) {
        /* A container is held inside, by its entry (runtime.c): the client
         * runs now, so that the agent learns whether the runtime can start
         * it before it reports the worker running. */
        close(go_r);
    } else if (go_r >= 0) {
        /* Held: exec only on the shim's 'g'.  EOF (the shim died) or
         * anything else means the command must never run here. */
        char b = 0;
        ssize_t r;
        while ((r = read(go_r, &b, 1)) < 0 && errno == EINTR)
            ;
        if (r != 1 || b != 'g')
            _exit(125);
        close(go_r);
    }
    if (c->plan.pin)   /* the CPUs the agent chose (runner_limits.h) */
        sched_setaffinity(0, sizeof c->plan.cpus, &c->plan.cpus);
    if (chdir(c->dir) != 0) {
        sb_str(&m, "rigdeck: cannot enter ");
        sb_str(&m, c->dir);
    } else {
        if (c->plan.pull_argv) {
            worker_pull(c);
            write_synced(c->step, "run\n", 4);
        }
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
    fileio_write_all(2, m.b, m.n);
    _exit(127);
}

/* The agent that started the worker still runs (same pid, same start). */
static int agent_alive(const shim_ctx *c)
{
    char st;
    unsigned long long start;
    return runner_proc_stat(c->agent_pid, &st, &start) == 0 && start == c->agent_start && st != 'Z' && st != 'X' &&
           st != 'x';
}

/* Holds the forked worker until its fate is decided (runner.h, the fence).
 * 1: released, the worker execs (a signal that came meanwhile is passed
 * on); 0: abandoned, the worker is killed and reaped into *status. */
static int shim_hold(const shim_ctx *c, pid_t pid, int go_w, const sigset_t *wait_set, int *status)
{
    int pending = 0;
    for (;;) {
        struct timespec tick = { 0, RUNNER_HOLD_TICK_MS * 1000000L };
        int sig = sigtimedwait(wait_set, NULL, &tick);
        char fate = runner_fate_read(c->fate);
        pid_t r;
        if (sig == SIGTERM || sig == SIGINT || sig == SIGQUIT)
            pending = sig;   /* someone stopping the shim means the worker */
        if (fate == 'g') {
            if (c->ctl_go)
                touch(c->ctl_go);   /* the container's entry execs the command */
            fileio_write_all(go_w, "g", 1);
            close(go_w);
            if (pending)
                kill(-pid, pending);
            return 1;
        }
        r = waitpid(pid, status, WNOHANG);
        if (fate == 'a' || pending || r == pid || !agent_alive(c)) {
            /* Claim the fate first: once fate-abandon is linked, no
             * release can win.  A name already there was just decided:
             * read it at the next tick (it may be a release). */
            if (fate != 'a' && link(c->fate_abandon, c->fate) != 0 && errno == EEXIST && r != pid)
                continue;
            if (c->ctl_abandon)
                touch(c->ctl_abandon);   /* a container made meanwhile exits unrun */
            if (r != pid) {
                kill(-pid, SIGKILL);
                while (waitpid(pid, status, 0) < 0 && errno == EINTR)
                    ;
            }
            close(go_w);
            return 0;
        }
    }
}

/* Writes the exit record into the room reserved at start (overwritten in
 * place, then cut to size: no new block is needed on a full disk), or as a
 * fresh file when there is no reservation. */
static int write_exit(const shim_ctx *c, const sbuf *rec)
{
    int fd = open(c->exit_tmp, O_WRONLY | O_CLOEXEC), bad;
    if (fd < 0)
        return write_atomic(c->exit_tmp, c->exit_path, rec->b, rec->n);
    bad = pwrite(fd, rec->b, rec->n, 0) != (ssize_t)rec->n || ftruncate(fd, (off_t)rec->n) != 0 || fsync(fd) != 0;
    if (close(fd) != 0 || bad || rename(c->exit_tmp, c->exit_path) != 0)
        return write_atomic(c->exit_tmp, c->exit_path, rec->b, rec->n);
    return 0;
}

/* The exit record of status: "exit N" or "signal N", "unstarted 1" when
 * the command never ran, and the end instant. */
_Noreturn static void shim_finish(const shim_ctx *c, int status, int unstarted)
{
    sbuf rec = { .n = 0 };
    if (WIFSIGNALED(status)) {
        sb_str(&rec, "signal ");
        sb_int(&rec, WTERMSIG(status));
    } else {
        sb_str(&rec, "exit ");
        sb_int(&rec, WEXITSTATUS(status));
    }
    if (unstarted)
        sb_str(&rec, "\nunstarted 1");
    sb_str(&rec, "\nended_ms ");
    sb_int(&rec, now_ms());
    sb_str(&rec, "\n");
    _exit(write_exit(c, &rec) == 0 ? 0 : 1);
}

_Noreturn static void shim_main(const shim_ctx *c)
{
    sigset_t wait_set;
    struct sigaction ign;
    int null, log, ready, status = 0, go[2] = { -1, -1 };
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

    /* Room for every record the shim or a release will write later, taken
     * now: a full disk fails the start (the agent can say why and move the
     * worker), never the record of how a worker ended. */
    {
        char pad[EXIT_RESERVE];
        memset(pad, '\n', sizeof pad);
        if (write_synced(c->exit_tmp, pad, sizeof pad) != 0 ||
            (c->hold && (write_synced(c->fate_go, "go\n", 3) != 0 ||
                         write_synced(c->fate_abandon, "abandon\n", 8) != 0)))
            shim_fail(3, 'r');
    }
    if (c->hold && pipe2(go, O_CLOEXEC) != 0)
        shim_fail(3, 'd');

    started = now_ms();
    pid = fork();
    if (pid < 0)
        shim_fail(3, 'f');
    if (pid == 0) {
        if (go[1] >= 0)
            close(go[1]);   /* the shim's end: its death must read as EOF */
        worker_exec(c, go[0]);
    }
    setpgid(pid, pid); /* also here: a signal may come before the child runs */
    if (go[0] >= 0)
        close(go[0]);

    runner_proc_stat(getpid(), &st, &shim_start);
    runner_proc_stat(pid, &st, &worker_start);
    sb_str(&rec, "rigdeck-runner 1\nboot ");
    sb_str(&rec, c->boot);
    sb_str(&rec, "\n");
    sb_str(&rec, c->plan.record);
    if (c->hold)
        sb_str(&rec, "hold 1\n");
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

    if (c->hold && !shim_hold(c, pid, go[1], &wait_set, &status))
        shim_finish(c, status, 1);

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
    shim_finish(c, status, 0);
}

/* ---- the API ----------------------------------------------------------- */

/* Makes dir and its parents (0700); *e is the errno of a failure. */
static rd_code mkdirs(const char *dir, int *e, rd_err *err)
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
                *e = errno;
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

/* The error the shim told over the ready pipe (msg[0..n)), in err; *e is
 * its errno (0 when it told none). */
static rd_code start_failure(const char *dir, const char *msg, int n, int *e, rd_err *err)
{
    const char *what = "the shim ended before starting the worker";
    *e = 0;
    if (n >= (int)(2 + sizeof *e) && msg[0] == 'E') {
        memcpy(e, msg + 2, sizeof *e);
        switch (msg[1]) {
        case 'n': what = "cannot open /dev/null"; break;
        case 'l': what = "cannot open the output log"; break;
        case 'd': what = "cannot arrange the shim's descriptors"; break;
        case 'f': what = "cannot fork the worker"; break;
        case 'p': what = "cannot write the pid record"; break;
        case 'r': what = "cannot reserve room for the worker's records"; break;
        case 's': what = "cannot fork the shim"; break;
        default: break;
        }
        return rd_fail(err, RD_ESTORE, "runner: starting the worker in %s: %s: %s", dir, what, strerror(*e));
    }
    if (n == 0 && msg[0] == 't')
        what = "the shim did not report within 10 s";
    return rd_fail(err, RD_ESTORE, "runner: starting the worker in %s: %s", dir, what);
}

rd_code runner_start(const runner_spec *spec, runner_info *out, rd_err *err)
{
    shim_ctx c;
    rd_code rc;
    int fds[2] = { -1, -1 }, n = 0, status, sys_errno = 0;
    char msg[2 + sizeof(int)] = { 0 };
    pid_t mid;
    struct stat sb;
    /* Every allocation hangs off c, which stays on the stack of the forked
     * processes that never return from here: nothing in them is lost. */

    memset(&c, 0, sizeof c);
    if ((rc = runner_plan_build(spec, &c.plan, err)) != RD_OK)
        return rc;
    c.dir = spec->dir;
    runner_boot_id(c.boot);
    c.state = runner_state_path(spec->dir, "");
    c.log_path = runner_state_path(spec->dir, "output.log");
    c.pid_path = runner_state_path(spec->dir, "pid");
    c.pid_tmp = runner_state_path(spec->dir, "pid.tmp");
    c.exit_path = runner_state_path(spec->dir, "exit");
    c.exit_tmp = runner_state_path(spec->dir, "exit.tmp");
    c.fate = runner_state_path(spec->dir, "fate");
    c.fate_go = runner_state_path(spec->dir, "fate-go");
    c.fate_abandon = runner_state_path(spec->dir, "fate-abandon");
    c.hold = spec->hold != 0;
    if (c.plan.ctl) {
        c.ctl_go = runner_state_path(spec->dir, RUNNER_CTL_DIR "/go");
        c.ctl_abandon = runner_state_path(spec->dir, RUNNER_CTL_DIR "/abandon");
        c.step = runner_state_path(spec->dir, "step");
    }
    c.agent_pid = (int)getpid();
    {
        char st;
        runner_proc_stat(c.agent_pid, &st, &c.agent_start);
    }
    if (!c.state || !c.log_path || !c.pid_path || !c.pid_tmp || !c.exit_path || !c.exit_tmp || !c.fate ||
        !c.fate_go || !c.fate_abandon || (c.plan.ctl && (!c.ctl_go || !c.ctl_abandon || !c.step))) {
        rc = rd_fail(err, RD_ENOMEM, "runner: out of memory");
        goto done;
    }
    if ((rc = mkdirs(spec->dir, &sys_errno, err)) != RD_OK || (rc = mkdirs(c.state, &sys_errno, err)) != RD_OK)
        goto done;
    if (stat(c.pid_path, &sb) == 0 || stat(c.exit_path, &sb) == 0) {
        rc = rd_fail(err, RD_EEXISTS, "runner: a worker was already started in %s", spec->dir);
        goto done;
    }
    unlink(c.fate);   /* no worker started here: a fate left by a failed start decides nothing */
    if (c.plan.ctl) {
        /* the container's control folder, writable by whatever user the
         * image runs as (the worker's directory above it stays 0700) */
        char *started = runner_state_path(spec->dir, RUNNER_CTL_DIR "/started");
        if ((rc = mkdirs(c.plan.ctl, &sys_errno, err)) != RD_OK || chmod(c.plan.ctl, 0777) != 0 || !started) {
            if (rc == RD_OK)
                rc = rd_fail(err, RD_ESTORE, "runner: cannot prepare %s", c.plan.ctl);
            free(started);
            goto done;
        }
        unlink(started);
        unlink(c.ctl_go);
        unlink(c.ctl_abandon);
        unlink(c.step);
        free(started);
        if (!c.hold)
            touch(c.ctl_go);   /* not held: the command runs at once */
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        sys_errno = errno;
        rc = rd_fail(err, RD_ESTORE, "runner: cannot make a pipe: %s", strerror(errno));
        goto done;
    }
    c.ready_w = fds[1];

    /* The middle process puts the shim in a session of its own and leaves
     * at once, so the shim is reparented away from the agent. */
    mid = fork();
    if (mid < 0) {
        sys_errno = errno;
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
        rc = start_failure(spec->dir, msg, n, &sys_errno, err);
        goto done;
    }
    if (out) {
        runner_pid_rec r;
        int found;
        if ((rc = runner_read_pid_rec(spec->dir, &r, &found, err)) != RD_OK)
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
    if (rc != RD_OK && out) {
        memset(out, 0, sizeof *out);
        out->sys_errno = sys_errno;
    }
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    runner_plan_free(&c.plan);
    free(c.fate);
    free(c.fate_go);
    free(c.fate_abandon);
    free(c.ctl_go);
    free(c.ctl_abandon);
    free(c.step);
    free(c.state);
    free(c.log_path);
    free(c.pid_path);
    free(c.pid_tmp);
    free(c.exit_path);
    free(c.exit_tmp);
    return rc;
}
