/* runner_exec.c - what a worker execs: its spec checked, its variables
 * gathered, then its runtime's plan (runtime.h: argv and environment are
 * each runtime's own file), the kind names, and the small fork/exec and
 * /proc helpers that runner.c (the shim) and runner_state.c (the records)
 * share.
 *
 * Everything here that runs before a fork may allocate; the helpers marked
 * async-signal-safe in runner_int.h are the only ones called after one.
 */
#include "runner_int.h"
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "runner_limits.h"

extern char **environ;

/* ---- a NULL-terminated, growing list of owned strings ------------------ */

static int valid_env_entry(const char *kv)
{
    size_t n = runner_env_name_len(kv);
    if (n == 0 || kv[n] != '=' || !(kv[0] == '_' || (kv[0] >= 'A' && kv[0] <= 'Z') || (kv[0] >= 'a' && kv[0] <= 'z')))
        return 0;
    for (size_t i = 1; i < n; i++) {
        char c = kv[i];
        if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
            return 0;
    }
    return 1;
}

/* "" or "N[,N...]"; *count is the number of indices. */
static int valid_gpus(const char *gpus, int *count)
{
    const char *p = gpus;
    *count = 0;
    if (!*p)
        return 1;
    for (;;) {
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
        (*count)++;
        if (!*p)
            return *count <= 1024;
        if (*p++ != ',')
            return 0;
    }
}

static int valid_mount_path(const char *p)
{
    return p && p[0] == '/' && !strchr(p, ':') && !strchr(p, '\n') && !strchr(p, ',');
}

/* Container names allow [a-zA-Z0-9][a-zA-Z0-9_.-]*: anything else becomes
 * '-', and a name not starting with a letter or digit gets an 'r'. */
static char *sanitize_name(const char *raw)
{
    size_t n = strlen(raw);
    char *out;
    size_t j = 0;
    if (n > 128)
        n = 128;
    if (!(out = malloc(n + 2)))
        return NULL;
    if (n == 0 || !((raw[0] >= 'a' && raw[0] <= 'z') || (raw[0] >= 'A' && raw[0] <= 'Z') || (raw[0] >= '0' && raw[0] <= '9')))
        out[j++] = 'r';
    for (size_t i = 0; i < n; i++) {
        char c = raw[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
        out[j++] = ok ? c : '-';
    }
    out[j] = '\0';
    return out;
}

/* The registered runtimes' names as a refusal lists them: "process, podman
 * or docker" (runtime.c's table, indexed by kind from RUNNER_PROCESS). */
static const char *kind_names(char *buf, size_t size)
{
    size_t len = 0, n = 0;
    while (runtime_find((runner_kind)(RUNNER_PROCESS + n)))
        n++;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
                                runtime_find((runner_kind)(RUNNER_PROCESS + i))->name);
    return buf;
}

static rd_code check_spec(const runner_spec *spec, int *ngpu, rd_err *err)
{
    char names[128];
    int container;
    if (!spec)
        return rd_fail(err, RD_EINVAL, "runner: no worker spec");
    if (!runtime_find(spec->kind))
        return rd_fail(err, RD_EINVAL, "runner: runtime must be %s (resolve auto first)",
                       kind_names(names, sizeof names));
    container = runtime_find(spec->kind)->container;
    if (!spec->dir || spec->dir[0] != '/' || strchr(spec->dir, '\n'))
        return rd_fail(err, RD_EINVAL, "runner: dir must be an absolute path");
    if (!spec->command || !*spec->command)
        return rd_fail(err, RD_EINVAL, "runner: command is empty");
    if (!spec->job_id || !*spec->job_id || strchr(spec->job_id, '\n'))
        return rd_fail(err, RD_EINVAL, "runner: job id is empty");
    if (spec->worker_index < 0)
        return rd_fail(err, RD_EINVAL, "runner: worker index %d is negative", spec->worker_index);
    if (!valid_gpus(spec->gpus ? spec->gpus : "", ngpu))
        return rd_fail(err, RD_EINVAL, "runner: gpus \"%s\" is not a comma-separated list of indices", spec->gpus);
    for (size_t i = 0; spec->env && spec->env[i]; i++)
        if (!valid_env_entry(spec->env[i]))
            return rd_fail(err, RD_EINVAL, "runner: environment entry %zu is not NAME=VALUE", i);
    cpu_set_t pin;
    if (spec->cpus < 0 || spec->memory_gib < 0 || (spec->cpu_list && *spec->cpu_list &&
                                                   limits_cpu_list_parse(spec->cpu_list, &pin) != 0))
        return rd_fail(err, RD_EINVAL, "runner: cpus and memory must be >= 0 and cpu_list a list of CPUs");
    for (size_t i = 0; spec->devices && spec->devices[i]; i++)
        if (spec->devices[i][0] != '/' && !strchr(spec->devices[i], '='))
            return rd_fail(err, RD_EINVAL, "runner: device '%s' must be an absolute path or a CDI name (vendor.com/class=name)",
                           spec->devices[i]);
    if (!container)
        return RD_OK;
    if (!spec->image || !*spec->image || spec->image[0] == '-')
        return rd_fail(err, RD_EINVAL, "runner: the %s runtime needs an image", runner_kind_name(spec->kind));
    for (size_t i = 0; i < spec->n_mounts; i++)
        if (!valid_mount_path(spec->mounts[i].host_path) || !valid_mount_path(spec->mounts[i].container_path))
            return rd_fail(err, RD_EINVAL, "runner: mount %zu needs absolute paths without ':' or ','", i);
    if (spec->workdir && spec->workdir[0] != '/')
        return rd_fail(err, RD_EINVAL, "runner: container workdir must be an absolute path");
    return RD_OK;
}

