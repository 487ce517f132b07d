/* runner_int.h - what runner.c (starting a worker under its shim),
 * runner_state.c (reading its records: status, signals, the fence, log,
 * cleanup), runner_exec.c (the checked spec, its variables, shared helpers)
 * and the runtimes (runtime.h: one file each) share. */
#ifndef RD_RUNNER_INT_H
#define RD_RUNNER_INT_H

#include <sched.h>

#include "runner.h"

/* A NULL-terminated, growing list of owned strings (argv, environments);
 * oom is set once an allocation failed, and every later add is dropped. */
typedef struct {
    char **v;
    size_t n, cap;
    int oom;
} runner_strv;

void runner_strv_take(runner_strv *s, char *owned);   /* takes owned (NULL: oom) */
void runner_strv_add(runner_strv *s, const char *text);
void runner_strv_addf(runner_strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void runner_strv_free(runner_strv *s);

/* "K=V" lists: the length of K; the index of the entry naming the same
 * variable as kv (-1: none); kv set in place of the same name, else
 * appended. */
size_t runner_env_name_len(const char *kv);
long runner_env_find(const runner_strv *s, const char *kv);
void runner_env_set(runner_strv *s, const char *kv);

/* Everything the worker execs, built before any fork (malloc is not safe
 * in the child of a threaded process). */
typedef struct {
    char *path;    /* execve path: /bin/sh, or the client found on PATH (its
                    * bare name when not found: execve then fails, 127) */
    char **argv;   /* NULL-terminated */
    char **envp;   /* NULL-terminated */
    char *record;  /* the pid record's lines that do not depend on the fork:
                    * "kind K\n" and, for containers, "client P\nname N\n" */
    /* Containers only (NULL for process): the pull step the worker runs
     * before the client (the image made present: pulled only when the
     * node lacks it), with envp; and the control folder DIR/.rigdeck/ctl
     * mounted into the container at RUNNER_CTL_MOUNT (runner.h: how the
     * agent knows the command started). */
    char *pull_path;
    char **pull_argv;
    char *ctl;
    int pin;       /* 1: the worker sets its affinity to cpus before exec */
    cpu_set_t cpus;
} runner_plan;

/* Where the container sees its control folder, and its files: the entry
 * writes "started" as its first act; the shim links "go" on the release
 * (the command then runs) or "abandon" (the entry exits 125 unrun). */
#define RUNNER_CTL_DIR "ctl"
#define RUNNER_CTL_MOUNT "/.rigdeck"

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
