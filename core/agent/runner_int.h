/* runner_int.h - what runner.c (the shim, the records) and runner_exec.c
 * (argv and environment per runtime, runtime detection) share. */
#ifndef RD_RUNNER_INT_H
#define RD_RUNNER_INT_H

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
} runner_plan;

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