/* ---- the plan ---------------------------------------------------------- */

/* The job's variables then the system ones, later names winning. */
static void job_vars(const runner_spec *spec, int container, int ngpu, runner_strv *vars)
{
    for (size_t i = 0; spec->env && spec->env[i]; i++)
        runner_env_set(vars, spec->env[i]);
    {
        runner_strv sys = { 0 };
        runner_strv_addf(&sys, "RIGDECK_JOB_ID=%s", spec->job_id);
        runner_strv_addf(&sys, "RIGDECK_WORKER_INDEX=%d", spec->worker_index);
        if (!container) {
            runner_strv_addf(&sys, "CUDA_VISIBLE_DEVICES=%s", spec->gpus ? spec->gpus : "");
        } else {
            /* Inside the container the allocated GPUs are 0..n-1. */
            size_t cap = (size_t)ngpu * 6 + 32;
            char *cv = malloc(cap);
            if (cv) {
                size_t len = (size_t)snprintf(cv, cap, "CUDA_VISIBLE_DEVICES=");
                for (int g = 0; g < ngpu; g++)
                    len += (size_t)snprintf(cv + len, cap - len, g ? ",%d" : "%d", g);
            }
            runner_strv_take(&sys, cv);
        }
        for (size_t i = 0; i < sys.n; i++)
            runner_env_set(vars, sys.v[i]);
        if (sys.oom)
            vars->oom = 1;
        runner_strv_free(&sys);
    }
}

rd_code runner_plan_build(const runner_spec *spec, runner_plan *plan, rd_err *err)
{
    runner_strv vars = { 0 }, argv = { 0 }, envp = { 0 };
    int ngpu = 0;
    rd_code rc;
    memset(plan, 0, sizeof *plan);
    if ((rc = check_spec(spec, &ngpu, err)) != RD_OK)
        return rc;
    const runtime_ops *rt = runtime_find(spec->kind);
    char *name = NULL;
    job_vars(spec, rt->container, ngpu, &vars);
    if (rt->container) {
        /* the container's name: the spec's, else rigdeck-<job>-<index> */
        char *raw = NULL;
        if (spec->name)
            name = sanitize_name(spec->name);
        else if (asprintf(&raw, "rigdeck-%s-%d", spec->job_id, spec->worker_index) >= 0)
            name = sanitize_name(raw);
        free(raw);
    }
    runtime_plan_in in = { spec, &vars, ngpu, name, NULL };
    runner_strv pull = { 0 };
    if (rt->container && asprintf(&plan->ctl, "%s/%s/%s", spec->dir, STATE_DIR, RUNNER_CTL_DIR) < 0)
        plan->ctl = NULL;
    in.ctl = plan->ctl;
    if (!rt->container || (name && plan->ctl))
        rt->plan(rt, &in, &argv, &envp, plan);
    /* a client not on PATH: no pull step, its exec fails and says so */
    if (rt->container && rt->pull && plan->path && strchr(plan->path, '/'))
        rt->pull(rt, &in, plan->path, &pull);
    plan->pull_argv = pull.v;
    if (pull.v)
        plan->pull_path = strdup(pull.v[0]);
    int oom = vars.oom || pull.oom || (rt->container && (!name || !plan->ctl || (pull.v && !plan->pull_path)));
    runner_strv_free(&vars);
    free(name);
    if (oom || argv.oom || envp.oom || !argv.v || !envp.v || !plan->path || !plan->record) {
        runner_strv_free(&argv);
        runner_strv_free(&envp);
        runner_plan_free(plan);
        return rd_fail(err, RD_ENOMEM, "runner: out of memory building the worker's command");
    }
    plan->argv = argv.v;
    plan->envp = envp.v;
    return RD_OK;
}

