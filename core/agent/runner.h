/* runner.h - runs one worker's process on this machine so that it outlives
 * the agent and can be adopted by a restarted agent.
 *
 * runner_start() forks a supervisor (the "shim") that is not the agent's
 * child: the agent forks a short-lived middle process that calls setsid(),
 * forks the shim and exits at once, so the shim is reparented to init (or
 * the nearest subreaper) and never becomes the agent's zombie.  The shim
 * closes every inherited fd, forks the worker (a process-group leader that
 * execs /bin/sh -c COMMAND, or `podman|docker run ... IMAGE /bin/sh -c
 * ENTRY rigdeck COMMAND`) with stdout and stderr appended to one log file, records what it
 * started, waits, and records how it ended.  All state lives in files under
 * DIR/.rigdeck/, so any process - the agent that started the worker or one
 * started after it died - reads the same answer from runner_status():
 *
 *   DIR/.rigdeck/pid         shim and worker pid with their start times
 *                            (/proc/PID/stat field 22) and the boot id, so a
 *                            reused pid or a reboot is never taken for the
 *                            worker; the start instant; kind, client, name
 *   DIR/.rigdeck/exit        "exit CODE" or "signal N" and the end instant
 *   DIR/.rigdeck/output.log  stdout and stderr, interleaved (O_APPEND)
 *
 * Both records are written whole (tmp file, fsync, rename): a reader sees
 * the old state or the new, never half a file.  The exit record's tmp file
 * is written (and synced) before the worker starts and only overwritten in
 * place at its end, so a disk that fills up while the worker runs cannot
 * lose how it ended (a worker that exited 0 is never reported lost).  The state sits in a hidden
 * folder, not DIR/pid, because DIR is the process runtime's working
 * directory: a job that writes ./pid or runs `rm *` must not erase the
 * record of itself.
 *
 * The fence (spec.hold): a worker must never run its command on a node
 * the store has not accepted it on.  Its agent may die between starting the
 * process and reporting it `running`; the controller then requeues the
 * worker elsewhere, and a command that had already started here would run
 * twice, unbilled, holding GPUs the store thinks free.  So the agent starts
 * it held: the shim forks the worker, which waits on a pipe before it
 * execs, and the shim waits for the worker's fate, decided once by whoever
 * first links one of two files the shim prepared to DIR/.rigdeck/fate
 * (link(2) fails when the name exists, so exactly one wins):
 *
 *   fate-go -> fate        runner_release(): the agent does this only after
 *                          the store accepted `running` from this node; the
 *                          worker then execs
 *   fate-abandon -> fate   runner_abandon() (an agent that finds a held
 *                          worker it did not release), runner_signal() of a
 *                          held worker, or the shim itself once the agent
 *                          that started it is dead (pid and start time): the
 *                          worker is killed before it ran anything
 *
 * An agent killed in the window therefore leaves a stub that never runs the
 * command and is gone within RUNNER_HOLD_TICK_MS; a held worker that ended
 * this way has an exit record marked "unstarted".
 *
 * Containers are held inside (runtime.c tells how): the worker runs the
 * pull step (DIR/.rigdeck/step "pull"), then the client at once ("run"),
 * and the container's entry writes DIR/.rigdeck/ctl/started and waits for
 * ctl/go, which the shim links on the release (ctl/abandon on an
 * abandonment).  So the agent learns that the runtime pulled and made the
 * container before it reports the worker running, and a client that ends
 * before "started" never ran the command: a platform failure
 * (runtime_failure()), not the job's.
 *
 * Log size: the worker appends to output.log directly (O_APPEND, no pipe
 * through the shim, so the worker never depends on the shim to write).
 * Nothing can cut the front of a file that another process appends to,
 * but it can free its blocks: every RUNNER_SHIM_TICK_MS the shim punches a
 * hole (fallocate PUNCH_HOLE|KEEP_SIZE) over everything before the last
 * RUNNER_LOG_KEEP bytes once more than RUNNER_LOG_CAP bytes are on disk.
 * The file's size (`ls -l`) keeps growing - that is the *total that
 * runner_log_tail() reports - but its disk use (`du`) stays bounded.  On a
 * file system without hole punching the file is left whole.
 *
 * Threads: runner_start() builds every argv and environment before it
 * forks; after fork the middle process, the shim and the worker call only
 * async-signal-safe functions, so the agent may be multi-threaded.
 *
 * Service managers: the shim and worker are in their own session but in
 * the agent's cgroup; under systemd the agent's unit needs KillMode=process
 * or stopping the agent kills its workers.
 */
