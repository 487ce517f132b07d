/* sync.h - `cloud sync` in the background while the console runs.
 *
 * A round of GCP provisioning waits on the Compute API (instances to
 * create, operations to finish) for seconds; the console must not.  Each
 * round runs the command line `cloud sync` in a child process (fork) with
 * its own store handle and command context: the core is not promised to be
 * thread-safe, and a child shares nothing with the console but the code.
 * The child sends the result back as one JSON document over a pipe; the
 * console polls the pipe from its loop and never blocks on it.  The store
 * changes the round makes reach the screen through the watch, like any
 * other writer's.
 */
#ifndef RD_SYNC_H
#define RD_SYNC_H

#include <stddef.h>
#include <sys/types.h>

#include "cmd.h"

#define SYNC_DEFAULT_INTERVAL_S 60

typedef struct {
    pid_t pid;              /* the running round's child, 0 when idle */
    int fd;                 /* the read end of its result pipe */
    char *buf;              /* what the child has sent so far */
    size_t len, cap;
    long long started_ms;
    long long next_ms;      /* when the timer starts the next round (0: never) */
    long long interval_ms;  /* 0: rounds only on request */
    int rounds;             /* finished rounds */
    int error;              /* the last round failed or reported errors */
    char label[160];        /* for the header: "sync 05:51:02 ok" */
    char message[600];      /* for the status line: what the last round did */
} sync_state;

/* Sets up the timer: RIGDECK_CLOUD_SYNC_S (seconds, 0 = only on request)
 * or SYNC_DEFAULT_INTERVAL_S; the first round starts after one interval. */
void sync_init(sync_state *s, long long now_ms);

/* Starts a round now unless one is running; returns 0, or -1 with why in
 * msg.  The child runs "cloud sync" with a context made like ctx (its URL,
 * options, actor, clock and read-only flag), never with ctx's handle. */
int sync_start(sync_state *s, const cmd_ctx *ctx, long long now_ms, char *msg, size_t len);

/* Reads what the running child sent, without blocking.  Returns 1 when a
 * round finished (label and message say how), else 0. */
int sync_poll(sync_state *s, long long now_ms);

/* 1 when the timer says a round is due. */
int sync_due(const sync_state *s, long long now_ms);

/* Summarises a `cloud sync` result ("1 created, 1 activated") into out;
 * returns the number of errors it reports. */
size_t sync_describe(const json_t *report, char *out, size_t len);

/* Stops following a running round (it finishes on its own) and frees. */
void sync_close(sync_state *s);

#endif
