/* runtime_common.c - the pieces the runtime files (runtime_podman.c,
 * runtime_docker.c) share: the container argv common to podman and docker,
 * how the agent knows a container's command started, the check's root file
 * system and the check's runner.  Below the runtimes and their registry
 * (runtime.c): it calls only runner_util.c, so no runtime file calls back
 * up into the table that names it.
 */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;


/* ---- the container argv ------------------------------------------------- */

/* How the agent knows a container's command started (runtime.h).  The
 * container's first act, before anything of the job, is to write "started"
 * into the control folder the host mounted: from then on the runtime has
 * pulled, created and started it, and whatever fails is the job's.  The
 * command itself waits for "go", which the shim links only once the store
 * took `running` from this node (the fence, runner.h); an "abandon" (the
 * agent died, the worker was canceled) makes it exit 125 without running
 * anything.  A client that exits before "started" exists failed the
 * platform's part: no started_at, nothing billed. */

void runtime_container_common(const runtime_plan_in *in, runner_strv *argv, runner_strv *envp)
{
    const runner_spec *spec = in->spec;
    /* The client runs with the agent's environment (podman needs its
     * XDG_RUNTIME_DIR and CONTAINERS_CONF, docker its DOCKER_HOST...) plus
     * the job's variables, which it passes on by name so their values stay
     * off the command line. */
    for (size_t i = 0; environ && environ[i]; i++)
        runner_strv_add(envp, environ[i]);
    runner_strv_add(argv, "--init");
    runner_strv_add(argv, "--sig-proxy=true");
    /* the pull step made the image present: `run` never pulls, so a run
     * that fails is the runtime's failure, not the registry's */
    runner_strv_add(argv, "--pull=never");
    runner_strv_add(argv, "--name");
    runner_strv_add(argv, in->name);
    /* its share of the node (runner_limits.c): both clients take the same flags */
    if (spec->cpus > 0) {
        runner_strv_add(argv, "--cpus");
        runner_strv_addf(argv, "%d", spec->cpus);
    }
    if (spec->memory_gib > 0) {
        runner_strv_add(argv, "--memory");
        runner_strv_addf(argv, "%dg", spec->memory_gib);
    }
    runner_strv_add(argv, "-v");
    runner_strv_addf(argv, "%s:%s:rw", in->ctl, RUNNER_CTL_MOUNT);
    for (size_t i = 0; i < spec->n_mounts; i++) {
        runner_strv_add(argv, "-v");
        runner_strv_addf(argv, "%s:%s:%s", spec->mounts[i].host_path, spec->mounts[i].container_path,
                         spec->mounts[i].read_only ? "ro" : "rw");
    }
    for (size_t i = 0; i < in->vars->n; i++) {
        const char *kv = in->vars->v[i];
        runner_strv_add(argv, "-e");
        if (runner_env_find(envp, kv) >= 0) {
            runner_strv_add(argv, kv);
        } else {
            runner_strv_addf(argv, "%.*s", (int)runner_env_name_len(kv), kv);
            runner_strv_add(envp, kv);
        }
    }
    /* an edge device's accelerator and cameras (agent_device.c) */
    for (size_t i = 0; spec->devices && spec->devices[i]; i++) {
        runner_strv_add(argv, "--device");
        runner_strv_add(argv, spec->devices[i]);
    }
    if (spec->publish && *spec->publish) {
        runner_strv_add(argv, "-p");
        runner_strv_add(argv, spec->publish);
    }
    if (spec->workdir) {
        runner_strv_add(argv, "--workdir");
        runner_strv_add(argv, spec->workdir);
    }
}

int runtime_container_started(const char *dir)
{
    char path[4300];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s/%s/started", dir, STATE_DIR, RUNNER_CTL_DIR);
    return stat(path, &st) == 0;
}

void runtime_container_finish(const runtime_ops *rt, const runtime_plan_in *in, runner_strv *argv,
                              runner_plan *plan)
{
    runner_strv_add(argv, in->spec->image);
    runner_strv_add(argv, "/bin/sh");
    runner_strv_add(argv, "-c");
    runner_strv_add(argv, RUNTIME_ENTRY);
    runner_strv_add(argv, "rigdeck");
    runner_strv_add(argv, in->spec->command);
    plan->path = runner_find_program(rt->client);
    if (!plan->path)
        plan->path = strdup(rt->client);
    if (plan->path && asprintf(&plan->record, "kind %s\nclient %s\nname %s\n", rt->name, plan->path, in->name) < 0)
        plan->record = NULL;
}

/* ---- the check ---------------------------------------------------------- */

