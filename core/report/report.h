/* report.h - the fleet reports (spec/operations.md, "report usage" and
 * "report rent-vs-buy"): report_cmd.c parses the commands, report_usage.c
 * and report_rvb.c build the results, report_jobs.c reads what workers did,
 * report_math.c holds the arithmetic.  Reports only read the store. */
#ifndef RD_REPORT_H
#define RD_REPORT_H

#include <jansson.h>
#include <stdint.h>

#include "cmd.h"
#include "rdtime.h"

/* The window a report covers, [since, until), and the clock: a worker still
 * running or waiting counts up to now.  account NULL: the whole fleet (for
 * fleet staff); else only that tenant's own workers (the jobs it pays for)
 * and its own wallet and earnings. */
typedef struct {
    rd_time since, until, now;
    const char *account;
} report_window;

/* What a worker did, read from its job document (report_jobs.c). */
typedef struct {
    const json_t *job;       /* borrowed from the job list */
    size_t index;            /* the worker's index */
    const char *node;        /* "" while it never was placed */
    const char *region;
    const char *gpu_type;    /* placed: the node's type; else the first the job asked for */
    const char *account;     /* who pays for its GPUs: the project's owner */
    int64_t gpus_x100;       /* 0 for a CPU-only worker */
    rd_time run_from, run_to;     /* started_at .. ended_at (or now); run_to <= run_from: never ran */
    rd_time wait_from, wait_to;   /* submitted_at .. placed (or ended unplaced, or now) */
    const json_t *alloc;     /* [{"gpu", "x100"}] on its node */
} report_worker;

/* Reads the worker w of job as of now into *out.  Returns 0 for a worker
 * whose times cannot be read (left out of every report). */
int report_worker_read(const json_t *job, size_t w, rd_time now, report_worker *out);

/* `report usage` and `report rent-vs-buy` (handlers of report_cmd.c's
 * table); the window is checked already. */
rd_code report_usage_build(cmd_ctx *ctx, const report_window *win, const char *by, json_t **result, rd_err *err);

typedef struct {
    const char *gpu_type;    /* NULL: every type seen */
    int64_t buy_ucr;         /* per GPU; 0: not given */
    int64_t lifetime_s;      /* 0: not given */
    int64_t watts;           /* per GPU; 0: not given */
    int64_t kwh_ucr;         /* per kWh; 0: not given */
} report_rvb_opts;

rd_code report_rvb_build(cmd_ctx *ctx, const report_window *win, const report_rvb_opts *o, json_t **result,
                         rd_err *err);

#endif
