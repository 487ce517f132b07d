/* burst.h - ephemeral GCP nodes for workers that fit nowhere else. */
#ifndef RD_BURST_H
#define RD_BURST_H

#include "cmd.h"
#include "sched.h"

typedef enum {
    BURST_NONE,        /* no GCP region of the owner applies */
    BURST_STARTED,     /* an ephemeral node is recorded; the worker waits on it */
    BURST_PENDING,     /* the worker already waits on a provisioning node */
    BURST_EXHAUSTED,   /* GCP offers the type but its quota is used up; the job waits */
    BURST_FAILED       /* ... and the project says fail: the job failed */
} burst_outcome;

/* Tries to burst worker w of job id into its owner's GCP regions, committing
 * the node, the quota usage and the job as one step (nothing with dry_run). */
rd_code burst_worker(cmd_ctx *ctx, sched_snapshot *s, const char *id, size_t w, int dry_run, burst_outcome *out,
                     rd_err *err);

#endif