static int copy_file(const char *from, const char *to, mode_t mode)
{
    char buf[65536];
    int in = open(from, O_RDONLY | O_CLOEXEC), out, bad = 0;
    ssize_t n;
    if (in < 0)
        return -1;
    out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (out < 0) {
        close(in);
        return -1;
    }
    while (!bad && (n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        bad = n < 0 || write(out, buf, (size_t)n) != n;
    }
    close(in);
    return close(out) != 0 || bad ? -1 : 0;
}

rd_code runtime_check_rootfs(const char *scratch, char *rootfs, size_t len, rd_err *err)
{
    char bin[4300], dst[4400];
    const char *env = getenv("RIGDECK_BUSYBOX");
    char *busybox = env && *env ? runner_find_program(env) : runner_find_program("busybox");
    struct stat st;
    if (!busybox && stat("/bin/busybox", &st) == 0)
        busybox = strdup("/bin/busybox");
    if (!busybox)
        return rd_fail(err, RD_EINVAL, "no busybox to make the check's root file system from (install "
                       "busybox-static, or name one with RIGDECK_BUSYBOX)");
    snprintf(rootfs, len, "%s/rootfs", scratch);
    snprintf(bin, sizeof bin, "%s/bin", rootfs);
    snprintf(dst, sizeof dst, "%s/busybox", bin);
    mkdir(scratch, 0700);
    mkdir(rootfs, 0755);
    mkdir(bin, 0755);
    unlink(dst);
    int bad = copy_file(busybox, dst, 0755);
    free(busybox);
    snprintf(dst, sizeof dst, "%s/sh", bin);
    unlink(dst);
    if (bad || symlink("busybox", dst) != 0)
        return rd_fail(err, RD_EINVAL, "cannot make the check's root file system in %s: %s", rootfs, strerror(errno));
    return RD_OK;
}

/* The runtime's own words in log (NUL-terminated): its last line starting
 * with "Error" (also after a "docker: " or "podman: "), else its last
 * line. */
void runtime_error_line(const char *log, char *why, size_t len)
{
    const char *best = NULL, *last = NULL;
    size_t best_n = 0, last_n = 0;
    for (const char *p = log; *p;) {
        size_t n = strcspn(p, "\n");
        const char *s = p;
        if (n > 0) {
            last = p;
            last_n = n;
        }
        if (strncmp(s, "docker: ", 8) == 0 || strncmp(s, "podman: ", 8) == 0)
            s += 8;
        if (strncmp(s, "Error", 5) == 0) {
            best = p;
            best_n = n;
        }
        p += n + (p[n] == '\n');
    }
    if (!best) {
        best = last;
        best_n = last_n;
    }
    snprintf(why, len, "%.*s", best ? (int)best_n : 0, best ? best : "");
}

int runtime_check_run(const char *scratch, char *const argv[], char *why, size_t len)
{
    char log[4300];
    char *path = strchr(argv[0], '/') ? strdup(argv[0]) : runner_find_program(argv[0]);
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int status = 0, rc, result = -1;
    struct timespec nap = { 0, 20 * 1000 * 1000 };
    why[0] = '\0';
    if (!path) {
        snprintf(why, len, "%s is not installed (not on PATH)", argv[0]);
        return -1;
    }
    snprintf(log, sizeof log, "%s/check.log", scratch);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    rc = posix_spawn(&pid, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(path);
    if (rc != 0) {
        snprintf(why, len, "cannot run %s: %s", argv[0], strerror(rc));
        return -1;
    }
    for (int waited = 0;; waited += 20) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            result = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            break;
        }
        if (r < 0 && errno != EINTR)
            break;
        if (waited >= RUNTIME_CHECK_TIMEOUT_MS) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            snprintf(why, len, "%s did not finish within %d s", argv[0], RUNTIME_CHECK_TIMEOUT_MS / 1000);
            return -1;
        }
        nanosleep(&nap, NULL);
    }
    {
        char text[16384];
        size_t got = 0;
        int fd = open(log, O_RDONLY | O_CLOEXEC);
        ssize_t n;
        struct stat st;
        /* the end of a long log holds the words that matter */
        if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof text - 1)
            lseek(fd, st.st_size - (off_t)(sizeof text - 1), SEEK_SET);
        if (fd >= 0) {
            while (got < sizeof text - 1 && (n = read(fd, text + got, sizeof text - 1 - got)) > 0)
                got += (size_t)n;
            close(fd);
        }
        text[got] = '\0';
        runtime_error_line(text, why, len);
        if (result != 0 && !why[0])
            snprintf(why, len, "%s exited %d", argv[0], result);
    }
    return result;
}

/* ---- a container that never started --------------------------------------- */

void runtime_pull_argv(const runtime_plan_in *in, const char *client, const char *script, runner_strv *argv)
{
    runner_strv_add(argv, "/bin/sh");
    runner_strv_add(argv, "-c");
    runner_strv_add(argv, script);
    runner_strv_add(argv, "rigdeck-pull");
    runner_strv_add(argv, client);
    runner_strv_add(argv, in->spec->image);
}

void runtime_stop_kill(const char *client, const char *name, char *argv[8])
{
    argv[0] = (char *)client;
    argv[1] = (char *)"kill";
    argv[2] = (char *)"--signal";
    argv[3] = (char *)"KILL";
    argv[4] = (char *)name;
    argv[5] = NULL;
}
