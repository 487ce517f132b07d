/* sched_burst.h - ephemeral GCP nodes for workers that fit nowhere else. */
#ifndef RD_SCHED_BURST_H
#define RD_SCHED_BURST_H

#include "cmd.h"
#include "sched_index.h"

typedef enum {
    SCHED_BURST_NONE,        /* no GCP region of the owner applies */
    SCHED_BURST_STARTED,     /* an ephemeral node is recorded; the worker waits on it */
    SCHED_BURST_PENDING,     /* the worker already waits on a provisioning node */
    SCHED_BURST_EXHAUSTED,   /* GCP offers the type but its quota is used up; the job waits */
    SCHED_BURST_FAILED       /* ... and the project says fail: the job failed */
} sched_burst_outcome;

/* Tries to burst worker w of job id into its owner's GCP regions, committing
 * the node, the quota usage and the job as one step (nothing with dry_run). */
rd_code sched_burst_worker(cmd_ctx *ctx, sched_snapshot *s, const char *id, size_t w, int dry_run, sched_burst_outcome *out,
                     rd_err *err);

/* How many of the GCP regions a job could burst into (its owner's, ready,
 * offering a type it accepts within its max_price) have no quota left for
 * one of its workers: `job why` counts them as `quota`.  Their names are
 * appended to names (a JSON array; may be NULL). */
rd_code sched_burst_quota_blocked(cmd_ctx *ctx, const sched_snapshot *s, const json_t *job, size_t *regions,
                                  json_t *names, rd_err *err);

#endif