#ifndef RD_RUNNER_H
#define RD_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef enum { RUNNER_AUTO = 0, RUNNER_PROCESS, RUNNER_PODMAN, RUNNER_DOCKER } runner_kind;

typedef struct {
    const char *host_path;      /* absolute, no ':' */
    const char *container_path; /* absolute, no ':' */
    int read_only;
} runner_mount;

typedef struct {
    runner_kind kind;        /* PROCESS, PODMAN or DOCKER (resolve AUTO first) */
    const char *dir;         /* WORK_DIR/<job>/<w>, absolute; made 0700 with parents */
    const char *job_id;      /* RIGDECK_JOB_ID */
    int worker_index;        /* RIGDECK_WORKER_INDEX (>= 0) */
    const char *command;     /* run with /bin/sh -c */
    const char *image;       /* containers only */
    const char *const *env;  /* NULL-terminated "K=V" list, or NULL; a later
                              * K overrides an earlier one */
    const char *gpus;        /* "0,2", "" or NULL: none */
    const runner_mount *mounts; /* containers only */
    size_t n_mounts;
    const char *name;        /* container name; NULL: rigdeck-<job>-<w>; sanitized */
    const char *workdir;     /* containers: --workdir; NULL: the image's */
    int hold;                /* 1: the command waits for runner_release()
                              * (the fence, above); 0: it runs at once */
    int cpus;                /* containers: --cpus N; 0: no limit (runner_limits.h) */
    int memory_gib;          /* containers: --memory Ng; 0: no limit */
    const char *cpu_list;    /* process: pinned to these CPUs ("0-3,8",
                              * sched_setaffinity before exec); NULL or "": not pinned */
    const char *const *devices; /* containers: NULL-terminated, each passed as `--device D` (a
                              * host device node such as /dev/video0, or a CDI name such as
                              * nvidia.com/gpu=all); NULL: none.  The process runtime's
                              * command sees the host's /dev as it is (agent_device.c) */
    const char *publish;     /* containers: -p [ADDR:]HOSTPORT:PORT (a notebook's or
                              * endpoint's server, agent_serve.h); NULL or "": none */
} runner_spec;

/* The process runtime's environment is a clean one: PATH, HOME and LANG
 * when the agent has them, then spec->env, then RIGDECK_JOB_ID,
 * RIGDECK_WORKER_INDEX and CUDA_VISIBLE_DEVICES (the system variables win
 * over a job variable of the same name).  CUDA_VISIBLE_DEVICES is the
 * allocated host indices ("" when none, which hides every GPU).
 *
 * Containers see the same variables, passed as `-e NAME` so their values
 * are not on the client's command line (the client gets them in its
 * environment: the agent's environment plus these).  Inside a container the
 * allocated GPUs are renumbered from 0, so CUDA_VISIBLE_DEVICES there is
 * "0,1,..." - one index per allocated GPU - not the host indices.  Podman
 * gets `--device nvidia.com/gpu=N` per GPU (CDI), docker
 * `--gpus "device=0,2"`.  Both run with --rm, --init (so PID 1 forwards
 * SIGTERM to the command) and --sig-proxy=true; podman also with --replace
 * (a stale container of the same name from a lost worker must not block
 * the start).  The exit of a container is the client's: a command killed
 * by signal N inside it is recorded as "exit 128+N". */

typedef struct {
    int shim_pid;
    int worker_pid;         /* the sh (process) or the podman/docker client */
    int64_t started_at;     /* ms since the epoch, real clock, when the
                             * worker was forked */
    int sys_errno;          /* runner_start failed: the system error behind
                             * it (ENOSPC: the work dir's disk is full), or 0 */
} runner_info;

typedef enum {
    RUNNER_NONE = 0, /* no pid record: never started here */
    RUNNER_RUNNING,  /* shim or worker alive (same boot, same start time) */
    RUNNER_EXITED,   /* the exit record is there */
    RUNNER_GONE      /* started, no exit record, nothing alive: lost
                      * (machine rebooted, shim killed with its worker) */
} runner_state;

typedef struct {
    runner_state state;
    runner_kind kind;       /* PROCESS, PODMAN or DOCKER (not for NONE) */
    int shim_pid, worker_pid;
    int64_t started_at;     /* ms (not for NONE) */
    int64_t ended_at;       /* ms, EXITED only; else 0 */
    int exit_code;          /* EXITED by exit: 0..255; else -1 */
    int signal;             /* EXITED by signal: its number; else 0 */
    int hold;               /* started held (runner_spec.hold) */
    int released;           /* held and released, or never held: the
                             * command may have run */
    int unstarted;          /* EXITED while held: its command never ran */
} runner_status_t;

