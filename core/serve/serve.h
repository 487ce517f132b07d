/* serve.h - the controller loop of `rigdeck serve` (serve.c). */
#ifndef RD_SERVE_H
#define RD_SERVE_H

#include <signal.h>
#include <stdint.h>

#include "dlog.h"
#include "store.h"

typedef struct {
    const char *store_url;
    const store_opts *store_opts;
    const char *actor;                 /* the account it acts as (an administrator) */
    const char *master_key_path;
    int64_t sched_every_ms, bill_every_ms, sync_every_ms, node_timeout_ms;
    int once;                          /* one round, then return */
    const char *host, *version;
    long pid;
    dlog_sink log;                     /* its clock is the business clock too */
    volatile sig_atomic_t *stop;       /* set by a signal: finish the step, return */
} serve_opts;

/* Runs the controller until *stop (or one round with once).  RD_OK on a
 * clean stop; an error when the store cannot be opened at start. */
rd_code serve_run(const serve_opts *o, rd_err *err);

#endif