void runner_plan_free(runner_plan *plan)
{
    runner_strv a = { plan->argv, 0, 0, 0 }, e = { plan->envp, 0, 0, 0 };
    while (a.v && a.v[a.n])
        a.n++;
    while (e.v && e.v[e.n])
        e.n++;
    runner_strv_free(&a);
    runner_strv_free(&e);
    a = (runner_strv){ plan->pull_argv, 0, 0, 0 };
    while (a.v && a.v[a.n])
        a.n++;
    runner_strv_free(&a);
    free(plan->path);
    free(plan->record);
    free(plan->pull_path);
    free(plan->ctl);
    memset(plan, 0, sizeof *plan);
}

/* ---- programs and processes -------------------------------------------- */

int runner_proc_stat(int pid, char *state, unsigned long long *start)
{
    char path[40] = "/proc/", digits[16], buf[1024];
    size_t at = 6;
    int nd = 0, fd, field = 3;
    ssize_t n;
    char *p, *end;
    if (pid <= 0)
        return -1;
    for (int v = pid; v > 0; v /= 10)
        digits[nd++] = (char)('0' + v % 10);
    while (nd > 0)
        path[at++] = digits[--nd];
    memcpy(path + at, "/stat", 6);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
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

char runner_fate_read(const char *path)
{
    char b = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    if (read(fd, &b, 1) != 1 || (b != 'g' && b != 'a'))
        b = 0;
    close(fd);
    return b;
}

void runner_close_from(int from)
{
    struct rlimit rl;
    long max = 65536;
    if (close_range((unsigned)from, ~0U, 0) == 0)
        return;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (1u << 20))
        max = (long)rl.rlim_cur;
    for (long fd = from; fd < max; fd++)
        close((int)fd);
}

void runner_reset_signals(void)
{
    struct sigaction sa;
    sigset_t none;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &sa, NULL); /* EINVAL for the libc-reserved ones */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

int runner_spawn_detached(const char *path, char *const argv[])
{
    pid_t mid = fork(), r;
    int status;
    if (mid < 0)
        return -1;
    if (mid == 0) {
        pid_t pid;
        setsid();
        pid = fork();
        if (pid != 0)
            _exit(pid < 0);
        {
            int null = open("/dev/null", O_RDWR);
            if (null >= 0) {
                dup2(null, 0);
                dup2(null, 1);
                dup2(null, 2);
            }
            runner_close_from(3);
            runner_reset_signals();
            execve(path, argv, environ);
            _exit(127);
        }
    }
    while ((r = waitpid(mid, &status, 0)) < 0 && errno == EINTR)
        ;
    return r == mid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* ---- names ------------------------------------------------------------- */

rd_code runner_kind_parse(const char *text, runner_kind *out, rd_err *err)
{
    char names[128];
    for (int k = RUNNER_AUTO; text && (k == RUNNER_AUTO || runtime_find((runner_kind)k)); k++)
        if (strcmp(text, runner_kind_name((runner_kind)k)) == 0) {
            *out = (runner_kind)k;
            return RD_OK;
        }
    return rd_fail(err, RD_EINVAL, "runtime \"%s\" must be auto, %s", text ? text : "",
                   kind_names(names, sizeof names));
}

const char *runner_kind_name(runner_kind kind)
{
    const runtime_ops *rt = runtime_find(kind);
    return kind == RUNNER_AUTO ? "auto" : rt ? rt->name : "?";
}

const char *runner_state_name(runner_state state)
{
    static const char *const names[] = { "none", "running", "exited", "gone" };
    return (unsigned)state < sizeof names / sizeof names[0] ? names[state] : "?";
}
