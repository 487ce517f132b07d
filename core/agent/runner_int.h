/* runner_int.h - what runner.c (starting a worker under its shim),
 * runner_state.c (reading its records: status, signals, the fence, log,
 * cleanup) and runner_exec.c (argv and environment per runtime, runtime
 * detection) share. */
#ifndef RD_RUNNER_INT_H
#define RD_RUNNER_INT_H

#include <sched.h>

#include "runner.h"

/* Everything the worker execs, built before any fork (malloc is not safe
 * in the child of a threaded process). */
typedef struct {
    char *path;    /* execve path: /bin/sh, or the client found on PATH (its
                    * bare name when not found: execve then fails, 127) */
    char **argv;   /* NULL-terminated */
    char **envp;   /* NULL-terminated */
    char *record;  /* the pid record's lines that do not depend on the fork:
                    * "kind K\n" and, for containers, "client P\nname N\n" */
    int pin;       /* 1: the worker sets its affinity to cpus before exec */
    cpu_set_t cpus;
} runner_plan;

/* The hidden folder of a worker's records inside its directory. */
#define STATE_DIR ".rigdeck"

/* The pid record (runner.h). */
typedef struct {
    char boot[64];
    runner_kind kind;
    int hold;                 /* started held (the fence) */
    int shim_pid, worker_pid;
    unsigned long long shim_start, worker_start;
    int64_t started_ms;
    char client[1024];
    char name[256];
} runner_pid_rec;

/* DIR/.rigdeck/FILE (DIR/.rigdeck for ""), malloc'd; NULL without memory. */
char *runner_state_path(const char *dir, const char *file);

/* Reads DIR/.rigdeck/pid; *found is 0 when there is none.  RD_ECORRUPT
 * for a damaged record. */
rd_code runner_read_pid_rec(const char *dir, runner_pid_rec *r, int *found, rd_err *err);

/* This boot's id ("unknown" when the kernel does not say). */
void runner_boot_id(char out[64]);

/* Field 3 (state) and field 22 (start time, clock ticks since boot) of
 * /proc/PID/stat; -1 when the process does not exist.  Async-signal-safe. */
int runner_proc_stat(int pid, char *state, unsigned long long *start);

/* The fate written at path: 'g' (released), 'a' (abandoned), or 0 (none
 * yet, or unreadable).  Async-signal-safe. */
char runner_fate_read(const char *path);

/* Validates spec and fills plan; RD_EINVAL names the field. */
rd_code runner_plan_build(const runner_spec *spec, runner_plan *plan, rd_err *err);
void runner_plan_free(runner_plan *plan);

/* The executable `name` resolves to on the agent's PATH (malloc'd), or
 * NULL.  A name with a '/' is taken as is when executable. */
char *runner_find_program(const char *name);

/* Runs path argv in the background, detached from the agent (double fork,
 * new session, stdio on /dev/null), with the agent's environment; does not
 * wait for it.  0, or -1 when the fork failed. */
int runner_spawn_detached(const char *path, char *const argv[]);

/* Closes every fd from `from` up (close_range, or a loop without it).
 * Async-signal-safe. */
void runner_close_from(int from);

/* Puts every signal's disposition back to default and unblocks all.
 * Async-signal-safe. */
void runner_reset_signals(void);

#endif
