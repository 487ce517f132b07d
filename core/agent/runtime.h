/* runtime.h - the runtimes a worker runs under, one file each
 * (runtime_process.c, runtime_podman.c, runtime_docker.c) behind one table
 * of operations, registered once in runtime.c the way the store backends
 * are (store_backend.h): nothing outside a runtime's file names its
 * functions.  runner_exec.c checks a worker's spec and gathers its
 * variables, then asks the worker's runtime for what to exec; runner.c's
 * shim runs it; runner_state.c asks the runtime how to kill it at once.
 *
 * A runtime is chosen only after it ran a trivial container on this node,
 * without any registry (spec/execution.md §4): runtime_pick() runs the
 * check of the named runtime, or for `auto` of podman, docker, process in
 * that order, and takes the first that passes.
 */
#ifndef RD_RUNTIME_H
#define RD_RUNTIME_H

#include "runner_int.h"

typedef struct runtime_ops runtime_ops;

/* What a runtime builds a worker's plan from: the checked spec, its
 * variables (the job's then the system ones, later names winning: the
 * process runtime's environment, a container's `-e` list) and the
 * sanitized container name (containers only). */
typedef struct {
    const runner_spec *spec;
    const runner_strv *vars;
    int ngpu;                 /* indices in spec->gpus */
    const char *name;         /* container name; NULL for process */
    const char *ctl;          /* containers: the control folder on the host, mounted at RUNNER_CTL_MOUNT */
} runtime_plan_in;

struct runtime_ops {
    const char *name;         /* --runtime's word and the pid record's "kind" */
    runner_kind kind;
    const char *client;       /* the program the plan runs (podman, docker); NULL: none */
    int container;            /* needs an image; GPUs renumbered from 0 inside */

    /* Runs a trivial container here without any registry (a root file
     * system the check makes under scratch, an existing directory of the
     * agent's).  RD_OK when it ran; otherwise RD_EINVAL with err->msg the
     * runtime's own words (its "Error: ..." line) or why it could not try
     * (not installed).  Blocks up to RUNTIME_CHECK_TIMEOUT_MS. */
    rd_code (*check)(const runtime_ops *rt, const char *scratch, rd_err *err);

    /* Appends the worker's argv and environment and sets plan->path and
     * plan->record ("kind K\n", and "client P\nname N\n" for containers).
     * Memory failures mark the lists (oom); runner_plan_build checks. */
    void (*plan)(const runtime_ops *rt, const runtime_plan_in *in, runner_strv *argv, runner_strv *envp,
                 runner_plan *plan);

    /* Containers: the pull step's argv (its first word the path to exec),
     * run before the container with the plan's environment: the image is
     * pulled only when the node lacks it, so that an image the node holds
     * runs without a registry, and a pull that fails is told apart from a
     * container that cannot start (spec/execution.md §4).  client: the
     * plan's path.  NULL: no pull step. */
    void (*pull)(const runtime_ops *rt, const runtime_plan_in *in, const char *client, runner_strv *argv);

    /* The argv (NULL-terminated, at most 7 words) that kills the worker's
     * container at once, given the client and name from its pid record: a
     * client cannot pass SIGKILL on.  NULL for a runtime with no container. */
    void (*stop)(const char *client, const char *name, char *argv[8]);
};

enum { RUNTIME_CHECK_TIMEOUT_MS = 60000 };

/* The runtime of kind (PROCESS, PODMAN, DOCKER), or NULL (AUTO, unknown). */
const runtime_ops *runtime_find(runner_kind kind);

/* Called by runtime_pick for each runtime `auto` skipped, with why. */
typedef void (*runtime_note_fn)(void *data, const runtime_ops *rt, const char *why);

/* Chooses the runtime for `asked`: a named one must pass its check (else
 * RD_EINVAL: "--runtime NAME cannot run a container here: MESSAGE"); auto
 * takes podman, then docker, then process, the first whose check passes,
 * telling note why each one before it was skipped.  scratch: a directory
 * the checks may fill (the agent's WORK_DIR/.runtime-check). */
rd_code runtime_pick(runner_kind asked, const char *scratch, runtime_note_fn note, void *data, runner_kind *out,
                     rd_err *err);

/* ---- helpers the runtime files share (runtime.c) ------------------------ */

/* The container runtimes' common argv: `run --rm --init --sig-proxy=true
 * --name N`, the mounts, the variables by name (`-e NAME`, the value in the
 * client's environment, which is the agent's plus these; a name the agent
 * has is passed `-e NAME=VALUE` so the client's own setting stays), and
 * --workdir.  The caller adds its own flags between `head` and this. */
void runtime_container_common(const runtime_plan_in *in, runner_strv *argv, runner_strv *envp);

/* The entry a container runs as `/bin/sh -c RUNTIME_ENTRY rigdeck COMMAND`
 * (runtime.c tells why): "started", then the command once "go" is there. */
#define RUNTIME_ENTRY                                                                                               \
    ": >" RUNNER_CTL_MOUNT "/started || exit 1; while [ ! -e " RUNNER_CTL_MOUNT "/go ]; do "                        \
    "if [ -e " RUNNER_CTL_MOUNT "/abandon ]; then exit 125; fi; sleep 0.05 2>/dev/null || sleep 1; done; "           \
    "exec /bin/sh -c \"$1\""

/* 1 once the container of the worker in dir wrote "started". */
int runtime_container_started(const char *dir);

/* The client on PATH (its bare name when missing: the exec then fails,
 * 127) and the pid record for a container runtime. */
void runtime_container_finish(const runtime_ops *rt, const runtime_plan_in *in, runner_strv *argv,
                              runner_plan *plan);

/* The pull step's argv: /bin/sh -c SCRIPT with the client and the image as
 * $1 and $2 (never spliced into the script).  SCRIPT pulls only when the
 * node lacks the image. */
void runtime_pull_argv(const runtime_plan_in *in, const char *client, const char *script, runner_strv *argv);

/* A container's stop: `CLIENT kill --signal KILL NAME` (podman and docker
 * alike), into argv (NULL-terminated; room for 8). */
void runtime_stop_kill(const char *client, const char *name, char *argv[8]);

/* Makes scratch/rootfs: a static busybox (RIGDECK_BUSYBOX, else busybox on
 * PATH, /bin/busybox) with /bin/sh linked to it.  RD_EINVAL when there is
 * no busybox to copy. */
rd_code runtime_check_rootfs(const char *scratch, char *rootfs, size_t len, rd_err *err);

/* Runs argv (argv[0] looked up on PATH; "/bin/sh" as is) with the agent's
 * environment, stdout and stderr to scratch/check.log, for at most
 * RUNTIME_CHECK_TIMEOUT_MS.  Returns its exit status (0..255; 128+N for a
 * signal; -1: could not start or timed out) and puts the runtime's own
 * words into why: the last line starting "Error" (podman, "docker: Error"
 * too), else the last line it printed. */
int runtime_check_run(const char *scratch, char *const argv[], char *why, size_t len);

/* The runtime's own words in log: its last line starting "Error" (also
 * after "docker: " or "podman: "), else its last line; "" when none. */
void runtime_error_line(const char *log, char *why, size_t len);

/* Why the container of the worker in dir never started (its client ended,
 * or is gone, before the entry wrote "started"): "image_pull_failed" when
 * the pull step failed or the runtime said the image is not there and
 * cannot be had, else "runtime_error"; message gets the cause's error line
 * (the runtime's "Error: ..."), else what the client's exit says. */
const char *runtime_failure(const char *dir, const runner_status_t *st, char *message, size_t len);

#endif