/* Disk-use bounds of output.log (see the header comment) and the shim's
 * housekeeping period. */
#define RUNNER_LOG_TAIL_MAX (256 * 1024)
#define RUNNER_LOG_CUT_MAX 4096
#define RUNNER_LOG_KEEP (1024 * 1024)
#define RUNNER_LOG_CAP (4 * 1024 * 1024)
#define RUNNER_SHIM_TICK_MS 2000
#define RUNNER_HOLD_TICK_MS 50

/* Starts the worker described by spec and returns once its pid record
 * exists (within 10 s), filling out (may be NULL).  RD_EEXISTS when DIR
 * already holds a pid or exit record (a worker was started there: ask
 * runner_status, or runner_cleanup first); RD_EINVAL for a bad spec;
 * RD_ESTORE when a directory, file, pipe or fork failed or the shim died,
 * with out->sys_errno set to the system error when there is one.  A
 * command that cannot be executed (podman missing, no /bin/sh) still
 * starts: the worker exits 127 and the log names the reason.  With
 * spec->hold the command waits for runner_release(). */
rd_code runner_start(const runner_spec *spec, runner_info *out, rd_err *err);

/* Lets a held worker run its command (the fence in the header comment);
 * call it only once the store has accepted the worker on this node.  RD_OK
 * also when it was released already or was never held; RD_ECONFLICT when
 * it was abandoned first (its command will never run); RD_ESTORE when the
 * files cannot be reached. */
rd_code runner_release(const char *dir, rd_err *err);

/* Makes sure a held worker never runs its command: it is killed before it
 * execs (the shim records it "unstarted").  RD_OK also when it was
 * abandoned already or was never held (nothing was held back: signal it);
 * RD_ECONFLICT when it was released first (its command runs). */
rd_code runner_abandon(const char *dir, rd_err *err);

/* What became of the worker started in dir, from any process.  RD_ECORRUPT
 * when a record cannot be parsed, RD_ESTORE when it cannot be read. */
rd_code runner_status(const char *dir, runner_status_t *st, rd_err *err);

/* Sends sig to the worker's process group when it is still running (pid
 * and start time match); a held worker not yet released is abandoned first,
 * so that it never runs its command: the sh and everything it started that kept the
 * group, or the podman/docker client, which passes the signal on to the
 * container (sig-proxy).  SIGKILL cannot be passed on by a client, so for
 * containers it also runs `podman|docker kill --signal KILL NAME`
 * (detached).  A worker that has already ended, or never started here, is
 * RD_OK.  Never blocks; the caller times SIGTERM -> SIGKILL. */
rd_code runner_signal(const char *dir, int sig, rd_err *err);

/* Reaps nothing and returns 0: shims and helpers are reparented away from
 * the agent at birth, so the agent never holds their zombies.  Kept so an
 * agent loop may call it unconditionally. */
int runner_reap(void);

/* The last `max` bytes (at most) of the worker's output, starting after a
 * line break ('\n', '\r' or "\r\n") when the file was cut and the range
 * holds one before its last byte within its first RUNNER_LOG_CUT_MAX bytes
 * (a longer torn line is kept: a progress bar's megabyte "line" must not
 * vanish); *text is malloc'd and NUL-terminated (it may hold NULs: use *len);
 * *total is the file's size, which only grows, so an unchanged *total means
 * unchanged output.  RD_ENOTFOUND when there is no log. */
rd_code runner_log_tail(const char *dir, size_t max, char **text, size_t *len, int64_t *total, rd_err *err);

/* Removes dir and everything under it (the caller rmdirs WORK_DIR/<job>
 * when its last worker is gone).  RD_ECONFLICT while the worker is
 * RUNNING (stop it first); a missing dir is RD_OK. */
rd_code runner_cleanup(const char *dir, rd_err *err);

/* Which runtime runs here is chosen at agent start by runtime_pick()
 * (runtime.h): a runtime's check must run a trivial container first. */

/* "auto", "process", "podman", "docker" -> kind; RD_EINVAL otherwise. */
rd_code runner_kind_parse(const char *text, runner_kind *out, rd_err *err);
const char *runner_kind_name(runner_kind kind);
const char *runner_state_name(runner_state state);

/* mkdir -p: every missing parent made with parent_mode, path itself with
 * mode; 0, or -1 with errno (an existing folder is no error). */
int runner_mkdirs(const char *path, int parent_mode, int mode);

/* A small file's text, NUL-ended in buf (cut at len - 1); 0, or -1. */
int runner_read_text(const char *path, char *buf, size_t len);

#endif
